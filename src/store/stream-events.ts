// The events streamed to clients, as the triggers of migrations 046, 050 (filters_changed) and 064 (announcements) and store/notification-requests.ts (notifications_merged) notify them on STREAM_CHANNEL: ids only, read
// back by each node after commit. Parsed here, at the edge: a payload of any other shape is ignored.
import { z } from 'zod';

const id = z.string().regex(/^\d{1,20}$/);

const schema = z.discriminatedUnion('event', [
  z.object({ event: z.literal('update'), status: id }),
  z.object({ event: z.literal('status.update'), status: id }),
  z.object({ event: z.literal('delete'), status: id, account: id, visibility: z.number().int().min(0).max(3) }),
  z.object({ event: z.literal('notification'), notification: id, account: id }),
  z.object({ event: z.literal('conversation'), conversation: id, account: id }),
  z.object({ event: z.literal('filters_changed'), account: id }),
  // A member accepted notification requests and the filtered notifications are merged (migration 051's store).
  z.object({ event: z.literal('notifications_merged'), account: id }),
  // Announcements (migration 064): published or edited, unpublished or deleted, a reaction added or taken back.
  z.object({ event: z.literal('announcement'), announcement: id }),
  z.object({ event: z.literal('announcement.delete'), announcement: id }),
  z.object({ event: z.literal('announcement.reaction'), announcement: id, name: z.string().min(1).max(200) }),
]);

export type StreamEvent = z.infer<typeof schema>;

export function parseStreamEvent(payload: string): StreamEvent | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return undefined;
  }
  const r = schema.safeParse(raw);
  return r.success ? r.data : undefined;
}
