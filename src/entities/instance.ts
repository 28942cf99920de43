// Mastodon Instance entities (v1 and v2), built from configuration, limits and live counts.
import type { Config } from '../../config/schema.js';
import { MEDIA_LIMITS, uploadLimits } from '../media/limits.js';
import { SUPPORTED_MIME_TYPES } from '../media/sniff.js';
import { FEATURED_TAGS_LIMIT } from '../store/tags.js';
import { MASTODON_API_LEVEL, VERSION_STRING } from '../version.js';
import type { accountEntity } from './account.js';

export interface InstanceFacts {
  readonly userCount: number;
  readonly statusCount: number;
  readonly domainCount: number;
  readonly activeMonth: number;
  readonly contactAccount: ReturnType<typeof accountEntity> | null;
  /** The server's VAPID public key (Web Push). */
  readonly vapidKey: string;
  /** The server's rules (Mastodon's Rule entities). */
  readonly rules: readonly unknown[];
}

// Content limits we enforce; kept here so both entity versions (and later the validators) agree. Media limits live
// beside the upload code that enforces them (media/limits.ts).
export const LIMITS = {
  maxCharacters: 500,
  maxMediaAttachments: 4,
  charactersReservedPerUrl: 23,
  maxPollOptions: 4,
  maxCharactersPerOption: 50,
  minPollExpiration: 300,
  maxPollExpiration: 2_629_746,
  maxFeaturedTags: FEATURED_TAGS_LIMIT,
  maxPinnedStatuses: 5,
  maxProfileFields: 4,
  maxDisplayNameLength: 30,
  maxNoteLength: 500,
} as const;

function statusLimits() {
  return {
    max_characters: LIMITS.maxCharacters,
    max_media_attachments: LIMITS.maxMediaAttachments,
    characters_reserved_per_url: LIMITS.charactersReservedPerUrl,
  };
}
/** What the upload route enforces (media/limits.ts, media/sniff.ts), under this server's multipart limit. */
function mediaLimits(config: Config) {
  const sizes = uploadLimits(config.limits.multipartBytes);
  return {
    supported_mime_types: SUPPORTED_MIME_TYPES,
    description_limit: MEDIA_LIMITS.descriptionChars,
    image_size_limit: sizes.image,
    image_matrix_limit: MEDIA_LIMITS.imageMatrix,
    video_size_limit: sizes.video,
    video_frame_rate_limit: MEDIA_LIMITS.videoFrameRate,
    video_matrix_limit: MEDIA_LIMITS.videoMatrix,
  };
}
function pollLimits() {
  return {
    max_options: LIMITS.maxPollOptions,
    max_characters_per_option: LIMITS.maxCharactersPerOption,
    min_expiration: LIMITS.minPollExpiration,
    max_expiration: LIMITS.maxPollExpiration,
  };
}

/** The streaming API's base (ws:// or wss://, same host as the API): clients append /api/v1/streaming. */
export function streamingUrl(config: Config): string {
  return config.baseUrl.replace(/^http/, 'ws');
}

export function instanceV1(config: Config, f: InstanceFacts) {
  return {
    uri: config.localDomain,
    title: config.instance.title,
    short_description: config.instance.description,
    description: config.instance.description,
    email: config.instance.contactEmail,
    version: VERSION_STRING,
    urls: { streaming_api: streamingUrl(config) },
    stats: { user_count: f.userCount, status_count: f.statusCount, domain_count: f.domainCount },
    thumbnail: null,
    languages: ['en'],
    registrations: config.registrations !== 'closed',
    approval_required: config.registrations === 'approval',
    invites_enabled: false,
    configuration: {
      accounts: { max_featured_tags: LIMITS.maxFeaturedTags },
      statuses: statusLimits(),
      media_attachments: mediaLimits(config),
      polls: pollLimits(),
    },
    contact_account: f.contactAccount,
    rules: f.rules,
  };
}

export function instanceV2(config: Config, f: InstanceFacts) {
  return {
    domain: config.localDomain,
    title: config.instance.title,
    version: VERSION_STRING,
    source_url: '', // no public source address is published yet
    description: config.instance.description,
    usage: { users: { active_month: f.activeMonth } },
    thumbnail: { url: `${config.baseUrl}/headers/original/missing.png` },
    icon: [],
    languages: ['en'],
    configuration: {
      urls: { streaming: streamingUrl(config), status: null, about: `${config.baseUrl}/about`, privacy_policy: null, terms_of_service: null },
      vapid: { public_key: f.vapidKey },
      accounts: {
        max_featured_tags: LIMITS.maxFeaturedTags,
        max_pinned_statuses: LIMITS.maxPinnedStatuses,
        max_display_name_length: LIMITS.maxDisplayNameLength,
        max_note_length: LIMITS.maxNoteLength,
        max_profile_fields: LIMITS.maxProfileFields,
      },
      statuses: statusLimits(),
      media_attachments: mediaLimits(config),
      polls: pollLimits(),
      translation: { enabled: false },
      limited_federation: false,
    },
    registrations: {
      enabled: config.registrations !== 'closed',
      approval_required: config.registrations === 'approval',
      reason_required: config.registrations === 'approval',
      message: null,
      min_age: null,
      url: null,
    },
    api_versions: { mastodon: MASTODON_API_LEVEL },
    contact: { email: config.instance.contactEmail, account: f.contactAccount },
    rules: f.rules,
  };
}
