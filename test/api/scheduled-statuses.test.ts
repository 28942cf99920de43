// Scheduled posts over real HTTP, as Mastodon 4.5 answers them: POST /api/v1/statuses with scheduled_at gives a
// ScheduledStatus (its params, its reserved uploads), too soon is Mastodon's 422, the past posts now; the list pages
// with Link headers; PUT moves it under the same rules, DELETE frees its uploads; Mastodon's daily and total limits;
// the Idempotency-Key; and publication at the time through the ordinary post path (media, poll, the home feed).
// SCHEDULED_MIN_OFFSET_MS (test-only) shortens Mastodon's 5-minute minimum so publication is seen in seconds.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createRestAPIClient } from 'masto';
import { api, form, type Json } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';
import { parseScheduledAt } from '../../src/api/scheduled-at.js';
import { ApiError } from '../../src/errors.js';

const run = promisify(execFile);
const MIN_OFFSET_MS = 1_000;
const TOO_SOON = 'Validation failed: Scheduled at The scheduled date must be in the future';
const PARAM_KEYS = [
  'idempotency',
  'in_reply_to_id',
  'language',
  'media_ids',
  'poll',
  'quote_approval_policy',
  'quoted_status_id',
  'scheduled_at',
  'sensitive',
  'spoiler_text',
  'text',
  'visibility',
  'with_rate_limit',
];

