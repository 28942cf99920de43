// A WebFinger answer (RFC 7033's JRD) as other servers send it: the subject, its aliases and the links we can read,
// each cut to size; a link we cannot read is dropped, not fatal.
import { z } from 'zod';
import { asArray, httpUrl } from './as2.js';

export interface WebFingerDoc {
  subject: string;
  aliases: string[];
  links: { rel: string; type?: string; href?: string; template?: string }[];
}

const MAX_URL = 4096;
const MAX_ALIASES = 32;
const MAX_LINKS = 64;
const MAX_TYPE = 256;
const ACTIVITY_MEDIA_TYPES = new Set(['application/activity+json', 'application/ld+json']);

const linkSchema = z
  .object({
    rel: z.string().min(1).max(MAX_URL),
    type: z.string().max(MAX_TYPE).optional(),
    href: z.string().max(MAX_URL).optional(),
    template: z.string().max(MAX_URL).optional(),
  })
  .loose();

export const webFingerSchema: z.ZodType<WebFingerDoc> = z
  .object({ subject: z.string().min(1).max(MAX_URL) })
  .loose()
  .transform((raw) => ({
    subject: raw.subject,
    aliases: asArray(raw.aliases)
      .slice(0, MAX_ALIASES)
      .filter((a): a is string => typeof a === 'string' && a.length <= MAX_URL),
    // A link we cannot read is dropped, not fatal: the JRD may carry links for other protocols.
    links: asArray(raw.links)
      .slice(0, MAX_LINKS)
      .flatMap((l) => {
        const r = linkSchema.safeParse(l);
        if (!r.success) return [];
        const { rel, type, href, template } = r.data;
        return [{ rel, ...(type === undefined ? {} : { type }), ...(href === undefined ? {} : { href }), ...(template === undefined ? {} : { template }) }];
      }),
  }));

/** The actor link of a JRD: rel "self" with type application/activity+json or application/ld+json (any profile). */
export function actorLink(doc: WebFingerDoc): string | undefined {
  for (const link of doc.links) {
    if (link.rel !== 'self' || link.type === undefined) continue;
    const media = link.type.split(';', 1)[0]!.trim().toLowerCase();
    if (ACTIVITY_MEDIA_TYPES.has(media) && httpUrl(link.href)) return link.href;
  }
  return undefined;
}
