// Signing up through an app, as Mastodon's Api::V1::AccountsController#create answers it: a client_credentials token
// with write:accounts, the instance's mode (open: a working token; approval: a token refused until a moderator
// approves, reason required; closed: 403), ValidationErrorFormatter's 422, the sign-up page's throttle; and the
// e-mail confirmation routes apps call next. Also through megalodon's registerAccount and Mastodon.py's create_account.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, beforeEach, describe, it } from 'node:test';
import fc from 'fast-check';
import megalodonModule from 'megalodon';
import { RESERVED_USERNAMES } from '../../src/auth/usernames.js';
import { signUpErrors } from '../../src/services/registration-service.js';
import { api, form } from '../support/api.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { appToken, registerApp, type RegisteredApp } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const run = promisify(execFile);
// megalodon is CommonJS: imported from ESM, its default export is the module object, whose `default` is generator().
const generator = megalodonModule.default;

const signUp = (n: number) => ({ username: `new${n}`, email: `new${n}@example.test`, password: 'a long password', agreement: true, locale: 'en' });

describe('POST /api/v1/accounts: open registrations', () => {
  let s: TestServer;
  let m: LocalMembers;
  let app: RegisteredApp;
  let appOnly: string;
  /** The address's sign-up budget (five per half hour, the page's) made whole again: these tests sign up many. */
  const freshBudget = async () => {
    await s.app.db.pool.query("DELETE FROM throttle_counters WHERE key LIKE 'signup:%'");
  };

  beforeEach(freshBudget);
  before(async () => {
    s = await startTestServer({ REGISTRATIONS: 'open' });
    m = await createMembers(s, ['ann']);
    app = await registerApp(s.url, { scopes: 'read write follow push' });
    appOnly = await appToken(s.url, app, 'write:accounts');
  });
  after(async () => {
    await s?.stop();
  });

  it('signs up and answers a Token for the new member with the app’s scopes', async () => {
    const r = await api(s.url, appOnly, 'POST', '/api/v1/accounts', signUp(1));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['access_token', 'created_at', 'scope', 'token_type']);
    assert.equal(r.body.token_type, 'Bearer');
    assert.equal(r.body.scope, 'read write follow push');
    assert.ok(Number.isInteger(r.body.created_at), 'created_at: seconds, an integer');
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const me = await api(s.url, r.body.access_token, 'GET', '/api/v1/accounts/verify_credentials');
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.username, 'new1');
    // A form body, as other apps send it.
    const formed = await api(s.url, appOnly, 'POST', '/api/v1/accounts', form({ ...signUp(2), agreement: 'true' }));
    assert.equal(formed.status, 200, formed.text);
  });

  it('refuses what Mastodon refuses with ValidationErrorFormatter’s shape', async () => {
    const taken = await api(s.url, appOnly, 'POST', '/api/v1/accounts', { ...signUp(3), username: 'ann' });
    assert.equal(taken.status, 422);
    assert.deepEqual(taken.body, {
      error: 'Validation failed: Username has already been taken',
      details: { username: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] },
    });
    await freshBudget();
    const emailTaken = await api(s.url, appOnly, 'POST', '/api/v1/accounts', { ...signUp(3), email: 'ann@example.test' });
    assert.deepEqual(emailTaken.body.details, { email: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] });
    const bad = await api(s.url, appOnly, 'POST', '/api/v1/accounts', { username: 'no spaces', email: 'nope', password: 'short', locale: '??' });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body, {
      error:
        'Validation failed: Username must contain only letters, numbers and underscores, Email is invalid, Password is too short (minimum is 8 characters), Agreement must be accepted, Locale is not included in the list',
      details: {
        username: [{ error: 'ERR_INVALID', description: 'must contain only letters, numbers and underscores' }],
        email: [{ error: 'ERR_INVALID', description: 'is invalid' }],
        password: [{ error: 'ERR_TOO_SHORT', description: 'is too short (minimum is 8 characters)' }],
        agreement: [{ error: 'ERR_ACCEPTED', description: 'must be accepted' }],
        locale: [{ error: 'ERR_INCLUSION', description: 'is not included in the list' }],
      },
    });
    await freshBudget();
    const blank = await api(s.url, appOnly, 'POST', '/api/v1/accounts', {});
    assert.deepEqual(Object.keys(blank.body.details), ['username', 'email', 'password', 'agreement']);
    assert.equal(blank.body.details.username[0].error, 'ERR_BLANK');
    const reserved = await api(s.url, appOnly, 'POST', '/api/v1/accounts', { ...signUp(3), username: 'admin' });
    assert.deepEqual(reserved.body.details, { username: [{ error: 'ERR_RESERVED', description: 'is reserved' }] });
  });

  it('takes write:accounts: no token 401, a read token 403', async () => {
    assert.equal((await api(s.url, undefined, 'POST', '/api/v1/accounts', signUp(4))).status, 401);
    const read = await api(s.url, await appToken(s.url, app, 'read'), 'POST', '/api/v1/accounts', signUp(4));
    assert.equal(read.status, 403);
    assert.deepEqual(read.body, { error: 'This action is outside the authorized scopes' });
  });

  it('answers the e-mail routes: confirmed from the start, so no confirmation to resend', async () => {
    const token = (await api(s.url, appOnly, 'POST', '/api/v1/accounts', signUp(5))).body.access_token;
    const check = await api(s.url, token, 'GET', '/api/v1/emails/check_confirmation');
    assert.equal(check.status, 200);
    assert.equal(check.text, 'true');
    const resend = await api(s.url, token, 'POST', '/api/v1/emails/confirmations', { email: 'other@example.test' });
    assert.equal(resend.status, 403);
    assert.deepEqual(resend.body, { error: 'This method is only available while the e-mail is awaiting confirmation' });
    const notTheirs = await api(s.url, m.token['ann'], 'POST', '/api/v1/emails/confirmations');
    assert.deepEqual(notTheirs.body, { error: 'This method is only available to the application the user originally signed-up with' });
    assert.equal((await api(s.url, appOnly, 'GET', '/api/v1/emails/check_confirmation')).status, 403, 'an app token lacks read:accounts');
    const appRead = await appToken(s.url, app, 'read');
    const noUser = await api(s.url, appRead, 'GET', '/api/v1/emails/check_confirmation');
    assert.equal(noUser.status, 401);
    assert.deepEqual(noUser.body, { error: 'This method requires an authenticated user' });
  });

  it('signs up through megalodon and Mastodon.py', async () => {
    const client = generator('mastodon', s.url, appOnly);
    await freshBudget();
    const viaMegalodon = await client.registerAccount('meg', 'meg@example.test', 'a long password', true, 'en');
    assert.equal(viaMegalodon.status, 200);
    assert.equal((await api(s.url, viaMegalodon.data.access_token, 'GET', '/api/v1/accounts/verify_credentials')).body.username, 'meg');
    const script = `
import json, os
from mastodon import Mastodon
m = Mastodon(client_id=os.environ['ID'], client_secret=os.environ['SECRET'], api_base_url=os.environ['BASE'], version_check_mode='none')
token = m.create_account('py', 'a long password', 'py@example.test', agreement=True)
me = Mastodon(access_token=token, api_base_url=os.environ['BASE'], version_check_mode='none').account_verify_credentials()
_, err = m.create_account('py', 'a long password', 'py2@example.test', agreement=True, return_detailed_error=True)
print(json.dumps({'username': me['username'], 'error': err['details']}))
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script], { env: { ...process.env, BASE: s.url, ID: app.client_id, SECRET: app.client_secret } });
    assert.deepEqual(JSON.parse(stdout), { username: 'py', error: { username: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] } });
  });
});

describe('POST /api/v1/accounts: approval and closed', () => {
  let approval: TestServer;
  let closed: TestServer;

  before(async () => {
    [approval, closed] = await Promise.all([startTestServer({ REGISTRATIONS: 'approval' }), startTestServer()]);
  });
  after(async () => {
    await Promise.all([approval?.stop(), closed?.stop()]);
  });

  it('in approval mode requires a reason, and its token is refused until a moderator approves', async () => {
    const app = await registerApp(approval.url, { scopes: 'read write' });
    const token = await appToken(approval.url, app, 'write:accounts');
    const noReason = await api(approval.url, token, 'POST', '/api/v1/accounts', signUp(1));
    assert.equal(noReason.status, 422);
    assert.deepEqual(noReason.body.details, { reason: [{ error: 'ERR_BLANK', description: "can't be blank" }] });
    const r = await api(approval.url, token, 'POST', '/api/v1/accounts', { ...signUp(1), reason: 'I like stoas' });
    assert.equal(r.status, 200, r.text);
    const pending = await api(approval.url, r.body.access_token, 'GET', '/api/v1/accounts/verify_credentials');
    assert.equal(pending.status, 403);
    assert.deepEqual(pending.body, { error: 'Your login is currently pending approval' });
    // The e-mail routes are the app's to call meanwhile.
    assert.equal((await api(approval.url, r.body.access_token, 'GET', '/api/v1/emails/check_confirmation')).text, 'true');

    const admin = await createMembers(approval, ['boss'], { boss: 'admin' });
    const boss = await admin.tokenFor('boss', ['admin:read', 'admin:write']);
    const listed = await api(approval.url, boss, 'GET', '/api/v1/admin/accounts?pending=true');
    assert.equal(listed.status, 200, listed.text);
    const account = listed.body.find((a: { username: string }) => a.username === 'new1');
    assert.ok(account, listed.text);
    assert.equal(account.invite_request, 'I like stoas');
    assert.equal((await api(approval.url, boss, 'POST', `/api/v1/admin/accounts/${account.id}/approve`)).status, 200);
    await eventually(async () => {
      const me = await api(approval.url, r.body.access_token, 'GET', '/api/v1/accounts/verify_credentials');
      assert.equal(me.status, 200, me.text);
    });
  });

  it('answers 403 when registrations are closed, as Mastodon does', async () => {
    const app = await registerApp(closed.url, { scopes: 'read write' });
    const r = await api(closed.url, await appToken(closed.url, app, 'write:accounts'), 'POST', '/api/v1/accounts', signUp(1));
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { error: 'This action is not allowed' });
  });

  it('throttles sign-ups per address with the sign-up page’s budget', async () => {
    const app = await registerApp(approval.url, { scopes: 'read write' });
    const token = await appToken(approval.url, app, 'write:accounts');
    const statuses: number[] = [];
    // The two attempts above spent two of the address's five (each attempt counts, valid or not).
    for (let i = 0; i < 5; i++) statuses.push((await api(approval.url, token, 'POST', '/api/v1/accounts', { ...signUp(10 + i), reason: 'x' })).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    const last = await api(approval.url, token, 'POST', '/api/v1/accounts', { ...signUp(20), reason: 'x' });
    assert.equal(last.status, 429, last.text);
    assert.ok(Number(last.headers.get('retry-after')) > 0);
  });
});

describe('the sign-up rules over any input', () => {
  const FIELDS = new Set(['username', 'email', 'password', 'password_confirmation', 'agreement', 'reason', 'locale']);
  const CODES = new Set(['ERR_BLANK', 'ERR_INVALID', 'ERR_TOO_LONG', 'ERR_TOO_SHORT', 'ERR_RESERVED', 'ERR_CONFIRMATION', 'ERR_ACCEPTED', 'ERR_INCLUSION']);

  it('name each broken rule with a known field and code, and never throw', () => {
    const anything = fc.oneof(fc.jsonValue(), fc.string({ maxLength: 1200 }), fc.constant(undefined));
    fc.assert(
      fc.property(
        fc.record({
          username: anything,
          email: anything,
          password: anything,
          agreement: anything,
          reason: anything,
          locale: anything,
          reasonRequired: fc.boolean(),
        }),
        (input) => {
          const errors = signUpErrors(input);
          for (const e of errors) {
            assert.ok(FIELDS.has(e.field), e.field);
            assert.ok(CODES.has(e.code), e.code);
            assert.ok(e.description.length > 0 && e.message.length > 0);
          }
          // Fields are named at most once each, in the order the form lists them.
          const fields = errors.map((e) => e.field);
          assert.equal(new Set(fields).size, fields.length);
        },
      ),
      { seed: 36, numRuns: 300 },
    );
  });

  it('accept a well-formed sign-up, whatever its valid username and address', () => {
    const username = fc.stringMatching(/^[a-z0-9_]{1,30}$/).filter((u) => !RESERVED_USERNAMES.has(u));
    fc.assert(
      fc.property(username, fc.stringMatching(/^[a-z]{1,10}$/), (u, host) => {
        const errors = signUpErrors({ username: u, email: `${u}@${host}.example`, password: 'a long password', agreement: true, locale: 'pt-BR' });
        assert.deepEqual(errors, []);
      }),
      { seed: 36, numRuns: 200 },
    );
  });
});
