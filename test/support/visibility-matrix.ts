// The visibility matrix's cast and statuses, shared by the test files that read them through every endpoint.
// amy posts a public, an unlisted, a private and a direct status (each tagged #matrix and carrying the word
// "matrixpost"; the direct one mentions cal and fay), the same four kinds of reply under a public parent, and a poll
// of each kind. The viewers: anonymous, an app token (no member), amy, bob (her follower, told of her posts), cal
// (mentioned, not a follower), dee (a stranger) and fay (a follower, mentioned, then blocked by amy: the block
// outweighs both). eve and gil are members for tests of their own (eve follows amy later; gil is a third party).
import assert from 'node:assert/strict';
import { api, type ApiReply, type Json } from './api.js';
import { createMembers } from './members.js';
import { appToken, registerApp } from './oauth.js';
import { startTestServer, type TestServer } from './server.js';

export type { Json };

export type Kind = 'public' | 'unlisted' | 'private' | 'direct';
export type Viewer = 'anonymous' | 'app' | 'amy' | 'bob' | 'cal' | 'dee' | 'fay';
export type Caller = Viewer | 'eve' | 'gil';
export const KINDS: readonly Kind[] = ['public', 'unlisted', 'private', 'direct'];
export const VIEWERS: readonly Viewer[] = ['anonymous', 'app', 'amy', 'bob', 'cal', 'dee', 'fay'];
/** The viewers who are members (who can act). */
export const MEMBERS = ['amy', 'bob', 'cal', 'dee', 'fay'] as const;

/** Which of amy's statuses each viewer may read (Mastodon's rules; an author's block hides everything). */
export const MAY_SEE: Record<Viewer, readonly Kind[]> = {
  anonymous: ['public', 'unlisted'],
  app: ['public', 'unlisted'],
  amy: KINDS,
  bob: ['public', 'unlisted', 'private'],
  cal: ['public', 'unlisted', 'direct'],
  dee: ['public', 'unlisted'],
  fay: [],
};

export type Reply = ApiReply;

export interface Matrix {
  readonly server: TestServer;
  /** Account ids by username. */
  readonly id: Readonly<Record<string, string>>;
  /** amy's statuses, replies (under `parent`) and poll statuses by kind; the polls' ids by kind. */
  readonly post: Readonly<Record<Kind, string>>;
  readonly reply: Readonly<Record<Kind, string>>;
  readonly pollStatus: Readonly<Record<Kind, string>>;
  readonly poll: Readonly<Record<Kind, string>>;
  readonly parent: string;
  call(who: Caller, method: string, path: string, body?: unknown): Promise<Reply>;
  /** Posts as a member; returns the status. */
  postAs(who: Caller, fields: Record<string, unknown>): Promise<Json>;
  /** A 200 list answer's items. */
  list(who: Caller, path: string): Promise<Json[]>;
  stop(): Promise<void>;
}

/** The kinds, among `of`, whose ids appear in a list of statuses (in KINDS order). */
export function kindsIn(list: readonly Json[], of: Readonly<Record<Kind, string>>, idOf: (x: Json) => string | undefined = (x) => x?.id): Kind[] {
  return KINDS.filter((k) => list.some((x) => idOf(x) === of[k]));
}

/**
 * Starts a server with the matrix in place. `beforeBlock` runs while fay may still read all four kinds (to leave
 * favourites, bookmarks, reactions … behind that the block must then hide).
 */
export async function startMatrix(opts: { beforeBlock?: (m: Matrix) => Promise<void> } = {}): Promise<Matrix> {
  const server = await startTestServer();
  const members = await createMembers(server, [...MEMBERS, 'eve', 'gil']);
  const token: Record<string, string> = { ...members.token, app: await appToken(server.url, await registerApp(server.url, { scopes: 'read' }), 'read') };

  const call = async (who: Caller, method: string, path: string, body?: unknown): Promise<Reply> => {
    const r = await api(server.url, who === 'anonymous' ? undefined : token[who], method, path, body);
    assert.match(r.type ?? '', /^application\/json/, `${method} ${path}`);
    return r;
  };
  const postAs = async (who: Caller, fields: Record<string, unknown>): Promise<Json> => {
    const r = await call(who, 'POST', '/api/v1/statuses', fields);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const list = async (who: Caller, path: string): Promise<Json[]> => {
    const r = await call(who, 'GET', path);
    assert.equal(r.status, 200, `${who} ${path}: ${JSON.stringify(r.body)}`);
    assert.ok(Array.isArray(r.body), `${who} ${path}`);
    return r.body;
  };
  const mention = (k: Kind) => (k === 'direct' ? ' @cal @fay' : '');

  for (const [who, fields] of [
    ['bob', { notify: true }],
    ['fay', {}],
  ] as const) {
    const r = await call(who, 'POST', `/api/v1/accounts/${members.id['amy']}/follow`, fields);
    assert.equal(r.body.following, true, who);
  }
  // The matrix is about visibility: cal and fay take private mentions from amy, whom they do not follow (Mastodon's
  // default policy filters those: test/api/notification-policy.test.ts).
  for (const who of ['cal', 'fay'] as const) {
    assert.equal((await call(who, 'PATCH', '/api/v2/notifications/policy', { for_private_mentions: 'accept' })).status, 200);
  }
  const post = {} as Record<Kind, string>;
  const reply = {} as Record<Kind, string>;
  const pollStatus = {} as Record<Kind, string>;
  const poll = {} as Record<Kind, string>;
  for (const k of KINDS) post[k] = (await postAs('amy', { status: `${k} matrixpost #matrix${mention(k)}`, visibility: k })).id;
  const parent = (await postAs('amy', { status: 'the parent', visibility: 'public' })).id;
  for (const k of KINDS) reply[k] = (await postAs('amy', { status: `${k} reply${mention(k)}`, visibility: k, in_reply_to_id: parent })).id;
  for (const k of KINDS) {
    const s = await postAs('amy', { status: `${k} poll${mention(k)}`, visibility: k, poll: { options: ['yes', 'no'], expires_in: 86_400 } });
    pollStatus[k] = s.id;
    poll[k] = s.poll.id;
  }
  const m: Matrix = { server, id: members.id, post, reply, pollStatus, poll, parent, call, postAs, list, stop: () => server.stop() };
  await opts.beforeBlock?.(m);
  const block = await call('amy', 'POST', `/api/v1/accounts/${members.id['fay']}/block`);
  assert.deepEqual([block.status, block.body.blocking, block.body.followed_by], [200, true, false]);
  return m;
}
