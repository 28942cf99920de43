// A member's own domain blocks (Mastodon's Api::V1::DomainBlocksController): list, block, unblock. Not the
// operator's federation policy, which is admin-domain-blocks.ts. The domain comes from the form, JSON or query.
import { Errors } from '../errors.js';
import { type PageQuery, pageQuery } from '../http/pagination.js';
import type { Request } from '../http/request.js';
import { json } from '../http/respond.js';
import { route, type Route } from '../http/types.js';
import type { DomainBlockService } from '../services/domain-block-service.js';
import { type AccountDomainBlockStore, memberBlockDomain } from '../store/account-domain-blocks.js';
import type { AccountStore } from '../store/accounts.js';
import { memberAccount, memberIdOf } from './callers.js';

// Mastodon's BLOCK_LIMIT, and its limit_param's cap of twice that.
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 200;

export interface MemberDomainBlockApiDeps {
  readonly baseUrl: string;
  readonly accounts: AccountStore;
  readonly domainBlocks: AccountDomainBlockStore;
  readonly service: DomainBlockService;
}

/**
 * The `domain` parameter from the body or, as Rails merges them, the query; refused with the 422 Mastodon's record
 * validation gives.
 */
function domainOf(req: Request): string {
  const raw = req.fields['domain'] ?? req.query['domain'];
  const domain = typeof raw === 'string' ? memberBlockDomain(raw) : '';
  if (domain === '') throw Errors.validation("Domain can't be blank");
  if (domain === null) throw Errors.validation('Domain is invalid');
  return domain;
}

/**
 * Mastodon's Link header for this list: `next` only while a page comes back full (its records_continue?), `prev`
 * for any page with rows; both keyed by the hidden row id, as max_id and since_id.
 */
function links(url: string, page: PageQuery, rows: readonly (readonly [string, string])[]): Record<string, string> | undefined {
  if (rows.length === 0) return undefined;
  const base = `${url}?limit=${page.limit}`;
  const prev = `<${base}&since_id=${rows[0]![0]}>; rel="prev"`;
  return { Link: rows.length === page.limit ? `<${base}&max_id=${rows[rows.length - 1]![0]}>; rel="next", ${prev}` : prev };
}

export function memberDomainBlockRoutes(d: MemberDomainBlockApiDeps): Route[] {
  return [
    route({
      method: 'GET',
      path: '/api/v1/domain_blocks',
      auth: { scopes: ['read:blocks', 'follow'], member: true },
      handler: async (req, who) => {
        const page = pageQuery(req.query, DEFAULT_LIMIT, MAX_LIMIT);
        const rows = await d.domainBlocks.page(memberIdOf(who), page);
        return json(
          200,
          rows.map((r) => r[1]),
          links(`${d.baseUrl}/api/v1/domain_blocks`, page, rows),
        );
      },
    }),
    // What blocking a domain would sever (Mastodon 4.4's web-internal preview; a write scope, as there).
    route({
      method: 'GET',
      path: '/api/v1/domain_blocks/preview',
      auth: { scopes: ['write:blocks', 'follow'], member: true },
      handler: async (req, who) => {
        const p = await d.domainBlocks.preview(memberIdOf(who), domainOf(req));
        return json(200, { following_count: p.following, followers_count: p.followers });
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/domain_blocks',
      auth: { scopes: ['write:blocks', 'follow'], member: true },
      body: true,
      handler: async (req, who) => {
        const domain = domainOf(req);
        await d.service.block(await memberAccount(d.accounts, who), domain);
        return json(200, {});
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/domain_blocks',
      auth: { scopes: ['write:blocks', 'follow'], member: true },
      body: true,
      handler: async (req, who) => {
        const domain = domainOf(req);
        await d.service.unblock(await memberAccount(d.accounts, who), domain);
        return json(200, {});
      },
    }),
  ];
}
