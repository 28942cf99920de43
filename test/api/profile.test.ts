// A member's own profile over real HTTP: update_credentials with a multipart form (names, bio, profile fields,
// avatar and header, posting defaults) and with JSON; what verify_credentials, the account, the preferences, the
// actor document and a post without options then show; refused input changing nothing; replaced and removed
// images no longer served; and verify_credentials' counts following follows and posts at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, type Json } from '../support/api.js';
import { imageInfo, png } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('update_credentials and the profile', () => {
  let s: TestServer;
  let m: LocalMembers;

  async function patchForm(token: string, entries: [string, string | Blob][]): Promise<{ status: number; body: Json }> {
    const form = new FormData();
    for (const [k, v] of entries) {
      if (typeof v === 'string') form.append(k, v);
      else form.append(k, v, 'picture.png');
    }
    const res = await fetch(`${s.url}/api/v1/accounts/update_credentials`, { method: 'PATCH', headers: { Authorization: `Bearer ${token}` }, body: form });
    return { status: res.status, body: await res.json() };
  }
  const me = async (name: string) => (await api(s.url, m.token[name], 'GET', '/api/v1/accounts/verify_credentials')).body;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ola', 'pia', 'rex']);
  });
  after(async () => s?.stop());

  it('takes a multipart form with images, fields and posting defaults, and every view shows them', async () => {
    const avatar = png(64, 64);
    const r = await patchForm(m.token['ola']!, [
      ['display_name', 'Ola Nordmann'],
      ['note', 'Knits <b>socks</b>.'],
      ['fields_attributes[0][name]', 'Site'],
      ['fields_attributes[0][value]', 'https://ola.example/knits'],
      ['fields_attributes[1][name]', 'Pronouns'],
      ['fields_attributes[1][value]', 'she/her <3'],
      ['fields_attributes[2][name]', ''],
      ['fields_attributes[2][value]', ''],
      ['source[privacy]', 'unlisted'],
      ['source[sensitive]', 'true'],
      ['source[language]', 'nb'],
      ['avatar', new Blob([avatar], { type: 'image/png' })],
      ['header', new Blob([png(1500, 500)], { type: 'image/png' })],
    ]);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = r.body;
    assert.equal(a.display_name, 'Ola Nordmann');
    assert.equal(a.note, '<p>Knits &#60;b&#62;socks&#60;/b&#62;.</p>');
    assert.match(a.avatar, new RegExp(`^${s.url}/system/accounts/avatars/[a-f0-9]{32}\\.png$`));
    assert.equal(a.avatar_static, a.avatar);
    assert.match(a.header, new RegExp(`^${s.url}/system/accounts/headers/[a-f0-9]{32}\\.png$`));
    assert.deepEqual(a.fields, [
      {
        name: 'Site',
        value: '<a href="https://ola.example/knits" target="_blank" rel="nofollow noopener noreferrer">https://ola.example/knits</a>',
        verified_at: null,
      },
      { name: 'Pronouns', value: 'she/her &lt;3', verified_at: null },
    ]);
    assert.deepEqual(a.source.fields, [
      { name: 'Site', value: 'https://ola.example/knits', verified_at: null },
      { name: 'Pronouns', value: 'she/her <3', verified_at: null },
    ]);
    assert.deepEqual([a.source.privacy, a.source.sensitive, a.source.language, a.source.note], ['unlisted', true, 'nb', 'Knits <b>socks</b>.']);

    const image = await fetch(a.avatar);
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.deepEqual(await imageInfo(Buffer.from(await image.arrayBuffer())), { format: 'png', width: 64, height: 64 });

    const verified = await me('ola');
    assert.deepEqual([verified.avatar, verified.header, verified.fields, verified.source.privacy], [a.avatar, a.header, a.fields, 'unlisted']);
    const shown = (await api(s.url, undefined, 'GET', `/api/v1/accounts/${m.id['ola']}`)).body;
    assert.deepEqual([shown.avatar, shown.header, shown.fields], [a.avatar, a.header, a.fields]);
    const prefs = (await api(s.url, m.token['ola'], 'GET', '/api/v1/preferences')).body;
    assert.deepEqual([prefs['posting:default:visibility'], prefs['posting:default:sensitive'], prefs['posting:default:language']], ['unlisted', true, 'nb']);

    const post = (await api(s.url, m.token['ola'], 'POST', '/api/v1/statuses', { status: 'with my defaults' })).body;
    assert.deepEqual([post.visibility, post.sensitive, post.language], ['unlisted', true, 'nb']);
    const chosen = (await api(s.url, m.token['ola'], 'POST', '/api/v1/statuses', { status: 'chosen', visibility: 'public', sensitive: false, language: 'en' }))
      .body;
    assert.deepEqual([chosen.visibility, chosen.sensitive, chosen.language], ['public', false, 'en']);

    const actor = (await (await fetch(`${s.url}/users/ola`, { headers: { Accept: 'application/activity+json' } })).json()) as Json;
    assert.deepEqual(actor.icon, { type: 'Image', mediaType: 'image/png', url: a.avatar });
    assert.deepEqual(actor.image, { type: 'Image', mediaType: 'image/png', url: a.header });
    assert.deepEqual(
      actor.attachment.filter((x: Json) => x.type === 'PropertyValue').map((x: Json) => [x.name, x.value]),
      a.fields.map((f: Json) => [f.name, f.value]),
    );
  });

  it('takes JSON with fields as an array or an index-keyed object, and an empty language clears the default', async () => {
    const r = await api(s.url, m.token['pia'], 'PATCH', '/api/v1/accounts/update_credentials', {
      fields_attributes: [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
      source: { language: 'de' },
      locked: true,
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.body.fields.map((f: Json) => f.name),
      ['A', 'B'],
    );
    assert.equal(r.body.locked, true);
    const keyed = await api(s.url, m.token['pia'], 'PATCH', '/api/v1/accounts/update_credentials', {
      fields_attributes: { 1: { name: 'second', value: 'y' }, 0: { name: 'first', value: 'x' } },
      source: { language: '' },
    });
    assert.equal(keyed.status, 200, keyed.text);
    assert.deepEqual(
      keyed.body.fields.map((f: Json) => f.name),
      ['first', 'second'],
    );
    assert.equal(keyed.body.source.language, '');
    assert.equal(keyed.body.locked, true, 'what the request leaves out stays');
  });

  it('refuses bad input with a clear 4xx and changes nothing', async () => {
    const before = await me('pia');
    const tooMany = Array.from({ length: 5 }, (_, i) => ({ name: `n${i}`, value: 'v' }));
    const cases: [Json, number, RegExp][] = [
      [{ fields_attributes: tooMany, display_name: 'changed' }, 422, /maximum is 4/],
      [{ fields_attributes: [{ name: 'x'.repeat(256), value: 'v' }] }, 422, /Field name is too long/],
      [{ source: { privacy: 'direct' } }, 422, /Privacy must be/],
      [{ source: { language: 'not a language' } }, 422, /Language/],
      [{ display_name: 'x'.repeat(31) }, 422, /Display name is too long/],
      [{ avatar: 'https://elsewhere.example/a.png' }, 422, /avatar must be an image file/],
    ];
    for (const [body, status, error] of cases) {
      const r = await api(s.url, m.token['pia'], 'PATCH', '/api/v1/accounts/update_credentials', body);
      assert.equal(r.status, status, JSON.stringify(body));
      assert.match(r.body.error, error);
    }
    const text = await patchForm(m.token['pia']!, [
      ['display_name', 'changed'],
      ['avatar', new Blob(['<html>not an image</html>'], { type: 'image/png' })],
    ]);
    assert.equal(text.status, 422);
    assert.match(text.body.error, /avatar content type is not supported/);
    const big = Buffer.concat([png(10, 10), Buffer.alloc(8 * 1024 * 1024)]);
    const huge = await patchForm(m.token['pia']!, [
      ['header', new Blob([big], { type: 'image/png' })],
      ['avatar', new Blob([png(5, 5)], { type: 'image/png' })],
    ]);
    assert.equal(huge.status, 413);
    const readOnly = await m.tokenFor('pia', ['read']);
    assert.equal((await api(s.url, readOnly, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'changed' })).status, 403);
    assert.deepEqual(await me('pia'), before);
  });

  it('stops serving an avatar once it is replaced, and removes the avatar and the header on request', async () => {
    const first = (
      await patchForm(m.token['rex']!, [
        ['avatar', new Blob([png(9, 9)], { type: 'image/png' })],
        ['header', new Blob([png(90, 30)], { type: 'image/png' })],
      ])
    ).body;
    const second = (await patchForm(m.token['rex']!, [['avatar', new Blob([png(12, 12)], { type: 'image/png' })]])).body;
    assert.notEqual(second.avatar, first.avatar);
    assert.equal(second.header, first.header, 'the header stays');
    assert.equal((await fetch(first.avatar)).status, 404);
    assert.equal((await fetch(second.avatar)).status, 200);

    const noAvatar = await api(s.url, m.token['rex'], 'DELETE', '/api/v1/profile/avatar');
    assert.equal(noAvatar.status, 200);
    assert.equal(noAvatar.body.avatar, `${s.url}/avatars/original/missing.png`);
    assert.equal(noAvatar.body.header, first.header);
    assert.equal((await fetch(second.avatar)).status, 404);
    const noHeader = await api(s.url, m.token['rex'], 'DELETE', '/api/v1/profile/header');
    assert.equal(noHeader.body.header, `${s.url}/headers/original/missing.png`);
    assert.equal((await fetch(first.header)).status, 404);
    assert.equal((await api(s.url, undefined, 'DELETE', '/api/v1/profile/avatar')).status, 401);
    assert.equal((await fetch(`${s.url}/system/accounts/avatars/../../etc/passwd`)).status, 404);
  });

  it('counts followers, follows, statuses and waiting follow requests in verify_credentials as they change', async () => {
    const counts = async (name: string) => {
      const v = await me(name);
      return [v.followers_count, v.following_count, v.statuses_count, v.source.follow_requests_count];
    };
    const [, , rexPosts] = await counts('rex');
    assert.deepEqual(await counts('rex'), [0, 0, rexPosts, 0]);
    assert.equal((await api(s.url, m.token['rex'], 'POST', `/api/v1/accounts/${m.id['ola']}/follow`)).status, 200);
    assert.deepEqual((await counts('rex')).slice(0, 2), [0, 1]);
    assert.equal((await counts('ola'))[0], 1);
    const post = (await api(s.url, m.token['rex'], 'POST', '/api/v1/statuses', { status: 'counted' })).body;
    assert.equal((await counts('rex'))[2], rexPosts + 1);
    const deleted = await api(s.url, m.token['rex'], 'DELETE', `/api/v1/statuses/${post.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await counts('rex'))[2], rexPosts);
    // pia is locked (the JSON test): rex's follow waits for her.
    assert.equal((await api(s.url, m.token['rex'], 'POST', `/api/v1/accounts/${m.id['pia']}/follow`)).body.requested, true);
    assert.equal((await counts('pia'))[3], 1);
    await api(s.url, m.token['pia'], 'POST', `/api/v1/follow_requests/${m.id['rex']}/authorize`);
    assert.deepEqual([(await counts('pia'))[0], (await counts('pia'))[3]], [1, 0]);
    await api(s.url, m.token['rex'], 'POST', `/api/v1/accounts/${m.id['ola']}/unfollow`);
    assert.deepEqual((await counts('rex')).slice(0, 2), [0, 1]);
    assert.equal((await counts('ola'))[0], 0);
  });
});
