// PATCH wherever Rails routes PUT: Mastodon's `resources … :update` (and `resource … :update`) answer both methods
// with one action, so an app may send either (masto.js sends PUT; others PATCH). Every PUT route of the client API
// has its PATCH twin with the same rule and the same handler (http/types.ts updateRoute), except the two that no Rails
// route stands behind; and a PATCH does what the PUT does, over HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Route } from '../../src/http/types.js';
import { api } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Mastodon's PUT routes Stoa serves, each of which Rails also routes as PATCH. */
const TWINS = [
  '/api/v1/admin/domain_blocks/:id',
  '/api/v1/admin/reports/:id',
  '/api/v1/announcements/:id/reactions/:name',
  '/api/v1/filters/:id',
  '/api/v1/lists/:id',
  '/api/v1/media/:id',
  '/api/v1/notifications/policy',
  '/api/v1/push/subscription',
  '/api/v1/scheduled_statuses/:id',
  '/api/v1/statuses/:id',
  '/api/v1/statuses/:id/interaction_policy',
  '/api/v2/filters/:id',
  '/api/v2/filters/keywords/:id',
  '/api/v2/notifications/policy',
];

/** PUT only: Pleroma's reactions (Phoenix routes PUT alone) and our own admin settings (no Rails route behind them). */
const PUT_ONLY = [
  '/api/v1/admin/remote_history',
  '/api/v1/admin/trends/settings',
  '/api/v1/pleroma/statuses/:id/reactions/:emoji',
  // Lemmy's API (/api/v3, actix-web) routes PUT alone: no Rails twin.
  '/api/v3/post',
  '/api/v3/post/save',
  '/api/v3/comment',
  '/api/v3/comment/save',
];

describe('PATCH beside PUT, as Rails routes them', () => {
  let s: TestServer;
  let m: LocalMembers;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann']);
  });
  after(async () => {
    await s?.stop();
  });

  it('gives every PUT route of the client API its PATCH twin, with the same rule and handler', () => {
    const routes = s.app.routes.filter((r) => r.path.startsWith('/api/'));
    const find = (method: string, path: string): Route | undefined => routes.find((r) => r.method === method && r.path === path);
    const puts = routes.filter((r) => r.method === 'PUT').map((r) => r.path);
    assert.deepEqual([...puts].sort(), [...TWINS, ...PUT_ONLY].sort(), 'the PUT routes');
    for (const path of TWINS) {
      const put = find('PUT', path)!;
      const patch = find('PATCH', path);
      assert.ok(patch, `PATCH ${path}`);
      assert.deepEqual(patch.auth, put.auth, `PATCH ${path}: the same rule`);
      assert.equal(patch.body, put.body, `PATCH ${path}: the same body`);
      assert.equal(patch.handler, put.handler, `PATCH ${path}: the same handler`);
    }
    for (const path of PUT_ONLY) assert.equal(find('PATCH', path), undefined, `no PATCH ${path}`);
  });

  it('answers a PATCH as the PUT: a list renamed, a media description, a status edited', async () => {
    const call = (method: string, path: string, body?: unknown) => api(s.url, m.token['ann'], method, path, body);
    const list = (await call('POST', '/api/v1/lists', { title: 'one' })).body;
    const renamed = await call('PATCH', `/api/v1/lists/${list.id}`, { title: 'two' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.title, 'two');
    assert.equal((await call('GET', `/api/v1/lists/${list.id}`)).body.title, 'two');

    const media = await upload(s.url, m.token['ann']!, png(4, 4));
    const described = await call('PATCH', `/api/v1/media/${media.body.id}`, { description: 'a dot' });
    assert.equal(described.status, 200, described.text);
    assert.equal(described.body.description, 'a dot');

    const st = (await call('POST', '/api/v1/statuses', { status: 'first' })).body;
    const edited = await call('PATCH', `/api/v1/statuses/${st.id}`, { status: 'second' });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.body.content, '<p>second</p>');
    assert.equal((await call('PATCH', '/api/v1/statuses/1', { status: 'x' })).status, 404);
  });
});
