// Mastodon's Admin::DomainBlock and public DomainBlock entities (GET /api/v1/instance/domain_blocks).
import { createHash } from 'node:crypto';
import type { DomainBlock } from '../store/domain-blocks.js';

/** SHA-256 of the domain: how Mastodon lets anyone check an obfuscated domain they already know. */
function digest(domain: string): string {
  return createHash('sha256').update(domain).digest('hex');
}

export function adminDomainBlockEntity(b: DomainBlock) {
  return {
    id: b.id,
    domain: b.domain,
    digest: digest(b.domain),
    created_at: b.createdAt.toISOString(),
    severity: b.severity,
    reject_media: b.rejectMedia,
    reject_reports: b.rejectReports,
    private_comment: b.privateComment,
    public_comment: b.publicComment,
    obfuscate: b.obfuscate,
  };
}

/**
 * Mastodon's DomainBlock#public_domain: with `obfuscate`, every character but the dots and the first and last
 * quarter becomes an asterisk (example.com → exa****.*om).
 */
export function publicDomain(b: DomainBlock): string {
  if (!b.obfuscate) return b.domain;
  const length = b.domain.length;
  const visible = Math.floor(length / 4);
  return [...b.domain].map((c, i) => (i > visible && i < length - visible && c !== '.' ? '*' : c)).join('');
}

export function publicDomainBlockEntity(b: DomainBlock) {
  return { domain: publicDomain(b), digest: digest(b.domain), severity: b.severity, comment: b.publicComment ?? '' };
}
