// Mastodon's Api::V1::Instances::* beside the instance documents, as apps and crawlers call them without a token:
// peers (known domains, less blocked ones; 404 when the operator switches it off), twelve weeks of activity (every
// count a string), the rules (also in both instance documents), the extended description, privacy policy and terms of
// service (404 when none; a version by its date), translation languages ({}) and languages; through masto.js and
// Mastodon.py 1.8 too. The web app's peers search (Mastodon 4.x /api/v1/peers/search): up to 10 known domains
// starting with q, property-tested over any q.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { domainToASCII } from 'node:url';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { createRestAPIClient } from 'masto';
import megalodonModule from 'megalodon';
import { InstanceRuleStore } from '../../src/store/instance-rules.js';
import { InstanceTextStore } from '../../src/store/instance-texts.js';
import { api, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
// megalodon is CommonJS: imported from ESM, its default export is the module object, whose `default` is generator().
const generator = megalodonModule.default;
const WEEK = 7 * 86_400_000;

describe('instance extras API', () => {
  let s: TestServer;
  let m: LocalMembers;
  let rules: InstanceRuleStore;
  let texts: InstanceTextStore;
  const get = async (path: string, status = 200): Promise<Json> => {
    const r = await api(s.url, undefined, 'GET', path);
    assert.equal(r.status, status, `${path}: ${r.text}`);
    return r.body;
  };

  before(async () => {
    // The instance documents are re-read on every call, so rules written through the store show at once.
    s = await startTestServer({ INSTANCE_STATS_MAX_AGE_MS: '0' });
    m = await createMembers(s, ['ann', 'bob', 'mod'], { mod: 'moderator' });
    rules = new InstanceRuleStore(s.app.db);
    texts = new InstanceTextStore(s.app.db);
    for (const [name, domain] of [
      ['rita', 'remote.example'],
      ['sam', 'Other.Example'],
      ['tia', 'other.example'],
      ['uma', 'sub.blocked.example'],
    ]) {
      await s.app.db.pool.query('INSERT INTO accounts (username, domain, uri, inbox_url) VALUES ($1, $2, $3, $4)', [
        name,
        domain,
        `https://${domain}/users/${name}`,
        `https://${domain}/users/${name}/inbox`,
      ]);
    }
    await s.app.db.pool.query("INSERT INTO domain_blocks (domain, severity) VALUES ('blocked.example', 'suspend')");
  });
  after(async () => {
    await s?.stop();
  });

  it('lists the peers we know, lower-cased, without the blocked ones, and 404 once switched off', async () => {
    assert.deepEqual(await get('/api/v1/instance/peers'), ['other.example', 'remote.example']);
    await texts.setEnabled('peers_api_enabled', false);
    assert.deepEqual(await get('/api/v1/instance/peers', 404), { error: 'Record not found' });
    await texts.setEnabled('peers_api_enabled', true);
  });

  it('counts twelve weeks of activity, this week first, every value a string', async () => {
    const post = await api(s.url, m.token['ann'], 'POST', '/api/v1/statuses', { status: 'counted' });
    assert.equal(post.status, 200, post.text);
    await s.app.db.pool.query('UPDATE users SET last_sign_in_at = now() WHERE account_id = $1', [m.id['bob']]);
    const weeks = await get('/api/v1/instance/activity');
    assert.equal(weeks.length, 12);
    for (const w of weeks) {
      assert.deepEqual(Object.keys(w), ['week', 'statuses', 'logins', 'registrations']);
      for (const v of Object.values(w)) assert.match(v as string, /^\d+$/);
    }
    const starts = weeks.map((w: Json) => Number(w.week) * 1000);
    assert.ok(starts[0] <= Date.now() && Date.now() - starts[0] < WEEK, 'the first is this week');
    assert.equal(new Date(starts[0]).getUTCDay(), 1, 'weeks start on Monday');
    for (let i = 1; i < 12; i++) assert.equal(starts[i - 1] - starts[i], WEEK);
    // Every user was created this week: ann, bob, and whoever the server set up at its start.
    const users = (await s.app.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM users')).rows[0]!.n;
    assert.ok(Number(users) >= 2);
    assert.deepEqual([weeks[0].statuses, weeks[0].registrations], ['1', users]);
    // bob signed in; ann's token use may be written back already too (token-usage batches it).
    assert.ok(['1', '2'].includes(weeks[0].logins), weeks[0].logins);
    assert.deepEqual([weeks[1].statuses, weeks[1].registrations], ['0', '0']);
    await texts.setEnabled('activity_api_enabled', false);
    await get('/api/v1/instance/activity', 404);
    await texts.setEnabled('activity_api_enabled', true);
  });

  it('shows the rules in order of priority, here and in both instance documents', async () => {
    assert.deepEqual(await get('/api/v1/instance/rules'), []);
    const second = await rules.create('No spam', '', 2);
    const first = await rules.create('Be kind', 'Assume good faith.', 1);
    const expected = [
      { id: first.id, text: 'Be kind', hint: 'Assume good faith.', translations: {} },
      { id: second.id, text: 'No spam', hint: '', translations: {} },
    ];
    assert.deepEqual(await get('/api/v1/instance/rules'), expected);
    assert.deepEqual((await get('/api/v1/instance')).rules, expected);
    assert.deepEqual((await get('/api/v2/instance')).rules, expected);
  });

  it('lets a report cite the rules (then a violation), shown to moderators, who may change them; other ids are 422', async () => {
    const [kind, spam] = await rules.list();
    const report = await api(s.url, m.token['ann'], 'POST', '/api/v1/reports', { account_id: m.id['bob'], rule_ids: [spam!.id], comment: 'ads' });
    assert.equal(report.status, 200, report.text);
    assert.deepEqual([report.body.category, report.body.rule_ids], ['violation', [spam!.id]]);
    for (const bad of [['1'], [spam!.id, 'x'], 'nope']) {
      const r = await api(s.url, m.token['ann'], 'POST', '/api/v1/reports', { account_id: m.id['bob'], rule_ids: bad });
      assert.equal(r.status, 422, `${JSON.stringify(bad)}: ${r.text}`);
      assert.deepEqual(r.body, { error: 'Validation failed: Rule ids does not reference valid rules' });
    }
    const plain = await api(s.url, m.token['ann'], 'POST', '/api/v1/reports', { account_id: m.id['bob'], category: 'spam' });
    assert.deepEqual([plain.body.category, plain.body.rule_ids], ['spam', null]);

    const mod = await m.tokenFor('mod', ['admin:read:reports', 'admin:write:reports']);
    const seen = await api(s.url, mod, 'GET', `/api/v1/admin/reports/${report.body.id}`);
    assert.equal(seen.status, 200, seen.text);
    assert.deepEqual(seen.body.rules, [{ id: spam!.id, text: 'No spam', hint: '', translations: {} }]);
    const changed = await api(s.url, mod, 'PUT', `/api/v1/admin/reports/${report.body.id}`, { rule_ids: [kind!.id, spam!.id] });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(
      changed.body.rules.map((r: Json) => r.text),
      ['Be kind', 'No spam'],
    );
    const refused = await api(s.url, mod, 'PUT', `/api/v1/admin/reports/${report.body.id}`, { rule_ids: ['1'] });
    assert.equal(refused.status, 422, refused.text);
    assert.equal((await api(s.url, mod, 'PUT', '/api/v1/admin/reports/1', { rule_ids: [kind!.id] })).status, 404);
  });

  it('shows the extended description and privacy policy the operator wrote (none: empty, and 404)', async () => {
    assert.deepEqual(await get('/api/v1/instance/extended_description'), { updated_at: null, content: '' });
    await get('/api/v1/instance/privacy_policy', 404);
    await texts.setText('extended_description', 'A small server.\n\nFor <friends> & family.');
    await texts.setText('privacy_policy', 'We keep little.');
    const d = await get('/api/v1/instance/extended_description');
    assert.equal(d.content, '<p>A small server.</p><p>For &#60;friends&#62; &#38; family.</p>');
    assert.ok(!Number.isNaN(Date.parse(d.updated_at)));
    const p = await get('/api/v1/instance/privacy_policy');
    assert.deepEqual(Object.keys(p), ['updated_at', 'content']);
    assert.equal(p.content, '<p>We keep little.</p>');
  });

  it('shows the terms of service in effect, with the next version, and any version by its date (4.4 shapes)', async () => {
    await get('/api/v1/instance/terms_of_service', 404);
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await texts.setTerms(day(-10), 'Old terms.');
    await texts.setTerms(day(5), 'New terms.');
    assert.deepEqual(await get('/api/v1/instance/terms_of_service'), {
      effective_date: day(-10),
      effective: true,
      content: '<p>Old terms.</p>',
      succeeded_by: day(5),
    });
    assert.deepEqual(await get(`/api/v1/instance/terms_of_service/${day(5)}`), {
      effective_date: day(5),
      effective: false,
      content: '<p>New terms.</p>',
      succeeded_by: null,
    });
    await get(`/api/v1/instance/terms_of_service/${day(1)}`, 404);
    await get('/api/v1/instance/terms_of_service/yesterday', 404);
  });

  it('answers translation languages ({}) and the languages posts may be in', async () => {
    assert.deepEqual(await get('/api/v1/instance/translation_languages'), {});
    const langs = await get('/api/v1/instance/languages');
    assert.ok(langs.length > 150);
    assert.deepEqual(
      langs.find((l: Json) => l.code === 'en'),
      { code: 'en', name: 'English' },
    );
    assert.deepEqual(
      langs.find((l: Json) => l.code === 'de'),
      { code: 'de', name: 'German' },
    );
    for (const l of langs) assert.deepEqual(Object.keys(l), ['code', 'name']);
  });

  it('serves masto.js: instance.peers, activity, languages, extendedDescription, translationLanguages', async () => {
    const client = createRestAPIClient({ url: s.url });
    assert.deepEqual(await client.v1.instance.peers.list(), ['other.example', 'remote.example']);
    const weeks = await client.v1.instance.activity.list();
    assert.equal(weeks.length, 12);
    assert.equal(typeof weeks[0]!.week, 'string');
    assert.ok((await client.v1.instance.languages.list()).length > 150);
    assert.equal((await client.v1.instance.extendedDescription.fetch()).content, '<p>A small server.</p><p>For &#60;friends&#62; &#38; family.</p>');
    assert.deepEqual(await client.v1.instance.translationLanguages.list(), {});
  });

  it('serves megalodon 10: getInstancePeers, getInstanceActivity', async () => {
    const client = generator('mastodon', s.url);
    assert.deepEqual((await client.getInstancePeers()).data, ['other.example', 'remote.example']);
    const weeks = (await client.getInstanceActivity()).data;
    assert.equal(weeks.length, 12);
    assert.equal(typeof weeks[0]!.registrations, 'string');
  });

  it('serves Mastodon.py 1.8: instance_peers, instance_activity, instance_rules', async () => {
    const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(api_base_url=os.environ['BASE'], version_check_mode='none')
print(json.dumps({
  'peers': m.instance_peers(),
  'weeks': len(m.instance_activity()),
  'rules': [r['text'] for r in m.instance_rules()],
}))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url } });
    assert.deepEqual(JSON.parse(stdout), { peers: ['other.example', 'remote.example'], weeks: 12, rules: ['Be kind', 'No spam'] });
  });

  it('searches the peers by the start of their domain: at most 10, those with most accounts first, [] for a blank q', async () => {
    // Twelve more servers, many01 with one account … many12 with twelve.
    await s.app.db.pool.query(
      `INSERT INTO accounts (username, domain, uri, inbox_url)
       SELECT 'u' || n, d, 'https://' || d || '/users/u' || n, 'https://' || d || '/users/u' || n || '/inbox'
         FROM generate_series(1, 12) i, LATERAL (SELECT 'many' || lpad(i::text, 2, '0') || '.example' AS d) x, generate_series(1, i) n`,
    );
    const search = (q?: string) => get(q === undefined ? '/api/v1/peers/search' : `/api/v1/peers/search?q=${encodeURIComponent(q)}`);
    assert.deepEqual(await search('oth'), ['other.example'], 'one domain however its accounts spell it');
    assert.deepEqual(await search('REMOTE.example/'), ['remote.example'], "q normalized as Mastodon's normalize_domain");
    assert.deepEqual(
      await search('many'),
      Array.from({ length: 10 }, (_, i) => `many${String(12 - i).padStart(2, '0')}.example`),
    );
    assert.deepEqual(await search('many1'), ['many12.example', 'many11.example', 'many10.example']);
    assert.deepEqual(await search('sub.blocked'), [], 'no blocked domain');
    assert.deepEqual(await search('example'), [], 'a prefix, not a part');
    for (const blank of [undefined, '', '   ']) assert.deepEqual(await search(blank), []);
    assert.deepEqual(await search('ftp://Invalid-Host!!.valüe'), [], "no host name: [] (Mastodon's InvalidURIError)");
    // The same switch as the peers list.
    await texts.setEnabled('peers_api_enabled', false);
    assert.deepEqual(await get('/api/v1/peers/search?q=oth', 404), { error: 'Record not found' });
    await texts.setEnabled('peers_api_enabled', true);
  });

  it('answers any q with 200 and known domains that start with it (property)', async () => {
    const known = new Set<string>(await get('/api/v1/instance/peers'));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.constantFrom('m', 'ma', 'MANY0', 'r', 'o', 'ö', '%', '_', 'many_'), fc.domain()), async (q) => {
        const r = await api(s.url, undefined, 'GET', `/api/v1/peers/search?q=${encodeURIComponent(q)}`);
        assert.equal(r.status, 200, r.text);
        assert.ok(Array.isArray(r.body) && r.body.length <= 10, r.text);
        const prefix = domainToASCII(q.endsWith('/') ? q.slice(0, -1) : q);
        for (const d of r.body) assert.ok(known.has(d) && d.startsWith(prefix), `${q}: ${d}`);
      }),
      { seed: 36, numRuns: 60 },
    );
  });
});
