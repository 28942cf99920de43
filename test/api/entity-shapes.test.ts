// The entities written key by key for speed (issue 19) keep the keys, order and values of the ones they stand for:
// withAccountCounts is accountEntity with counts, and a status entity leaves out `application` and `pinned` exactly
// when Mastodon does. Then every entity's fields with the JSON types Mastodon's serializers give them, over HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../config/schema.js';
import { accountEntity, withAccountCounts } from '../../src/entities/account.js';
import { api, type ApiReply, type Json } from '../support/api.js';
import { png, upload } from '../support/media.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { startTestServer, type TestServer } from '../support/server.js';

const config = loadConfig({});
const at = new Date('2026-11-20T10:00:00Z');

describe('entity shapes', () => {
  for (const [name, row] of [
    ['local', { id: '1', username: 'ann', displayName: 'Ann', note: 'hi\nthere', locked: false, bot: false, discoverable: true, createdAt: at }],
    [
      'remote with published counts',
      {
        id: '2',
        username: 'bob',
        displayName: 'Bob "B"',
        note: '<p>x</p>',
        locked: true,
        bot: true,
        discoverable: null,
        createdAt: at,
        domain: 'remote.example',
        uri: 'https://remote.example/users/bob',
        url: 'https://remote.example/@bob',
        actorType: 'Group',
        fields: [{ name: 'site', value: '<a href="https://b.example">b</a>' }],
        remoteFollowersCount: 7,
        remoteFollowingCount: null,
        remoteStatusesCount: 3,
        publishedAt: at,
      },
    ],
  ] as const) {
    it(`withAccountCounts writes accountEntity with counts: ${name}`, () => {
      const counts = { followers: 12, following: 4, statuses: 99, lastStatusAt: new Date('2026-11-24T08:00:00Z') };
      const bare = Object.freeze(accountEntity(row, config));
      const direct = accountEntity(row, config, counts);
      const made = withAccountCounts(bare, row, counts);
      assert.deepStrictEqual(made, direct);
      assert.equal(JSON.stringify(made), JSON.stringify(direct));
      assert.equal(JSON.stringify(withAccountCounts(bare, row, undefined)), JSON.stringify(accountEntity(row, config)));
    });
  }
});

// ─── Field types over real HTTP ─────────────────────────────────────────────────────────────────────────────────────
// Each entity's fields with the JSON type Mastodon 4.5's serializer (app/serializers/rest/*.rb) gives them, as apps
// that decode into typed models (Ice Cubes, Tusky) need them: ids strings (unless the serializer sends the bigint),
// counts integers, dates ISO strings, a nullable field present as null rather than absent. `?` admits null.
type FieldType = 'id' | 'string' | 'int' | 'bool' | 'date' | 'day' | 'array' | 'object';
type Table = Readonly<Record<string, `${FieldType}` | `${FieldType}?`>>;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
function typeOk(v: unknown, t: FieldType): boolean {
  switch (t) {
    case 'id':
      return typeof v === 'string' && /^\d+$/.test(v);
    case 'string':
      return typeof v === 'string';
    case 'int':
      return Number.isInteger(v);
    case 'bool':
      return typeof v === 'boolean';
    case 'date':
      return typeof v === 'string' && ISO.test(v);
    case 'day':
      return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
  }
}

/** Asserts each field of `table` is present in `entity` with its type (null only where the table admits it). */
function assertShape(name: string, entity: Json, table: Table): void {
  assert.equal(typeof entity, 'object', `${name}: not an object`);
  assert.ok(entity !== null, `${name}: null`);
  for (const [field, spec] of Object.entries(table)) {
    const nullable = spec.endsWith('?');
    const t = (nullable ? spec.slice(0, -1) : spec) as FieldType;
    assert.ok(field in entity, `${name}.${field} is absent`);
    const v = entity[field];
    if (v === null) assert.ok(nullable, `${name}.${field} is null`);
    else assert.ok(typeOk(v, t), `${name}.${field} is ${JSON.stringify(v)}, not ${t}`);
  }
}

