// The scope vocabulary and the one "does granted set G cover required scope S" answer (src/oauth/scopes.ts), as a
// table, plus the RFC 8414 metadata document that publishes it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ALL_SCOPES, covers, coversAll, coversAny, describeScope, splitScopes, unknownScope } from '../../src/oauth/scopes.js';
import { startTestServer, type TestServer } from '../support/server.js';

// Every name from Mastodon's list (reference/client-api.md §1.7), without the 4.6 collections scopes.
const READ = ['accounts', 'blocks', 'bookmarks', 'favourites', 'filters', 'follows', 'lists', 'mutes', 'notifications', 'search', 'statuses'];
const WRITE = [
  'accounts',
  'blocks',
  'bookmarks',
  'conversations',
  'favourites',
  'filters',
  'follows',
  'lists',
  'media',
  'mutes',
  'notifications',
  'reports',
  'statuses',
];
const ADMIN = ['accounts', 'reports', 'domain_allows', 'domain_blocks', 'ip_blocks', 'email_domain_blocks', 'canonical_email_blocks'];
const TOP = ['read', 'write', 'follow', 'push', 'profile', 'admin:read', 'admin:write'];
const MASTODON_SCOPES = [
  ...TOP,
  ...READ.map((r) => `read:${r}`),
  ...WRITE.map((r) => `write:${r}`),
  ...ADMIN.map((r) => `admin:read:${r}`),
  ...ADMIN.map((r) => `admin:write:${r}`),
];
const FOLLOW_COVERS = ['read:blocks', 'read:follows', 'read:mutes', 'write:blocks', 'write:follows', 'write:mutes'];

type Row = [granted: string[], required: string, expected: boolean];

const COVERAGE: Row[] = [
  // A scope covers itself.
  ...MASTODON_SCOPES.map((s): Row => [[s], s, true]),
  // Broad covers granular.
  [['read'], 'read:statuses', true],
  [['read'], 'read:accounts', true],
  [['read'], 'read:search', true],
  ...READ.map((r): Row => [['read'], `read:${r}`, true]),
  [['write'], 'write:media', true],
  [['write'], 'write:statuses', true],
  [['write'], 'write:accounts', true],
  ...WRITE.map((r): Row => [['write'], `write:${r}`, true]),
  [['admin:read'], 'admin:read:accounts', true],
  ...ADMIN.map((r): Row => [['admin:read'], `admin:read:${r}`, true]),
  [['admin:write'], 'admin:write:reports', true],
  ...ADMIN.map((r): Row => [['admin:write'], `admin:write:${r}`, true]),
  // Granular covers only itself.
  [['read:statuses'], 'read', false],
  [['read:statuses'], 'read:accounts', false],
  [['read:statuses'], 'write:statuses', false],
  [['write:statuses'], 'write', false],
  [['write:statuses'], 'write:media', false],
  [['write:media'], 'write:statuses', false],
  [['admin:read:accounts'], 'admin:read', false],
  [['admin:read:accounts'], 'admin:read:reports', false],
  [['admin:write:reports'], 'admin:write', false],
  [['admin:write:reports'], 'admin:write:accounts', false],
  // Broad scopes stay in their own family.
  [['read'], 'write', false],
  [['read'], 'write:statuses', false],
  ...WRITE.map((r): Row => [['read'], `write:${r}`, false]),
  [['write'], 'read', false],
  [['write'], 'read:statuses', false],
  [['read'], 'admin:read', false],
  [['read'], 'admin:read:accounts', false],
  [['write'], 'admin:write:reports', false],
  [['admin:read'], 'read', false],
  [['admin:read'], 'read:accounts', false],
  [['admin:read'], 'admin:write', false],
  [['admin:read'], 'admin:write:accounts', false],
  [['admin:write'], 'admin:read:accounts', false],
  [['admin:write'], 'write:statuses', false],
  // follow covers exactly its six scopes.
  ...FOLLOW_COVERS.map((s): Row => [['follow'], s, true]),
  [['follow'], 'read:statuses', false],
  [['follow'], 'read:accounts', false],
  [['follow'], 'write:statuses', false],
  [['follow'], 'read', false],
  [['follow'], 'write', false],
  [['read:follows'], 'follow', false],
  [['read', 'write'], 'follow', false],
  // profile is separate: read does not cover it, and it covers nothing else.
  [['read'], 'profile', false],
  [['read:accounts'], 'profile', false],
  [['profile'], 'read:accounts', false],
  [['profile'], 'read', false],
  // push covers only push.
  [['push'], 'push', true],
  [['read', 'write', 'follow'], 'push', false],
  [['push'], 'read', false],
  [['push'], 'read:notifications', false],
  [['push'], 'write:notifications', false],
  // Sets: any granted scope may cover.
  [['push', 'read'], 'read:lists', true],
  [['read:statuses', 'write'], 'write:media', true],
  [['read:statuses', 'write:media'], 'read:accounts', false],
  [[], 'read', false],
  // Unknown names cover nothing and are covered by nothing.
  [['admin'], 'admin:read', false],
  [['read'], 'read:nothing', false],
  [['read:nothing'], 'read:nothing', false],
  [['crypto'], 'crypto', false],
];

