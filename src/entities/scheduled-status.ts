// Mastodon's ScheduledStatus entity (REST::ScheduledStatusSerializer): the id as a string, the time, the params the
// post will be made with (without application_id, which Mastodon's serializer leaves out) and the reserved uploads.
import type { ScheduledStatus } from '../store/scheduled-statuses.js';

export function scheduledStatusEntity(s: ScheduledStatus, mediaAttachments: readonly unknown[]) {
  const { application_id: _hidden, ...params } = s.params;
  return { id: s.id, scheduled_at: s.scheduledAt.toISOString(), params, media_attachments: mediaAttachments };
}
