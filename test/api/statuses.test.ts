// POST/GET /api/v1/statuses over real HTTP, as a client sees it: the Status entity's shape (every always-present field
// of Mastodon's entity, ids as strings, ISO dates with milliseconds, absolute URIs), mentions and hashtags, hostile text
// rendered only as escaped text, content warnings and languages, the validation rules (blank, 500 code points,
// visibility, media and polls, unknown or hidden parents) and the token rules (write:statuses; read-only → 403).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/password.js';
import { TokenStore } from '../../src/store/oauth-tokens.js';
import { UserStore } from '../../src/store/users.js';
import { api, type ApiReply, form, type Json } from '../support/api.js';
import { appToken, registerApp, signIn, userToken, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface Member {
  readonly username: string;
  readonly id: string;
  readonly userId: string;
  readonly token: string;
}

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Every tag name and attribute in the HTML is one Mastodon clients expect, and every link is http(s). */
function assertSafeHtml(html: string): void {
  for (const m of html.matchAll(/<\/?([^\s>/]+)([^>]*)>/g)) {
    assert.ok(['p', 'br', 'span', 'a'].includes(m[1]!), `unexpected element <${m[1]}> in ${html}`);
    const attrs = m[2]!.replace(/\s*\/$/, '');
    for (const a of attrs.matchAll(/\s*([^\s=]+)(?:="([^"]*)")?/g)) {
      if (a[1] === undefined || a[0].trim() === '') continue;
      assert.ok(['href', 'class', 'rel', 'target'].includes(a[1]), `unexpected attribute ${a[1]} in ${html}`);
      if (a[1] === 'href') assert.match(a[2] ?? '', /^https?:\/\//, `unsafe link in ${html}`);
    }
  }
}

describe('statuses API: posting and reading one status', () => {
  let s: TestServer;
  let app: RegisteredApp;
  let users: UserStore;
  let tokens: TokenStore;
  let memberHash: Promise<string>;
  let amy: Member;
  let cal: Member;
  let dee: Member;

  const call = (token: string | undefined, method: string, path: string, body?: unknown, isForm = false) =>
    api(s.url, token, method, path, isForm && body !== undefined ? form(body as URLSearchParams | string) : body);
  const post = (m: Member, fields: Record<string, unknown>) => call(m.token, 'POST', '/api/v1/statuses', fields);

  /** A member whose token comes straight from the store (sign-in is throttled per address). */
  async function member(username: string, scopes = 'read write follow'): Promise<Member> {
    const user = await users.create({ username, email: `${username}@example.test`, passwordHash: await memberHash, roleId: 0, approved: true });
    const token = (await tokens.issue(app.id, user.userId, scopes.split(' '))).token;
    return { username, id: user.accountId, userId: user.userId, token };
  }

  before(async () => {
    s = await startTestServer();
    users = new UserStore(s.app.db);
    tokens = new TokenStore(s.app.db);
    memberHash = hashPassword('member-password-1');
    app = await registerApp(s.url, { scopes: 'read write follow', client_name: 'Stoa tests', website: 'https://client.example/' });
    // amy's token comes through the real OAuth flow; the others' from the store.
    const amyUser = await users.create({ username: 'amy', email: 'amy@example.test', passwordHash: await memberHash, roleId: 0, approved: true });
    const amyToken = await userToken(s.url, await signIn(s.url, 'amy', 'member-password-1'), app, 'read write follow');
    amy = { username: 'amy', id: amyUser.accountId, userId: amyUser.userId, token: amyToken };
    [cal, dee] = await Promise.all([member('cal'), member('dee')]);
  });
  after(async () => {
    await s?.stop();
  });

  describe('the Status entity', () => {
    it("has every always-present field of Mastodon's Status with the right types", async () => {
      const r = await post(amy, { status: 'Hello world' });
      assert.equal(r.status, 200);
      assert.match(r.type ?? '', /^application\/json/);
      const st = r.body;
      assert.match(st.id, /^\d+$/);
      assert.match(st.created_at, ISO_MS);
      assert.ok(Math.abs(Date.parse(st.created_at) - Date.now()) < 60_000);
      for (const k of ['in_reply_to_id', 'in_reply_to_account_id', 'edited_at', 'reblog', 'poll', 'card', 'quote', 'text']) assert.equal(st[k], null, k);
      assert.equal(st.language, null);
      for (const k of ['replies_count', 'reblogs_count', 'favourites_count', 'quotes_count']) assert.equal(st[k], 0, k);
      for (const k of ['media_attachments', 'mentions', 'tags', 'emojis']) assert.deepEqual(st[k], [], k);
      assert.equal(st.sensitive, false);
      assert.equal(st.spoiler_text, '');
      assert.equal(st.visibility, 'public');
      // The app it was posted with, as clients show "via …", to every reader.
      assert.deepEqual(st.application, { name: 'Stoa tests', website: 'https://client.example/' });
      assert.deepEqual((await call(undefined, 'GET', `/api/v1/statuses/${st.id}`)).body.application, st.application);
      assert.equal(st.content, '<p>Hello world</p>');
      assert.equal(st.uri, `${s.url}/users/amy/statuses/${st.id}`);
      assert.equal(typeof st.url, 'string');
      assert.equal(new URL(st.url).origin, s.url);
      assert.equal(typeof st.quote_approval, 'object');
      assert.ok(Array.isArray(st.quote_approval.automatic) && Array.isArray(st.quote_approval.manual));
      assert.equal(typeof st.quote_approval.current_user, 'string');
      assert.equal(st.account.id, amy.id);
      assert.equal(st.account.acct, 'amy');
      assert.equal(st.account.username, 'amy');
    });

    it('reads back the same entity by id, anonymously and with a token, with viewer fields for a member', async () => {
      const created = (await post(amy, { status: 'Read me back' })).body;
      const anon = await call(undefined, 'GET', `/api/v1/statuses/${created.id}`);
      assert.equal(anon.status, 200);
      // quote_approval.current_user is the viewer's (Mastodon 4.5): the author may quote, no one signed out may.
      const { favourited: _f, reblogged: _r, muted: _m, bookmarked: _b, pinned: _p, quote_approval: q, ...shared } = created;
      assert.deepEqual([q.current_user, anon.body.quote_approval.current_user], ['automatic', 'denied']);
      for (const [k, v] of Object.entries(shared)) {
        if (k !== 'account') assert.deepEqual(anon.body[k], v, k);
      }
      assert.equal(anon.body.account.id, amy.id);
      const other = await call(cal.token, 'GET', `/api/v1/statuses/${created.id}`);
      assert.equal(other.status, 200);
      for (const k of ['favourited', 'reblogged', 'muted', 'bookmarked']) assert.equal(other.body[k], false, k);
      assert.equal(created.pinned, false, 'the author sees pinned');
      assert.equal('pinned' in other.body, false, 'pinned is only shown to the author');
    });

    it("counts the author's statuses in the embedded account (statuses_count)", async () => {
      const fresh = await member('counter');
      await post(fresh, { status: 'one' });
      const r = await post(fresh, { status: 'two' });
      assert.equal(r.body.account.statuses_count, 2);
      assert.equal((await call(undefined, 'GET', `/api/v1/accounts/${fresh.id}`)).body.statuses_count, 2);
    });

    it('lists a mentioned local member once as {id, username, url, acct} and links the mention', async () => {
      const host = new URL(s.url).host;
      const r = await post(amy, { status: `hi @cal and @CAL and @cal@${host} and @nobody`, visibility: 'unlisted' });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.mentions, [{ id: cal.id, username: 'cal', url: `${s.url}/@cal`, acct: 'cal' }]);
      assert.ok(r.body.content.includes(`<a href="${s.url}/@cal" class="u-url mention">@<span>cal</span></a>`), r.body.content);
      assert.ok(r.body.content.includes('@nobody'), 'an unknown handle stays text');
      assert.ok(!r.body.content.includes('/@nobody'), 'an unknown handle is not linked');
      assertSafeHtml(r.body.content);
    });

    it('lists hashtags once as {name, url} and links them to the tag page', async () => {
      const r = await post(amy, { status: 'About #Gardens and #gardens and #42 and C#sharp' });
      assert.deepEqual(r.body.tags, [{ name: 'Gardens', url: `${s.url}/tags/Gardens` }]);
      assert.ok(r.body.content.includes(`href="${s.url}/tags/Gardens"`), r.body.content);
      assertSafeHtml(r.body.content);
    });

    it('renders hostile text only as escaped text and links only http(s) URLs', async () => {
      const text =
        '<script>alert(1)</script> "><img src=x onerror=alert(1)> javascript:alert(1) <a href="javascript:alert(2)">x</a>\n' +
        'see https://example.com/a?b=1&c="2" and http://example.org/\'onmouseover=\'alert(3)';
      const r = await post(amy, { status: text });
      assert.equal(r.status, 200);
      const html: string = r.body.content;
      assertSafeHtml(html);
      assert.ok(!/<script|<img|href="javascript/i.test(html), html);
      assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), html);
      assert.ok(html.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'), html);
      assert.ok(html.includes('javascript:alert(1)'), 'the text stays, unlinked');
      assert.ok(html.includes('<a href="https://example.com/a?b=1&amp;c=" target="_blank" rel="nofollow noopener noreferrer">'), html);
      const read = await call(undefined, 'GET', `/api/v1/statuses/${r.body.id}`);
      assert.equal(read.body.content, html);
    });

    it('keeps paragraphs and line breaks', async () => {
      const r = await post(amy, { status: 'one\ntwo\n\nthree' });
      assert.equal(r.body.content, '<p>one<br />two</p><p>three</p>');
    });

    it('marks a status with a content warning sensitive and keeps the warning as plain text', async () => {
      const r = await post(amy, { status: 'spoilers', spoiler_text: 'CW <b>film</b>' });
      assert.equal(r.status, 200);
      assert.equal(r.body.sensitive, true);
      assert.equal(r.body.spoiler_text, 'CW <b>film</b>');
      const plain = await post(amy, { status: 'just sensitive', sensitive: 'true' });
      assert.equal(plain.body.sensitive, true);
      assert.equal(plain.body.spoiler_text, '');
    });

    it('keeps the language given and answers null without one', async () => {
      assert.equal((await post(amy, { status: 'Guten Tag', language: 'de' })).body.language, 'de');
      assert.equal((await post(amy, { status: 'no language', language: '' })).body.language, null);
    });

    it('accepts a form-encoded post like a JSON one', async () => {
      const r = await call(amy.token, 'POST', '/api/v1/statuses', new URLSearchParams({ status: 'form #Encoded', visibility: 'unlisted' }), true);
      assert.equal(r.status, 200);
      assert.equal(r.body.visibility, 'unlisted');
      assert.deepEqual(
        r.body.tags.map((t: Json) => t.name),
        ['Encoded'],
      );
    });

    it("answers a reply with its parent and the parent's author", async () => {
      const parent = (await post(cal, { status: 'parent' })).body;
      const r = await post(amy, { status: '@cal reply', in_reply_to_id: parent.id });
      assert.equal(r.status, 200);
      assert.equal(r.body.in_reply_to_id, parent.id);
      assert.equal(r.body.in_reply_to_account_id, cal.id);
      assert.equal((await call(undefined, 'GET', `/api/v1/statuses/${parent.id}`)).body.replies_count, 1);
    });

    it('accepts JSON nulls for optional fields as if they were absent, as Mastodon does', async () => {
      const refusedFields: string[] = [];
      for (const field of ['in_reply_to_id', 'spoiler_text', 'sensitive', 'language', 'media_ids', 'poll', 'visibility']) {
        const r = await post(amy, { status: `null ${field}`, [field]: null });
        if (r.status !== 200) refusedFields.push(`${field} (${r.status} ${r.body.error})`);
        else assert.equal(r.body.poll, null);
      }
      assert.deepEqual(refusedFields, []);
    });
  });

  describe('validation', () => {
    // The exact error, so that a refusal for another reason than the one meant fails.
    const refused = async (r: ApiReply, status: number, error: string, what: string) => {
      assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
      assert.match(r.type ?? '', /^application\/json/, what);
      assert.equal(r.body.error, error, what);
    };
    const BLANK = "Validation failed: Text can't be blank";
    const TOO_LONG = 'Validation failed: Text character limit of 500 exceeded';
    const NOT_YOUR_MEDIA = 'Validation failed: media_ids must name your own uploads not attached to another status';

    it('refuses a blank or missing status with 422', async () => {
      await refused(await post(amy, { status: '' }), 422, BLANK, 'empty');
      await refused(await post(amy, { status: '  \n\t ' }), 422, BLANK, 'whitespace');
      await refused(await post(amy, { visibility: 'public' }), 422, BLANK, 'missing');
      await refused(await post(amy, { status: 42 }), 422, 'Validation failed: status: Invalid input: expected string, received number', 'not a string');
    });

    it('counts 500 characters in code points: 500 emoji pass, 501 do not', async () => {
      const ok = await post(amy, { status: '😀'.repeat(500) });
      assert.equal(ok.status, 200);
      assert.equal([...ok.body.content.replace(/<\/?p>/g, '')].length, 500);
      await refused(await post(amy, { status: '😀'.repeat(501) }), 422, TOO_LONG, '501 emoji');
      await refused(await post(amy, { status: 'a'.repeat(501) }), 422, TOO_LONG, '501 letters');
      await refused(
        await post(amy, { status: 'a'.repeat(100_001) }),
        422,
        'Validation failed: status: Too big: expected string to have <=100000 characters',
        'huge',
      );
    });

    it('refuses an unknown visibility and a bad language with 422', async () => {
      await refused(
        await post(amy, { status: 'x', visibility: 'everyone' }),
        422,
        'Validation failed: visibility: Invalid option: expected one of "public"|"unlisted"|"private"|"direct"',
        'visibility',
      );
      await refused(await post(amy, { status: 'x', language: 'not a language' }), 422, 'Validation failed: Language is not a valid language code', 'language');
    });

    it("refuses media that is not the member's upload and malformed polls with 422, in JSON and in forms", async () => {
      await refused(await post(amy, { status: 'x', media_ids: ['1'] }), 422, NOT_YOUR_MEDIA, 'media JSON');
      await refused(await call(amy.token, 'POST', '/api/v1/statuses', 'status=x&media_ids[]=1', true), 422, NOT_YOUR_MEDIA, 'media form');
      await refused(
        await post(amy, { status: 'x', poll: { options: ['a'], expires_in: 3600 } }),
        422,
        'Validation failed: A poll needs at least 2 options',
        'poll JSON',
      );
      await refused(
        await call(amy.token, 'POST', '/api/v1/statuses', 'status=x&poll[options][]=a&poll[options][]=b&poll[expires_in]=5', true),
        422,
        'Validation failed: Poll duration must be between 300 seconds and a month',
        'poll form',
      );
    });

    it('answers 404 for a reply to an unknown status or one the member may not see', async () => {
      await refused(await post(amy, { status: 'x', in_reply_to_id: '999999999' }), 404, 'Record not found', 'unknown');
      const hidden = await post(dee, { status: 'followers only', visibility: 'private' });
      assert.equal(hidden.status, 200);
      await refused(await post(amy, { status: 'x', in_reply_to_id: hidden.body.id }), 404, 'Record not found', 'private of a stranger');
      const direct = await post(dee, { status: 'to cal only @cal', visibility: 'direct' });
      await refused(await post(amy, { status: 'x', in_reply_to_id: direct.body.id }), 404, 'Record not found', 'direct not for amy');
      assert.equal((await post(cal, { status: 'x', in_reply_to_id: direct.body.id, visibility: 'direct' })).status, 200, 'cal may answer');
    });

    it('answers 404 as JSON for an unknown or malformed status id', async () => {
      await refused(await call(undefined, 'GET', '/api/v1/statuses/999999999'), 404, 'Record not found', 'unknown');
      await refused(await call(undefined, 'GET', '/api/v1/statuses/abc'), 404, 'Record not found', 'malformed');
      await refused(await call(amy.token, 'DELETE', '/api/v1/statuses/999999999'), 404, 'Record not found', 'delete unknown');
    });
  });

  describe('tokens and scopes', () => {
    const INVALID_TOKEN = 'The access token is invalid';
    const OUTSIDE_SCOPES = 'This action is outside the authorized scopes';
    /** The status and the exact error, so that a refusal for another reason fails. */
    const assertRefused = (r: ApiReply, status: number, error: string, what: string) => {
      assert.equal(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
      assert.match(r.type ?? '', /^application\/json/, what);
      assert.equal(r.body.error, error, what);
    };

    it('needs a token to post (401) and the write:statuses scope (403)', async () => {
      assertRefused(await call(undefined, 'POST', '/api/v1/statuses', { status: 'anonymous' }), 401, INVALID_TOKEN, 'no token');
      assertRefused(await call('not-a-token', 'POST', '/api/v1/statuses', { status: 'x' }), 401, INVALID_TOKEN, 'unknown token');
      const readOnly = (await tokens.issue(app.id, amy.userId, ['read'])).token;
      assertRefused(await call(readOnly, 'POST', '/api/v1/statuses', { status: 'read only' }), 403, OUTSIDE_SCOPES, 'read token');
      const accountsOnly = (await tokens.issue(app.id, amy.userId, ['write:accounts'])).token;
      assertRefused(await call(accountsOnly, 'POST', '/api/v1/statuses', { status: 'x' }), 403, OUTSIDE_SCOPES, 'write:accounts token');
      const narrow = (await tokens.issue(app.id, amy.userId, ['write:statuses'])).token;
      assert.equal((await call(narrow, 'POST', '/api/v1/statuses', { status: 'narrow' })).status, 200);
    });

    it('needs a member token with write:statuses to delete', async () => {
      const st = (await post(amy, { status: 'keep me' })).body;
      const readOnly = (await tokens.issue(app.id, amy.userId, ['read'])).token;
      assertRefused(await call(readOnly, 'DELETE', `/api/v1/statuses/${st.id}`), 403, OUTSIDE_SCOPES, 'read token');
      assertRefused(await call(undefined, 'DELETE', `/api/v1/statuses/${st.id}`), 401, INVALID_TOKEN, 'no token');
      const appOnly = await appToken(s.url, app, 'read write');
      // As Mastodon: a token without a member gets 422 "This method requires an authenticated user".
      assertRefused(await call(appOnly, 'DELETE', `/api/v1/statuses/${st.id}`), 422, 'This method requires an authenticated user', 'app token deleting');
      assertRefused(
        await call(appOnly, 'POST', '/api/v1/statuses', { status: 'no member' }),
        422,
        'This method requires an authenticated user',
        'app token posting',
      );
      assert.equal((await call(undefined, 'GET', `/api/v1/statuses/${st.id}`)).status, 200, 'still there');
    });

    it('reads with an app token or a read token, and refuses an invalid token with 401', async () => {
      const st = (await post(amy, { status: 'public read' })).body;
      const appOnly = await appToken(s.url, app, 'read');
      assert.equal((await call(appOnly, 'GET', `/api/v1/statuses/${st.id}`)).status, 200);
      const writeOnly = (await tokens.issue(app.id, cal.userId, ['write'])).token;
      assertRefused(await call(writeOnly, 'GET', `/api/v1/statuses/${st.id}`), 403, OUTSIDE_SCOPES, 'write-only token reading');
      assertRefused(await call('not-a-token', 'GET', `/api/v1/statuses/${st.id}`), 401, INVALID_TOKEN, 'unknown token reading');
    });
  });
});
