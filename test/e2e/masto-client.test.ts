// A real Mastodon client library, masto 7.12 (what many bots and apps use), driving Stoa unchanged: register an
// app and authorize through our consent page, then post with media, reply, favourite, boost, bookmark, read the
// home, public, hashtag and list timelines, notifications and search, page through timelines and notifications by
// Link headers, vote in a poll, edit a profile with an avatar, and delete and redraft.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOAuthAPIClient, createRestAPIClient, type mastodon } from 'masto';
import { hashPassword } from '../../src/auth/password.js';
import { UserStore } from '../../src/store/users.js';
import { authorize, signIn } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { png } from '../support/media.js';

const REDIRECT = 'http://127.0.0.1:9/callback';

describe('masto (a real Mastodon client library) against Stoa', () => {
  let s: TestServer;
  let alice: mastodon.rest.Client;
  let bob: mastodon.rest.Client;
  let aliceId: string;
  let bobId: string;

  /** Registers an app with masto, approves it on our consent page as `login`, exchanges the code with masto. */
  async function connect(login: string, password: string): Promise<mastodon.rest.Client> {
    const anonymous = createRestAPIClient({ url: s.url });
    const app = await anonymous.v1.apps.create({ clientName: 'masto e2e', redirectUris: REDIRECT, scopes: 'read write follow' });
    const jar = await signIn(s.url, login, password);
    const { location } = await authorize(s.url, jar, { client_id: app.clientId!, redirect_uri: REDIRECT, scope: 'read write follow', state: 'e2e' });
    const code = new URL(location!).searchParams.get('code')!;
    const oauth = createOAuthAPIClient({ url: s.url });
    const token = await oauth.token.create({
      grantType: 'authorization_code',
      code,
      clientId: app.clientId!,
      clientSecret: app.clientSecret!,
      redirectUri: REDIRECT,
      scope: 'read write follow',
    });
    return createRestAPIClient({ url: s.url, accessToken: token.accessToken });
  }

  before(async () => {
    s = await startTestServer();
    const users = new UserStore(s.app.db);
    await users.create({ username: 'bob', email: 'bob@example.test', passwordHash: await hashPassword('bob-password-1'), roleId: 0, approved: true });
    alice = await connect('admin', s.app.firstAdmin!.password);
    bob = await connect('bob', 'bob-password-1');
    aliceId = (await alice.v1.accounts.verifyCredentials()).id;
    bobId = (await bob.v1.accounts.verifyCredentials()).id;
  });
  after(() => s.stop());

  it('posts with media, and the other member replies, favourites, boosts and bookmarks', async () => {
    await bob.v1.accounts.$select(aliceId).follow();
    const media = await alice.v2.media.create({ file: new Blob([new Uint8Array(png(320, 200))], { type: 'image/png' }), description: 'a square' });
    assert.equal(media.type, 'image');
    const post = await alice.v1.statuses.create({ status: 'Hello from masto #e2e', mediaIds: [media.id], visibility: 'public' });
    assert.equal(post.mediaAttachments[0]?.description, 'a square');
    assert.deepEqual(
      post.tags.map((t) => t.name),
      ['e2e'],
    );
    assert.equal(post.application?.name, 'masto e2e');

    const reply = await bob.v1.statuses.create({ status: '@admin nice picture', inReplyToId: post.id });
    assert.equal(reply.inReplyToId, post.id);
    assert.equal((await bob.v1.statuses.$select(post.id).favourite()).favourited, true);
    assert.equal((await bob.v1.statuses.$select(post.id).reblog()).reblog?.id, post.id);
    assert.equal((await bob.v1.statuses.$select(post.id).bookmark()).bookmarked, true);

    const now = await alice.v1.statuses.$select(post.id).fetch();
    assert.equal(now.favouritesCount, 1);
    assert.equal(now.reblogsCount, 1);
    assert.equal(now.repliesCount, 1);
    const context = await alice.v1.statuses.$select(post.id).context.fetch();
    assert.deepEqual(
      context.descendants.map((x) => x.id),
      [reply.id],
    );
    const bookmarks = await bob.v1.bookmarks.list();
    assert.deepEqual(
      bookmarks.map((x) => x.id),
      [post.id],
    );
    const favourites = await bob.v1.favourites.list();
    assert.deepEqual(
      favourites.map((x) => x.id),
      [post.id],
    );
    assert.deepEqual(
      (await alice.v1.statuses.$select(post.id).favouritedBy.list()).map((a) => a.id),
      [bobId],
    );
    assert.deepEqual(
      (await alice.v1.statuses.$select(post.id).rebloggedBy.list()).map((a) => a.id),
      [bobId],
    );

    // Undone and done again: what a member taps back and forth.
    const other = await alice.v1.statuses.create({ status: 'a second one' });
    assert.equal((await bob.v1.statuses.$select(other.id).favourite()).favourited, true);
    assert.equal((await bob.v1.statuses.$select(other.id).unfavourite()).favourited, false);
    assert.equal((await bob.v1.statuses.$select(other.id).bookmark()).bookmarked, true);
    assert.equal((await bob.v1.statuses.$select(other.id).unbookmark()).bookmarked, false);
    await bob.v1.statuses.$select(other.id).reblog();
    assert.equal((await bob.v1.statuses.$select(other.id).unreblog()).reblogged, false);
    const after = await alice.v1.statuses.$select(other.id).fetch();
    assert.deepEqual([after.favouritesCount, after.reblogsCount], [0, 0]);
    assert.deepEqual(
      (await bob.v1.bookmarks.list()).map((x) => x.id),
      [post.id],
    );
  });

  it('reads the home, public, hashtag and list timelines, notifications and search', async () => {
    const home = await bob.v1.timelines.home.list();
    assert.ok(home.some((x) => x.content.includes('Hello from masto')));
    const local = await alice.v1.timelines.public.list({ local: true });
    assert.ok(local.some((x) => x.account.id === aliceId));
    const everywhere = await alice.v1.timelines.public.list();
    assert.deepEqual(
      everywhere.map((x) => x.id),
      local.map((x) => x.id),
      'one server, no remote posts: the same posts',
    );
    assert.deepEqual(await alice.v1.timelines.public.list({ remote: true }), []);
    assert.ok(
      everywhere.every((x) => x.reblog === null),
      'boosts are not in public timelines',
    );
    const tagged = await alice.v1.timelines.tag.$select('e2e').list();
    assert.equal(tagged.length, 1);
    const list = await bob.v1.lists.create({ title: 'Alice' });
    await bob.v1.lists.$select(list.id).accounts.create({ accountIds: [aliceId] });
    const listed = await bob.v1.timelines.list.$select(list.id).list();
    assert.ok(listed.every((x) => x.account.id === aliceId) && listed.length > 0);

    const notifications = await alice.v1.notifications.list();
    assert.deepEqual(new Set(notifications.map((n) => n.type)), new Set(['follow', 'mention', 'favourite', 'reblog']));
    assert.ok(notifications.every((n) => n.account.id === bobId));
    const mentions = await alice.v1.notifications.list({ types: ['mention'] });
    assert.equal(mentions.length, 1);

    const found = await alice.v2.search.list({ q: 'picture' });
    assert.ok(found.statuses.some((x) => x.inReplyToId));
    const people = await alice.v2.search.list({ q: 'bob', type: 'accounts' });
    assert.deepEqual(
      people.accounts.map((a) => a.acct),
      ['bob'],
    );
  });

  it('pages through account, home and public timelines and notifications by their Link headers until an empty page stops them', async () => {
    for (let i = 0; i < 7; i++) await alice.v1.statuses.create({ status: `page item ${i} @bob` });
    /** Every id a paginator yields, page by page (masto follows the Link header's next until a page is empty). */
    const walk = async <T extends { id: string }>(pages: AsyncIterable<T[]>): Promise<string[]> => {
      const seen: string[] = [];
      for await (const page of pages) {
        assert.ok(page.length <= 3, 'a page holds at most limit items');
        seen.push(...page.map((x) => x.id));
      }
      return seen;
    };
    const cases: [string, AsyncIterable<{ id: string }[]>, { id: string }[]][] = [
      ['account', alice.v1.accounts.$select(aliceId).statuses.list({ limit: 3 }), await alice.v1.accounts.$select(aliceId).statuses.list({ limit: 40 })],
      ['home', bob.v1.timelines.home.list({ limit: 3 }), await bob.v1.timelines.home.list({ limit: 40 })],
      ['public', bob.v1.timelines.public.list({ limit: 3 }), await bob.v1.timelines.public.list({ limit: 40 })],
      ['notifications', bob.v1.notifications.list({ limit: 3 }), await bob.v1.notifications.list({ limit: 40 })],
    ];
    for (const [name, pages, all] of cases) {
      const seen = await walk(pages);
      assert.deepEqual(
        seen,
        all.map((x) => x.id),
        name,
      );
      assert.equal(new Set(seen).size, seen.length, `${name}: no item twice`);
      assert.ok(seen.length >= 7, `${name}: ${seen.length} items`);
    }
    // Newer items, by the prev link's min_id: only what came after.
    const newest = (await bob.v1.notifications.list({ limit: 1 }))[0]!;
    await alice.v1.statuses.create({ status: 'one more @bob' });
    const newer = await bob.v1.notifications.list({ minId: newest.id });
    assert.equal(newer.length, 1);
    assert.equal(newer[0]!.type, 'mention');
  });

  it('posts a poll that the other member votes in, and edits a profile with an avatar', async () => {
    const post = await alice.v1.statuses.create({ status: 'Tea or coffee?', poll: { options: ['Tea', 'Coffee'], expiresIn: 3600 } });
    assert.deepEqual(
      post.poll?.options.map((o) => o.title),
      ['Tea', 'Coffee'],
    );
    const voted = await bob.v1.polls.$select(post.poll!.id).votes.create({ choices: [1] });
    assert.deepEqual([voted.voted, voted.ownVotes, voted.votesCount], [true, [1], 1]);
    const seen = await alice.v1.polls.$select(post.poll!.id).fetch();
    assert.deepEqual(
      seen.options.map((o) => o.votesCount),
      [0, 1],
    );

    const me = await alice.v1.accounts.updateCredentials({
      displayName: 'Alice Admin',
      avatar: new Blob([new Uint8Array(png(64, 64))], { type: 'image/png' }),
      fieldsAttributes: [{ name: 'Site', value: 'https://alice.example' }],
    });
    assert.equal(me.displayName, 'Alice Admin');
    assert.match(me.avatar, /\/system\/accounts\/avatars\//);
    assert.equal(me.source?.fields[0]?.value, 'https://alice.example');
    assert.equal((await bob.v1.accounts.$select(aliceId).fetch()).avatar, me.avatar);
  });

  it('deletes and gets the source back for redrafting', async () => {
    const post = await alice.v1.statuses.create({ status: 'to redraft' });
    const deleted = await alice.v1.statuses.$select(post.id).remove();
    assert.equal(deleted.text, 'to redraft');
    await assert.rejects(alice.v1.statuses.$select(post.id).fetch(), (e: { statusCode?: number }) => e.statusCode === 404);

    // With media: the deleted post hands its attachments back, and the redraft posts them again.
    const media = await alice.v2.media.create({ file: new Blob([new Uint8Array(png(30, 30))], { type: 'image/png' }), description: 'kept' });
    const withMedia = await alice.v1.statuses.create({ status: 'with a picture', mediaIds: [media.id], sensitive: true, spoilerText: 'cw' });
    const gone = await alice.v1.statuses.$select(withMedia.id).remove();
    const redraft = await alice.v1.statuses.create({
      status: gone.text!,
      mediaIds: gone.mediaAttachments.map((m) => m.id),
      sensitive: gone.sensitive,
      spoilerText: gone.spoilerText,
    });
    assert.deepEqual(
      redraft.mediaAttachments.map((m) => [m.id, m.description]),
      [[media.id, 'kept']],
    );
    assert.deepEqual([redraft.sensitive, redraft.spoilerText], [true, 'cw']);
  });
});
