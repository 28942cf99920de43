// Our actors as ActivityPub documents: members are Persons, the instance actor is a Service. The attachment array
// carries the profile fields and the member's identity statements (FEP-c390), the latter in their original form.
import type { Config } from '../../config/schema.js';
import { missingImage, profileImageUrl } from '../urls/media-urls.js';
import { plainTextToHtml } from '../text/plain-text.js';
import { MediaFiles } from '../media/media-files.js';
import { inlineHtml } from '../text/status-text.js';
import type { Account } from '../store/accounts.js';
import { AS_CONTEXT } from './activities.js';
import type { LocalUris } from '../urls/local-uris.js';
import { RawJson } from './raw-json.js';

export const ACTOR_CONTEXT = [
  AS_CONTEXT,
  'https://w3id.org/security/v1',
  'https://w3id.org/security/data-integrity/v1',
  {
    manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
    toot: 'http://joinmastodon.org/ns#',
    featured: { '@id': 'toot:featured', '@type': '@id' },
    featuredTags: { '@id': 'toot:featuredTags', '@type': '@id' },
    discoverable: 'toot:discoverable',
    indexable: 'toot:indexable',
    memorial: 'toot:memorial',
    schema: 'http://schema.org#',
    PropertyValue: 'schema:PropertyValue',
    value: 'schema:value',
    fep: 'https://w3id.org/fep#',
    VerifiableIdentityStatement: 'fep:VerifiableIdentityStatement',
    subject: 'fep:subject',
  },
];

/** statements: the member's live identity statements as their original JSON text. */
export function personDocument(a: Account, publicKeyPem: string, uris: LocalUris, config: Config, statements: readonly string[] = []): Record<string, unknown> {
  const id = uris.actor(a.username);
  return {
    '@context': ACTOR_CONTEXT,
    id,
    type: a.bot ? 'Service' : 'Person',
    following: uris.following(a.username),
    followers: uris.followers(a.username),
    inbox: uris.inbox(a.username),
    outbox: uris.outbox(a.username),
    featured: uris.featured(a.username),
    featuredTags: uris.featuredTags(a.username),
    preferredUsername: a.username,
    name: a.displayName,
    summary: plainTextToHtml(a.note),
    url: uris.profile(a.username),
    manuallyApprovesFollowers: a.locked,
    discoverable: a.discoverable ?? false,
    indexable: false,
    memorial: false,
    published: dayOf(a.createdAt),
    publicKey: { id: uris.keyId(a.username), owner: id, publicKeyPem },
    tag: [],
    attachment: [...a.fields.map((f) => ({ type: 'PropertyValue', name: f.name, value: inlineHtml(f.value) })), ...statements.map((t) => new RawJson(t))],
    endpoints: { sharedInbox: uris.sharedInbox },
    icon: a.avatarFile
      ? { type: 'Image', mediaType: MediaFiles.contentTypeOf(a.avatarFile), url: profileImageUrl(config, 'avatars', a.avatarFile) }
      : { type: 'Image', mediaType: 'image/png', url: missingImage(config, 'avatars') },
    ...(a.headerFile
      ? { image: { type: 'Image', mediaType: MediaFiles.contentTypeOf(a.headerFile), url: profileImageUrl(config, 'headers', a.headerFile) } }
      : {}),
  };
}

/** The instance actor: signs our server-to-server fetches; its handle is the domain itself, as on Mastodon. */
export function instanceActorDocument(a: Account, publicKeyPem: string, uris: LocalUris, config: Config): Record<string, unknown> {
  const id = uris.instanceActor;
  return {
    '@context': ACTOR_CONTEXT,
    id,
    type: 'Service',
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    preferredUsername: a.username,
    name: config.instance.title,
    summary: '',
    url: `${config.baseUrl}/about`,
    manuallyApprovesFollowers: true,
    discoverable: false,
    indexable: false,
    published: dayOf(a.createdAt),
    publicKey: { id: uris.instanceKeyId, owner: id, publicKeyPem },
    endpoints: { sharedInbox: uris.sharedInbox },
  };
}

function dayOf(d: Date): string {
  const x = new Date(d);
  x.setUTCHours(0, 0, 0, 0);
  return x.toISOString().replace('.000Z', 'Z');
}
