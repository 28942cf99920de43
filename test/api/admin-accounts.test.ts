// Mastodon's Admin::Accounts API over real HTTP, as moderators' clients call it: who may (scope, then Manage users,
// then a role ranking above the member's), the Admin::Account entity for local and remote accounts, v1's and v2's
// filters with Link-header pages, and what each action does where a user would see it (tokens refused, posts gone
// or out of the public timeline, media sensitive, sign-ups approved or rejected, data deleted); Mastodon.py 1.8's
// admin methods against it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { hashPassword } from '../../src/auth/password.js';
import { RoleId } from '../../src/auth/permissions.js';
import { UserStore } from '../../src/store/users.js';
import { api, form, type Json } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);

describe('admin accounts API', () => {
  let s: TestServer;
  let m: LocalMembers;
  let boss: string;
  let mod: string;
  const remote: Record<string, string> = {};
  const pending: Record<string, string> = {};

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const ok = async (token: string | undefined, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await call(token, method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  const admin = (id: string) => ok(boss, 'GET', `/api/v1/admin/accounts/${id}`);
  const usernames = async (path: string, token = boss) => ((await ok(token, 'GET', path)) as Json[]).map((a) => a.username).sort();
  const action = (token: string, id: string, type: string, extra: Json = {}) => call(token, 'POST', `/api/v1/admin/accounts/${id}/action`, { type, ...extra });
  const post = async (who: string, body: Json): Promise<Json> => ok(m.token[who], 'POST', '/api/v1/statuses', body);
  const publicTexts = async () => ((await ok(undefined, 'GET', '/api/v1/timelines/public?limit=40')) as Json[]).map((x) => x.content as string);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bea', 'cid', 'dot', 'mod', 'boss'], { mod: 'moderator', boss: 'admin' });
    boss = await m.tokenFor('boss', ['admin:read', 'admin:write']);
    mod = await m.tokenFor('mod', ['admin:read:accounts', 'admin:write:accounts']);
    for (const [name, domain] of [
      ['rita', 'remote.example'],
      ['sam', 'other.example'],
      ['tia', 'other.example'],
    ]) {
      const r = await s.app.db.pool.query<{ id: string }>(
        'INSERT INTO accounts (username, domain, uri, inbox_url, display_name) VALUES ($1, $2, $3, $4, $5) RETURNING id',
        [name, domain, `https://${domain}/users/${name}`, `https://${domain}/users/${name}/inbox`, `${name} remote`],
      );
      remote[name!] = r.rows[0]!.id;
    }
    const users = new UserStore(s.app.db);
    const hash = await hashPassword('member-password-1');
    for (const name of ['pen', 'rej']) {
      const u = await users.create({
        username: name,
        email: `${name}@example.test`,
        passwordHash: hash,
        roleId: RoleId.user,
        approved: false,
        signUpReason: 'hi',
      });
      pending[name] = u.accountId;
    }
  });
  after(async () => {
    await s?.stop();
  });

  it('needs the accounts scopes and the Manage users permission', async () => {
    assert.equal((await call(undefined, 'GET', '/api/v1/admin/accounts')).status, 401);
    assert.equal((await call(m.token['boss'], 'GET', '/api/v1/admin/accounts')).status, 403, 'read write follow is not admin:read');
    const ann = await m.tokenFor('ann', ['admin:read', 'admin:write']);
    for (const [method, path] of [
      ['GET', '/api/v1/admin/accounts'],
      ['GET', '/api/v2/admin/accounts'],
      ['GET', `/api/v1/admin/accounts/${m.id['bea']}`],
      ['POST', `/api/v1/admin/accounts/${remote['rita']}/action`],
      ['POST', `/api/v1/admin/accounts/${remote['rita']}/unsilence`],
      ['POST', `/api/v1/admin/accounts/${pending['pen']}/approve`],
      ['DELETE', `/api/v1/admin/accounts/${remote['rita']}`],
    ] as const) {
      const r = await call(ann, method, path, method === 'POST' ? { type: 'none' } : undefined);
      assert.equal(r.status, 403, `a member without Manage users: ${method} ${path}`);
    }
    const readOnly = await m.tokenFor('mod', ['admin:read:accounts']);
    assert.equal((await call(readOnly, 'GET', '/api/v1/admin/accounts')).status, 200, 'a moderator manages users');
    assert.equal((await action(readOnly, remote['rita']!, 'silence')).status, 403, 'reading is not writing');
    assert.equal((await call(mod, 'GET', '/api/v1/admin/accounts/12345')).status, 404);
    const instanceActor = await s.app.db.pool.query<{ id: string }>('SELECT id FROM accounts WHERE instance_actor');
    assert.equal((await call(mod, 'GET', `/api/v1/admin/accounts/${instanceActor.rows[0]!.id}`)).status, 404);
  });

  it('shows Admin::Account for a local member and a remote account', async () => {
    const ann = await admin(m.id['ann']!);
    assert.equal(ann.id, m.id['ann']);
    assert.equal(ann.username, 'ann');
    assert.equal(ann.domain, null);
    assert.equal(ann.email, 'ann@example.test');
    assert.deepEqual(ann.ips, []);
    assert.equal(typeof ann.role, 'object');
    assert.equal((await admin(m.id['mod']!)).role.name, 'Moderator');
    assert.equal(ann.confirmed, true);
    assert.equal(ann.approved, true);
    for (const k of ['disabled', 'silenced', 'suspended', 'sensitized']) assert.equal(ann[k], false, k);
    assert.equal(ann.account.id, m.id['ann']);
    assert.equal(ann.account.acct, 'ann');
    assert.ok(!Number.isNaN(Date.parse(ann.created_at)));

    const rita = await admin(remote['rita']!);
    assert.equal(rita.domain, 'remote.example');
    assert.equal(rita.email, null);
    assert.equal(rita.role, null);
    assert.equal(rita.approved, null);
    assert.equal(rita.disabled, null);
    assert.equal(rita.suspended, false);
    assert.equal(rita.account.acct, 'rita@remote.example');

    const pen = await admin(pending['pen']!);
    assert.equal(pen.approved, false);
    assert.equal(pen.invite_request, 'hi');
  });

  it("filters with v1's flags and v2's parameters, and pages with Link headers", async () => {
    assert.deepEqual(await usernames('/api/v1/admin/accounts?remote=true'), ['rita', 'sam', 'tia']);
    // `admin` is the server's first Owner.
    assert.deepEqual(await usernames('/api/v1/admin/accounts?local=true&staff=true'), ['admin', 'boss', 'mod']);
    assert.deepEqual(await usernames('/api/v1/admin/accounts?by_domain=other.example'), ['sam', 'tia']);
    assert.deepEqual(await usernames('/api/v1/admin/accounts?username=RI'), ['rita'], 'a prefix, any case');
    assert.deepEqual(await usernames('/api/v1/admin/accounts?display_name=sam%20r'), ['sam']);
    assert.deepEqual(await usernames('/api/v1/admin/accounts?email=cid@'), ['cid']);
    assert.deepEqual(await usernames('/api/v1/admin/accounts?pending=1'), ['pen', 'rej']);
    assert.deepEqual(await usernames('/api/v1/admin/accounts?ip=not-an-ip'), []);
    const all = await usernames('/api/v1/admin/accounts');
    assert.ok(all.includes('rita') && all.includes('ann') && all.length >= 11, all.join());

    assert.deepEqual(await usernames('/api/v2/admin/accounts?origin=remote'), ['rita', 'sam', 'tia']);
    assert.deepEqual(await usernames('/api/v2/admin/accounts?origin=local&status=pending'), ['pen', 'rej']);
    assert.deepEqual(await usernames('/api/v2/admin/accounts?permissions=staff'), ['admin', 'boss', 'mod']);
    assert.deepEqual(await usernames(`/api/v2/admin/accounts?role_ids[]=${RoleId.moderator}`), ['mod']);
    assert.deepEqual(await usernames('/api/v2/admin/accounts?by_domain=other.example&username=t'), ['tia']);
    for (const bad of ['status=banned', 'origin=mars', 'permissions=all', 'role_ids[]=x']) {
      assert.equal((await call(boss, 'GET', `/api/v2/admin/accounts?${bad}`)).status, 400, bad);
    }

    // Pages, newest first, each Link keeping the filter.
    const first = await call(boss, 'GET', '/api/v2/admin/accounts?origin=remote&limit=2');
    assert.deepEqual(
      (first.body as Json[]).map((a) => a.username),
      ['tia', 'sam'],
    );
    const next = /<([^>]+)>; rel="next"/.exec(first.link ?? '')?.[1];
    assert.ok(next?.includes('origin=remote'), first.link ?? 'no Link');
    const second = await call(boss, 'GET', next!.slice(s.url.length));
    assert.deepEqual(
      (second.body as Json[]).map((a) => a.username),
      ['rita'],
    );
  });

  it('suspends a local member: their tokens are refused and their posts hidden until it is lifted', async () => {
    const p = await post('bea', { status: 'bea was here' });
    const r = await action(mod, m.id['bea']!, 'suspend', { text: 'spam', send_email_notification: true });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, {});
    const refused = await call(m.token['bea'], 'GET', '/api/v1/accounts/verify_credentials');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'Your login is currently disabled');
    assert.equal((await call(m.token['ann'], 'GET', `/api/v1/statuses/${p.id}`)).status, 404);
    assert.equal((await admin(m.id['bea']!)).suspended, true);
    assert.ok((await usernames('/api/v1/admin/accounts?suspended=1')).includes('bea'));
    assert.ok(!(await usernames('/api/v2/admin/accounts?status=active')).includes('bea'));

    const lifted = await call(mod, 'POST', `/api/v1/admin/accounts/${m.id['bea']}/unsuspend`);
    assert.equal(lifted.status, 200, lifted.text);
    assert.equal(lifted.body.suspended, false);
    assert.equal((await call(m.token['bea'], 'GET', '/api/v1/accounts/verify_credentials')).status, 200);
    assert.equal((await call(m.token['ann'], 'GET', `/api/v1/statuses/${p.id}`)).status, 200);
    assert.equal((await call(mod, 'POST', `/api/v1/admin/accounts/${m.id['bea']}/unsuspend`)).status, 403, 'not suspended');
  });

  it('disables and enables a member; remote accounts have no sign-in to disable', async () => {
    assert.equal((await action(mod, m.id['cid']!, 'disable')).status, 200);
    assert.equal((await call(m.token['cid'], 'GET', '/api/v1/accounts/verify_credentials')).status, 403);
    assert.equal((await admin(m.id['cid']!)).disabled, true);
    assert.deepEqual(await usernames('/api/v2/admin/accounts?status=disabled'), ['cid']);
    const enabled = await call(mod, 'POST', `/api/v1/admin/accounts/${m.id['cid']}/enable`, form({}));
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal(enabled.body.disabled, false);
    assert.equal((await call(m.token['cid'], 'GET', '/api/v1/accounts/verify_credentials')).status, 200);

    assert.equal((await action(mod, remote['rita']!, 'disable')).status, 403);
    assert.equal((await call(mod, 'POST', `/api/v1/admin/accounts/${remote['rita']}/enable`)).status, 403);
  });

  it('silences a member: their public posts leave the public timeline, followers still see them', async () => {
    assert.equal((await call(m.token['dot'], 'POST', `/api/v1/accounts/${m.id['ann']}/follow`)).status, 200);
    const r = await action(mod, m.id['ann']!, 'silence');
    assert.equal(r.status, 200, r.text);
    await post('ann', { status: 'ann speaks quietly' });
    assert.ok(!(await publicTexts()).some((t) => t.includes('ann speaks quietly')));
    const home = (await ok(m.token['dot'], 'GET', '/api/v1/timelines/home')) as Json[];
    assert.ok(
      home.some((x) => x.content.includes('ann speaks quietly')),
      'a follower still sees it',
    );
    assert.equal((await admin(m.id['ann']!)).silenced, true);
    assert.deepEqual(await usernames('/api/v1/admin/accounts?silenced=1'), ['ann']);

    const lifted = await call(mod, 'POST', `/api/v1/admin/accounts/${m.id['ann']}/unsilence`);
    assert.equal(lifted.status, 200, lifted.text);
    assert.equal(lifted.body.silenced, false);
    assert.ok((await publicTexts()).some((t) => t.includes('ann speaks quietly')));
  });

  it("marks a member's media sensitive, and lifts it", async () => {
    const media = await upload(s.url, m.token['dot'], png(8, 8));
    assert.equal(media.status, 200);
    const p = await post('dot', { status: 'a picture', media_ids: [media.body.id] });
    const plain = await post('dot', { status: 'no picture' });
    assert.equal(p.sensitive, false);
    assert.equal((await action(mod, m.id['dot']!, 'sensitive')).status, 200);
    assert.equal((await ok(m.token['ann'], 'GET', `/api/v1/statuses/${p.id}`)).sensitive, true);
    assert.equal((await ok(m.token['ann'], 'GET', `/api/v1/statuses/${plain.id}`)).sensitive, false, 'only posts with media');
    assert.equal((await admin(m.id['dot']!)).sensitized, true);
    const lifted = await call(mod, 'POST', `/api/v1/admin/accounts/${m.id['dot']}/unsensitive`);
    assert.equal(lifted.status, 200, lifted.text);
    assert.equal(lifted.body.sensitized, false);
    assert.equal((await ok(m.token['ann'], 'GET', `/api/v1/statuses/${p.id}`)).sensitive, false);
  });

  it('acts on a member only with a role ranking above theirs', async () => {
    assert.equal((await action(mod, m.id['boss']!, 'suspend')).status, 403, 'a moderator cannot suspend an admin');
    assert.equal((await action(mod, m.id['mod']!, 'silence')).status, 403, 'nor themselves');
    assert.equal((await action(boss, m.id['mod']!, 'none')).status, 200);
    assert.equal((await call(m.token['boss'], 'GET', '/api/v1/accounts/verify_credentials')).status, 200);
  });

  it('refuses an unknown action and resolves the report an action answers', async () => {
    const bad = await action(mod, remote['sam']!, 'explode');
    assert.equal(bad.status, 422);
    assert.match(bad.body.error, /Type must be one of/);
    assert.equal((await action(mod, remote['sam']!, 'none', { report_id: '123456' })).status, 404);
    const report = await ok(m.token['ann'], 'POST', '/api/v1/reports', { account_id: remote['sam'], comment: 'spam' });
    const r = await action(mod, remote['sam']!, 'none', { report_id: report.id });
    assert.equal(r.status, 200, r.text);
    assert.equal((await ok(boss, 'GET', `/api/v1/admin/reports/${report.id}`)).action_taken, true);
  });

  it('approves and rejects sign-ups, only while pending and only local', async () => {
    const approved = await call(mod, 'POST', `/api/v1/admin/accounts/${pending['pen']}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.approved, true);
    assert.equal((await call(mod, 'POST', `/api/v1/admin/accounts/${pending['pen']}/approve`)).status, 403, 'already approved');
    assert.equal((await call(mod, 'POST', `/api/v1/admin/accounts/${pending['pen']}/reject`)).status, 403, 'approved: not rejected');
    assert.equal((await call(mod, 'POST', `/api/v1/admin/accounts/${remote['rita']}/approve`)).status, 403);

    const rejected = await call(mod, 'POST', `/api/v1/admin/accounts/${pending['rej']}/reject`);
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(rejected.body.username, 'rej');
    assert.equal((await call(mod, 'GET', `/api/v1/admin/accounts/${pending['rej']}`)).status, 404, 'gone');
  });

  it("deletes a suspended account's data, with Delete user data", async () => {
    const tia = remote['tia']!;
    assert.equal((await call(boss, 'DELETE', `/api/v1/admin/accounts/${tia}`)).status, 403, 'not suspended');
    assert.equal((await action(mod, tia, 'suspend')).status, 200);
    assert.equal((await call(mod, 'DELETE', `/api/v1/admin/accounts/${tia}`)).status, 403, 'a moderator may not delete user data');
    const deleted = await call(boss, 'DELETE', `/api/v1/admin/accounts/${tia}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.suspended, true);
    assert.equal((await call(boss, 'POST', `/api/v1/admin/accounts/${tia}/unsuspend`)).status, 403, 'deleted: for good');

    // A member's data: their sign-in goes too.
    const post1 = await post('cid', { status: 'cid before deletion' });
    assert.equal((await action(boss, m.id['cid']!, 'suspend')).status, 200);
    assert.equal((await call(boss, 'DELETE', `/api/v1/admin/accounts/${m.id['cid']}`)).status, 200);
    assert.equal((await call(boss, 'POST', `/api/v1/admin/accounts/${m.id['cid']}/unsuspend`)).status, 403);
    assert.equal((await call(m.token['cid'], 'GET', '/api/v1/accounts/verify_credentials')).status, 401, 'the token went with the sign-in');
    const rows = await s.app.db.pool.query('SELECT deleted_at FROM statuses WHERE id = $1', [post1.id]);
    assert.notEqual(rows.rows[0].deleted_at, null);
  });

  it('serves Mastodon.py 1.8: admin_accounts, admin_account, admin_account_moderate, admin_account_unsuspend', async () => {
    const script = `
import json, os
from mastodon import Mastodon, MastodonAPIError
base = os.environ['BASE']
m = Mastodon(api_base_url=base, access_token=os.environ['TOKEN'], version_check_mode='none')
sam = os.environ['SAM']
out = {}
out['remote'] = sorted(a['account']['acct'] for a in m.admin_accounts(remote=True, by_domain='other.example'))
out['before'] = m.admin_account(sam)['suspended']
m.admin_account_moderate(sam, 'suspend', text='spam')
out['after'] = m.admin_account(sam)['suspended']
out['listed'] = sorted(a['username'] for a in m.admin_accounts(remote=True, status='suspended'))
out['unsuspended'] = m.admin_account_unsuspend(sam)['suspended']
try:
    Mastodon(api_base_url=base, access_token=os.environ['MEMBER'], version_check_mode='none').admin_accounts()
    out['member'] = 'allowed'
except MastodonAPIError as e:
    out['member'] = e.args[1]
print(json.dumps(out))
`;
    const member = await m.tokenFor('ann', ['admin:read']);
    const { stdout } = await run('/usr/bin/python3', ['-c', script], {
      env: { ...process.env, BASE: s.url, TOKEN: boss, SAM: remote['sam']!, MEMBER: member },
    });
    assert.deepEqual(JSON.parse(stdout), {
      remote: ['sam@other.example'],
      before: false,
      after: true,
      listed: ['sam', 'tia'],
      unsuspended: false,
      member: 403,
    });
  });
});
