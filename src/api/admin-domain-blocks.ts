// Mastodon's Admin::DomainBlocks API (list, read, create, update, lift) and the public list
// GET /api/v1/instance/domain_blocks. Admin routes need an admin:*:domain_blocks scope (admin:read/admin:write
// cover them) and a member whose role may manage federation. The public list shows the blocks with user-facing
// limits (silence, suspend, or rejected media), obfuscated domains with asterisks and every domain's SHA-256.
import { z } from 'zod';
import { adminDomainBlockEntity, publicDomainBlockEntity } from '../entities/domain-block.js';
import { Errors } from '../errors.js';
import { pageQuery, timelineLinks } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { PUBLIC, route, type Route, updateRoute } from '../http/types.js';
import { memberIdOf } from './callers.js';
import type { Logger } from '../log.js';
import { blockDomain, type DomainBlockStore, SEVERITIES } from '../store/domain-blocks.js';
import { isId } from '../store/ids.js';
import { given, invalid, railsBool } from './params.js';

const MAX_COMMENT = 1000;
// Mastodon's LIMIT for this API, and its limit_param's cap of twice that.
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 200;

/** A domain as blocks name it (store/domain-blocks.ts blockDomain): anything that is not a URL's host is refused. */
const domainParam = z.string({ error: "Domain can't be blank" }).transform((v, ctx) => {
  const host = blockDomain(v);
  if (!host) {
    ctx.addIssue({ code: 'custom', message: host === '' ? "Domain can't be blank" : 'Domain is not a valid domain name' });
    return z.NEVER;
  }
  return host;
});

const comment = z.string().max(MAX_COMMENT, `is too long (maximum is ${MAX_COMMENT} characters)`);
const severity = z.enum(SEVERITIES, { error: `Severity must be one of ${SEVERITIES.join(', ')}` });

const Options = {
  severity: severity.optional(),
  reject_media: railsBool.optional(),
  reject_reports: railsBool.optional(),
  private_comment: comment.optional(),
  public_comment: comment.optional(),
  obfuscate: railsBool.optional(),
};
const CreateBody = z.object({ domain: domainParam, ...Options });
const UpdateBody = z.object(Options);

export interface DomainBlockApiDeps {
  readonly baseUrl: string;
  readonly log: Logger;
  readonly blocks: DomainBlockStore;
}

export function domainBlockRoutes(d: DomainBlockApiDeps): Route[] {
  const blockId = (req: Request): string => {
    const id = req.params['id']!;
    if (!isId(id)) throw Errors.notFound();
    return id;
  };

  return [
    route({
      method: 'GET',
      path: '/api/v1/admin/domain_blocks',
      auth: { scopes: ['admin:read:domain_blocks'], member: true, permission: 'manageFederation' },
      handler: async (req, who) => {
        memberIdOf(who);
        const page = pageQuery(req.query, DEFAULT_LIMIT, MAX_LIMIT);
        const blocks = await d.blocks.page(page);
        return json(
          200,
          blocks.map(adminDomainBlockEntity),
          timelineLinks(
            d.baseUrl + req.path,
            page,
            blocks.map((b) => b.id),
          ),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/admin/domain_blocks/:id',
      auth: { scopes: ['admin:read:domain_blocks'], member: true, permission: 'manageFederation' },
      handler: async (req, who) => {
        memberIdOf(who);
        const b = await d.blocks.byId(blockId(req));
        if (!b) throw Errors.notFound();
        return json(200, adminDomainBlockEntity(b));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/admin/domain_blocks',
      auth: { scopes: ['admin:write:domain_blocks'], member: true, permission: 'manageFederation' },
      body: true,
      handler: async (req, who) => {
        const me = memberIdOf(who);
        const p = CreateBody.safeParse(given(req.fields));
        if (!p.success) throw invalid(p.error);
        const v = p.data;
        const block = await d.blocks.create({
          domain: v.domain,
          severity: v.severity ?? 'silence',
          rejectMedia: v.reject_media ?? false,
          rejectReports: v.reject_reports ?? false,
          privateComment: v.private_comment ?? null,
          publicComment: v.public_comment ?? null,
          obfuscate: v.obfuscate ?? false,
        });
        if (!block) {
          // Mastodon's answer to a second block of a domain: 422 naming the block that is there.
          const existing = await d.blocks.byDomain(v.domain);
          return json(422, {
            error: `You have already imposed stricter limits on ${v.domain}.`,
            ...(existing && { existing_domain_block: adminDomainBlockEntity(existing) }),
          });
        }
        d.log.info({ domain: block.domain, severity: block.severity, by: me }, 'domain blocked');
        return json(200, adminDomainBlockEntity(block));
      },
    }),
    ...updateRoute({
      path: '/api/v1/admin/domain_blocks/:id',
      auth: { scopes: ['admin:write:domain_blocks'], member: true, permission: 'manageFederation' },
      body: true,
      handler: async (req, who) => {
        const me = memberIdOf(who);
        const id = blockId(req);
        const p = UpdateBody.safeParse(given(req.fields));
        if (!p.success) throw invalid(p.error);
        const v = p.data;
        const block = await d.blocks.update(id, {
          ...(v.severity !== undefined && { severity: v.severity }),
          ...(v.reject_media !== undefined && { rejectMedia: v.reject_media }),
          ...(v.reject_reports !== undefined && { rejectReports: v.reject_reports }),
          ...(v.private_comment !== undefined && { privateComment: v.private_comment }),
          ...(v.public_comment !== undefined && { publicComment: v.public_comment }),
          ...(v.obfuscate !== undefined && { obfuscate: v.obfuscate }),
        });
        if (!block) throw Errors.notFound();
        d.log.info({ domain: block.domain, severity: block.severity, by: me }, 'domain block changed');
        return json(200, adminDomainBlockEntity(block));
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/admin/domain_blocks/:id',
      auth: { scopes: ['admin:write:domain_blocks'], member: true, permission: 'manageFederation' },
      handler: async (req, who) => {
        const me = memberIdOf(who);
        const id = blockId(req);
        if (!(await d.blocks.remove(id))) throw Errors.notFound();
        d.log.info({ block: id, by: me }, 'domain block lifted');
        return json(200, {});
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/instance/domain_blocks',
      auth: PUBLIC,
      handler: async () => {
        const shown = (await d.blocks.list()).filter((b) => b.severity !== 'noop' || b.rejectMedia);
        return json(200, shown.map(publicDomainBlockEntity));
      },
    },
  ];
}
