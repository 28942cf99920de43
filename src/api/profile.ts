// The member's own profile: update_credentials (names, bio, flags, profile fields, avatar and header images, posting
// defaults; images re-encoded without metadata by uploads.ts), removing the avatar or header (DELETE /api/v1/profile/avatar|header), and serving those images.
// Every change drops the member's cached tokens on every node and sends an actor Update to connected servers.
import { z } from 'zod';
import { Errors } from '../errors.js';
import { isUploadedFile, type UploadedFile } from '../http/params.js';
import { fileReply } from '../http/file-body.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { PUBLIC, route, type MemberPrincipal, type Route } from '../http/types.js';
import { MediaFiles } from '../media/media-files.js';
import { sniff } from '../media/sniff.js';
import type { ProfileChange, ProfileField } from '../store/accounts.js';
import type { AccountApiDeps } from './deps.js';
import { given, invalid, railsBool } from './params.js';
import { keepUpload, type UploadDeps } from './uploads.js';
import { MEDIA_LIMITS } from '../media/limits.js';

/** Mastodon's limits (with libvips): 8 MB per image, 4 profile fields of 255 characters a side. */
export const MAX_PROFILE_IMAGE_BYTES = 8 * 1024 * 1024;
export const MAX_PROFILE_FIELDS = 4;
const MAX_FIELD_CHARS = 255;

const Field = z.object({
  name: z.string().max(MAX_FIELD_CHARS, `Field name is too long (maximum is ${MAX_FIELD_CHARS} characters)`).default(''),
  value: z.string().max(MAX_FIELD_CHARS, `Field value is too long (maximum is ${MAX_FIELD_CHARS} characters)`).default(''),
});

const UpdateCredentials = z.object({
  display_name: z.string().max(30, 'Display name is too long (maximum is 30 characters)').optional(),
  note: z.string().max(500, 'Note is too long (maximum is 500 characters)').optional(),
  locked: railsBool.optional(),
  bot: railsBool.optional(),
  discoverable: railsBool.optional(),
  // Rails forms send fields_attributes[0][name]; JSON clients send an array or the same index-keyed object.
  fields_attributes: z
    .union([z.array(Field), z.record(z.string().regex(/^\d{1,2}$/, 'fields_attributes must be indexed by number'), Field)])
    .transform((v) =>
      Array.isArray(v)
        ? v
        : Object.keys(v)
            .sort((a, b) => Number(a) - Number(b))
            .map((k) => v[k]!),
    )
    .refine((v) => v.length <= MAX_PROFILE_FIELDS, `Fields are too many (maximum is ${MAX_PROFILE_FIELDS})`)
    .optional(),
  source: z
    .object({
      privacy: z.enum(['public', 'unlisted', 'private'], { message: 'Privacy must be public, unlisted or private' }).optional(),
      sensitive: railsBool.optional(),
      language: z
        .string()
        .regex(/^([a-z]{2,3})?$/, 'Language is not a valid ISO 639 code')
        .nullable()
        .optional(),
    })
    .optional(),
});

type ImageKind = 'avatar' | 'header';

/** Profile image files with their still twins (a GIF's or WebP's PNG), all to be removed together. */
const withStills = (files: readonly string[]): string[] => files.flatMap((f) => [f, ...(MediaFiles.stillOf(f) ? [MediaFiles.stillOf(f)!] : [])]);

