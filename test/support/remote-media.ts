// A remote actor with an avatar and one post carrying an image, on a HistoryOrigin, brought in as a member would:
// searching the actor, whose posts come in as remote history (the operator has switched it on). The image and the
// avatar are then only addresses until someone views them through the proxy.
import assert from 'node:assert/strict';
import { api, type Json } from './api.js';
import type { HistoryOrigin } from './history-origin.js';
import { eventually } from './wait.js';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

export interface RemoteWithImage {
  readonly accountId: string;
  /** The account's avatar address (our proxy's). */
  readonly avatar: string;
  /** The post's attachment, as the API shows it (url: our proxy's address). */
  readonly attachment: Json;
  /** The paths the origin serves the image and the avatar at. */
  readonly imagePath: string;
  readonly avatarPath: string;
}

/** The origin serves `name`'s actor (with an avatar), a one-post outbox and both files; `delayMs` holds each file. */
export function serveRemoteWithImage(origin: HistoryOrigin, name: string, image: Buffer, avatar: Buffer, delayMs = 0): void {
  const actor = origin.actor(name);
  const imagePath = `/media/${name}.png`;
  const avatarPath = `/avatars/${name}.png`;
  origin.serve(`/users/${name}`, {
    json: {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: actor,
      type: 'Person',
      preferredUsername: name,
      inbox: `${actor}/inbox`,
      followers: `${actor}/followers`,
      outbox: `${actor}/outbox`,
      icon: { type: 'Image', mediaType: 'image/png', url: `${origin.url}${avatarPath}` },
    },
  });
  const note = {
    id: `${actor}/statuses/1`,
    type: 'Note',
    attributedTo: actor,
    to: [PUBLIC],
    content: '<p>a picture</p>',
    published: '2024-03-03T10:00:00Z',
    attachment: [{ type: 'Document', mediaType: 'image/png', url: `${origin.url}${imagePath}`, name: 'a picture' }],
  };
  origin.serve(`/users/${name}/outbox`, { json: { id: `${actor}/outbox`, type: 'OrderedCollection', totalItems: 1, first: `${actor}/outbox?page=1` } });
  origin.serve(`/users/${name}/outbox?page=1`, {
    json: {
      id: `${actor}/outbox?page=1`,
      type: 'OrderedCollectionPage',
      partOf: `${actor}/outbox`,
      orderedItems: [{ id: `${note.id}/activity`, type: 'Create', actor, published: note.published, to: [PUBLIC], object: note }],
    },
  });
  origin.serve(imagePath, { body: image, contentType: 'image/png', delayMs });
  origin.serve(avatarPath, { body: avatar, contentType: 'image/png', delayMs });
}

/** A member on `base` looks the actor up; its history comes in; its post's attachment and its avatar address. */
// The actor's id is spelled out: origin.actor() would serve it again without its avatar.
export async function importRemoteWithImage(base: string, token: string, origin: HistoryOrigin, name: string): Promise<RemoteWithImage> {
  const found = await api(base, token, 'GET', `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(`${origin.url}/users/${name}`)}`);
  assert.equal(found.status, 200, found.text);
  const account = found.body.accounts[0];
  const statuses = async () => (await api(base, token, 'GET', `/api/v1/accounts/${account.id}/statuses?limit=40`)).body as Json[];
  await statuses(); // the first read asks for the initial fetch
  const state = async () => (await api(base, token, 'GET', `/api/v1/accounts/${account.id}/remote_history`)).body.state as string;
  await eventually(async () => assert.ok(['partial', 'complete'].includes(await state())));
  if ((await state()) === 'partial') {
    assert.equal((await api(base, token, 'POST', `/api/v1/accounts/${account.id}/remote_history/fetch`)).status, 202);
    await eventually(async () => assert.equal(await state(), 'complete'));
  }
  const [post] = await statuses();
  assert.equal(post.media_attachments.length, 1);
  return {
    accountId: account.id,
    avatar: account.avatar,
    attachment: post.media_attachments[0],
    imagePath: `/media/${name}.png`,
    avatarPath: `/avatars/${name}.png`,
  };
}
