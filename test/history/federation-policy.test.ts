// Federation policy against remote history (issue 17): an operator's reject_media keeps a history post's picture
// from being fetched through the media proxy (and lifting it lets it through); a moderator's suspension of a remote
// account hides its posts and makes its history `unsupported` / `federation_policy` with no further request to its
// origin, until the suspension is lifted; suspending the origin's domain does the same for its other accounts and refuses to resolve new ones.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { api, FED_ENV, type Json } from '../support/api.js';
import { startHistoryOrigin, type HistoryOrigin } from '../support/history-origin.js';
import { png } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

describe('remote history under the federation policy', () => {
  let s: TestServer;
  let origin: HistoryOrigin;
  let m: LocalMembers;
  let operator: string;

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const history = async (accountId: string): Promise<Json> => {
    const r = await call(m.token['ann'], 'GET', `/api/v1/accounts/${accountId}/remote_history`);
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const statuses = async (accountId: string): Promise<Json[]> => {
    const r = await call(m.token['ann'], 'GET', `/api/v1/accounts/${accountId}/statuses?limit=40`);
    assert.equal(r.status, 200, r.text);
    return r.body as Json[];
  };
  /** Resolves an actor URL as a member's search does; the accounts found (none when it cannot be fetched). */
  const resolve = async (actorUri: string): Promise<Json[]> => {
    const r = await call(m.token['ann'], 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(actorUri)}`);
    assert.equal(r.status, 200, r.text);
    return r.body.accounts as Json[];
  };
  const open = async (actorUri: string): Promise<string> => {
    const found = await resolve(actorUri);
    assert.equal(found.length, 1);
    return found[0].id as string;
  };
  /** A remote actor whose first history pages are imported (3 posts, the oldest with a picture). */
  const imported = async (name: string): Promise<{ id: string; posts: Json[] }> => {
    const id = await open(origin.actor(name));
    origin.load('basic', { name });
    await statuses(id);
    await eventually(async () => assert.equal((await history(id)).state, 'partial'));
    const posts = await statuses(id);
    assert.equal(posts.length, 3);
    return { id, posts };
  };

  before(async () => {
    [s, origin] = await Promise.all([startTestServer(FED_ENV), startHistoryOrigin()]);
    m = await createMembers(s, ['ann', 'boss'], { boss: 'admin' });
    operator = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    const on = await call(operator, 'PUT', '/api/v1/admin/remote_history', { enabled: true });
    assert.equal(on.status, 200, on.text);
    origin.serve('/media/3.png', { body: png(8, 8), contentType: 'image/png' });
  });
  // Each test starts without blocks, so one failure does not spill into the next.
  afterEach(async () => {
    for (const b of (await call(operator, 'GET', '/api/v1/admin/domain_blocks')).body as Json[]) {
      await call(operator, 'DELETE', `/api/v1/admin/domain_blocks/${b.id}`);
    }
  });
  after(async () => {
    await s?.stop();
    await origin?.close();
  });

  it('reject_media keeps a history picture from being fetched; lifting the block lets it through', async () => {
    const { posts } = await imported('olga');
    const picture = posts[2].media_attachments[0];
    const block = await call(operator, 'POST', '/api/v1/admin/domain_blocks', { domain: origin.host, severity: 'noop', reject_media: true });
    assert.equal(block.status, 200, block.text);
    const refused = await fetch(picture.url);
    assert.equal(refused.status, 502);
    assert.match(((await refused.json()) as Json).error_description, /does not accept media/);
    assert.equal(origin.requests('/media/3.png'), 0, 'nothing was asked of the origin');
    // The post itself is still shown (noop), only its media is refused.
    assert.equal((await call(m.token['ann'], 'GET', `/api/v1/statuses/${posts[2].id}`)).status, 200);

    assert.equal((await call(operator, 'DELETE', `/api/v1/admin/domain_blocks/${block.body.id}`)).status, 200);
    const served = await fetch(picture.url);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(origin.requests('/media/3.png'), 1);
  });

  it("a suspended account's posts are hidden and its history refuses with federation_policy", async () => {
    const { id, posts } = await imported('pia');
    const outboxRequests = origin.requests('/users/pia/outbox?page=2');
    const r = await call(operator, 'POST', `/api/v1/admin/accounts/${id}/action`, { type: 'suspend' });
    assert.equal(r.status, 200, r.text);
    assert.equal((await call(m.token['ann'], 'GET', `/api/v1/statuses/${posts[0].id}`)).status, 404);
    assert.deepEqual(await statuses(id), []);
    // Load older: the job is refused before any request.
    await call(m.token['ann'], 'POST', `/api/v1/accounts/${id}/remote_history/fetch`);
    await eventually(async () => {
      const h = await history(id);
      assert.equal(h.state, 'unsupported');
      assert.equal(h.reason, 'federation_policy');
    });
    assert.equal(origin.requests('/users/pia/outbox?page=2'), outboxRequests);
  });

  it('an account suspended before its history was asked for is refused at once, without a request', async () => {
    const id = await open(origin.actor('quinn'));
    origin.load('basic', { name: 'quinn' });
    const r = await call(operator, 'POST', `/api/v1/admin/accounts/${id}/action`, { type: 'suspend' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await statuses(id), []);
    const h = await history(id);
    assert.equal(h.state, 'unsupported');
    assert.equal(h.reason, 'federation_policy');
    assert.equal(origin.requests('/users/quinn/outbox'), 0);
  });

  it("unsuspending an account lifts its history's refusal", async () => {
    const id = await open(origin.actor('uma'));
    origin.load('basic', { name: 'uma' });
    assert.equal((await call(operator, 'POST', `/api/v1/admin/accounts/${id}/action`, { type: 'suspend' })).status, 200);
    await statuses(id);
    assert.equal((await history(id)).reason, 'federation_policy');
    assert.equal(origin.requests('/users/uma/outbox'), 0);

    const r = await call(operator, 'POST', `/api/v1/admin/accounts/${id}/unsuspend`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.suspended, false);
    await statuses(id);
    await eventually(async () => assert.equal((await history(id)).state, 'partial'));
    assert.equal((await statuses(id)).length, 3);
  });

  it("a suspended domain's accounts are refused history, and its new actors are not resolved", async () => {
    const id = await open(origin.actor('rosa'));
    origin.load('basic', { name: 'rosa' });
    const block = await call(operator, 'POST', '/api/v1/admin/domain_blocks', { domain: origin.host, severity: 'suspend' });
    assert.equal(block.status, 200, block.text);
    assert.deepEqual(await statuses(id), []);
    const h = await history(id);
    assert.equal(h.state, 'unsupported');
    assert.equal(h.reason, 'federation_policy');
    assert.equal(origin.requests('/users/rosa/outbox'), 0);

    origin.actor('sam');
    assert.deepEqual(await resolve(`${origin.url}/users/sam`), []);
    assert.equal(origin.requests('/users/sam'), 0, 'nothing is fetched from a suspended domain');
  });
});
