// The operator's domain blocks (Mastodon's DomainBlock): one row per domain, covering its subdomains. Writes keep
// accounts in step as Mastodon's BlockDomainService does: suspending a domain suspends its known accounts with
// suspended_at = the block's created_at (and drops deliveries queued for it); lifting or softening the block
// unsuspends exactly those accounts.
//
// Read on hot paths (every inbox POST, every outbound fetch and delivery), so each node caches the whole list
// (ClusterCached); a write notifies `settings:domain_blocks` in its transaction.
import { isIP } from 'node:net';
import { WORK_CHANNEL } from './auth-events.js';
import { ClusterCached } from './cluster-cached.js';
import type { Database } from './db.js';
import { pageSql, type PageQuery } from './paging.js';
import { domainCovers } from './visibility.js';

export const DOMAIN_BLOCKS_KEY = 'domain_blocks';
export const SEVERITIES = ['silence', 'suspend', 'noop'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface DomainBlock {
  readonly id: string;
  readonly domain: string;
  readonly severity: Severity;
  readonly rejectMedia: boolean;
  readonly rejectReports: boolean;
  readonly privateComment: string | null;
  readonly publicComment: string | null;
  readonly obfuscate: boolean;
  readonly createdAt: Date;
}

export type DomainBlockInput = Omit<DomainBlock, 'id' | 'createdAt'>;

/** What applies to one host: the most specific block covering it (its own, else its nearest parent's). */
export interface DomainPolicy {
  readonly suspend: boolean;
  readonly silence: boolean;
  readonly rejectMedia: boolean;
  readonly rejectReports: boolean;
}

const NONE: DomainPolicy = Object.freeze({ suspend: false, silence: false, rejectMedia: false, rejectReports: false });

interface Row extends Record<string, unknown> {
  id: string;
  domain: string;
  severity: Severity;
  reject_media: boolean;
  reject_reports: boolean;
  private_comment: string | null;
  public_comment: string | null;
  obfuscate: boolean;
  created_at: Date;
}

const COLUMNS = 'id, domain, severity, reject_media, reject_reports, private_comment, public_comment, obfuscate, created_at';

function toBlock(r: Row): DomainBlock {
  return {
    id: r.id,
    domain: r.domain,
    severity: r.severity,
    rejectMedia: r.reject_media,
    rejectReports: r.reject_reports,
    privateComment: r.private_comment,
    publicComment: r.public_comment,
    obfuscate: r.obfuscate,
    createdAt: r.created_at,
  };
}

/**
 * A domain as blocks name it (the API and the admin page alike): a host name (IDN as punycode, as a URL's host has
 * it) or address, with a port only when one port is meant; lowercase, without a trailing dot. Null for anything that
 * is not a URL's host, '' for a blank one.
 */
export function blockDomain(input: string): string | null {
  const d = input.trim().toLowerCase().replace(/\.$/, '');
  if (!d) return '';
  try {
    return /^[^/?#@\s]+$/.test(d) ? new URL(`http://${d}`).host || null : null;
  } catch {
    return null;
  }
}

/**
 * The keys a host is looked up by, most specific first: `host:port`, the host name, then each parent domain (never
 * of an IP address). A block named with a port covers that port only; one without covers every port.
 */
export function lookupKeys(host: string): string[] {
  const h = host.toLowerCase();
  const name = h.startsWith('[') ? h.slice(0, h.indexOf(']') + 1) : h.replace(/:\d+$/, '');
  const keys = h === name ? [h] : [h, name];
  if (isIP(name) || name.startsWith('[')) return keys;
  const labels = name.split('.');
  for (let i = 1; i < labels.length - 1; i++) keys.push(labels.slice(i).join('.'));
  return keys;
}

export class DomainBlockStore {
  private readonly copy = new ClusterCached(async () => new Map((await this.list()).map((b) => [b.domain.toLowerCase(), b])));

  constructor(private readonly db: Database) {}

  async list(): Promise<DomainBlock[]> {
    return (await this.db.rows<Row>(`SELECT ${COLUMNS} FROM domain_blocks ORDER BY id`)).map(toBlock);
  }

  /** A page of blocks, newest first (the admin API; Mastodon pages them by id). */
  async page(page: PageQuery): Promise<DomainBlock[]> {
    const values: unknown[] = [];
    const p = pageSql(page, 'id', values);
    return p.newestFirst((await this.db.rows<Row>(`SELECT ${COLUMNS} FROM domain_blocks WHERE true${p.where}${p.orderLimit}`, values)).map(toBlock));
  }

  async byId(id: string): Promise<DomainBlock | undefined> {
    const r = await this.db.one<Row>(`SELECT ${COLUMNS} FROM domain_blocks WHERE id = $1`, [id]);
    return r && toBlock(r);
  }

  async byDomain(domain: string): Promise<DomainBlock | undefined> {
    const r = await this.db.one<Row>(`SELECT ${COLUMNS} FROM domain_blocks WHERE lower(domain) = lower($1)`, [domain]);
    return r && toBlock(r);
  }

  /** A new block; undefined when the domain has one already (the unique index decides, across nodes). */
  create(b: DomainBlockInput): Promise<DomainBlock | undefined> {
    return this.changed(async () => {
      const r = await this.db.one<Row>(
        `INSERT INTO domain_blocks (domain, severity, reject_media, reject_reports, private_comment, public_comment, obfuscate)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
        [b.domain, b.severity, b.rejectMedia, b.rejectReports, b.privateComment, b.publicComment, b.obfuscate],
      );
      if (!r) return undefined;
      const block = toBlock(r);
      if (block.severity === 'suspend') await this.suspendAccounts(block);
      return block;
    });
  }

  /** Changes a block (the domain stays); undefined when there is none. */
  update(id: string, change: Partial<Omit<DomainBlockInput, 'domain'>>): Promise<DomainBlock | undefined> {
    return this.changed(async () => {
      const before = await this.db.one<Row>(`SELECT ${COLUMNS} FROM domain_blocks WHERE id = $1 FOR UPDATE`, [id]);
      if (!before) return undefined;
      const b = { ...toBlock(before), ...change };
      const r = await this.db.one<Row>(
        `UPDATE domain_blocks SET severity = $2, reject_media = $3, reject_reports = $4, private_comment = $5, public_comment = $6,
           obfuscate = $7, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
        [id, b.severity, b.rejectMedia, b.rejectReports, b.privateComment, b.publicComment, b.obfuscate],
      );
      const after = toBlock(r!);
      if (before.severity === 'suspend' && after.severity !== 'suspend') await this.unsuspendAccounts(after);
      if (before.severity !== 'suspend' && after.severity === 'suspend') await this.suspendAccounts(after);
      return after;
    });
  }

  /** Lifts a block; false when there was none. */
  remove(id: string): Promise<boolean> {
    return this.changed(async () => {
      const r = await this.db.one<Row>(`DELETE FROM domain_blocks WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
      if (!r) return false;
      if (r.severity === 'suspend') await this.unsuspendAccounts(toBlock(r));
      return true;
    });
  }

  /** What the operator's blocks say about `host` (a URL's host, port included). */
  async policyFor(host: string): Promise<DomainPolicy> {
    const blocks = await this.all();
    for (const key of lookupKeys(host)) {
      const b = blocks.get(key);
      if (b) return { suspend: b.severity === 'suspend', silence: b.severity === 'silence', rejectMedia: b.rejectMedia, rejectReports: b.rejectReports };
    }
    return NONE;
  }

  /** True when the host of `url` is suspended; false for a URL that does not parse (others refuse it). */
  async suspends(url: string): Promise<boolean> {
    const host = hostOf(url);
    return host !== null && (await this.policyFor(host)).suspend;
  }

  /** The host of `url` (`host:port`, lowercase), null when it does not parse. */
  static hostOf(url: string): string | null {
    return hostOf(url);
  }

  /** True when media from any of these hosts is rejected (reject_media, or the domain is suspended). */
  async rejectsMediaFrom(hosts: readonly (string | null)[]): Promise<boolean> {
    for (const h of hosts) {
      if (!h) continue;
      const p = await this.policyFor(h);
      if (p.rejectMedia || p.suspend) return true;
    }
    return false;
  }

  /** Drops the cached list (a node changed the blocks). */
  invalidate(): void {
    this.copy.invalidate();
  }

  /** The change stream is (re)connected or broken: until it is connected, every read goes to the database. */
  reset(connected: boolean): void {
    this.copy.reset(connected);
  }

  private all(): Promise<Map<string, DomainBlock>> {
    return this.copy.get();
  }

  private async changed<T>(fn: () => Promise<T>): Promise<T> {
    const out = await this.db.tx(async () => {
      const r = await fn();
      await this.db.exec(`SELECT pg_notify('${WORK_CHANNEL}', 'settings:' || $1)`, [DOMAIN_BLOCKS_KEY]);
      return r;
    });
    // This node hears its own notification too, but later: its next read must already see the change.
    this.db.afterCommit(() => this.invalidate());
    this.invalidate();
    return out;
  }

  private async suspendAccounts(b: DomainBlock): Promise<void> {
    await this.db.exec(`UPDATE accounts SET suspended_at = $2 WHERE domain IS NOT NULL AND suspended_at IS NULL AND ${domainCovers('domain', '$1')}`, [
      b.domain.toLowerCase(),
      b.createdAt,
    ]);
    await this.db.exec(`DELETE FROM deliveries WHERE ${domainCovers('host', '$1')}`, [b.domain.toLowerCase()]);
  }

  private async unsuspendAccounts(b: DomainBlock): Promise<void> {
    // Their histories, refused while suspended, may be asked for again.
    await this.db.exec(
      `WITH lifted AS (UPDATE accounts SET suspended_at = NULL WHERE domain IS NOT NULL AND suspended_at = $2 AND ${domainCovers('domain', '$1')} RETURNING id)
       DELETE FROM remote_histories WHERE account_id IN (SELECT id FROM lifted) AND state = 'unsupported' AND reason = 'federation_policy'`,
      [b.domain.toLowerCase(), b.createdAt],
    );
  }
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
}
