// Inputs real Mastodon clients send that Mastodon takes, over real HTTP: Rails booleans in any case ("True" from
// Python, "FALSE"), in bodies and query flags; JSON nulls for options left unset; a post's language written as a
// device locale (en_US, EN); and scheduled_at, kept for later rather than published at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('client inputs Mastodon accepts', () => {
  let s: TestServer;
  let m: LocalMembers;

  async function form(name: string, method: string, path: string, body: string): Promise<{ status: number; body: Json }> {
    const res = await fetch(s.url + path, {
      method,
      headers: { Authorization: `Bearer ${m.token[name]}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
    return { status: res.status, body: await res.json() };
  }
  const call = (name: string, method: string, path: string, body?: unknown) => api(s.url, m.token[name], method, path, body);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['kai', 'lou']);
  });
  after(async () => s?.stop());

  it('reads booleans in any case, in forms, JSON and query flags, and names a word it cannot read', async () => {
    const python = await form('kai', 'POST', '/api/v1/statuses', 'status=from+a+script&sensitive=True');
    assert.equal(python.status, 200, JSON.stringify(python.body));
    assert.equal(python.body.sensitive, true);
    const shouted = await call('kai', 'POST', '/api/v1/statuses', { status: 'shouted', sensitive: 'FALSE', visibility: 'unlisted' });
    assert.deepEqual([shouted.status, shouted.body.sensitive], [200, false]);
    const reply = await call('kai', 'POST', '/api/v1/statuses', { status: 'a reply', in_reply_to_id: python.body.id });
    assert.equal(reply.status, 200);

    const local = await fetch(`${s.url}/api/v1/timelines/public?local=True`);
    assert.deepEqual(
      ((await local.json()) as Json[]).map((x) => x.id),
      [reply.body.id, python.body.id],
    );
    assert.match(local.headers.get('link') ?? '', /local=true/);
    const own = await call('kai', 'GET', `/api/v1/accounts/${m.id['kai']}/statuses?exclude_replies=TRUE&only_media=False`);
    assert.deepEqual(
      own.body.map((x: Json) => x.id),
      [reply.body.id, shouted.body.id, python.body.id],
      'a reply to oneself stays, as on Mastodon',
    );
    const lou = await call('lou', 'POST', '/api/v1/statuses', { status: 'hi', in_reply_to_id: python.body.id });
    const lous = await call('lou', 'GET', `/api/v1/accounts/${m.id['lou']}/statuses?exclude_replies=T`);
    assert.deepEqual([lou.status, lous.body], [200, []]);

    const bad = await call('kai', 'POST', '/api/v1/statuses', { status: 'x', sensitive: 'maybe' });
    assert.deepEqual([bad.status, bad.body], [422, { error: 'Validation failed: sensitive must be true or false' }]);
  });

  it('names the parameter at fault when the rule that failed does not', async () => {
    const noDuration = await call('kai', 'POST', '/api/v1/statuses', { status: 'poll', poll: { options: ['a', 'b'] } });
    assert.deepEqual([noDuration.status, noDuration.body.error], [422, 'Validation failed: poll[expires_in]: Invalid input']);
    const noAccount = await call('kai', 'POST', '/api/v1/reports', { comment: 'spam' });
    assert.equal(noAccount.status, 422);
    assert.match(noAccount.body.error, /^Validation failed: account_id: /);
    const marker = await call('kai', 'POST', '/api/v1/markers', { home: { last_read_id: 'x' } });
    assert.deepEqual([marker.status, marker.body.error], [422, 'Validation failed: last_read_id must be an id'], 'a message that names its parameter stays');
    const mute = await form('kai', 'POST', `/api/v1/accounts/${m.id['lou']}/mute`, 'notifications=sometimes');
    assert.deepEqual([mute.status, mute.body.error], [422, 'Validation failed: notifications must be true or false']);
  });

  it('reads a language written as a locale (en_US, EN) as its code, and still refuses what is not one', async () => {
    for (const [language, read] of [
      ['en_US', 'en-US'],
      ['EN', 'en'],
      ['pt-BR', 'pt-BR'],
      ['zh_Hant', 'zh-Hant'],
    ]) {
      const r = await call('kai', 'POST', '/api/v1/statuses', { status: `in ${language}`, language });
      assert.deepEqual([r.status, r.body.language], [200, read], `${language}: ${r.text}`);
    }
    const english = await call('kai', 'POST', '/api/v1/statuses', { status: 'x', language: 'English' });
    assert.deepEqual([english.status, english.body], [422, { error: 'Validation failed: Language is not a valid language code' }]);
    const de = await call('lou', 'POST', '/api/v1/statuses', { status: 'hallo', language: 'de' });
    const edited = await call('lou', 'PUT', `/api/v1/statuses/${de.body.id}`, { status: 'hallo!', language: 'DE_at' });
    assert.deepEqual([edited.status, edited.body.language], [200, 'de-at']);
    const cleared = await call('lou', 'PUT', `/api/v1/statuses/${de.body.id}`, { status: 'hallo!!', language: '' });
    assert.deepEqual([cleared.status, cleared.body.language], [200, null]);
  });

  it('keeps a post with scheduled_at for later instead of publishing it at once (JSON and form)', async () => {
    const before = (await call('kai', 'GET', `/api/v1/accounts/${m.id['kai']}`)).body.statuses_count;
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const r = await call('kai', 'POST', '/api/v1/statuses', { status: 'for tomorrow', scheduled_at: later });
    assert.deepEqual([r.status, r.body.scheduled_at, r.body.params.text], [200, later, 'for tomorrow']);
    const viaForm = await form('kai', 'POST', '/api/v1/statuses', `status=for+tomorrow&scheduled_at=${encodeURIComponent(later)}`);
    assert.deepEqual([viaForm.status, viaForm.body.params.text], [200, 'for tomorrow']);
    assert.equal((await call('kai', 'GET', `/api/v1/accounts/${m.id['kai']}`)).body.statuses_count, before, 'nothing was posted');
    const now = await call('kai', 'POST', '/api/v1/statuses', { status: 'now', scheduled_at: null });
    assert.equal(now.status, 200, 'a null scheduled_at is a post for now');
    assert.equal(now.body.content, '<p>now</p>');
  });

  it('reads JSON null as an option left unset (boost, mute, list, profile), and a null media description as none', async () => {
    const target = (await call('kai', 'POST', '/api/v1/statuses', { status: 'boost me' })).body.id;
    const boost = await call('lou', 'POST', `/api/v1/statuses/${target}/reblog`, { visibility: null });
    assert.deepEqual([boost.status, boost.body.reblog?.id, boost.body.visibility], [200, target, 'public']);

    const mute = await call('lou', 'POST', `/api/v1/accounts/${m.id['kai']}/mute`, { notifications: null, duration: null });
    assert.deepEqual([mute.status, mute.body.muting, mute.body.muting_notifications, mute.body.muting_expires_at], [200, true, true, null]);

    const list = await call('lou', 'POST', '/api/v1/lists', { title: 'Friends', replies_policy: null, exclusive: null });
    assert.deepEqual([list.status, list.body.replies_policy, list.body.exclusive], [200, 'list', false]);
    const renamed = await call('lou', 'PUT', `/api/v1/lists/${list.body.id}`, { title: 'Pals', exclusive: null });
    assert.deepEqual([renamed.status, renamed.body.title], [200, 'Pals']);

    assert.equal((await call('lou', 'PATCH', '/api/v1/accounts/update_credentials', { note: 'knits' })).status, 200);
    const profile = await call('lou', 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Lou', note: null, locked: null, avatar: null });
    assert.equal(profile.status, 200, profile.text);
    assert.deepEqual([profile.body.display_name, profile.body.source.note, profile.body.locked], ['Lou', 'knits', false]);

    const media = (await upload(s.url, m.token['lou'], png(4, 4), { description: 'a square' })).body;
    const undescribed = await call('lou', 'PUT', `/api/v1/media/${media.id}`, { description: null });
    assert.deepEqual([undescribed.status, undescribed.body.description], [200, null]);
    const poll = await call('lou', 'POST', '/api/v1/statuses', {
      status: 'which?',
      poll: { options: ['a', 'b'], expires_in: 600, multiple: null, hide_totals: null },
    });
    assert.equal(poll.status, 200, JSON.stringify(poll.body));
    assert.equal(poll.body.poll.multiple, false);
  });
});
