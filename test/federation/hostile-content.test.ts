// Hostile content from another server never reaches a client as markup. A remote actor with markup in its name,
// bio and profile fields sends a Question whose content carries script, an onerror image, javascript: links and
// style, with markup in its content warning, its attachment's description and its poll options, and a javascript:
// url. Every API response that shows it is checked: HTML fields (content, note, field values) hold only Mastodon's
// allowed markup (support/mastodon-html) and exactly what Mastodon would keep; plain-text fields (spoiler_text,
// display_name, field names, media descriptions, poll options) are as the server sent them, since clients show them
// as text, as Mastodon serves them; every URL is http(s). The same holds after an Update of the post and of the
// actor, and for a post fetched by search.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminToken, api, FED_ENV, type Json } from '../support/api.js';
import { startFakeActorPeer, type FakePeer } from '../support/fake-actor-peer.js';
import { assertMastodonHtml } from '../support/mastodon-html.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

const AS = 'https://www.w3.org/ns/activitystreams';
const PUBLIC = `${AS}#Public`;
const REL = 'rel="nofollow noopener noreferrer" target="_blank"';

const NAME = '<script>alert("name")</script><b>Mal</b> & co';
const BIO =
  '<p>bio <script>alert(5)</script><a href="javascript:alert(6)">js</a> <a href="https://peer.example/me" rel="me" onclick="x()">site</a><img src=x onerror=alert(7)></p>';
const BIO_HTML = `<p>bio js <a href="https://peer.example/me" ${REL}>site</a></p>`;
const FIELD_NAME = '<img src=x onerror=alert(8)>Site';
const FIELD_VALUE = '<a href="javascript:alert(9)" onclick=x>click</a><script>x</script> <a href="https://peer.example/">ok</a>';
const FIELD_HTML = `click <a href="https://peer.example/" ${REL}>ok</a>`;
const CW = '<b>cw</b> <script>alert(2)</script> & more';
const DESCRIPTION = '<img src=x onerror=alert(3)>a "quoted" alt';
const OPTIONS = ['<script>alert(4)</script>yes', '<b onmouseover=alert(4)>no</b>'];

/** The Note's content, with a mention of `admin` and the word `word` to search by. */
const hostileContent = (admin: string, word: string) =>
  `<p>hi <span class="h-card"><a href="${admin}" class="u-url mention">@<span>admin</span></a></span> ${word} <script>alert(1)</script>` +
  '<img src=x onerror=alert(1)><a href="javascript:alert(1)" onclick="x()">click</a> <a href="jav&#x09;ascript:alert(1)">tab</a> ' +
  '<a href="&#106;avascript:alert(1)">entity</a><iframe src="https://evil.example"></iframe><style>body{}</style>' +
  '<span style="position:fixed" class="invisible evil" onmouseover="x()">styled</span><svg onload=alert(1)><text>svg</text></svg></p>';
const cleanContent = (admin: string, word: string) =>
  `<p>hi <span class="h-card"><a href="${admin}" class="u-url mention" ${REL}>@<span>admin</span></a></span> ${word} ` +
  'click tab entity<span class="invisible">styled</span></p>';

/**
 * Walks an API response: HTML fields hold only Mastodon's markup, and every URL-valued field is http(s) (a
 * javascript: url there would be a link in every client).
 */
