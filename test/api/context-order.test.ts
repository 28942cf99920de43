// GET /api/v1/statuses/:id/context as Mastodon 4.5 answers it (Status::ThreadingConcern, Api::V1::StatusesController):
// descendants depth-first, each parent's replies oldest first, then the self-replies (a reply to its own author) moved
// ahead of the others in that order; an account's token sees up to 4,096 ancestors and descendants, an anonymous
// caller or an app's token 40 ancestors, 60 descendants no deeper than 20. Also as masto.js, megalodon and Mastodon.py
// see it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createRestAPIClient } from 'masto';
import megalodonModule from 'megalodon';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { appToken, registerApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
// megalodon is CommonJS: imported from ESM, its default export is the module object, whose `default` is generator().
const generator = megalodonModule.default;

interface Node {
  readonly id: string;
  readonly parent: string;
  readonly author: string;
  readonly parentAuthor: string;
}

/** Mastodon's order of a status's descendants (ThreadingConcern: ORDER BY path, LIMIT, then promote_by!), as a model. */
function mastodonOrder(root: string, nodes: readonly Node[], limit = Number.POSITIVE_INFINITY): string[] {
  const children = new Map<string, Node[]>();
  for (const n of nodes) children.set(n.parent, [...(children.get(n.parent) ?? []), n]);
  const byId = (a: Node, b: Node) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1);
  const walked: Node[] = [];
  const walk = (id: string) => {
    for (const c of [...(children.get(id) ?? [])].sort(byId)) {
      walked.push(c);
      walk(c.id);
    }
  };
  walk(root);
  const kept = walked.slice(0, limit);
  const own = (n: Node) => n.author === n.parentAuthor;
  return [...kept.filter(own), ...kept.filter((n) => !own(n))].map((n) => n.id);
}

