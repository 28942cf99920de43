// Timelines over real HTTP: Link-header pagination as Mastodon clients follow it (absolute URLs, next by max_id, prev
// by min_id, no Link on an empty page, limit clamped and validated, since_id and min_id semantics, parameters carried
// over), public local/remote scopes with a remote status, hashtag timelines (case-insensitive), and the account
// timeline's filters (exclude_replies, tagged, pinned, only_media; only-media.test.ts has statuses with media).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { StatusStore } from '../../src/store/statuses.js';
import { UserStore } from '../../src/store/users.js';
import { api, type ApiReply, type Json } from '../support/api.js';
import { registerApp, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface Member {
  readonly id: string;
  readonly token: string;
}

/** The rel="next" / rel="prev" URLs of a Link header. */
function links(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/<([^>]+)>;\s*rel="(\w+)"/g)) out[m[2]!] = m[1]!;
  return out;
}

describe('timelines API', () => {
  let s: TestServer;
  let app: RegisteredApp;
  let users: UserStore;
  let tokens: TokenStore;
  let memberHash: Promise<string>;
  /** pat's 25 statuses, oldest first; pat follows nobody, so they are pat's whole home timeline. */
  const pats: string[] = [];
  let pat: Member;
  let quin: Member;
  let rue: Member;
  let remoteStatus: string;

  const call = (token: string | undefined, method: string, path: string, body?: unknown) =>
    api(path.startsWith('http') ? '' : s.url, token, method, path, body);
  const get = async (token: string | undefined, path: string): Promise<ApiReply> => {
    const r = await call(token, 'GET', path);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.type ?? '', /^application\/json/);
    return r;
  };
  const posted = async (m: Member, fields: Record<string, unknown>): Promise<string> => {
    const r = await call(m.token, 'POST', '/api/v1/statuses', fields);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.id;
  };
  const idsOf = (r: ApiReply): string[] => r.body.map((x: Json) => x.id);
  const newestPats = (n: number) => [...pats].reverse().slice(0, n);

  async function member(username: string): Promise<Member> {
    const user = await users.create({ username, email: `${username}@example.test`, passwordHash: await memberHash, roleId: 0, approved: true });
    return { id: user.accountId, token: (await tokens.issue(app.id, user.userId, ['read', 'write', 'follow'])).token };
  }

  before(async () => {
    s = await startTestServer();
    users = new UserStore(s.app.db);
    tokens = new TokenStore(s.app.db);
    memberHash = hashPassword('member-password-1');
    app = await registerApp(s.url, { scopes: 'read write follow' });
    [pat, quin, rue] = await Promise.all([member('pat'), member('quin'), member('rue')]);
    for (let i = 0; i < 25; i++) pats.push(await posted(pat, { status: `pat ${i}` }));
    for (let i = 0; i < 20; i++) await posted(quin, { status: `quin ${i}` });
    // A status received from another server, stored as the inbox would store it.
    const remote = await s.app.federation.accounts.upsertRemote({
      uri: 'https://remote.example/users/ren',
      username: 'ren',
      domain: 'remote.example',
      actorType: 'Person',
      displayName: 'Ren',
      note: '',
      url: 'https://remote.example/@ren',
      locked: false,
      bot: false,
      discoverable: true,
      inboxUrl: 'https://remote.example/users/ren/inbox',
      sharedInboxUrl: null,
      outboxUrl: null,
      followersUrl: null,
      followingUrl: null,
      featuredUrl: null,
      avatarRemoteUrl: null,
      headerRemoteUrl: null,
      fields: [],
      attachment: [],
      alsoKnownAs: [],
      movedToUri: null,
      publicKeyId: null,
      publicKeyPem: null,
      publishedAt: null,
    });
    remoteStatus = (
      await new StatusStore(s.app.db).create({
        accountId: remote.id,
        uri: 'https://remote.example/users/ren/statuses/1',
        url: 'https://remote.example/@ren/1',
        text: '',
        content: '<p>from afar <a href="https://remote.example/tags/cats" class="mention hashtag" rel="tag">#<span>cats</span></a></p>',
        spoilerText: '',
        visibility: 'public',
        sensitive: false,
        language: 'en',
        inReplyToId: null,
        inReplyToAccountId: null,
        inReplyToUri: null,
        local: false,
        mentionIds: [],
        tags: ['cats'],
      })
    ).status.id;
  });
  after(async () => {
    await s?.stop();
  });

  describe('Link-header pagination', () => {
    it('pages home newest first with absolute next (max_id = last) and prev (min_id = first) links', async () => {
      const r = await get(pat.token, '/api/v1/timelines/home?limit=10');
      assert.deepEqual(idsOf(r), newestPats(10));
      const l = links(r.link);
      assert.equal(l['next'], `${s.url}/api/v1/timelines/home?limit=10&max_id=${pats[15]}`);
      assert.equal(l['prev'], `${s.url}/api/v1/timelines/home?limit=10&min_id=${pats[24]}`);
      assert.equal(new URL(l['next']!).origin, new URL(s.url).origin);
    });

    it('yields every status exactly once, newest first, following next until an empty page without Link', async () => {
      const seen: string[] = [];
      const sizes: number[] = [];
      let url: string | undefined = '/api/v1/timelines/home?limit=10';
      for (;;) {
        const r = await get(pat.token, url!);
        sizes.push(r.body.length);
        if (r.body.length === 0) {
          assert.equal(r.link, null, 'an empty page carries no Link header');
          break;
        }
        seen.push(...idsOf(r));
        url = links(r.link)['next'];
        assert.ok(url, 'a non-empty page links to the next one');
        assert.ok(sizes.length < 10, 'paging ends');
      }
      assert.deepEqual(sizes, [10, 10, 5, 0]);
      assert.deepEqual(seen, newestPats(25));
    });

    it('follows prev back to the newer page', async () => {
      const second = await get(pat.token, `/api/v1/timelines/home?limit=10&max_id=${pats[15]}`);
      assert.deepEqual(idsOf(second), newestPats(20).slice(10));
      const back = await get(pat.token, links(second.link)['prev']!);
      assert.deepEqual(idsOf(back), newestPats(10));
    });

    it('answers min_id with the statuses just after it and since_id with the newest ones, both newest first', async () => {
      const min = await get(pat.token, `/api/v1/timelines/home?limit=5&min_id=${pats[4]}`);
      assert.deepEqual(idsOf(min), [pats[9], pats[8], pats[7], pats[6], pats[5]]);
      const since = await get(pat.token, `/api/v1/timelines/home?limit=5&since_id=${pats[4]}`);
      assert.deepEqual(idsOf(since), [pats[24], pats[23], pats[22], pats[21], pats[20]]);
      const both = await get(pat.token, `/api/v1/timelines/home?max_id=${pats[10]}&min_id=${pats[4]}`);
      assert.deepEqual(idsOf(both), [pats[9], pats[8], pats[7], pats[6], pats[5]]);
    });

    it('sends no Link header on an empty page at either end', async () => {
      for (const q of [`max_id=${pats[0]}`, `min_id=${pats[24]}`, `since_id=${pats[24]}`]) {
        const r = await get(pat.token, `/api/v1/timelines/home?${q}`);
        assert.deepEqual(r.body, [], q);
        assert.equal(r.link, null, q);
      }
    });

    it('defaults to 20, clamps the limit to 40 and refuses a negative or non-numeric one with 400', async () => {
      assert.equal((await get(pat.token, '/api/v1/timelines/home')).body.length, 20);
      const clamped = await get(undefined, '/api/v1/timelines/public?limit=100');
      assert.equal(clamped.body.length, 40);
      assert.equal(new URL(links(clamped.link)['next']!).searchParams.get('limit'), '40');
      for (const q of ['limit=-1', 'limit=ten']) {
        const bad = await call(pat.token, 'GET', `/api/v1/timelines/home?${q}`);
        assert.equal(bad.status, 400, q);
        assert.match(bad.type ?? '', /^application\/json/);
        assert.equal(typeof bad.body.error, 'string');
      }
      assert.equal((await call(undefined, 'GET', '/api/v1/timelines/public?limit=-1')).status, 400);
    });

    it("keeps local=true in the public timeline's links, and every page stays local", async () => {
      const first = await get(undefined, '/api/v1/timelines/public?local=true&limit=20');
      const l = links(first.link);
      for (const rel of ['next', 'prev']) {
        const u = new URL(l[rel]!);
        assert.equal(u.pathname, '/api/v1/timelines/public');
        assert.equal(u.searchParams.get('local'), 'true', rel);
      }
      const seen = idsOf(first);
      let url: string | undefined = l['next'];
      for (let pages = 0; url; pages++) {
        assert.ok(pages < 10);
        const r = await get(undefined, url);
        seen.push(...idsOf(r));
        url = links(r.link)['next'];
      }
      assert.equal(seen.length, 45, "all of pat's and quin's statuses");
      assert.equal(new Set(seen).size, 45);
      assert.ok(!seen.includes(remoteStatus));
    });
  });

  describe('public and hashtag timelines', () => {
    it('separates local and remote statuses on the public timeline', async () => {
      const all = await get(undefined, '/api/v1/timelines/public?limit=40');
      assert.equal(idsOf(all)[0], remoteStatus, 'the newest status is the remote one');
      const remote = await get(undefined, '/api/v1/timelines/public?remote=true');
      assert.deepEqual(idsOf(remote), [remoteStatus]);
      assert.equal(new URL(links(remote.link)['next']!).searchParams.get('remote'), 'true');
      const st = remote.body[0];
      assert.equal(st.uri, 'https://remote.example/users/ren/statuses/1');
      assert.equal(st.url, 'https://remote.example/@ren/1');
      assert.equal(st.account.acct, 'ren@remote.example');
      assert.deepEqual(st.tags, [{ name: 'cats', url: `${s.url}/tags/cats` }]);
    });

    it('answers only_media with an empty page and no Link when no public status has media', async () => {
      const r = await get(undefined, '/api/v1/timelines/public?only_media=true');
      assert.deepEqual(r.body, []);
      assert.equal(r.link, null);
    });

    it('finds a hashtag whatever its case, in the status and in the path', async () => {
      const a = await posted(rue, { status: 'I like #Cats' });
      const b = await posted(quin, { status: 'and #cats too' });
      const c = await posted(rue, { status: 'also #CATS' });
      for (const path of ['cats', 'Cats', 'CATS']) {
        const r = await get(undefined, `/api/v1/timelines/tag/${path}`);
        assert.deepEqual(idsOf(r), [c, b, a, remoteStatus], path);
      }
      const local = await get(undefined, '/api/v1/timelines/tag/cats?local=true');
      assert.deepEqual(idsOf(local), [c, b, a]);
      assert.equal(new URL(links(local.link)['next']!).searchParams.get('local'), 'true');
      const paged = await get(undefined, '/api/v1/timelines/tag/cats?limit=2');
      assert.deepEqual(idsOf(paged), [c, b]);
      assert.deepEqual(idsOf(await get(undefined, links(paged.link)['next']!)), [a, remoteStatus]);
    });

    it('finds a non-ASCII hashtag given percent-encoded in the path', async () => {
      const id = await posted(rue, { status: 'un #café noir' });
      assert.deepEqual(idsOf(await get(undefined, `/api/v1/timelines/tag/${encodeURIComponent('café')}`)), [id]);
      assert.deepEqual(idsOf(await get(undefined, `/api/v1/accounts/${rue.id}/statuses?tagged=${encodeURIComponent('café')}`)), [id]);
    });

    it('matches non-ASCII hashtags case-insensitively too (#Ünïcode / #üNÏCODE)', async () => {
      const a = await posted(rue, { status: 'une #Ünïcode' });
      const b = await posted(quin, { status: 'deux #üNÏCODE' });
      for (const tag of ['ünïcode', 'ÜNÏCODE', 'Ünïcode']) {
        assert.deepEqual(idsOf(await get(undefined, `/api/v1/timelines/tag/${encodeURIComponent(tag)}`)), [b, a], tag);
      }
      assert.deepEqual(idsOf(await get(undefined, `/api/v1/accounts/${rue.id}/statuses?tagged=${encodeURIComponent('ÜNÏCODE')}`)), [a]);
    });

    it('answers an unknown or malformed hashtag with an empty page', async () => {
      for (const tag of ['nothing_here', encodeURIComponent('no such!')]) {
        const r = await get(undefined, `/api/v1/timelines/tag/${tag}`);
        assert.deepEqual(r.body, [], tag);
        assert.equal(r.link, null, tag);
      }
    });
  });

  describe('account timeline filters', () => {
    let sol: Member;
    let top: string, selfReply: string, otherReply: string, plain: string;

    before(async () => {
      sol = await member('sol');
      const quins = await posted(quin, { status: 'quin asks' });
      top = await posted(sol, { status: 'a thread about #Birds' });
      selfReply = await posted(sol, { status: 'thread, part two', in_reply_to_id: top });
      otherReply = await posted(sol, { status: '@quin an answer #birds', in_reply_to_id: quins });
      plain = await posted(sol, { status: 'no tag here' });
    });

    it("lists all of a member's statuses newest first by default", async () => {
      assert.deepEqual(idsOf(await get(undefined, `/api/v1/accounts/${sol.id}/statuses`)), [plain, otherReply, selfReply, top]);
    });

    it('leaves out replies to others, but keeps self-replies, with exclude_replies', async () => {
      const r = await get(undefined, `/api/v1/accounts/${sol.id}/statuses?exclude_replies=true`);
      assert.deepEqual(idsOf(r), [plain, selfReply, top]);
      const paged = await get(undefined, `/api/v1/accounts/${sol.id}/statuses?exclude_replies=true&limit=1`);
      const next = links(paged.link)['next']!;
      assert.equal(new URL(next).searchParams.get('exclude_replies'), 'true');
      assert.deepEqual(idsOf(await get(undefined, next)), [selfReply]);
    });

    it('keeps only statuses with the hashtag, case-insensitively, with tagged', async () => {
      for (const t of ['birds', 'BIRDS']) {
        const r = await get(undefined, `/api/v1/accounts/${sol.id}/statuses?tagged=${t}`);
        assert.deepEqual(idsOf(r), [otherReply, top], t);
        assert.equal(new URL(links(r.link)['next']!).searchParams.get('tagged'), t);
      }
      assert.deepEqual((await get(undefined, `/api/v1/accounts/${sol.id}/statuses?tagged=fish`)).body, []);
    });

    it('answers pinned and only_media with empty pages when the account pinned nothing and posted no media', async () => {
      for (const q of ['pinned=true', 'only_media=true']) {
        const r = await get(undefined, `/api/v1/accounts/${sol.id}/statuses?${q}`);
        assert.deepEqual(r.body, [], q);
        assert.equal(r.link, null, q);
      }
    });

    it('pages an account timeline with absolute links like the others', async () => {
      const r = await get(undefined, `/api/v1/accounts/${pat.id}/statuses?limit=10`);
      assert.deepEqual(idsOf(r), newestPats(10));
      assert.equal(links(r.link)['next'], `${s.url}/api/v1/accounts/${pat.id}/statuses?limit=10&max_id=${pats[15]}`);
    });

    it('answers 404 for an unknown or malformed account', async () => {
      for (const id of ['999999999', 'abc']) {
        const r = await call(undefined, 'GET', `/api/v1/accounts/${id}/statuses`);
        assert.equal(r.status, 404, id);
        assert.match(r.type ?? '', /^application\/json/);
      }
    });
  });
});
