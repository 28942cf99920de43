// Mastodon's announcements as members' apps call them: the published, unfinished ones in chronological order with
// the entity's every field (content HTML naming accounts, posts and hashtags), dismissing (then `read`), reactions
// (a Unicode emoji; anything else 422; a ninth different one 422; taking back one not given 404), the scopes and
// errors, through masto.js and Mastodon.py 1.8 too; and the `announcement`, `announcement.reaction` and
// `announcement.delete` events on a member's user stream.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { createRestAPIClient } from 'masto';
import megalodonModule from 'megalodon';
import { AnnouncementStore } from '../../src/store/announcements.js';
import { parseStreamEvent } from '../../src/store/stream-events.js';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openSse, openWs, subscribed, type WsClient } from '../support/streaming.js';
import { eventually } from '../support/wait.js';

const run = promisify(execFile);
// megalodon is CommonJS: imported from ESM, its default export is the module object, whose `default` is generator().
const generator = megalodonModule.default;
const THUMBS = encodeURIComponent('👍');
const PROPERTY = { seed: Number(process.env['FC_SEED'] ?? 20261202), numRuns: Number(process.env['FC_RUNS'] ?? 60), endOnFailure: true } as const;

describe('announcements API', () => {
  let s: TestServer;
  let m: LocalMembers;
  let store: AnnouncementStore;
  const sockets: WsClient[] = [];
  const call = (who: string | undefined, method: string, path: string, body?: unknown) => api(s.url, who && m.token[who], method, path, body);
  const list = async (who: string, query = ''): Promise<Json[]> => {
    const r = await call(who, 'GET', `/api/v1/announcements${query}`);
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const write = (text: string, o: { publish?: boolean; startsAt?: Date; endsAt?: Date; allDay?: boolean } = {}) =>
    store.create({ text, allDay: o.allDay ?? false, startsAt: o.startsAt ?? null, endsAt: o.endsAt ?? null }, o.publish ?? true);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'cat']);
    store = new AnnouncementStore(s.app.db);
  });
  after(async () => {
    for (const c of sockets) c.ws.terminate();
    await s?.stop();
  });

  it('lists the published, unfinished announcements in chronological order, with every field of the entity', async () => {
    const post = await call('bob', 'POST', '/api/v1/statuses', { status: 'the release notes' });
    assert.equal(post.status, 200, post.text);
    const hour = 3_600_000;
    const later = await write('Maintenance tonight', { startsAt: new Date(Date.now() + 2 * hour), endsAt: new Date(Date.now() + 3 * hour) });
    const first = await write(`Welcome! Ask @bob, read ${post.body.url} and use #Stoa`);
    await write('a draft', { publish: false });
    await write('over', { startsAt: new Date(Date.now() - 3 * hour), endsAt: new Date(Date.now() - 2 * hour) });
    // An all-day event ending today (its end is the day, given as midnight) lasts through today.
    const midnight = new Date(new Date().toISOString().slice(0, 10));
    const today = await write('all day today', { allDay: true, startsAt: new Date(midnight.getTime() - 24 * hour), endsAt: midnight });
    await write('all day yesterday', { allDay: true, startsAt: new Date(midnight.getTime() - 48 * hour), endsAt: new Date(midnight.getTime() - 24 * hour) });

    const got = await list('ann');
    assert.deepEqual(
      got.map((a) => a.id),
      [today.id, first.id, later.id],
      'drafts and ended ones are not shown; one not yet started is (its times are the event)',
    );
    assert.equal(got[0]!.all_day, true);
    got.shift();
    const a = got[0]!;
    assert.deepEqual(Object.keys(a), [
      'id',
      'content',
      'starts_at',
      'ends_at',
      'all_day',
      'published_at',
      'updated_at',
      'read',
      'mentions',
      'statuses',
      'tags',
      'emojis',
      'reactions',
    ]);
    assert.equal(typeof a.id, 'string');
    assert.match(a.content, /^<p>Welcome! Ask <span class="h-card"><a href="[^"]+\/@bob" class="u-url mention">@<span>bob<\/span><\/a><\/span>/);
    assert.match(a.content, /<a href="[^"]+\/tags\/Stoa" class="mention hashtag" rel="tag">#<span>Stoa<\/span><\/a>/);
    assert.equal(a.starts_at, null);
    assert.equal(a.ends_at, null);
    assert.equal(a.all_day, false);
    assert.ok(!Number.isNaN(Date.parse(a.published_at)) && !Number.isNaN(Date.parse(a.updated_at)));
    assert.equal(a.read, false);
    assert.deepEqual(a.mentions, [{ id: m.id['bob'], username: 'bob', url: `${s.url}/@bob`, acct: 'bob' }]);
    assert.deepEqual(a.statuses, [{ id: post.body.id, url: post.body.url }]);
    assert.deepEqual(a.tags, [{ name: 'Stoa', url: `${s.url}/tags/Stoa` }]);
    assert.deepEqual(a.emojis, []);
    assert.deepEqual(a.reactions, []);
    assert.equal(got[1]!.starts_at, later.startsAt!.toISOString());
    assert.equal(got[1]!.ends_at, later.endsAt!.toISOString());
  });

  it('needs a member token with read; dismissing one marks it read for that member only', async () => {
    assert.equal((await call(undefined, 'GET', '/api/v1/announcements')).status, 401);
    const [a] = await list('ann');
    const dismissed = await call('ann', 'POST', `/api/v1/announcements/${a!.id}/dismiss`);
    assert.equal(dismissed.status, 200, dismissed.text);
    assert.deepEqual(dismissed.body, {});
    assert.equal((await call('ann', 'POST', `/api/v1/announcements/${a!.id}/dismiss`)).status, 200, 'twice is fine');
    assert.equal((await list('ann')).find((x) => x.id === a!.id).read, true);
    assert.equal((await list('bob')).find((x) => x.id === a!.id).read, false);
    assert.ok(!(await list('ann', '?with_dismissed=false')).some((x) => x.id === a!.id), 'with_dismissed=false leaves it out');
    assert.ok((await list('ann', '?with_dismissed=true')).some((x) => x.id === a!.id));

    const draft = await write('not yet', { publish: false });
    for (const id of [draft.id, '123', 'nope']) {
      const r = await call('ann', 'POST', `/api/v1/announcements/${id}/dismiss`);
      assert.equal(r.status, 404, r.text);
      assert.deepEqual(r.body, { error: 'Record not found' });
    }
  });

  it('takes reactions: a Unicode emoji, counted per name with `me`; anything else refused as Mastodon words it', async () => {
    const a = await write('react to me');
    const path = (name: string) => `/api/v1/announcements/${a.id}/reactions/${name}`;
    assert.equal((await call('ann', 'PUT', path(THUMBS))).status, 200);
    assert.equal((await call('ann', 'PUT', path(THUMBS))).status, 200, 'again: still one');
    assert.equal((await call('bob', 'PUT', path(THUMBS))).status, 200);
    assert.equal((await call('bob', 'PUT', path(encodeURIComponent('🎉')))).status, 200);
    const mine = (await list('ann')).find((x) => x.id === a.id);
    assert.deepEqual(mine.reactions, [
      { name: '👍', count: 2, me: true },
      { name: '🎉', count: 1, me: false },
    ]);
    assert.deepEqual(
      (await list('cat')).find((x) => x.id === a.id).reactions.map((r: Json) => r.me),
      [false, false],
    );

    for (const name of ['blobcat', ':blobcat:', 'ab', encodeURIComponent('👍👍')]) {
      const r = await call('ann', 'PUT', path(name));
      assert.equal(r.status, 422, `${name}: ${r.text}`);
      assert.deepEqual(r.body, { error: 'Validation failed: Name is not a recognized emoji' });
    }
    const notMine = await call('cat', 'DELETE', path(THUMBS));
    assert.equal(notMine.status, 404, notMine.text);
    assert.equal((await call('ann', 'DELETE', path(THUMBS))).status, 200);
    assert.deepEqual((await list('ann')).find((x) => x.id === a.id).reactions[0], { name: '👍', count: 1, me: false });

    // Eight different reactions at most (Mastodon's ReactionValidator::LIMIT); an existing one may still be added.
    for (const e of ['😀', '😂', '😍', '🙏', '🚀', '❤️']) assert.equal((await call('cat', 'PUT', path(encodeURIComponent(e)))).status, 200, e);
    const ninth = await call('cat', 'PUT', path(encodeURIComponent('🐘')));
    assert.equal(ninth.status, 422, ninth.text);
    assert.deepEqual(ninth.body, { error: 'Validation failed: Name limit of different reactions reached' });
    assert.equal((await call('ann', 'PUT', path(THUMBS))).status, 200);
    assert.equal((await call('ann', 'PUT', `/api/v1/announcements/1/reactions/${THUMBS}`)).status, 404);
  });

  it('answers any reaction name a client sends with 200, 404 or 422 and a JSON error, never a 5xx (property)', async () => {
    const a = await write('hostile names');
    const name = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 6 }),
      fc.string({ maxLength: 30 }),
      fc.constantFrom('%F0%9F', '%00', '..', '%2F', ':a:', '❤', '🏳️‍🌈', '1️⃣', '🇫🇷', `${'😀'.repeat(50)}`),
    );
    await fc.assert(
      fc.asyncProperty(name, fc.constantFrom('PUT', 'DELETE'), async (n, method) => {
        const path = `/api/v1/announcements/${a.id}/reactions/${/%/.test(n) ? n : encodeURIComponent(n)}`;
        const r = await call('cat', method, path);
        assert.ok([200, 404, 422].includes(r.status), `${method} ${JSON.stringify(n)}: ${r.status} ${r.text}`);
        if (r.status !== 200) assert.equal(typeof r.body.error, 'string');
      }),
      PROPERTY,
    );
    assert.equal((await call('cat', 'GET', '/api/v1/announcements')).status, 200);
  });

  it('reads the announcement events it is told, and ignores any other payload (property)', () => {
    assert.deepEqual(parseStreamEvent('{"event":"announcement.reaction","announcement":"12","name":"👍"}'), {
      event: 'announcement.reaction',
      announcement: '12',
      name: '👍',
    });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc
            .record({
              event: fc.constantFrom('announcement', 'announcement.delete', 'announcement.reaction'),
              announcement: fc.jsonValue(),
              name: fc.jsonValue(),
            })
            .map((v) => JSON.stringify(v)),
        ),
        (payload) => {
          const e = parseStreamEvent(payload);
          if (e?.event.startsWith('announcement')) assert.match((e as { announcement: string }).announcement, /^\d{1,20}$/);
        },
      ),
      PROPERTY,
    );
  });

  it('checks the scopes Mastodon names: read to list, write:accounts to dismiss, write:favourites to react', async () => {
    const a = await write('scoped');
    const favs = await m.tokenFor('ann', ['write:favourites']);
    const accounts = await m.tokenFor('ann', ['write:accounts']);
    const reads = await m.tokenFor('ann', ['read:statuses']);
    assert.equal((await api(s.url, reads, 'GET', '/api/v1/announcements')).status, 403, 'read:statuses is not read');
    assert.equal((await api(s.url, favs, 'POST', `/api/v1/announcements/${a.id}/dismiss`)).status, 403);
    assert.equal((await api(s.url, accounts, 'POST', `/api/v1/announcements/${a.id}/dismiss`)).status, 200);
    assert.equal((await api(s.url, accounts, 'PUT', `/api/v1/announcements/${a.id}/reactions/${THUMBS}`)).status, 403);
    assert.equal((await api(s.url, favs, 'PUT', `/api/v1/announcements/${a.id}/reactions/${THUMBS}`)).status, 200);
  });

  it('serves masto.js: announcements.list, $select(id).dismiss, reactions.$select(name).update and remove', async () => {
    const a = await write('through masto');
    const client = createRestAPIClient({ url: s.url, accessToken: m.token['cat']! });
    const listed = await client.v1.announcements.list();
    const mine = listed.find((x) => x.id === a.id)!;
    assert.equal((mine as unknown as Json).read, false, 'masto.js types no `read`; Mastodon sends it');
    assert.equal(mine.content, '<p>through masto</p>');
    await client.v1.announcements.$select(a.id).dismiss();
    await client.v1.announcements.$select(a.id).reactions.$select('🐘').update();
    const after = (await client.v1.announcements.list()).find((x) => x.id === a.id)!;
    assert.equal((after as unknown as Json).read, true);
    assert.deepEqual(after.reactions, [{ name: '🐘', count: 1, me: true }]);
    await client.v1.announcements.$select(a.id).reactions.$select('🐘').remove();
    assert.deepEqual((await client.v1.announcements.list()).find((x) => x.id === a.id)!.reactions, []);
  });

  it('serves megalodon 10: getInstanceAnnouncements, dismissInstanceAnnouncement, add and removeReactionToAnnouncement', async () => {
    const a = await write('through megalodon');
    const client = generator('mastodon', s.url, m.token['ann']);
    const mine = async () => (await client.getInstanceAnnouncements()).data.find((x) => x.id === a.id)!;
    assert.equal((await mine()).content, '<p>through megalodon</p>');
    assert.equal((await client.dismissInstanceAnnouncement(a.id)).status, 200);
    assert.equal((await client.addReactionToAnnouncement(a.id, '🎉')).status, 200);
    const after = await mine();
    assert.equal(after.read, true);
    assert.deepEqual(after.reactions, [{ name: '🎉', count: 1, me: true }]);
    await client.removeReactionFromAnnouncement(a.id, '🎉');
    assert.deepEqual((await mine()).reactions, []);
  });

  it('serves Mastodon.py 1.8: announcements, announcement_dismiss, announcement_reaction_create and _delete', async () => {
    const a = await write('through Mastodon.py');
    const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
aid = os.environ['ID']
out = {}
mine = [x for x in m.announcements() if str(x['id']) == aid][0]
out['before'] = [mine['read'], mine['content'], mine['all_day']]
m.announcement_dismiss(aid)
m.announcement_reaction_create(aid, '\\U0001F44D')
mine = [x for x in m.announcements() if str(x['id']) == aid][0]
out['after'] = [mine['read'], [[r['name'], r['count'], r['me']] for r in mine['reactions']]]
m.announcement_reaction_delete(aid, '\\U0001F44D')
out['deleted'] = [x for x in m.announcements() if str(x['id']) == aid][0]['reactions']
print(json.dumps(out))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: m.token['bob']!, ID: a.id } });
    assert.deepEqual(JSON.parse(stdout), {
      before: [false, '<p>through Mastodon.py</p>', false],
      after: [true, [['👍', 1, true]]],
      deleted: [],
    });
  });

  it('streams announcement, announcement.reaction and announcement.delete on the user stream', async () => {
    const c = await openWs(s.url, m.token['ann'], 'stream=user');
    sockets.push(c);
    await subscribed(s, m.id['ann']!, 'user');
    const draft = await write('coming soon', { publish: false });
    let other: { id: string } | undefined;
    // Only this test's announcements: reactions the earlier tests gave may still be on their way.
    const ours = () =>
      c.frames.filter((f) => [draft.id, other?.id].includes(typeof f.payload === 'string' ? f.payload : (f.payload?.id ?? f.payload?.announcement_id)));
    await store.setPublished(draft.id, true);
    await eventually(() => assert.equal(framesOf(ours(), 'announcement').length, 1));
    const published = framesOf(ours(), 'announcement')[0]!;
    assert.deepEqual(published.stream, ['user']);
    assert.equal(published.payload.id, draft.id);
    assert.equal(published.payload.content, '<p>coming soon</p>');
    assert.equal(published.payload.read, false);
    assert.deepEqual(published.payload.reactions, []);
    assert.deepEqual(
      published.payload,
      (await list('ann')).find((x) => x.id === draft.id),
      'the same entity the API shows',
    );

    assert.equal((await call('bob', 'PUT', `/api/v1/announcements/${draft.id}/reactions/${THUMBS}`)).status, 200);
    await eventually(() => assert.equal(framesOf(ours(), 'announcement.reaction').length, 1));
    assert.deepEqual(framesOf(ours(), 'announcement.reaction')[0]!.payload, { name: '👍', count: 1, announcement_id: draft.id });

    // An edit of a published one is sent again (Mastodon's PublishAnnouncementWorker on update), as each member sees it.
    await store.update(draft.id, { text: 'coming now', allDay: false, startsAt: null, endsAt: null });
    await eventually(() => assert.equal(framesOf(ours(), 'announcement').length, 2));
    assert.equal(framesOf(ours(), 'announcement')[1]!.payload.content, '<p>coming now</p>');
    assert.deepEqual(framesOf(ours(), 'announcement')[1]!.payload.reactions, [{ name: '👍', count: 1, me: false }]);

    await store.setPublished(draft.id, false);
    await eventually(() => assert.equal(framesOf(ours(), 'announcement.delete').length, 1));
    assert.equal(framesOf(ours(), 'announcement.delete')[0]!.payload, draft.id);
    // A draft's changes are nobody's news; deleting a published one is.
    await store.update(draft.id, { text: 'still a draft', allDay: false, startsAt: null, endsAt: null });
    other = await write('short-lived');
    await eventually(() => assert.equal(framesOf(ours(), 'announcement').length, 3));
    await store.remove(other!.id);
    await eventually(() => assert.equal(framesOf(ours(), 'announcement.delete').length, 2));
    assert.equal(framesOf(ours(), 'announcement.delete')[1]!.payload, other!.id);
    assert.deepEqual(
      ours().map((f) => f.event),
      ['announcement', 'announcement.reaction', 'announcement', 'announcement.delete', 'announcement', 'announcement.delete'],
    );
  });

  it('streams them to a server-sent-events user stream too', async () => {
    const sse = await openSse(s.url, '/api/v1/streaming/user', m.token['bob']);
    assert.equal(sse.status, 200);
    await subscribed(s, m.id['bob']!, 'user');
    const a = await write('over SSE');
    await eventually(() => assert.ok(sse.events.some((e) => e.event === 'announcement' && e.data.id === a.id)));
    const shown = sse.events.find((e) => e.event === 'announcement' && e.data.id === a.id)!;
    assert.equal(shown.data.content, '<p>over SSE</p>');
    await store.remove(a.id);
    await eventually(() => assert.ok(sse.events.some((e) => e.event === 'announcement.delete' && e.data === a.id)));
    sse.close();
  });
});
