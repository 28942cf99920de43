// Mastodon's Admin::DomainBlocks API and the public GET /api/v1/instance/domain_blocks, as clients call them: who
// may (scope, then the role's Manage federation permission), create/read/update/lift, bad input as 422, a second
// block of a domain refused naming the first, and the public list with obfuscated domains and digests.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { api, form, type Json } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('admin domain blocks API', () => {
  let s: TestServer;
  let m: LocalMembers;
  let operator: string;

  const call = (token: string | undefined, method: string, path: string, body?: unknown) => api(s.url, token, method, path, body);

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'mod', 'boss'], { mod: 'moderator', boss: 'admin' });
    operator = await m.tokenFor('boss', ['admin:read:domain_blocks', 'admin:write:domain_blocks']);
  });
  after(async () => {
    await s?.stop();
  });

  it('needs the domain_blocks scopes and the Manage federation permission', async () => {
    assert.equal((await call(undefined, 'GET', '/api/v1/admin/domain_blocks')).status, 401);
    assert.equal((await call(m.token['boss'], 'GET', '/api/v1/admin/domain_blocks')).status, 403, 'read write follow is not admin:read');
    const onlyReports = await m.tokenFor('boss', ['admin:read:reports']);
    assert.equal((await call(onlyReports, 'GET', '/api/v1/admin/domain_blocks')).status, 403);
    // A moderator manages reports, not federation.
    const mod = await m.tokenFor('mod', ['admin:read', 'admin:write']);
    assert.equal((await call(mod, 'GET', '/api/v1/admin/domain_blocks')).status, 403);
    assert.equal((await call(mod, 'POST', '/api/v1/admin/domain_blocks', { domain: 'spam.example' })).status, 403);
    const broad = await m.tokenFor('boss', ['admin:read']);
    assert.equal((await call(broad, 'GET', '/api/v1/admin/domain_blocks')).status, 200, 'admin:read covers admin:read:domain_blocks');
    assert.equal((await call(broad, 'POST', '/api/v1/admin/domain_blocks', { domain: 'spam.example' })).status, 403, 'but not writing');
  });

  it('creates, reads, updates and lifts a block', async () => {
    const created = await call(operator, 'POST', '/api/v1/admin/domain_blocks', {
      domain: 'Spam.Example.',
      severity: 'suspend',
      reject_media: true,
      private_comment: 'seen in reports',
      public_comment: 'spam',
    });
    assert.equal(created.status, 200, created.text);
    const b = created.body as Json;
    assert.equal(b.domain, 'spam.example');
    assert.equal(b.digest, sha256('spam.example'));
    assert.equal(b.severity, 'suspend');
    assert.equal(b.reject_media, true);
    assert.equal(b.reject_reports, false);
    assert.equal(b.private_comment, 'seen in reports');
    assert.equal(b.public_comment, 'spam');
    assert.equal(b.obfuscate, false);
    assert.ok(!Number.isNaN(Date.parse(b.created_at)));

    assert.deepEqual((await call(operator, 'GET', `/api/v1/admin/domain_blocks/${b.id}`)).body, b);
    assert.deepEqual((await call(operator, 'GET', '/api/v1/admin/domain_blocks')).body, [b]);

    // Form bodies too, as Rails takes them.
    const updated = await call(operator, 'PUT', `/api/v1/admin/domain_blocks/${b.id}`, form({ severity: 'silence', obfuscate: 'true' }));
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.severity, 'silence');
    assert.equal(updated.body.obfuscate, true);
    assert.equal(updated.body.reject_media, true, 'what is not given stays');

    const idn = await call(operator, 'POST', '/api/v1/admin/domain_blocks', { domain: 'Bücher.example' });
    assert.equal(idn.status, 200, idn.text);
    assert.equal(idn.body.domain, 'xn--bcher-kva.example', 'an IDN is kept as punycode');
    assert.equal((await call(operator, 'DELETE', `/api/v1/admin/domain_blocks/${idn.body.id}`)).status, 200);

    const again = await call(operator, 'POST', '/api/v1/admin/domain_blocks', { domain: 'spam.example' });
    assert.equal(again.status, 422, again.text);
    assert.equal(again.body.existing_domain_block.id, b.id);

    assert.equal((await call(operator, 'DELETE', `/api/v1/admin/domain_blocks/${b.id}`)).status, 200);
    assert.equal((await call(operator, 'GET', `/api/v1/admin/domain_blocks/${b.id}`)).status, 404);
    assert.equal((await call(operator, 'DELETE', `/api/v1/admin/domain_blocks/${b.id}`)).status, 404);
    assert.equal((await call(operator, 'PUT', '/api/v1/admin/domain_blocks/nope', { severity: 'noop' })).status, 404);
  });

  it('refuses bad input with 422', async () => {
    for (const body of [
      {},
      { domain: '' },
      { domain: 'a b' },
      { domain: 'x.example/path' },
      { domain: 'x.example', severity: 'ban' },
      { domain: 'x.example', obfuscate: 'maybe' },
    ]) {
      const r = await call(operator, 'POST', '/api/v1/admin/domain_blocks', body);
      assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(typeof r.body.error, 'string');
    }
  });

  it('lists blocks with user-facing limits publicly, obfuscated ones with asterisks and a digest', async () => {
    const add = async (body: Json) => assert.equal((await call(operator, 'POST', '/api/v1/admin/domain_blocks', body)).status, 200);
    await add({ domain: 'loud.example', severity: 'silence', public_comment: 'too loud' });
    await add({ domain: 'hidden.example.com', severity: 'suspend', obfuscate: true });
    await add({ domain: 'noop.example', severity: 'noop' });
    await add({ domain: 'pics.example', severity: 'noop', reject_media: true });
    const r = await call(undefined, 'GET', '/api/v1/instance/domain_blocks');
    assert.equal(r.status, 200, r.text);
    const byDigest = new Map((r.body as Json[]).map((b) => [b.digest, b]));
    assert.equal(byDigest.size, 3, 'noop without rejected media is not shown');
    assert.deepEqual(byDigest.get(sha256('loud.example')), {
      domain: 'loud.example',
      digest: sha256('loud.example'),
      severity: 'silence',
      comment: 'too loud',
    });
    const hidden = byDigest.get(sha256('hidden.example.com'));
    assert.equal(hidden.domain, 'hidde*.*******.com');
    assert.equal(hidden.severity, 'suspend');
    assert.ok(byDigest.has(sha256('pics.example')));
  });

  it('pages the admin list newest first with Link headers', async () => {
    const all = (await call(operator, 'GET', '/api/v1/admin/domain_blocks')).body as Json[];
    assert.ok(all.length >= 3);
    assert.deepEqual(
      all.map((b) => b.id),
      [...all.map((b) => b.id)].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1)),
      'newest first',
    );
    const first = await call(operator, 'GET', '/api/v1/admin/domain_blocks?limit=2');
    assert.deepEqual(
      (first.body as Json[]).map((b) => b.id),
      all.slice(0, 2).map((b) => b.id),
    );
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    assert.ok(next, first.headers.get('link') ?? 'no Link header');
    const second = await call(operator, 'GET', next!.slice(s.url.length));
    assert.deepEqual(
      (second.body as Json[]).map((b) => b.id),
      all.slice(2, 4).map((b) => b.id),
    );
  });
});
