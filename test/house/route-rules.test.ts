// The route table's rules are the truth of who may call what: every route and page declares one (a bearer rule,
// a page rule or PUBLIC), staff routes and pages declare their permission, the API's public routes are the ones
// listed here, and the front end enforces a page's rule before its handler: a visitor is sent to sign in, a member
// without the permission is refused, a form without its token is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isApiPath } from '../../src/http/exchange.js';
import { isAuthRule, isPageRule, type Route } from '../../src/http/types.js';
import { createMembers } from '../support/members.js';
import { signIn } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Client-API and OAuth routes anyone may call without a bearer token; a new one must be added here on purpose. */
const PUBLIC_API = new Set([
  'GET /api/v1/instance',
  'GET /api/v1/custom_emojis',
  'GET /api/v2/instance',
  'GET /health',
  'POST /api/v1/apps',
  'POST /oauth/token',
  'POST /oauth/revoke',
  'GET /api/v1/instance/domain_blocks',
  'GET /api/v1/instance/peers',
  'GET /api/v1/instance/activity',
  'GET /api/v1/instance/rules',
  'GET /api/v1/instance/extended_description',
  'GET /api/v1/instance/privacy_policy',
  'GET /api/v1/instance/terms_of_service',
  'GET /api/v1/instance/terms_of_service/:date',
  'GET /api/v1/instance/translation_languages',
  'GET /api/v1/instance/languages',
  'GET /api/v1/peers/search',
  'GET /api/v1/streaming/health',
  'GET /api/oembed',
  'POST /api/v3/user/login',
]);

const key = (r: Route) => `${r.method} ${r.path}`;
const kind = (r: Route) =>
  isAuthRule(r.auth) ? 'bearer' : isPageRule(r.auth) ? 'page' : r.auth && 'public' in r.auth && r.auth.public === true ? 'public' : 'none';

describe('declared rules', () => {
  let s: TestServer;

  before(async () => {
    s = await startTestServer();
  });
  after(() => s.stop());

  it('every route and page declares its rule, of the kind its path calls for', () => {
    const wrong: string[] = [];
    for (const r of s.app.routes) {
      const k = kind(r);
      if (k === 'none') wrong.push(`${key(r)}: no rule`);
      else if (k === 'page' && isApiPath(r.path)) wrong.push(`${key(r)}: a page rule on an API path`);
      else if (k === 'bearer' && !isApiPath(r.path)) wrong.push(`${key(r)}: a bearer rule on a page path`);
    }
    assert.deepEqual(wrong, []);
  });

  it('staff routes and pages declare the permission they need', () => {
    const staff = s.app.routes.filter((r) => /^\/api\/v[12]\/admin\//.test(r.path) || r.path.startsWith('/admin/'));
    assert.ok(staff.length >= 20, `${staff.length} staff routes`);
    const without = staff.filter((r) => !(r.auth as { permission?: string }).permission).map(key);
    assert.deepEqual(without, []);
  });

  it("the client API's public routes are exactly the listed ones", () => {
    const open = s.app.routes
      .filter((r) => kind(r) === 'public' && (r.path.startsWith('/api/') || r.path.startsWith('/oauth/') || r.path === '/health'))
      .filter((r) => !r.path.startsWith('/api/v1/streaming/') || r.path === '/api/v1/streaming/health')
      .filter((r) => !r.path.startsWith('/api/v1/media_proxy') && !r.path.startsWith('/api/v1/remote_images'))
      .map(key);
    const unlisted = open.filter((k) => !PUBLIC_API.has(k));
    assert.deepEqual(unlisted, [], 'public API routes not listed: list them here on purpose, or give them a rule');
    assert.deepEqual(
      [...PUBLIC_API].filter((k) => !open.includes(k)),
      [],
      'listed routes that are not served in public',
    );
  });

  it('the front end enforces page rules before the handler', async () => {
    const m = await createMembers(s, ['root', 'plain'], { root: 'admin' });
    const pages = s.app.routes.filter((r) => isPageRule(r.auth) && !r.path.includes(':'));
    const forms = pages.filter((r) => r.method === 'POST' && isPageRule(r.auth) && r.auth.page === 'member' && r.auth.csrf === undefined);
    assert.ok(forms.length >= 3, `${forms.length} member forms`);
    // A visitor is sent to sign in, from a page or a form.
    for (const r of pages.filter((p) => isPageRule(p.auth) && p.auth.page === 'member')) {
      const res = await fetch(s.url + r.path, { method: r.method, redirect: 'manual', body: r.method === 'POST' ? new URLSearchParams() : undefined });
      assert.equal(res.status, 302, key(r));
      assert.match(res.headers.get('location') ?? '', /^\/auth\/sign_in\?return_to=/, key(r));
    }
    const cookie = async (who: string) => (await signIn(s.url, who, 'member-password-1')).header();
    // A member whose role lacks the permission is refused.
    const plain = await cookie('plain');
    for (const r of pages.filter((p) => isPageRule(p.auth) && p.auth.permission && p.method === 'GET')) {
      const res = await fetch(s.url + r.path, { headers: { Cookie: plain }, redirect: 'manual' });
      assert.equal(res.status, 403, key(r));
    }
    // A form without its token is refused, whoever sends it, and nothing happens.
    const root = await cookie('root');
    for (const r of forms) {
      const res = await fetch(s.url + r.path, {
        method: 'POST',
        headers: { Cookie: root },
        redirect: 'manual',
        body: new URLSearchParams({ authenticity_token: 'forged' }),
      });
      assert.equal(res.status, 403, key(r));
    }
    assert.ok(m.id['root']);
  });
});
