// GET /api/v3/site as lemmy-js-client 0.19.9 reads it, against a real server: the site, the operator's downvote
// switch (LINK_DOWNVOTES) and registration mode, the admins from the roles, a version with a semver prefix naming the
// adapter, and my_user for a signed-in member (their person, admin flag, blocks).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LemmyHttp } from 'lemmy-js-client';
import { adminToken, api } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const lemmy = (s: TestServer, token?: string) =>
  new LemmyHttp(s.url, { fetchFunction: fetch, ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}) });

describe('GET /api/v3/site', () => {
  let s: TestServer;
  let m: LocalMembers;

  before(async () => {
    s = await startTestServer({ INSTANCE_TITLE: 'Agora', INSTANCE_DESCRIPTION: 'A place to talk.' });
    m = await createMembers(s, ['alice', 'bob']);
  });
  after(() => s.stop());

  it('answers anyone: the site, downvotes on by default, the admins, a semver-prefixed version, no my_user', async () => {
    const site = await lemmy(s).getSite();
    assert.match(site.version, /^0\.19\.9-stoa-\d+\.\d+\.\d+/);
    const v = site.site_view;
    assert.equal(v.site.name, 'Agora');
    assert.equal(v.site.sidebar, 'A place to talk.');
    assert.equal(v.site.actor_id, `${s.url}/`);
    assert.equal(v.site.inbox_url, `${s.url}/inbox`);
    assert.match(v.site.public_key, /BEGIN PUBLIC KEY/);
    assert.equal(typeof v.site.id, 'number');
    assert.equal(typeof v.site.instance_id, 'number');
    assert.equal(v.local_site.enable_downvotes, true);
    assert.equal(v.local_site.registration_mode, 'Closed');
    assert.equal(v.local_site.federation_enabled, true);
    assert.equal(typeof v.local_site_rate_limit.post, 'number');
    for (const k of ['users', 'posts', 'comments', 'communities'] as const) assert.equal(typeof v.counts[k], 'number', k);
    assert.equal(v.counts.users, 3);
    assert.equal(site.my_user, undefined);
    assert.deepEqual(
      site.admins.map((a) => [a.person.name, a.is_admin, a.person.local]),
      [['admin', true, true]],
    );
    assert.equal(typeof site.admins[0]!.person.id, 'number');
    assert.equal(typeof site.admins[0]!.counts.post_count, 'number');
    assert.ok(site.all_languages.some((l) => l.code === 'und' && typeof l.id === 'number'));
    for (const k of ['discussion_languages', 'taglines', 'custom_emojis', 'blocked_urls'] as const) assert.deepEqual(site[k], [], k);
  });

  it('carries my_user for a signed-in member: their person, not an admin, nothing followed, their blocks', async () => {
    assert.equal((await api(s.url, m.token['alice'], 'POST', `/api/v1/accounts/${m.id['bob']}/block`)).status, 200);
    const me = (await lemmy(s, m.token['alice']).getSite()).my_user!;
    const view = me.local_user_view;
    assert.equal(view.person.name, 'alice');
    assert.equal(view.person.local, true);
    assert.equal(view.local_user.admin, false);
    assert.equal(view.local_user.person_id, view.person.id);
    assert.equal(view.local_user.email, 'alice@example.test');
    assert.equal(view.counts.person_id, view.person.id);
    assert.deepEqual(me.follows, []);
    assert.deepEqual(me.moderates, []);
    assert.deepEqual(
      me.person_blocks.map((b) => [b.person.name, b.target.name]),
      [['alice', 'bob']],
    );
    // The person id is stable: the same in the admins' list as in my_user, call after call.
    const again = (await lemmy(s, m.token['alice']).getSite()).my_user!;
    assert.equal(again.local_user_view.person.id, view.person.id);
  });

  it('shows an admin as one', async () => {
    const site = await lemmy(s, await adminToken(s)).getSite();
    assert.equal(site.my_user?.local_user_view.local_user.admin, true);
    assert.equal(site.my_user?.local_user_view.person.id, site.admins[0]!.person.id);
  });

  it('refuses a bad token rather than answering as anonymous', async () => {
    const r = await api(s.url, 'not-a-token', 'GET', '/api/v3/site');
    assert.equal(r.status, 401);
  });
});

describe('GET /api/v3/site with downvotes switched off', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ LINK_DOWNVOTES: 'false', REGISTRATIONS: 'approval' });
  });
  after(() => s.stop());

  it('says enable_downvotes false and the registration mode', async () => {
    const site = await lemmy(s).getSite();
    assert.equal(site.site_view.local_site.enable_downvotes, false);
    assert.equal(site.site_view.local_site.registration_mode, 'RequireApplication');
  });
});