describe('scope coverage', () => {
  it(`answers the coverage table (${COVERAGE.length} rows)`, () => {
    for (const [granted, required, expected] of COVERAGE) {
      assert.equal(covers(granted, required), expected, `granted [${granted.join(' ')}] ${expected ? 'should' : 'should not'} cover ${required}`);
    }
  });

  it('coversAll needs every requested scope covered; coversAny needs one', () => {
    const rows: [granted: string[], requested: string[], all: boolean, any: boolean][] = [
      [['read', 'write'], ['read:statuses', 'write:media'], true, true],
      [['read'], ['read:statuses', 'write:media'], false, true],
      [['read:statuses'], ['read:accounts', 'profile'], false, false],
      [['profile'], ['read:accounts', 'profile'], false, true],
      [['read'], ['read:accounts', 'profile'], false, true],
      [['follow'], ['read:blocks', 'write:mutes'], true, true],
      [['read'], [], true, false],
    ];
    for (const [granted, requested, all, any] of rows) {
      assert.equal(coversAll(granted, requested), all, `coversAll([${granted}], [${requested}])`);
      assert.equal(coversAny(granted, requested), any, `coversAny([${granted}], [${requested}])`);
    }
  });
});

describe('the scope vocabulary', () => {
  it('ALL_SCOPES holds the full Mastodon list', () => {
    for (const s of MASTODON_SCOPES) assert.ok(ALL_SCOPES.includes(s), `${s} is in ALL_SCOPES`);
    assert.equal(new Set(ALL_SCOPES).size, ALL_SCOPES.length, 'no duplicates');
  });

  it('ALL_SCOPES has no bare admin and no removed scope', () => {
    assert.equal(ALL_SCOPES.includes('admin'), false);
    assert.equal(ALL_SCOPES.includes('crypto'), false);
    for (const s of ALL_SCOPES) assert.match(s, /^(read|write|follow|push|profile|admin:read|admin:write)(:[a-z_]+)?$/, s);
  });

  it('splitScopes splits on spaces and plus signs, dropping empties and duplicates in order', () => {
    const rows: [input: string, expected: string[]][] = [
      ['read', ['read']],
      ['read write follow', ['read', 'write', 'follow']],
      ['read+write+push', ['read', 'write', 'push']],
      ['  read   write:media\tpush\n', ['read', 'write:media', 'push']],
      ['read+ write +follow', ['read', 'write', 'follow']],
      ['read write read write:statuses write', ['read', 'write', 'write:statuses']],
      ['', []],
      ['   ', []],
      ['+', []],
    ];
    for (const [input, expected] of rows) assert.deepEqual(splitScopes(input), expected, JSON.stringify(input));
  });

  it('unknownScope names the first unknown scope, or nothing', () => {
    assert.equal(unknownScope(['read', 'write', 'follow', 'push', 'profile']), undefined);
    assert.equal(unknownScope([...MASTODON_SCOPES]), undefined);
    assert.equal(unknownScope([]), undefined);
    assert.equal(unknownScope(['read', 'admin', 'crypto']), 'admin');
    assert.equal(unknownScope(['read:statuses', 'read:nothing']), 'read:nothing');
    assert.equal(unknownScope(['READ']), 'READ', 'names are case-sensitive');
    assert.equal(unknownScope(['write:collections']), 'write:collections');
    assert.equal(unknownScope(['read:']), 'read:');
  });

  it('describeScope puts every scope in words', () => {
    const words = new Map(TOP.map((s) => [s, describeScope(s)]));
    for (const [s, w] of words) {
      assert.ok(w.length > 10, `${s} has words: ${w}`);
      assert.notEqual(w, s);
      assert.doesNotMatch(w, /undefined/);
    }
    assert.equal(new Set(words.values()).size, TOP.length, 'each top-level scope has its own words');
    assert.equal(describeScope('read:statuses'), 'Read your statuses');
    assert.equal(describeScope('write:media'), 'Change your media');
    assert.match(describeScope('admin:read:email_domain_blocks'), /email domain blocks/);
    assert.notEqual(describeScope('admin:read:accounts'), describeScope('admin:write:accounts'));
    for (const s of ALL_SCOPES) {
      const w = describeScope(s);
      assert.ok(w.length > 0 && w !== s && !w.includes('undefined'), `${s}: ${w}`);
    }
  });
});

describe('GET /.well-known/oauth-authorization-server', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.stop();
  });

  it('describes the endpoints, scopes, grants and methods', async () => {
    const r = await fetch(`${s.url}/.well-known/oauth-authorization-server`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    const m = (await r.json()) as Record<string, unknown>;
    const base = s.app.config.baseUrl;
    assert.equal(m['issuer'], `${base}/`);
    assert.equal(m['authorization_endpoint'], `${base}/oauth/authorize`);
    assert.equal(m['token_endpoint'], `${base}/oauth/token`);
    assert.equal(m['revocation_endpoint'], `${base}/oauth/revoke`);
    assert.equal(m['app_registration_endpoint'], `${base}/api/v1/apps`);
    assert.deepEqual(m['scopes_supported'], [...ALL_SCOPES]);
    assert.deepEqual(m['response_types_supported'], ['code']);
    assert.deepEqual(m['grant_types_supported'], ['authorization_code', 'client_credentials']);
    assert.deepEqual(m['code_challenge_methods_supported'], ['S256']);
    assert.deepEqual(m['token_endpoint_auth_methods_supported'], ['client_secret_post']);
  });

  it('points at endpoints that answer on this server', async () => {
    const m = (await (await fetch(`${s.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;
    const token = await fetch(m['token_endpoint']!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    assert.equal(token.status, 400);
    assert.equal(((await token.json()) as { error: string }).error, 'invalid_request');
    const register = await fetch(m['app_registration_endpoint']!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'From metadata', redirect_uris: ['https://meta.example/cb'] }),
    });
    assert.equal(register.status, 200);
  });
});