export function profileRoutes(d: AccountApiDeps & UploadDeps): Route[] {
  /** An uploaded image, checked by its bytes; '' (a cleared form field) means remove. */
  const image = async (v: unknown, kind: ImageKind): Promise<string | null | undefined> => {
    if (v === undefined || v === null) return undefined; // JSON null: not given
    if (v === '') return null;
    if (!isUploadedFile(v)) throw Errors.validation(`${kind} must be an image file (multipart/form-data)`);
    const f: UploadedFile = v;
    const sniffed = sniff(f.head);
    if (sniffed?.type !== 'image')
      throw Errors.unprocessable(`Validation failed: ${kind} content type is not supported`, 'PNG, JPEG, GIF, WebP or AVIF images');
    if (f.size > MAX_PROFILE_IMAGE_BYTES) throw Errors.bodyTooLarge(MAX_PROFILE_IMAGE_BYTES);
    if (sniffed.width !== null && sniffed.height !== null && sniffed.width * sniffed.height > MEDIA_LIMITS.imageMatrix) {
      throw Errors.validation(`${kind} images are limited to ${MEDIA_LIMITS.imageMatrix} pixels`);
    }
    return (await keepUpload(d, f, sniffed, { as: kind })).fileName;
  };

  const apply = async (who: MemberPrincipal, change: ProfileChange) => {
    const accountId = who.record.user.accountId;
    let replaced: string[] = [];
    await d.authEvents.publish(
      async (nonce) => {
        const r = await d.accounts.updateLocalProfile(accountId, change, nonce);
        replaced = r.replacedFiles;
        return r.changed;
      },
      (changed) => changed,
    );
    await Promise.all(withStills(replaced).map((f) => d.files.remove(f)));
    const account = (await d.accounts.byId(accountId))!;
    await d.followService.announceProfile(account);
    return json(200, await d.views.credential((await d.users.byAccountId(accountId))!));
  };

  const removeImage = (kind: ImageKind) => async (_req: Request, who: MemberPrincipal) =>
    apply(who, kind === 'avatar' ? { avatarFile: null } : { headerFile: null });

  const serveImage = (kind: ImageKind) => async (req: Request) => {
    const name = req.params['name']!;
    // A still PNG is served while its GIF or WebP is the account's image (MediaFiles.stillOf).
    const owners = name.endsWith('.png') ? [name, MediaFiles.twinOf(name, 'image/gif'), MediaFiles.twinOf(name, 'image/webp')] : [name];
    const f = (await d.accounts.profileImage(kind, owners)) ? await d.files.locate(name) : undefined;
    if (!f) throw Errors.routeNotFound();
    return fileReply(f, req.headers['range'], {
      'Content-Type': MediaFiles.contentTypeOf(name),
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
    });
  };

  return [
    route({
      method: 'PATCH',
      path: '/api/v1/accounts/update_credentials',
      // Checked before the body is read: a token that may not write learns nothing about its input.
      auth: { scopes: ['write:accounts'], member: true },
      body: true,
      handler: async (req, who) => {
        const parsed = UpdateCredentials.safeParse(given(req.fields));
        if (!parsed.success) throw invalid(parsed.error);
        const p = parsed.data;
        const fields: ProfileField[] | undefined = p.fields_attributes
          ?.map((f) => ({ name: f.name.trim(), value: f.value.trim() }))
          .filter((f) => f.name !== '' || f.value !== '');
        const avatarFile = await image(req.fields['avatar'], 'avatar');
        let headerFile: string | null | undefined;
        try {
          headerFile = await image(req.fields['header'], 'header');
        } catch (e) {
          if (avatarFile) await Promise.all(withStills([avatarFile]).map((f) => d.files.remove(f))); // nothing changes on a refused request
          throw e;
        }
        return apply(who, {
          displayName: p.display_name,
          note: p.note,
          locked: p.locked,
          bot: p.bot,
          discoverable: p.discoverable,
          fields,
          avatarFile,
          headerFile,
          defaultPrivacy: p.source?.privacy,
          defaultSensitive: p.source?.sensitive,
          defaultLanguage: p.source?.language === undefined ? undefined : p.source.language || null,
        });
      },
    }),
    route({ method: 'DELETE', path: '/api/v1/profile/avatar', auth: { scopes: ['write:accounts'], member: true }, handler: removeImage('avatar') }),
    route({ method: 'DELETE', path: '/api/v1/profile/header', auth: { scopes: ['write:accounts'], member: true }, handler: removeImage('header') }),
    { method: 'GET', path: '/system/accounts/avatars/:name', auth: PUBLIC, handler: serveImage('avatar') },
    { method: 'GET', path: '/system/accounts/headers/:name', auth: PUBLIC, handler: serveImage('header') },
  ];
}
