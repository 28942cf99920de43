// Mastodon's chosen_languages: a member who chose languages sees, in the public, local and hashtag timelines (REST)
// and their streams, only posts in those languages or in none named; a member who chose none sees every language.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { framesOf, openWs, subscribed, type WsClient } from '../support/streaming.js';
import { eventually } from '../support/wait.js';
import { MemberPreferenceStore } from '../../src/store/member-preferences.js';

describe('chosen languages in the public feeds', () => {
  let s: TestServer;
  let m: LocalMembers;
  const sockets: WsClient[] = [];
  const posted: Record<string, string> = {};

  const call = (who: string, method: string, path: string, body?: unknown) => api(s.url, m.token[who], method, path, body);
  /** The languages of what `who` is shown on `path` among this file's posts. */
  const shown = async (who: string, path: string): Promise<string[]> => {
    const r = await call(who, 'GET', path);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const mine = new Set(Object.values(posted));
    return (r.body as Json[]).filter((x) => mine.has(x.id)).map((x) => x.language ?? 'none');
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'cid']);
    const user = await s.app.db.one<{ id: string }>('SELECT id::text AS id FROM users WHERE account_id = $1', [m.id['ann']]);
    await new MemberPreferenceStore(s.app.db).setChosenLanguages(user!.id, ['en', 'fr']);
    for (const [lang, text] of [
      ['none', 'no language #lingo'],
      ['de', 'auf Deutsch #lingo'],
      ['en', 'in English #lingo'],
    ] as const) {
      const r = await call('bob', 'POST', '/api/v1/statuses', { status: text, language: lang === 'none' ? '' : lang });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.language ?? 'none', lang);
      posted[lang] = r.body.id;
    }
  });
  after(async () => {
    for (const c of sockets) c.ws.terminate();
    await s.stop();
  });

  it('leaves posts in other languages out of the public, local and hashtag timelines of a member who chose', async () => {
    for (const path of ['/api/v1/timelines/public', '/api/v1/timelines/public?local=true', '/api/v1/timelines/tag/lingo']) {
      assert.deepEqual(await shown('ann', path), ['en', 'none'], path);
      assert.deepEqual(await shown('cid', path), ['en', 'de', 'none'], `${path}: no choice, every language`);
    }
    // Not a public feed: bob's own profile shows ann everything.
    assert.deepEqual(await shown('ann', `/api/v1/accounts/${m.id['bob']}/statuses`), ['en', 'de', 'none']);
  });

  it('leaves them out of the public and hashtag streams too', async () => {
    const ann = await openWs(s.url, m.token['ann'], 'stream=public:local');
    const cid = await openWs(s.url, m.token['cid'], 'stream=hashtag&tag=lingo');
    const annTag = await openWs(s.url, m.token['ann'], 'stream=hashtag&tag=lingo');
    sockets.push(ann, cid, annTag);
    await subscribed(s, m.id['ann']!, 'public:local');
    await subscribed(s, m.id['ann']!, 'hashtag');
    await subscribed(s, m.id['cid']!, 'hashtag');
    const de = (await call('bob', 'POST', '/api/v1/statuses', { status: 'noch einmal #lingo', language: 'de' })).body.id;
    const en = (await call('bob', 'POST', '/api/v1/statuses', { status: 'once more #lingo', language: 'en' })).body.id;
    const ids = (c: WsClient) => framesOf(c.frames, 'update').map((f) => f.payload?.id);
    await eventually(() => assert.deepEqual(ids(cid), [de, en]));
    await eventually(() => assert.ok(ids(ann).includes(en) && ids(annTag).includes(en)));
    // Events are fanned out in order: the German one, had it been sent, came first.
    assert.deepEqual(ids(ann), [en]);
    assert.deepEqual(ids(annTag), [en]);
  });
});