describe('context: Mastodon’s order and limits', () => {
  let s: TestServer;
  let m: LocalMembers;
  const ids = (list: Json[]) => list.map((x: Json) => x.id as string);
  const context = async (token: string | undefined, id: string) => {
    const r = await api(s.url, token, 'GET', `/api/v1/statuses/${id}/context`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { ancestors: Json[]; descendants: Json[] };
  };
  const nodes: Node[] = [];
  /** Posts a reply (or a root when parent is undefined) and records it for the model. */
  const post = async (who: string, parent?: Node | { id: string; author: string }): Promise<Node> => {
    const body: Record<string, string> = { status: `by ${who}` };
    if (parent) body['in_reply_to_id'] = parent.id;
    const r = await api(s.url, m.token[who], 'POST', '/api/v1/statuses', body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const n = { id: r.body.id as string, parent: parent?.id ?? '', author: who, parentAuthor: parent?.author ?? '' };
    if (parent) nodes.push(n);
    return n;
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'cal']);
  });
  after(async () => {
    await s?.stop();
  });

  it('orders interleaved reply chains depth-first, self-replies first', async () => {
    // root (ann) ─┬─ a1 (bob) ─┬─ a11 (bob)
    //             │            └─ a12 (ann) ── a121 (ann)
    //             ├─ s1 (ann) ──── s11 (ann) ── s111 (cal)
    //             └─ c1 (cal) ──── c11 (cal)
    // posted interleaved, so that ids alone (breadth-first or by time) would give another order
    const root = await post('ann');
    const a1 = await post('bob', root);
    const s1 = await post('ann', root);
    const a11 = await post('bob', a1);
    const c1 = await post('cal', root);
    const s11 = await post('ann', s1);
    const a12 = await post('ann', a1);
    const c11 = await post('cal', c1);
    const s111 = await post('cal', s11);
    const a121 = await post('ann', a12);
    const expected = [a11, a121, s1, s11, c11, a1, a12, s111, c1].map((n) => n.id);
    assert.deepEqual(mastodonOrder(root.id, nodes), expected, 'the model agrees with the hand-worked order');
    for (const token of [undefined, m.token['bob']]) assert.deepEqual(ids((await context(token, root.id)).descendants), expected);
    // Below a1: a11 is bob's answer to bob, a121 ann's to ann; a12 answers bob.
    assert.deepEqual(ids((await context(m.token['cal'], a1.id)).descendants), [a11.id, a121.id, a12.id]);
    assert.deepEqual(ids((await context(undefined, s111.id)).ancestors), [root.id, s1.id, s11.id]);

    const client = generator('mastodon', s.url, m.token['cal']);
    const viaMegalodon = await client.getStatusContext(root.id);
    assert.deepEqual(
      viaMegalodon.data.descendants.map((x) => x.id),
      expected,
    );
    const masto = createRestAPIClient({ url: s.url, accessToken: m.token['bob']! });
    const viaMasto = await masto.v1.statuses.$select(a1.id).context.fetch();
    assert.deepEqual(
      viaMasto.descendants.map((x) => x.id),
      [a11.id, a121.id, a12.id],
    );
    assert.deepEqual(
      viaMasto.ancestors.map((x) => x.id),
      [root.id],
    );
    const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], access_token=os.environ['TOKEN'], version_check_mode='none')
c = m.status_context(os.environ['ID'])
print(json.dumps({'ancestors': [str(x['id']) for x in c['ancestors']], 'descendants': [str(x['id']) for x in c['descendants']]}))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, TOKEN: m.token['ann']!, ID: root.id } });
    assert.deepEqual(JSON.parse(stdout), { ancestors: [], descendants: expected });
  });

  it('agrees with the model on random reply trees', async () => {
    const names = ['ann', 'bob', 'cal'] as const;
    // Each reply: which earlier status it answers (an index reduced modulo those posted) and who writes it.
    const tree = fc.array(fc.tuple(fc.nat(), fc.constantFrom(...names)), { minLength: 1, maxLength: 14 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), tree, async (rootAuthor, replies) => {
        nodes.length = 0;
        const root = await post(rootAuthor);
        const posted: Node[] = [root];
        for (const [pick, who] of replies) posted.push(await post(who, posted[pick % posted.length]!));
        assert.deepEqual(ids((await context(m.token['ann'], root.id)).descendants), mastodonOrder(root.id, nodes));
        const mid = posted[1]!;
        assert.deepEqual(ids((await context(undefined, mid.id)).descendants), mastodonOrder(mid.id, nodes), 'from a reply, its own subtree');
      }),
      { seed: 36, numRuns: 6 },
    );
  });

  it('caps an anonymous caller and an app’s token at 40 ancestors and 60 descendants 20 deep, not an account', async () => {
    // root (ann) ── c1 (bob) ── c2 (ann) ── … ── c45: a chain of 45 answering each other (no self-replies), then 50
    // replies to the root by cal.
    nodes.length = 0;
    const root = await post('ann');
    const chain: Node[] = [];
    for (let i = 0; i < 45; i++) chain.push(await post(i % 2 === 0 ? 'bob' : 'ann', chain[i - 1] ?? root));
    const fan: Node[] = [];
    for (let i = 0; i < 50; i++) fan.push(await post('cal', root));
    const tip = chain[44]!;
    const app = await registerApp(s.url, { scopes: 'read' });
    const appOnly = await appToken(s.url, app, 'read');

    const member = await context(m.token['cal'], root.id);
    assert.equal(member.descendants.length, 95, 'an account sees the whole thread');
    assert.deepEqual(
      ids(member.descendants),
      [...chain, ...fan].map((n) => n.id),
    );
    assert.deepEqual(
      ids((await context(m.token['cal'], tip.id)).ancestors),
      [root, ...chain.slice(0, 44)].map((n) => n.id),
    );

    for (const token of [undefined, appOnly]) {
      const capped = await context(token, root.id);
      assert.deepEqual(
        ids(capped.descendants),
        [...chain.slice(0, 20), ...fan.slice(0, 40)].map((n) => n.id),
        'no deeper than 20, and the first 60 of those in order',
      );
      assert.deepEqual(
        ids((await context(token, tip.id)).ancestors),
        chain.slice(4, 44).map((n) => n.id),
        'the nearest 40, oldest first',
      );
    }
  });
});