describe('scheduled statuses', () => {
  let s: TestServer;
  let m: LocalMembers;
  const call = (who: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    api(s.url, m.token[who], method, path, body, headers);
  const inDays = (days: number, hour = 12) => {
    const d = new Date(Date.now() + days * 86_400_000);
    d.setUTCHours(hour, 0, 0, 0);
    return d.toISOString();
  };
  const countText = async (text: string) =>
    Number((await s.app.db.one<{ n: string }>('SELECT count(*) AS n FROM statuses WHERE text = $1 AND deleted_at IS NULL', [text]))!.n);

  before(async () => {
    s = await startTestServer({ SCHEDULED_MIN_OFFSET_MS: String(MIN_OFFSET_MS) });
    m = await createMembers(s, ['kai', 'lea', 'max', 'nia']);
  });
  after(async () => {
    await s.stop();
  });

  it('schedules a post: a ScheduledStatus with Mastodon’s params, and nothing posted yet', async () => {
    const at = inDays(2);
    const r = await call('kai', 'POST', '/api/v1/statuses', {
      status: 'later, friends',
      visibility: 'unlisted',
      spoiler_text: 'cw',
      language: 'en',
      scheduled_at: at,
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['id', 'media_attachments', 'params', 'scheduled_at']);
    assert.match(r.body.id, /^\d+$/);
    assert.equal(r.body.scheduled_at, at);
    assert.deepEqual(Object.keys(r.body.params).sort(), PARAM_KEYS, 'application_id is left out, as Mastodon’s serializer does');
    assert.deepEqual(r.body.params, {
      text: 'later, friends',
      visibility: 'unlisted',
      sensitive: true,
      spoiler_text: 'cw',
      language: 'en',
      in_reply_to_id: null,
      quoted_status_id: null,
      media_ids: null,
      poll: null,
      idempotency: null,
      scheduled_at: null,
      with_rate_limit: false,
      quote_approval_policy: 'public',
    });
    assert.deepEqual(r.body.media_attachments, []);
    assert.equal(await countText('later, friends'), 0);
    const one = await call('kai', 'GET', `/api/v1/scheduled_statuses/${r.body.id}`);
    assert.deepEqual(one.body, r.body);
    assert.equal((await call('lea', 'GET', `/api/v1/scheduled_statuses/${r.body.id}`)).status, 404, 'another member’s');
    assert.equal((await call('kai', 'GET', '/api/v1/scheduled_statuses/nope')).status, 404);
  });

  it('refuses a time sooner than the minimum with Mastodon’s words, posts a past time now, and refuses an unreadable one', async () => {
    const soon = await call('kai', 'POST', '/api/v1/statuses', { status: 'too soon', scheduled_at: new Date(Date.now() + MIN_OFFSET_MS / 2).toISOString() });
    assert.deepEqual([soon.status, soon.body], [422, { error: TOO_SOON }]);
    const past = await call('kai', 'POST', '/api/v1/statuses', { status: 'from the past', scheduled_at: '2020-01-01T00:00:00Z' });
    assert.deepEqual([past.status, past.body.content], [200, '<p>from the past</p>'], 'Mastodon posts a past scheduled_at at once');
    for (const bad of ['tomorrow', '2026-13-01T00:00:00Z', '2026-02-30', 12345]) {
      const r = await call('kai', 'POST', '/api/v1/statuses', { status: 'bad date', scheduled_at: bad });
      assert.deepEqual([r.status, r.body], [422, { error: 'Record invalid' }], String(bad));
    }
    assert.equal(await countText('too soon'), 0);
    assert.equal(await countText('bad date'), 0);
  });

  it('reads ISO 8601 as Ruby does (zones, fractions, no zone as UTC) and refuses anything else with a 422, never a throw of another kind', () => {
    assert.equal(parseScheduledAt('2030-05-06T07:08:09Z')?.toISOString(), '2030-05-06T07:08:09.000Z');
    assert.equal(parseScheduledAt('2030-05-06T07:08:09.5+02:00')?.toISOString(), '2030-05-06T05:08:09.500Z');
    assert.equal(parseScheduledAt('2030-05-06 07:08')?.toISOString(), '2030-05-06T07:08:00.000Z');
    assert.equal(parseScheduledAt('2030-05-06')?.toISOString(), '2030-05-06T00:00:00.000Z');
    assert.equal(parseScheduledAt(''), undefined);
    assert.equal(parseScheduledAt(null), undefined);
    fc.assert(
      fc.property(fc.date({ min: new Date('1970-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }), (d) => {
        assert.equal(parseScheduledAt(d.toISOString())?.getTime(), d.getTime());
      }),
      { seed: 36, numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer(), fc.constant({})), (v) => {
        try {
          const d = parseScheduledAt(v);
          assert.ok(d === undefined || !Number.isNaN(d.getTime()));
        } catch (e) {
          assert.ok(e instanceof ApiError && e.status === 422, String(e));
        }
      }),
      { seed: 36, numRuns: 500 },
    );
  });

  it('lists the member’s scheduled posts newest first, paged with Link headers; PUT moves one, DELETE cancels it', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await call('lea', 'POST', '/api/v1/statuses', { status: `lea ${i}`, scheduled_at: inDays(3 + i) })).body.id);
    const page = await call('lea', 'GET', '/api/v1/scheduled_statuses?limit=2');
    assert.deepEqual(
      page.body.map((x: Json) => x.id),
      [ids[2], ids[1]],
    );
    assert.match(page.link ?? '', new RegExp(`max_id=${ids[1]}>; rel="next"`));
    assert.match(page.link ?? '', new RegExp(`min_id=${ids[2]}>; rel="prev"`));
    const next = await call('lea', 'GET', `/api/v1/scheduled_statuses?limit=2&max_id=${ids[1]}`);
    assert.deepEqual(
      next.body.map((x: Json) => x.id),
      [ids[0]],
    );
    assert.deepEqual((await call('kai', 'GET', '/api/v1/scheduled_statuses')).body.map((x: Json) => x.params.text).includes('lea 0'), false);

    const at = inDays(9, 8);
    const moved = await call('lea', 'PUT', `/api/v1/scheduled_statuses/${ids[0]}`, { scheduled_at: at });
    assert.deepEqual([moved.status, moved.body.scheduled_at, moved.body.params.text], [200, at, 'lea 0']);
    const movedByForm = await call('lea', 'PUT', `/api/v1/scheduled_statuses/${ids[0]}`, form({ scheduled_at: inDays(10) }));
    assert.equal(movedByForm.body.scheduled_at, inDays(10));
    const soon = await call('lea', 'PUT', `/api/v1/scheduled_statuses/${ids[0]}`, { scheduled_at: new Date().toISOString() });
    assert.deepEqual([soon.status, soon.body], [422, { error: TOO_SOON }]);
    assert.equal((await call('kai', 'PUT', `/api/v1/scheduled_statuses/${ids[0]}`, { scheduled_at: at })).status, 404);

    assert.equal((await call('kai', 'DELETE', `/api/v1/scheduled_statuses/${ids[0]}`)).status, 404);
    const gone = await call('lea', 'DELETE', `/api/v1/scheduled_statuses/${ids[0]}`);
    assert.deepEqual([gone.status, gone.body], [200, {}]);
    assert.equal((await call('lea', 'GET', `/api/v1/scheduled_statuses/${ids[0]}`)).status, 404);
  });

  it('reserves the uploads of a scheduled post: no other post may take them, and cancelling frees them', async () => {
    const media = (await upload(s.url, m.token['max']!, png(8, 8), { description: 'later' })).body;
    const r = await call('max', 'POST', '/api/v1/statuses', { status: 'with a picture', media_ids: [media.id], scheduled_at: inDays(4) });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.params.media_ids, [media.id]);
    assert.deepEqual(
      r.body.media_attachments.map((a: Json) => [a.id, a.description]),
      [[media.id, 'later']],
    );
    const taken = await call('max', 'POST', '/api/v1/statuses', { status: 'steal it', media_ids: [media.id] });
    assert.equal(taken.status, 422);
    const twice = await call('max', 'POST', '/api/v1/statuses', { status: 'twice', media_ids: [media.id], scheduled_at: inDays(5) });
    assert.equal(twice.status, 422);
    const deleted = await call('max', 'DELETE', `/api/v1/media/${media.id}`);
    assert.deepEqual([deleted.status, deleted.body], [422, { error: 'Media attachment is currently used by a status' }]);
    const others = await call('nia', 'POST', '/api/v1/statuses', { status: 'not mine', media_ids: [media.id], scheduled_at: inDays(4) });
    assert.equal(others.status, 422, 'another member’s upload');

    assert.equal((await call('max', 'DELETE', `/api/v1/scheduled_statuses/${r.body.id}`)).status, 200);
    const now = await call('max', 'POST', '/api/v1/statuses', { status: 'free again', media_ids: [media.id] });
    assert.deepEqual([now.status, now.body.media_attachments[0]?.id], [200, media.id]);
  });

  it('answers a retry with the same Idempotency-Key with the same scheduled post', async () => {
    const body = { status: 'once only', scheduled_at: inDays(6) };
    const a = await call('nia', 'POST', '/api/v1/statuses', body, { 'Idempotency-Key': 'k-1' });
    const b = await call('nia', 'POST', '/api/v1/statuses', body, { 'Idempotency-Key': 'k-1' });
    assert.deepEqual([a.status, b.status, b.body.id], [200, 200, a.body.id]);
    const c = await call('nia', 'POST', '/api/v1/statuses', body, { 'Idempotency-Key': 'k-2' });
    assert.notEqual(c.body.id, a.body.id);
    const listed = (await call('nia', 'GET', '/api/v1/scheduled_statuses')).body.filter((x: Json) => x.params.text === 'once only');
    assert.equal(listed.length, 2);
  });

  it('holds to Mastodon’s limits: 25 a day, 300 in all', async () => {
    const members = await createMembers(s, ['ola', 'pim']);
    const day = inDays(20, 1);
    for (let i = 0; i < 25; i++) {
      const r = await api(s.url, members.token['ola'], 'POST', '/api/v1/statuses', { status: `daily ${i}`, scheduled_at: day });
      assert.equal(r.status, 200, r.text);
    }
    const over = await api(s.url, members.token['ola'], 'POST', '/api/v1/statuses', { status: 'one more', scheduled_at: inDays(20, 23) });
    assert.deepEqual([over.status, over.body], [422, { error: 'Validation failed: You have exceeded the limit of 25 scheduled posts for today' }]);
    const nextDay = await api(s.url, members.token['ola'], 'POST', '/api/v1/statuses', { status: 'next day', scheduled_at: inDays(21, 1) });
    assert.equal(nextDay.status, 200);
    // 300 in all: 299 spread over days, written directly; the API's 300th passes and the 301st is refused.
    await s.app.db.exec(
      `INSERT INTO scheduled_statuses (account_id, scheduled_at, params)
       SELECT $1, now() + (g || ' days')::interval, '{"text":"bulk"}'::jsonb FROM generate_series(30, 328) g`,
      [members.id['pim']],
    );
    const last = await api(s.url, members.token['pim'], 'POST', '/api/v1/statuses', { status: 'the 300th', scheduled_at: inDays(400) });
    assert.equal(last.status, 200, last.text);
    const beyond = await api(s.url, members.token['pim'], 'POST', '/api/v1/statuses', { status: 'the 301st', scheduled_at: inDays(401) });
    assert.deepEqual([beyond.status, beyond.body], [422, { error: 'Validation failed: You have exceeded the limit of 300 scheduled posts' }]);
  });

  it('publishes at its time through the ordinary post path: media, the home feed of a follower, gone from the list', async () => {
    const follow = await call('lea', 'POST', `/api/v1/accounts/${m.id['kai']}/follow`);
    assert.equal(follow.status, 200);
    const media = (await upload(s.url, m.token['kai']!, png(8, 8))).body;
    const at = new Date(Date.now() + MIN_OFFSET_MS + 500).toISOString();
    const r = await call('kai', 'POST', '/api/v1/statuses', { status: 'right on time', media_ids: [media.id], scheduled_at: at });
    assert.equal(r.status, 200, r.text);
    const poll = await call('kai', 'POST', '/api/v1/statuses', {
      status: 'a scheduled poll',
      poll: { options: ['yes', 'no'], expires_in: 3600 },
      scheduled_at: at,
    });
    assert.deepEqual(poll.body.params.poll, { options: ['yes', 'no'], expires_in: 3600, multiple: false, hide_totals: false });
    await eventually(async () => {
      const home = await call('lea', 'GET', '/api/v1/timelines/home');
      const post = home.body.find((x: Json) => x.content === '<p>right on time</p>');
      assert.ok(post, 'in the follower’s home feed');
      assert.deepEqual(
        post.media_attachments.map((a: Json) => a.id),
        [media.id],
      );
      const polled = home.body.find((x: Json) => x.content === '<p>a scheduled poll</p>');
      assert.deepEqual(
        polled?.poll?.options.map((o: Json) => o.title),
        ['yes', 'no'],
      );
    }, 10_000);
    assert.equal((await call('kai', 'GET', `/api/v1/scheduled_statuses/${r.body.id}`)).status, 404);
    assert.equal(await countText('right on time'), 1);
    const kept = await s.app.db.one<{ n: string }>(
      'SELECT count(*) AS n FROM media_attachments WHERE id = $1 AND status_id IS NOT NULL AND scheduled_status_id IS NULL',
      [media.id],
    );
    assert.equal(kept!.n, '1');
  });

  it('publishes a reply in its thread with the app it was scheduled through, and drops one whose parent is gone', async () => {
    const parent = (await call('lea', 'POST', '/api/v1/statuses', { status: 'a thread' })).body;
    const doomed = (await call('lea', 'POST', '/api/v1/statuses', { status: 'soon gone' })).body;
    const at = new Date(Date.now() + MIN_OFFSET_MS + 500).toISOString();
    const reply = await call('nia', 'POST', '/api/v1/statuses', { status: 'a late reply', in_reply_to_id: parent.id, scheduled_at: at });
    assert.deepEqual([reply.status, reply.body.params.in_reply_to_id], [200, parent.id]);
    const orphan = await call('nia', 'POST', '/api/v1/statuses', { status: 'an orphan reply', in_reply_to_id: doomed.id, scheduled_at: at });
    assert.equal(orphan.status, 200);
    assert.equal((await call('lea', 'DELETE', `/api/v1/statuses/${doomed.id}`)).status, 200);
    await eventually(async () => {
      const context = await call('lea', 'GET', `/api/v1/statuses/${parent.id}/context`);
      const published = context.body.descendants.find((x: Json) => x.content === '<p>a late reply</p>');
      assert.ok(published, 'in the thread');
      assert.equal(published.in_reply_to_id, parent.id);
      assert.equal(typeof published.application?.name, 'string', 'posted through the app that scheduled it');
      assert.equal((await call('nia', 'GET', `/api/v1/scheduled_statuses/${orphan.body.id}`)).status, 404, 'taken, then dropped');
    }, 10_000);
    assert.equal(await countText('an orphan reply'), 0, 'Mastodon drops a scheduled reply to a status that is gone');
  });

  it('checks the quoted author\'s policy again at publication: a quote scheduled before it became "nobody" is dropped', async () => {
    const quoted = (await call('max', 'POST', '/api/v1/statuses', { status: 'quote me while you can' })).body;
    const at = new Date(Date.now() + MIN_OFFSET_MS + 500).toISOString();
    const kept = await call('kai', 'POST', '/api/v1/statuses', { status: 'a timely quote', quoted_status_id: quoted.id, scheduled_at: at });
    const late = await call('nia', 'POST', '/api/v1/statuses', { status: 'a quote too late', quoted_status_id: quoted.id, scheduled_at: at });
    assert.deepEqual([kept.status, late.status], [200, 200]);
    // kai follows max, so a "followers" policy still lets kai quote; nia follows no one.
    assert.equal((await call('kai', 'POST', `/api/v1/accounts/${m.id['max']}/follow`)).status, 200);
    assert.equal((await call('max', 'PUT', `/api/v1/statuses/${quoted.id}/interaction_policy`, { quote_approval_policy: 'followers' })).status, 200);
    await eventually(async () => {
      assert.equal((await call('nia', 'GET', `/api/v1/scheduled_statuses/${late.body.id}`)).status, 404, 'taken');
      assert.equal((await call('kai', 'GET', `/api/v1/scheduled_statuses/${kept.body.id}`)).status, 404, 'taken');
      assert.equal(await countText('a timely quote'), 1);
    }, 10_000);
    assert.equal(await countText('a quote too late'), 0, 'dropped: the policy no longer lets nia quote it');
  });

  it('a post that fails to publish (not refused: fails) is kept and tried later, and holds back none due after it', async () => {
    // A row no post can be made of without an error of the database's: the earliest due, claimed first each time.
    const poison = await s.app.db.one<{ id: string }>(
      `INSERT INTO scheduled_statuses (account_id, scheduled_at, params) VALUES ($1, now() - interval '1 second', $2) RETURNING id::text AS id`,
      [m.id['lea'], JSON.stringify({ text: 'poisoned', visibility: 'bogus', sensitive: false, spoiler_text: '', language: null, media_ids: [] })],
    );
    const at = new Date(Date.now() + MIN_OFFSET_MS + 500).toISOString();
    const next = await call('lea', 'POST', '/api/v1/statuses', { status: 'due after the poisoned one', scheduled_at: at });
    assert.equal(next.status, 200);
    await eventually(async () => assert.equal(await countText('due after the poisoned one'), 1), 10_000);
    assert.equal(await countText('poisoned'), 0);
    const kept = await s.app.db.one<{ later: boolean }>('SELECT scheduled_at > now() AS later FROM scheduled_statuses WHERE id = $1', [poison!.id]);
    assert.deepEqual(kept, { later: true }, 'kept, and moved on to be tried again');
    await s.app.db.exec('DELETE FROM scheduled_statuses WHERE id = $1', [poison!.id]);
  });

  it('works through masto.js: statuses.create({scheduledAt}), scheduledStatuses.list, $select(id).update and remove', async () => {
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['nia']! });
    const at = inDays(7);
    const made = await client.v1.statuses.create({ status: 'via masto', scheduledAt: at });
    assert.ok('params' in made, 'a ScheduledStatus');
    assert.equal(made.scheduledAt, at);
    const listed = await client.v1.scheduledStatuses.list();
    assert.ok(listed.some((x) => x.id === made.id));
    const moved = await client.v1.scheduledStatuses.$select(made.id).update({ scheduledAt: inDays(8) });
    assert.equal(moved.scheduledAt, inDays(8));
    await client.v1.scheduledStatuses.$select(made.id).remove();
    await assert.rejects(client.v1.scheduledStatuses.$select(made.id).fetch());
  });

  it('works through Mastodon.py 1.8: status_post(scheduled_at=…), scheduled_statuses, scheduled_status_update, scheduled_status_delete', async () => {
    const script = `
import json, os, datetime
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
at = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=3)
s = m.status_post('via python', scheduled_at=at)
out = {'text': s['params']['text'], 'listed': [x['id'] for x in m.scheduled_statuses()] == [s['id']]}
later = at + datetime.timedelta(days=1)
u = m.scheduled_status_update(s['id'], later)
out['moved'] = u['scheduled_at'].replace(microsecond=0) == later.replace(microsecond=0)
m.scheduled_status_delete(s['id'])
out['left'] = len(m.scheduled_statuses())
print(json.dumps(out))
`;
    const members = await createMembers(s, ['py']);
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: members.token['py']! } });
    assert.deepEqual(JSON.parse(stdout), { text: 'via python', listed: true, moved: true, left: 0 });
  });
});