const ACCOUNT: Table = {
  id: 'id',
  username: 'string',
  acct: 'string',
  display_name: 'string',
  locked: 'bool',
  bot: 'bool',
  discoverable: 'bool?',
  indexable: 'bool',
  group: 'bool',
  created_at: 'date',
  note: 'string',
  url: 'string',
  uri: 'string',
  avatar: 'string',
  avatar_static: 'string',
  header: 'string',
  header_static: 'string',
  followers_count: 'int',
  following_count: 'int',
  statuses_count: 'int',
  last_status_at: 'day?',
  hide_collections: 'bool?',
  emojis: 'array',
  roles: 'array',
  fields: 'array',
};
const STATUS: Table = {
  id: 'id',
  created_at: 'date',
  in_reply_to_id: 'id?',
  in_reply_to_account_id: 'id?',
  sensitive: 'bool',
  spoiler_text: 'string',
  visibility: 'string',
  language: 'string?',
  uri: 'string',
  url: 'string?',
  replies_count: 'int',
  reblogs_count: 'int',
  favourites_count: 'int',
  edited_at: 'date?',
  favourited: 'bool',
  reblogged: 'bool',
  muted: 'bool',
  bookmarked: 'bool',
  content: 'string',
  filtered: 'array',
  reblog: 'object?',
  account: 'object',
  media_attachments: 'array',
  mentions: 'array',
  tags: 'array',
  emojis: 'array',
  card: 'object?',
  poll: 'object?',
};
const MEDIA: Table = {
  id: 'id',
  type: 'string',
  url: 'string?',
  preview_url: 'string?',
  remote_url: 'string?',
  preview_remote_url: 'string?',
  text_url: 'string?',
  meta: 'object?',
  description: 'string?',
  blurhash: 'string?',
};
const POLL: Table = {
  id: 'id',
  expires_at: 'date?',
  expired: 'bool',
  multiple: 'bool',
  votes_count: 'int',
  voters_count: 'int?',
  voted: 'bool',
  own_votes: 'array',
  options: 'array',
  emojis: 'array',
};
const POLL_OPTION: Table = { title: 'string', votes_count: 'int?' };
const MENTION: Table = { id: 'id', username: 'string', url: 'string', acct: 'string' };
const STATUS_TAG: Table = { name: 'string', url: 'string' };
const NOTIFICATION: Table = { id: 'id', type: 'string', created_at: 'date', group_key: 'string', account: 'object' };
const GROUP: Table = {
  group_key: 'string',
  notifications_count: 'int',
  type: 'string',
  // The bigint itself: Mastodon's serializer leaves it a number (read exactly from the text, below).
  most_recent_notification_id: 'id',
  page_min_id: 'id',
  page_max_id: 'id',
  latest_page_notification_at: 'date',
  sample_account_ids: 'array',
};
const PARTIAL_ACCOUNT: Table = {
  id: 'id',
  acct: 'string',
  locked: 'bool',
  bot: 'bool',
  url: 'string',
  avatar: 'string',
  avatar_static: 'string',
};
const RELATIONSHIP: Table = {
  id: 'id',
  following: 'bool',
  showing_reblogs: 'bool',
  notifying: 'bool',
  languages: 'array?',
  followed_by: 'bool',
  blocking: 'bool',
  blocked_by: 'bool',
  muting: 'bool',
  muting_notifications: 'bool',
  muting_expires_at: 'date?',
  requested: 'bool',
  requested_by: 'bool',
  domain_blocking: 'bool',
  endorsed: 'bool',
  note: 'string',
};
const LIST: Table = { id: 'id', title: 'string', replies_policy: 'string', exclusive: 'bool' };
const FILTER: Table = {
  id: 'id',
  title: 'string',
  context: 'array',
  expires_at: 'date?',
  filter_action: 'string',
  keywords: 'array',
  statuses: 'array',
};
const FILTER_KEYWORD: Table = { id: 'id', keyword: 'string', whole_word: 'bool' };
const FILTER_V1: Table = { id: 'id', phrase: 'string', context: 'array', whole_word: 'bool', expires_at: 'date?', irreversible: 'bool' };
const CONVERSATION: Table = { id: 'id', unread: 'bool', accounts: 'array', last_status: 'object?' };
const MARKER: Table = { last_read_id: 'id', version: 'int', updated_at: 'date' };
const INSTANCE_V1: Table = {
  uri: 'string',
  title: 'string',
  short_description: 'string',
  description: 'string',
  email: 'string',
  version: 'string',
  urls: 'object',
  stats: 'object',
  thumbnail: 'string?',
  languages: 'array',
  registrations: 'bool',
  approval_required: 'bool',
  invites_enabled: 'bool',
  configuration: 'object',
  contact_account: 'object?',
  rules: 'array',
};
const INSTANCE_STATS: Table = { user_count: 'int', status_count: 'int', domain_count: 'int' };
const INSTANCE_V2: Table = {
  domain: 'string',
  title: 'string',
  version: 'string',
  source_url: 'string',
  description: 'string',
  usage: 'object',
  thumbnail: 'object',
  icon: 'array',
  languages: 'array',
  configuration: 'object',
  registrations: 'object',
  api_versions: 'object',
  contact: 'object',
  rules: 'array',
};
const REGISTRATIONS_V2: Table = { enabled: 'bool', approval_required: 'bool', message: 'string?', url: 'string?' };
const APPLICATION: Table = {
  id: 'id',
  name: 'string',
  website: 'string?',
  scopes: 'array',
  redirect_uri: 'string',
  redirect_uris: 'array',
  client_id: 'string',
  client_secret: 'string',
  client_secret_expires_at: 'int',
};
const REPORT: Table = {
  id: 'id',
  action_taken: 'bool',
  action_taken_at: 'date?',
  category: 'string',
  comment: 'string',
  forwarded: 'bool',
  created_at: 'date',
  status_ids: 'array?',
  rule_ids: 'array?',
  target_account: 'object',
};
const CONTEXT: Table = { ancestors: 'array', descendants: 'array' };
const TAG: Table = { name: 'string', url: 'string', history: 'array' };
const TAG_HISTORY: Table = { day: 'string', uses: 'string', accounts: 'string' };

