// Mastodon's Admin::Reports API over real HTTP: a member reports a local account with some of its posts; a
// moderator lists the report (Admin::Report with Admin::Accounts and Status entities), filters it, takes it on, lets
// it go, resolves and reopens it and changes its category; members without the Manage reports permission and tokens
// without admin scopes are refused; moderators get an admin.report notification, once per open pile of reports.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ADMIN_ACCOUNT_KEYS = [
  'account',
  'approved',
  'confirmed',
  'created_at',
  'disabled',
  'domain',
  'email',
  'id',
  'invite_request',
  'ip',
  'ips',
  'locale',
  'role',
  'sensitized',
  'silenced',
  'suspended',
  'username',
];
const REPORT_KEYS = [
  'account',
  'action_taken',
  'action_taken_at',
  'action_taken_by_account',
  'assigned_account',
  'category',
  'comment',
  'created_at',
  'forwarded',
  'id',
  'rules',
  'statuses',
  'target_account',
  'updated_at',
];

describe('admin reports API', () => {
  let s: TestServer;
  let m: LocalMembers;
  /** Tokens: the moderator with admin scopes, with admin:read only, a plain member with admin scopes. */
  let mod: string;
  let modReadOnly: string;
  let plainAdmin: string;
  let reportId: string;
  let posts: Json[];

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);
  const list = async (query = '') => {
    const r = await call(mod, 'GET', `/api/v1/admin/reports${query}`);
    assert.equal(r.status, 200, r.text);
    return r.body as Json[];
  };

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['mod', 'rep', 'bad', 'plain', 'other'], { mod: 'moderator' });
    mod = await m.tokenFor('mod', ['read', 'admin:read:reports', 'admin:write:reports']);
    modReadOnly = await m.tokenFor('mod', ['admin:read']);
    plainAdmin = await m.tokenFor('plain', ['read', 'admin:read', 'admin:write']);
    posts = [];
    for (const text of ['first offence', 'second offence', 'harmless']) {
      const r = await call(m.token['bad'], 'POST', '/api/v1/statuses', { status: text });
      assert.equal(r.status, 200, r.text);
      posts.push(r.body);
    }
    const filed = await call(m.token['rep'], 'POST', '/api/v1/reports', {
      account_id: m.id['bad'],
      status_ids: [posts[0].id, posts[1].id],
      comment: 'spam!',
      category: 'spam',
    });
    assert.equal(filed.status, 200, filed.text);
    reportId = filed.body.id;
  });
  after(() => s?.stop());

  it("lists the report as Mastodon's Admin::Report, with the reporter, the reported account and the reported posts", async () => {
    const reports = await list();
    assert.equal(reports.length, 1);
    const r = reports[0];
    assert.deepEqual(Object.keys(r).sort(), REPORT_KEYS);
    assert.equal(r.id, reportId);
    assert.equal(r.action_taken, false);
    assert.equal(r.action_taken_at, null);
    assert.equal(r.category, 'spam');
    assert.equal(r.comment, 'spam!');
    assert.equal(r.forwarded, false);
    assert.ok(!Number.isNaN(Date.parse(r.created_at)));
    assert.equal(r.updated_at, r.created_at);
    assert.equal(r.assigned_account, null);
    assert.equal(r.action_taken_by_account, null);
    assert.deepEqual(r.rules, []);

    assert.deepEqual(Object.keys(r.account).sort(), ADMIN_ACCOUNT_KEYS);
    assert.equal(r.account.id, m.id['rep']);
    assert.equal(r.account.username, 'rep');
    assert.equal(r.account.domain, null);
    assert.equal(r.account.email, 'rep@example.test');
    assert.equal(r.account.confirmed, true);
    assert.equal(r.account.approved, true);
    assert.equal(r.account.disabled, false);
    assert.equal(r.account.suspended, false);
    assert.equal(r.account.silenced, false);
    assert.equal(r.account.sensitized, false);
    assert.equal(r.account.ip, null, 'never signed in through the pages');
    assert.deepEqual(r.account.ips, []);
    assert.deepEqual(r.account.role, { id: '0', name: '', permissions: '65536', color: '', highlighted: false });
    assert.equal(r.account.account.id, m.id['rep']);
    assert.equal(r.account.account.acct, 'rep');
    assert.equal(r.target_account.id, m.id['bad']);
    assert.equal(r.target_account.account.username, 'bad');

    assert.deepEqual(
      r.statuses.map((x: Json) => x.id),
      [posts[0].id, posts[1].id],
    );
    assert.equal(r.statuses[0].content, posts[0].content);
    assert.equal(r.statuses[0].account.id, m.id['bad']);
    assert.equal(r.statuses[1].visibility, 'public');

    const one = await call(mod, 'GET', `/api/v1/admin/reports/${reportId}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body, r);
  });

  it('filters by state, reporter and reported account', async () => {
    assert.deepEqual(
      (await list('?resolved=true')).map((r) => r.id),
      [],
    );
    assert.deepEqual(
      (await list('?resolved=false')).map((r) => r.id),
      [reportId],
    );
    assert.deepEqual(
      (await list(`?account_id=${m.id['rep']}`)).map((r) => r.id),
      [reportId],
    );
    assert.deepEqual(
      (await list(`?account_id=${m.id['other']}`)).map((r) => r.id),
      [],
    );
    assert.deepEqual(
      (await list(`?target_account_id=${m.id['bad']}`)).map((r) => r.id),
      [reportId],
    );
    assert.deepEqual(
      (await list(`?target_account_id=${m.id['rep']}`)).map((r) => r.id),
      [],
    );
    const bad = await call(mod, 'GET', '/api/v1/admin/reports?account_id=nope');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { error: 'account_id is invalid' });
  });

  it('takes the report on, lets it go, resolves and reopens it', async () => {
    const assigned = await call(mod, 'POST', `/api/v1/admin/reports/${reportId}/assign_to_self`);
    assert.equal(assigned.status, 200, assigned.text);
    assert.equal(assigned.body.assigned_account.id, m.id['mod']);
    assert.equal(assigned.body.assigned_account.role.name, 'Moderator');
    assert.ok(Date.parse(assigned.body.updated_at) >= Date.parse(assigned.body.created_at));

    const unassigned = await call(mod, 'POST', `/api/v1/admin/reports/${reportId}/unassign`);
    assert.equal(unassigned.body.assigned_account, null);

    const resolved = await call(mod, 'POST', `/api/v1/admin/reports/${reportId}/resolve`);
    assert.equal(resolved.status, 200, resolved.text);
    assert.equal(resolved.body.action_taken, true);
    assert.ok(Date.parse(resolved.body.action_taken_at) >= Date.parse(resolved.body.created_at));
    assert.equal(resolved.body.action_taken_by_account.id, m.id['mod']);
    assert.deepEqual(
      (await list()).map((r) => r.id),
      [],
      'resolved reports leave the default list',
    );
    assert.deepEqual(
      (await list('?resolved=true')).map((r) => r.id),
      [reportId],
    );

    const reopened = await call(mod, 'POST', `/api/v1/admin/reports/${reportId}/reopen`);
    assert.equal(reopened.body.action_taken, false);
    assert.equal(reopened.body.action_taken_at, null);
    assert.equal(reopened.body.action_taken_by_account, null);
    assert.deepEqual(
      (await list()).map((r) => r.id),
      [reportId],
    );
  });

  it('changes the category; an unknown category or a rule the server does not have is refused and changes nothing', async () => {
    const changed = await call(mod, 'PUT', `/api/v1/admin/reports/${reportId}`, { category: 'legal' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.category, 'legal');
    const unknown = await call(mod, 'PUT', `/api/v1/admin/reports/${reportId}`, { category: 'rude' });
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.error, /^Validation failed: Category must be one of/);
    const rules = await call(mod, 'PUT', `/api/v1/admin/reports/${reportId}`, { category: 'violation', rule_ids: ['1'] });
    assert.equal(rules.status, 422);
    assert.deepEqual(rules.body, { error: 'Validation failed: Rule ids does not reference valid rules' });
    assert.equal((await call(mod, 'GET', `/api/v1/admin/reports/${reportId}`)).body.category, 'legal');
  });

  it('refuses members without the Manage reports permission, tokens without admin scopes, and unknown reports', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/admin/reports'],
      ['GET', `/api/v1/admin/reports/${reportId}`],
      ['POST', `/api/v1/admin/reports/${reportId}/resolve`],
      ['PUT', `/api/v1/admin/reports/${reportId}`],
    ] as const) {
      const r = await call(plainAdmin, method, path, method === 'PUT' ? { category: 'other' } : undefined);
      assert.equal(r.status, 403, `${method} ${path}`);
      assert.deepEqual(r.body, { error: 'This action is not allowed' });
    }
    const noScope = await call(m.token['mod'], 'GET', '/api/v1/admin/reports');
    assert.equal(noScope.status, 403);
    assert.deepEqual(noScope.body, { error: 'This action is outside the authorized scopes' });
    assert.equal((await call(modReadOnly, 'GET', '/api/v1/admin/reports')).status, 200, 'admin:read covers admin:read:reports');
    const readOnlyWrite = await call(modReadOnly, 'POST', `/api/v1/admin/reports/${reportId}/resolve`);
    assert.equal(readOnlyWrite.status, 403);
    assert.equal((await call(undefined, 'GET', '/api/v1/admin/reports')).status, 401);
    const current = (await call(mod, 'GET', `/api/v1/admin/reports/${reportId}`)).body;
    assert.equal(current.action_taken, false, 'nothing the refused calls asked for happened');
    assert.equal(current.category, 'legal');

    for (const path of ['/api/v1/admin/reports/1', '/api/v1/admin/reports/nope', '/api/v1/admin/reports/99999999999999999999']) {
      const r = await call(mod, 'GET', path);
      assert.equal(r.status, 404, path);
      assert.deepEqual(r.body, { error: 'Record not found' });
    }
    assert.equal((await call(mod, 'POST', '/api/v1/admin/reports/1/resolve')).status, 404);
    assert.equal((await call(mod, 'PUT', '/api/v1/admin/reports/1', { category: 'spam' })).status, 404);
  });

  it('pages with Link headers that keep the filters', async () => {
    const ids: string[] = [];
    for (const comment of ['a', 'b', 'c'])
      ids.unshift((await call(m.token['other'], 'POST', '/api/v1/reports', { account_id: m.id['plain'], comment })).body.id);
    const first = await call(mod, 'GET', `/api/v1/admin/reports?target_account_id=${m.id['plain']}&limit=2`);
    assert.deepEqual(
      first.body.map((r: Json) => r.id),
      ids.slice(0, 2),
    );
    const link = (
      await fetch(`${s.url}/api/v1/admin/reports?target_account_id=${m.id['plain']}&limit=2`, { headers: { Authorization: `Bearer ${mod}` } })
    ).headers.get('link')!;
    const next = /<([^>]+)>; rel="next"/.exec(link)![1]!;
    assert.match(next, new RegExp(`target_account_id=${m.id['plain']}`));
    const rest = await fetch(next, { headers: { Authorization: `Bearer ${mod}` } });
    assert.deepEqual(
      ((await rest.json()) as Json[]).map((r) => r.id),
      ids.slice(2),
    );
    const prev = /<([^>]+)>; rel="prev"/.exec(link)![1]!;
    assert.deepEqual((await (await fetch(prev, { headers: { Authorization: `Bearer ${mod}` } })).json()) as Json[], []);
  });

  it('tells moderators of a report with an admin.report notification carrying the Report, not again while the account has one open', async () => {
    const notes = async (token: string) => {
      const r = await call(token, 'GET', '/api/v1/notifications?types[]=admin.report');
      assert.equal(r.status, 200, r.text);
      return r.body as Json[];
    };
    const forBad = (await notes(mod)).filter((n) => n.report.target_account.id === m.id['bad']);
    assert.equal(forBad.length, 1);
    const n = forBad[0];
    assert.equal(n.type, 'admin.report');
    assert.equal(n.account.id, m.id['rep'], 'from the reporter');
    assert.deepEqual(n.report, {
      id: reportId,
      action_taken: false,
      action_taken_at: null,
      category: 'legal',
      comment: 'spam!',
      forwarded: false,
      created_at: n.report.created_at,
      status_ids: [posts[0].id, posts[1].id],
      rule_ids: null,
      target_account: n.report.target_account,
    });
    assert.equal(n.report.target_account.acct, 'bad');
    // Grouped notifications (v2) show it too, ungrouped, with the same Report.
    const v2 = await call(mod, 'GET', '/api/v2/notifications?types[]=admin.report');
    assert.equal(v2.status, 200, v2.text);
    const group = v2.body.notification_groups.find((g: Json) => g.report?.id === reportId);
    assert.deepEqual(
      { key: group?.group_key, type: group?.type, count: group?.notifications_count, report: group?.report },
      { key: `ungrouped-${n.id}`, type: 'admin.report', count: 1, report: n.report },
    );
    assert.deepEqual(await notes(m.token['rep']!), [], 'the reporter is no moderator');
    assert.deepEqual(await notes(m.token['plain']!), []);

    // A second report while the first is open: no new notification (Mastodon's ReportService does the same).
    const second = (await call(m.token['other'], 'POST', '/api/v1/reports', { account_id: m.id['bad'], comment: 'me too' })).body.id;
    assert.deepEqual(
      (await notes(mod)).filter((x) => x.report.target_account.id === m.id['bad']).map((x) => x.report.id),
      [reportId],
    );
    // Once both are resolved, a new report notifies again.
    await call(mod, 'POST', `/api/v1/admin/reports/${reportId}/resolve`);
    await call(mod, 'POST', `/api/v1/admin/reports/${second}/resolve`);
    const third = (await call(m.token['other'], 'POST', '/api/v1/reports', { account_id: m.id['bad'], comment: 'again' })).body.id;
    assert.deepEqual(
      (await notes(mod)).filter((x) => x.report.target_account.id === m.id['bad']).map((x) => x.report.id),
      [third, reportId],
    );
  });

  it('keeps showing a reported post its author deleted since (it is the evidence)', async () => {
    assert.equal((await call(m.token['bad'], 'DELETE', `/api/v1/statuses/${posts[1].id}`)).status, 200);
    assert.equal((await call(m.token['rep'], 'GET', `/api/v1/statuses/${posts[1].id}`)).status, 404);
    const r = (await call(mod, 'GET', `/api/v1/admin/reports/${reportId}`)).body;
    assert.deepEqual(
      r.statuses.map((x: Json) => x.id),
      [posts[0].id, posts[1].id],
    );
    assert.equal(r.statuses[1].content, posts[1].content);
  });
});