function checkResponse(x: unknown, path = '$'): void {
  if (Array.isArray(x)) for (const [i, v] of x.entries()) checkResponse(v, `${path}[${i}]`);
  else if (x !== null && typeof x === 'object') {
    for (const [k, v] of Object.entries(x)) {
      const at = `${path}.${k}`;
      if (typeof v !== 'string') checkResponse(v, at);
      else if (k === 'content' || k === 'note' || (k === 'value' && /\.fields\[\d+\]$/.test(path))) assertMastodonHtml(v, at);
      else if ((/(^|_)(url|uri)$/.test(k) || /^(avatar|header)(_static)?$/.test(k)) && v !== '') assert.match(v, /^https?:\/\//, at);
    }
  }
}

describe('hostile content from another server', () => {
  let s: TestServer;
  let peer: FakePeer;
  let token: string;
  let admin: string;
  let malloryId: string;
  let statusId: string;
  let note: Json;

  const get = async (path: string, auth: string | undefined = token): Promise<Json> => {
    const r = await api(s.url, auth, 'GET', path);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    checkResponse(r.body, path);
    return r.body;
  };
  const send = async (activity: Json) => {
    const r = await peer.signedPost(`${s.url}/inbox`, activity, { actor: 'mallory' });
    assert.equal(r.status, 202, JSON.stringify(r.body));
  };

  /** Mallory as every response must show her. */
  const assertMallory = (a: Json, where: string, bio = BIO_HTML) => {
    assert.equal(a.id, malloryId, where);
    assert.equal(a.display_name, NAME, `${where}: display_name is plain text, as sent`);
    assert.equal(a.note, bio, `${where}: note`);
    assert.deepEqual(a.fields, [{ name: FIELD_NAME, value: FIELD_HTML, verified_at: null }], `${where}: fields`);
    assert.equal(a.url, peer.actor('mallory').id, `${where}: the javascript: url is not kept`);
  };
  /** The hostile post as every response must show it. */
  const assertPost = (x: Json, where: string, content = cleanContent(admin, 'quagga'), cw = CW) => {
    assert.equal(x.uri, note.id, where);
    assert.equal(x.content, content, `${where}: content`);
    assert.equal(x.spoiler_text, cw, `${where}: spoiler_text is plain text, as sent`);
    assert.equal(x.sensitive, true, where);
    assert.equal(x.url, note.id, `${where}: the javascript: url is not kept`);
    assert.deepEqual(
      x.media_attachments.map((m: Json) => m.description),
      [DESCRIPTION],
      `${where}: media description`,
    );
    assert.deepEqual(
      x.poll.options.map((o: Json) => o.title),
      OPTIONS,
      `${where}: poll options`,
    );
    assert.deepEqual(
      x.mentions.map((m: Json) => m.acct),
      ['admin'],
      where,
    );
    assertMallory(x.account, `${where}.account`);
  };

  before(async () => {
    [s, peer] = await Promise.all([startTestServer(FED_ENV), startFakeActorPeer()]);
    token = await adminToken(s);
    admin = `${s.url}/users/admin`;
    await peer.addActor('mallory', {
      displayName: NAME,
      attachment: [{ type: 'PropertyValue', name: FIELD_NAME, value: FIELD_VALUE }],
      extra: { summary: BIO, url: 'javascript:alert(10)' },
    });
    // The admin follows Mallory, so her posts reach the home timeline.
    malloryId = (await get(`/api/v1/accounts/lookup?acct=mallory@${peer.host}`)).id;
    assert.equal((await api(s.url, token, 'POST', `/api/v1/accounts/${malloryId}/follow`)).status, 200);
    const follow = await peer.waitForPost((p) => p.body?.['type'] === 'Follow');
    await send({ '@context': AS, id: peer.newId('accepts'), type: 'Accept', actor: peer.actor('mallory').id, object: follow.body });
    await eventually(async () => assert.equal((await get(`/api/v1/accounts/relationships?id[]=${malloryId}`))[0].following, true));

    const mallory = peer.actor('mallory').id;
    note = {
      id: peer.newId('notes'),
      type: 'Question',
      attributedTo: mallory,
      url: 'javascript:alert(11)',
      to: [PUBLIC],
      cc: [`${mallory}/followers`, admin],
      content: hostileContent(admin, 'quagga'),
      summary: CW,
      tag: [{ type: 'Mention', href: admin, name: '@admin' }],
      attachment: [{ type: 'Document', mediaType: 'image/png', url: `${peer.url}/media/1.png`, name: DESCRIPTION }],
      oneOf: OPTIONS.map((name) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: 0 } })),
      endTime: new Date(Date.now() + 86_400_000).toISOString(),
    };
    await send({ '@context': AS, id: `${note.id}/activity`, type: 'Create', actor: mallory, to: note.to, cc: note.cc, object: note });
    await eventually(async () => {
      const home = await get('/api/v1/timelines/home');
      statusId = home.find((x: Json) => x.uri === note.id)?.id;
      assert.ok(statusId, 'the post reached home');
    });
  });
  after(async () => {
    await Promise.all([s?.stop(), peer?.stop()]);
  });

  it('shows only safe markup in the account, everywhere it appears', async () => {
    assertMallory(await get(`/api/v1/accounts/${malloryId}`), 'account');
    assertMallory(await get(`/api/v1/accounts/${malloryId}`, undefined), 'account, anonymous');
    assertMallory(await get(`/api/v1/accounts/lookup?acct=mallory@${peer.host}`), 'lookup');
    assertMallory((await get(`/api/v2/search?q=mallory@${peer.host}&type=accounts`)).accounts[0], 'search');
    assertMallory((await get(`/api/v1/accounts/${(await get('/api/v1/accounts/verify_credentials')).id}/following`))[0], 'following');
  });

  it('shows only safe markup in the post, in every response that shows it', async () => {
    assertPost(await get(`/api/v1/statuses/${statusId}`), 'status');
    assertPost(await get(`/api/v1/statuses/${statusId}`, undefined), 'status, anonymous');
    assertPost(
      (await get('/api/v1/timelines/home')).find((x: Json) => x.id === statusId),
      'home',
    );
    assertPost(
      (await get('/api/v1/timelines/public', undefined)).find((x: Json) => x.id === statusId),
      'public',
    );
    assertPost(
      (await get('/api/v1/timelines/public?remote=true')).find((x: Json) => x.id === statusId),
      'public remote',
    );
    assertPost((await get(`/api/v1/accounts/${malloryId}/statuses`))[0], 'account statuses');
    assertPost((await get('/api/v2/search?q=quagga&type=statuses')).statuses[0], 'search');
    const mention = (await get('/api/v1/notifications?types[]=mention')).find((n: Json) => n.status?.id === statusId);
    assert.ok(mention, 'a mention notification');
    assertMallory(mention.account, 'notification.account');
    assertPost(mention.status, 'notification.status');
    const poll = await get(`/api/v1/polls/${(await get(`/api/v1/statuses/${statusId}`)).poll.id}`);
    assert.deepEqual(
      poll.options.map((o: Json) => o.title),
      OPTIONS,
    );
    // In a thread: as the ancestor of a reply here, and with the reply below it.
    const reply = await api(s.url, token, 'POST', '/api/v1/statuses', { status: '@mallory@' + peer.host + ' no thanks', in_reply_to_id: statusId });
    assert.equal(reply.status, 200, reply.text);
    assertPost((await get(`/api/v1/statuses/${reply.body.id}/context`)).ancestors[0], 'context ancestors');
    const own = await get(`/api/v1/statuses/${statusId}/context`);
    assert.deepEqual(
      own.descendants.map((x: Json) => x.id),
      [reply.body.id],
    );
    // Boosted here, it shows inside the boost.
    const boost = await api(s.url, token, 'POST', `/api/v1/statuses/${statusId}/reblog`);
    assert.equal(boost.status, 200, boost.text);
    checkResponse(boost.body);
    assertPost(boost.body.reblog, 'reblog');
    assertPost((await get('/api/v1/timelines/home')).find((x: Json) => x.id === boost.body.id).reblog, 'home reblog');
  });

  it('keeps an edit as safe as the original, and its history too', async () => {
    const edited = {
      ...note,
      content: hostileContent(admin, 'zorilla') + '<p><a href="vbscript:msgbox(1)">vb</a><a href="data:text/html,<script>alert(1)</script>">data</a></p>',
      summary: '<i>new cw</i><script>alert(12)</script>',
      updated: new Date().toISOString(),
    };
    await send({ '@context': AS, id: peer.newId('updates'), type: 'Update', actor: note.attributedTo, to: note.to, cc: note.cc, object: edited });
    const content = `${cleanContent(admin, 'zorilla')}<p>vbdata</p>`;
    await eventually(async () => assert.equal((await get(`/api/v1/statuses/${statusId}`)).content, content));
    assertPost(await get(`/api/v1/statuses/${statusId}`), 'edited', content, edited.summary);
    assertPost((await get('/api/v2/search?q=zorilla&type=statuses')).statuses[0], 'search after edit', content, edited.summary);
    const history = await get(`/api/v1/statuses/${statusId}/history`);
    assert.deepEqual(
      history.map((v: Json) => [v.content, v.spoiler_text]),
      [
        [cleanContent(admin, 'quagga'), CW],
        [content, edited.summary],
      ],
    );
  });

  it('keeps an Update of the actor as safe as its first document', async () => {
    const bio = '<p>new <a href=" javascript:alert(13)">bio</a><object data=x>obj</object></p>';
    peer.actor('mallory').extra['summary'] = bio;
    await send({ '@context': AS, id: peer.newId('updates'), type: 'Update', actor: peer.actor('mallory').id, to: [PUBLIC], object: peer.document('mallory') });
    await eventually(async () => assert.equal((await get(`/api/v1/accounts/${malloryId}`)).note, '<p>new bio</p>'));
    assertMallory(await get(`/api/v1/accounts/${malloryId}`), 'account after Update', '<p>new bio</p>');
    assertMallory((await get(`/api/v1/statuses/${statusId}`)).account, 'status account after Update', '<p>new bio</p>');
  });

  it('cleans a post fetched by its URL through search', async () => {
    const mallory = peer.actor('mallory').id;
    const fetched = {
      id: peer.newId('notes'),
      type: 'Note',
      attributedTo: mallory,
      url: 'javascript:alert(14)',
      to: [PUBLIC],
      cc: [`${mallory}/followers`],
      content: '<p>fetched <script>alert(15)</script><a href="&#x6A;avascript:alert(16)">link</a><img src=x onerror=alert(17)></p>',
      summary: '<script>alert(18)</script>',
      attachment: [{ type: 'Image', mediaType: 'image/jpeg', url: `${peer.url}/media/2.jpg`, name: DESCRIPTION }],
    };
    peer.serve(fetched);
    const found = (await get(`/api/v2/search?${new URLSearchParams({ q: fetched.id, resolve: 'true', type: 'statuses' }).toString()}`)).statuses;
    assert.deepEqual(
      found.map((x: Json) => x.uri),
      [fetched.id],
    );
    assert.equal(found[0].content, '<p>fetched link</p>');
    assert.equal(found[0].spoiler_text, fetched.summary);
    assert.equal(found[0].url, fetched.id);
    assert.deepEqual(
      found[0].media_attachments.map((m: Json) => m.description),
      [DESCRIPTION],
    );
    assert.equal(found[0].account.id, malloryId);
    assert.equal((await get(`/api/v1/statuses/${found[0].id}`)).content, '<p>fetched link</p>');
  });
});