describe('entity field types over HTTP, as Mastodon’s serializers give them', () => {
  let s: TestServer;
  let m: LocalMembers;
  const get = async (who: string | undefined, path: string): Promise<ApiReply> => {
    const r = await api(s.url, who === undefined ? undefined : m.token[who], 'GET', path);
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    return r;
  };
  const send = async (who: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await api(s.url, m.token[who], method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
    return r.body;
  };
  let post: Json;
  let reply: Json;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob']);
    await send('bob', 'POST', `/api/v1/accounts/${m.id['ann']}/follow`);
    const media = await upload(s.url, m.token['ann']!, png(8, 8), { description: 'a dot' });
    assert.equal(media.status, 200, JSON.stringify(media.body));
    post = await send('ann', 'POST', '/api/v1/statuses', { status: 'hello #shapes @bob', media_ids: [media.body.id] });
    reply = await send('bob', 'POST', '/api/v1/statuses', { status: '@ann hi', in_reply_to_id: post.id, poll: { options: ['a', 'b'], expires_in: 3600 } });
    await send('bob', 'POST', `/api/v1/statuses/${post.id}/favourite`);
    await send('ann', 'POST', '/api/v1/statuses', { status: '@bob a secret', visibility: 'direct' });
  });
  after(async () => {
    await s?.stop();
  });

  it('Account, Status, MediaAttachment, Poll, Mention, the status’s Tag, Context', async () => {
    assertShape('Account', (await get('bob', `/api/v1/accounts/${m.id['ann']}`)).body, ACCOUNT);
    assertShape('Account (credentials)', (await get('ann', '/api/v1/accounts/verify_credentials')).body, ACCOUNT);
    for (const [who, what] of [
      [undefined, 'anonymous'],
      ['bob', 'signed in'],
    ] as const) {
      const st = (await get(who, `/api/v1/statuses/${post.id}`)).body;
      if (who === undefined) {
        const { filtered: _, ...rest } = STATUS;
        assertShape(`Status (${what})`, st, { ...rest, filtered: 'array?' });
      } else assertShape(`Status (${what})`, st, STATUS);
      assertShape('Status.account', st.account, ACCOUNT);
      assertShape('MediaAttachment', st.media_attachments[0], MEDIA);
      assertShape('Mention', st.mentions[0], MENTION);
      assertShape('Status.tags[]', st.tags[0], STATUS_TAG);
    }
    const withPoll = (await get('ann', `/api/v1/statuses/${reply.id}`)).body;
    assertShape('Poll', withPoll.poll, POLL);
    assertShape('Poll.options[]', withPoll.poll.options[0], POLL_OPTION);
    assertShape('Poll (GET)', (await get('ann', `/api/v1/polls/${withPoll.poll.id}`)).body, POLL);
    const ctx = (await get('ann', `/api/v1/statuses/${reply.id}/context`)).body;
    assertShape('Context', ctx, CONTEXT);
    assertShape('Context.ancestors[]', ctx.ancestors[0], STATUS);
  });

  it('Notification, NotificationGroup, partial accounts', async () => {
    const n = (await get('ann', '/api/v1/notifications')).body;
    for (const x of n) assertShape(`Notification (${x.type})`, x, NOTIFICATION);
    const r = await get('ann', '/api/v2/notifications?expand_accounts=partial_avatars');
    assert.match(r.text, /"most_recent_notification_id":\d+[,}]/, 'a JSON number');
    for (const g of r.body.notification_groups) assertShape(`NotificationGroup (${g.type})`, g, GROUP);
    for (const a of r.body.accounts) assertShape('grouped accounts[]', a, ACCOUNT);
    for (const a of r.body.partial_accounts) assertShape('partial_accounts[]', a, PARTIAL_ACCOUNT);
    assert.deepEqual((await get('ann', '/api/v2/notifications/unread_count')).body, { count: r.body.notification_groups.length });
  });

  it('Relationship, List, Filter (v2 and v1), Conversation, Marker', async () => {
    for (const x of (await get('bob', `/api/v1/accounts/relationships?id[]=${m.id['ann']}`)).body) assertShape('Relationship', x, RELATIONSHIP);
    const list = await send('ann', 'POST', '/api/v1/lists', { title: 'friends' });
    assertShape('List', list, LIST);
    assertShape('List (GET)', (await get('ann', `/api/v1/lists/${list.id}`)).body, LIST);
    const filter = await send('ann', 'POST', '/api/v2/filters', {
      title: 'noise',
      context: ['home'],
      keywords_attributes: [{ keyword: 'spoilers', whole_word: true }],
    });
    assertShape('Filter', filter, FILTER);
    assertShape('FilterKeyword', filter.keywords[0], FILTER_KEYWORD);
    for (const f of (await get('ann', '/api/v1/filters')).body) assertShape('Filter (v1)', f, FILTER_V1);
    for (const c of (await get('bob', '/api/v1/conversations')).body) assertShape('Conversation', c, CONVERSATION);
    await send('ann', 'POST', '/api/v1/markers', { home: { last_read_id: post.id } });
    const markers = (await get('ann', '/api/v1/markers?timeline[]=home')).body;
    assertShape('Marker', markers.home, MARKER);
  });

  it('Instance v1 and v2, Application, Report, Tag', async () => {
    const v1 = (await get(undefined, '/api/v1/instance')).body;
    assertShape('Instance v1', v1, INSTANCE_V1);
    assertShape('Instance v1 stats', v1.stats, INSTANCE_STATS);
    const v2 = (await get(undefined, '/api/v2/instance')).body;
    assertShape('Instance v2', v2, INSTANCE_V2);
    assertShape('Instance v2 registrations', v2.registrations, REGISTRATIONS_V2);
    assert.ok(Number.isInteger(v2.usage.users.active_month), 'usage.users.active_month');
    assert.ok(Number.isInteger(v2.api_versions.mastodon), 'api_versions.mastodon');
    const app = await api(s.url, undefined, 'POST', '/api/v1/apps', { client_name: 'shapes', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' });
    assert.equal(app.status, 200, app.text);
    assertShape('Application', app.body, APPLICATION);
    const report = await send('ann', 'POST', '/api/v1/reports', { account_id: m.id['bob'], status_ids: [reply.id], comment: 'test' });
    assertShape('Report', report, REPORT);
    const found = (await get('ann', '/api/v2/search?q=%23shapes&type=hashtags')).body;
    assertShape('Tag', found.hashtags[0], TAG);
    for (const h of found.hashtags[0].history) assertShape('Tag.history[]', h, TAG_HISTORY);
  });
});
