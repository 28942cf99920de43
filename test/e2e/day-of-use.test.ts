// A day of use with Debian's own clients, each signed in through its own out-of-band OAuth flow: toot 0.34 and
// Mastodon.py 1.8 do what members do on their first screens (autocomplete, followed tags, scheduled posts,
// announcements, trends, domain blocks, threads), and see what they would see. Mastodon.py 1.8 has no followed
// tags (2.0 added them), so toot follows one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TrendStore } from '../../src/store/trends.js';
import { api, type Json } from '../support/api.js';
import { mastodonPy, Toot } from '../support/cli-clients.js';
import { getForm, postForm } from '../support/forms.js';
import { createMembers, type LocalMembers } from '../support/members.js';
import { signIn } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PASSWORD = 'member-password-1';

describe('a day of use with toot', () => {
  let s: TestServer;
  let m: LocalMembers;
  let toot: Toot;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'bobby', 'cat']);
    toot = await Toot.signIn(s.url, 'ann', PASSWORD);
  });
  after(async () => {
    await toot?.close();
    await s?.stop();
  });

  it('toot: signs in out of band, posts, follows a tag and reads its posts at home, schedules a post, reads a thread', async () => {
    assert.match(await toot.run('whoami'), /@ann/);
    const posted = await toot.run('post', 'Good morning from toot');
    assert.match(posted, /Toot posted/);

    // A followed tag brings a stranger's public post to ann's home timeline.
    assert.match(await toot.run('tags_follow', 'stoaday'), /now following #stoaday/i);
    assert.match(await toot.run('tags_followed'), /stoaday/);
    const tagged = await api(s.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: 'Coffee time #stoaday' });
    assert.equal(tagged.status, 200);
    const home = await toot.run('timeline');
    assert.match(home, /Coffee time/, 'the followed tag reached the home timeline');
    assert.match(home, /Good morning from toot/);

    // A scheduled post is kept, not posted.
    assert.match(await toot.run('post', 'Later, from toot', '--scheduled-in', '2h'), /scheduled/i);
    const scheduled = await api(s.url, m.token['ann'], 'GET', '/api/v1/scheduled_statuses');
    assert.equal(scheduled.status, 200);
    assert.deepEqual(
      (scheduled.body as Json[]).map((x) => x.params.text),
      ['Later, from toot'],
    );
    assert.doesNotMatch(await toot.run('timeline'), /Later, from toot/);

    // A thread reads in Mastodon's order: the author's own chain first.
    const root = (await api(s.url, m.token['ann'], 'POST', '/api/v1/statuses', { status: 'Thread root' })).body as Json;
    const other = (await api(s.url, m.token['bob'], 'POST', '/api/v1/statuses', { status: 'Reply by bob', in_reply_to_id: root.id })).body as Json;
    const self = (await api(s.url, m.token['ann'], 'POST', '/api/v1/statuses', { status: 'Self reply 1', in_reply_to_id: root.id })).body as Json;
    await api(s.url, m.token['ann'], 'POST', '/api/v1/statuses', { status: 'Self reply 2', in_reply_to_id: self.id });
    assert.ok(other.id);
    const thread = await toot.run('thread', root.id);
    const order = ['Thread root', 'Self reply 1', 'Self reply 2', 'Reply by bob'].map((t) => thread.indexOf(t));
    assert.ok(
      order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1]!)),
      `thread order ${order.join(',')}:\n${thread}`,
    );
  });
});

describe('a day of use with Mastodon.py', () => {
  let s: TestServer;
  let m: LocalMembers;

  before(async () => {
    s = await startTestServer();
    m = await createMembers(s, ['ann', 'bob', 'bobby', 'cat', 'dan', 'eve', 'boss'], { boss: 'admin' });
    // Staff publish an announcement on Administration › Announcements.
    const jar = await signIn(s.url, 'boss', PASSWORD);
    const { token } = await getForm(`${s.url}/admin/announcements`, jar);
    const r = await postForm(`${s.url}/admin/announcements`, jar, { authenticity_token: token, text: 'Maintenance on Sunday', publish: '1' });
    assert.equal(r.status, 303);
    // Five members take up a hashtag today; the operator lets trends through without review; the refresher runs.
    for (const who of ['bob', 'bobby', 'cat', 'dan', 'eve']) {
      assert.equal((await api(s.url, m.token[who], 'POST', '/api/v1/statuses', { status: `Off to the #StoaFair` })).status, 200);
    }
    const boss = await m.tokenFor('boss', ['admin:write']);
    assert.equal((await api(s.url, boss, 'PUT', '/api/v1/admin/trends/settings', { review_required: false })).status, 200);
    await new TrendStore(s.app.db).refresh(new Date());
  });
  after(async () => {
    await s?.stop();
  });

  it('signs in out of band; autocompletes, schedules, reads announcements and trends, blocks a domain', async () => {
    const out = (await mastodonPy(
      s.url,
      'ann',
      PASSWORD,
      `
out['me'] = m.me()['username']
out['search'] = [a['username'] for a in m.account_search('bob', limit=5)]
import datetime
when = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=3)
sched = m.status_post('Later, from Mastodon.py', scheduled_at=when)
out['scheduled'] = [x['params']['text'] for x in m.scheduled_statuses()]
later = when + datetime.timedelta(hours=1)
out['moved'] = m.scheduled_status_update(sched, later)['scheduled_at'] > sched['scheduled_at']
m.scheduled_status_delete(sched)
out['after_delete'] = len(m.scheduled_statuses())
news = m.announcements()
out['announcements'] = [(a['content'], a['read']) for a in news]
m.announcement_reaction_create(news[0], '👍')
m.announcement_dismiss(news[0])
out['after_dismiss'] = [(a['read'], [(r['name'], r['count'], r['me']) for r in a['reactions']]) for a in m.announcements()]
out['trends'] = [t['name'] for t in m.trending_tags()]
m.domain_block('spam.example')
out['domains'] = list(m.domain_blocks())
m.domain_unblock('spam.example')
out['domains_after'] = list(m.domain_blocks())
`,
    )) as Json;
    assert.equal(out.me, 'ann');
    assert.deepEqual(out.search, ['bob', 'bobby']);
    assert.deepEqual(out.scheduled, ['Later, from Mastodon.py']);
    assert.equal(out.moved, true);
    assert.equal(out.after_delete, 0);
    assert.deepEqual(out.announcements, [['<p>Maintenance on Sunday</p>', false]]);
    assert.deepEqual(out.after_dismiss, [[true, [['👍', 1, true]]]]);
    assert.deepEqual(out.trends, ['StoaFair']);
    assert.deepEqual(out.domains, ['spam.example']);
    assert.deepEqual(out.domains_after, []);
  });
});
