// Accounts as actors: remote ones stored from their documents, local ones with their key pairs, and the instance
// actor (a Service that signs server-to-server fetches). Local users' sign-in side lives in users.ts.
import { AUTH_CHANNEL } from './auth-events.js';
import type { Database, Queryable } from './db.js';
import { isId } from './ids.js';
import { VISIBILITIES } from './status-rows.js';
import { ACCOUNT_COLUMNS, toAccount, type Account, type AccountDbRow, type LocalKeys, type ProfileChange, type RemoteAccountData } from './account-rows.js';

export { ACCOUNT_COLUMNS, toAccount } from './account-rows.js';
export type { Account, AccountDbRow, LocalKeys, ProfileChange, ProfileField, RemoteAccountData } from './account-rows.js';

const SELECT = `SELECT ${ACCOUNT_COLUMNS} FROM accounts a`;

/** The words an account is found by, weighted as Mastodon does; the expression of migration 061's accounts_search index. */
export const SEARCH_VECTOR = `(setweight(to_tsvector('simple'::regconfig, a.display_name), 'A') ||
  setweight(to_tsvector('simple'::regconfig, a.username), 'B') ||
  setweight(to_tsvector('simple'::regconfig, coalesce(a.domain, '')), 'C'))`;

/**
 * A member's query as one tsquery, as Mastodon's Account::Search builds it: the characters that would break
 * to_tsquery's syntax become spaces, and the whole is one quoted string with a prefix match (`' word word ':*`),
 * which PostgreSQL's parser splits into words, each matched as a prefix. Nothing usable left matches nothing.
 */
export function searchQueryText(terms: string): string {
  return `' ${terms.replace(/['?\\:\u2018\u2019]/g, ' ')} ':*`;
}

export class AccountStore {
  constructor(private readonly db: Database) {}

  async byId(id: string): Promise<Account | undefined> {
    if (!isId(id)) return undefined;
    const r = await this.db.one<AccountDbRow>(`${SELECT} WHERE a.id = $1`, [id]);
    return r && toAccount(r);
  }

  async byIds(ids: readonly string[]): Promise<Account[]> {
    const valid = ids.filter((id) => isId(id));
    if (valid.length === 0) return [];
    return (await this.db.rows<AccountDbRow>(`${SELECT} WHERE a.id = ANY($1::bigint[])`, [valid])).map(toAccount);
  }

  async byUri(uri: string): Promise<Account | undefined> {
    const r = await this.db.one<AccountDbRow>(`${SELECT} WHERE a.uri = $1`, [uri]);
    return r && toAccount(r);
  }

  /** domain null: a local account (the instance actor included). */
  async byHandle(username: string, domain: string | null): Promise<Account | undefined> {
    const r = await this.db.one<AccountDbRow>(`${SELECT} WHERE lower(a.username) = lower($1) AND coalesce(lower(a.domain), '') = coalesce(lower($2), '')`, [
      username,
      domain,
    ]);
    return r && toAccount(r);
  }

  /**
   * Mastodon's Account.search_for: accounts with words of their display name, username or domain starting with the
   * query's words (case-insensitive; the accounts_search index): accounts with exactly that username first, then the
   * best ranked (display name over username over domain, as Mastodon weighs them); optionally only those
   * `followerId` follows and `followerId` itself (Mastodon's `following`). Local members and remote accounts alike,
   * never deleted, suspended (by a moderator or a domain block), moved, instance actors, or applicants not yet
   * approved (Mastodon's Account.searchable).
   */
  async search(terms: string, opts: { limit: number; offset: number; followerId?: string }): Promise<Account[]> {
    const values: unknown[] = [searchQueryText(terms), terms.trim().replace(/^@/, '').toLowerCase()];
    let where = `${SEARCH_VECTOR} @@ to_tsquery('simple', $1) AND a.deleted_at IS NULL AND a.suspended_at IS NULL AND NOT a.instance_actor
      AND a.moved_to_uri IS NULL
      AND (a.domain IS NOT NULL OR EXISTS (SELECT 1 FROM users u WHERE u.account_id = a.id AND u.approved))`;
    if (opts.followerId) {
      const f = `$${values.push(opts.followerId)}`;
      where += ` AND (a.id = ${f} OR a.id IN (SELECT target_account_id FROM follows WHERE account_id = ${f}))`;
    }
    const rows = await this.db.rows<AccountDbRow>(
      `${SELECT} WHERE ${where}
       ORDER BY lower(a.username) = $2 DESC, ts_rank_cd(${SEARCH_VECTOR}, to_tsquery('simple', $1), 32) DESC, a.domain IS NOT NULL, a.username, a.id
       LIMIT $${values.push(opts.limit)} OFFSET $${values.push(opts.offset)}`,
      values,
    );
    return rows.map(toAccount);
  }

  async byPublicKeyId(keyId: string): Promise<Account | undefined> {
    const r = await this.db.one<AccountDbRow>(`${SELECT} WHERE a.public_key_id = $1 AND a.domain IS NOT NULL`, [keyId]);
    return r && toAccount(r);
  }

  /**
   * Stores or refreshes a remote actor. The actor id is the identity; a handle taken by an older actor with another
   * id (an account recreated on its server) is handed over to the new id.
   */
  async upsertRemote(d: RemoteAccountData): Promise<Account> {
    const values = [
      d.uri,
      d.username,
      d.domain,
      d.actorType,
      d.displayName,
      d.note,
      d.url,
      d.locked,
      d.bot,
      d.discoverable,
      d.inboxUrl,
      d.sharedInboxUrl,
      d.outboxUrl,
      d.followersUrl,
      d.followingUrl,
      d.featuredUrl,
      d.avatarRemoteUrl,
      d.headerRemoteUrl,
      JSON.stringify(d.fields),
      JSON.stringify(d.attachment),
      d.alsoKnownAs,
      d.movedToUri,
      d.publicKeyId,
      d.publicKeyPem,
      d.publishedAt,
      d.remoteFollowersCount ?? null,
      d.remoteFollowingCount ?? null,
      d.remoteStatusesCount ?? null,
    ];
    const set = `username = $2, domain = $3, actor_type = $4, display_name = $5, note = $6, url = $7, locked = $8, bot = $9,
      discoverable = $10, inbox_url = $11, shared_inbox_url = $12, outbox_url = $13, followers_url = $14, following_url = $15,
      featured_url = $16, avatar_remote_url = $17, header_remote_url = $18, fields = $19::jsonb, attachment = $20::jsonb,
      also_known_as = $21, moved_to_uri = $22, public_key_id = $23, public_key_pem = $24, published_at = $25,
      remote_followers_count = coalesce($26, accounts.remote_followers_count),
      remote_following_count = coalesce($27, accounts.remote_following_count),
      remote_statuses_count = coalesce($28, accounts.remote_statuses_count),
      fetched_at = now(), updated_at = now(), deleted_at = NULL`;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.db.tx(async (q) => {
          const updated = await q.query<{ id: string }>(`UPDATE accounts SET ${set} WHERE uri = $1 RETURNING id`, values);
          if (updated.rows[0]) return (await this.byIdOn(q, updated.rows[0].id))!;
          // A key id is unique among remote accounts; an old holder (a recreated actor) gives it up.
          if (d.publicKeyId) await q.query('UPDATE accounts SET public_key_id = NULL WHERE public_key_id = $1 AND uri <> $2', [d.publicKeyId, d.uri]);
          // The handle belonged to another actor id (recreated on its server, verified by the caller through
          // WebFinger): the old row becomes a tombstone under a freed name, and nothing it had moves over.
          const old = await q.query<{ id: string }>(
            `UPDATE accounts SET username = username || '.' || id, deleted_at = now(), public_key_pem = NULL, updated_at = now()
             WHERE lower(username) = lower($1) AND lower(domain) = lower($2) AND uri IS DISTINCT FROM $3 RETURNING id`,
            [d.username, d.domain, d.uri],
          );
          for (const { id } of old.rows) {
            await q.query('DELETE FROM follows WHERE account_id = $1 OR target_account_id = $1', [id]);
            await q.query('DELETE FROM follow_requests WHERE account_id = $1 OR target_account_id = $1', [id]);
          }
          const inserted = await q.query<{ id: string }>(
            `INSERT INTO accounts (uri, username, domain, actor_type, display_name, note, url, locked, bot, discoverable, inbox_url,
               shared_inbox_url, outbox_url, followers_url, following_url, featured_url, avatar_remote_url, header_remote_url,
               fields, attachment, also_known_as, moved_to_uri, public_key_id, public_key_pem, published_at,
               remote_followers_count, remote_following_count, remote_statuses_count, fetched_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19::jsonb, $20::jsonb, $21, $22,
               $23, $24, $25, $26, $27, $28, now())
             RETURNING id`,
            values,
          );
          return (await this.byIdOn(q, inserted.rows[0]!.id))!;
        });
      } catch (e) {
        // Two nodes storing the same new actor at once: the loser retries and takes the update path.
        if ((e as { code?: string }).code === '23505' && attempt < 2) continue;
        throw e;
      }
    }
  }

  private async byIdOn(q: Queryable, id: string): Promise<Account | undefined> {
    const r = await q.query<AccountDbRow>(`${SELECT} WHERE a.id = $1`, [id]);
    return r.rows[0] && toAccount(r.rows[0]);
  }

  async setRemoteCounts(id: string, followers: number | null, following: number | null): Promise<void> {
    await this.db.exec(
      'UPDATE accounts SET remote_followers_count = coalesce($2, remote_followers_count), remote_following_count = coalesce($3, remote_following_count) WHERE id = $1 AND domain IS NOT NULL',
      [id, followers, following],
    );
  }

  /** A remote actor deleted itself: its relationships go, the row stays as a tombstone (ids stay stable). */
  async markDeleted(id: string): Promise<void> {
    await this.db.tx(async (q) => {
      await q.query('UPDATE accounts SET deleted_at = now(), public_key_pem = NULL, updated_at = now() WHERE id = $1 AND domain IS NOT NULL', [id]);
      await q.query('DELETE FROM follows WHERE account_id = $1 OR target_account_id = $1', [id]);
      await q.query('DELETE FROM follow_requests WHERE account_id = $1 OR target_account_id = $1', [id]);
      await q.query('DELETE FROM deliveries WHERE inbox_url IN (SELECT inbox_url FROM accounts WHERE id = $1)', [id]);
    });
  }

  /** The key pair of a local account, or undefined when it has none yet. */
  async localKeys(id: string): Promise<LocalKeys | undefined> {
    const r = await this.db.one<{ public_key_pem: string | null; private_key_pem: string | null }>(
      'SELECT public_key_pem, private_key_pem FROM accounts WHERE id = $1 AND domain IS NULL',
      [id],
    );
    return r?.public_key_pem && r.private_key_pem ? { publicKeyPem: r.public_key_pem, privateKeyPem: r.private_key_pem } : undefined;
  }

  /** Stores a key pair unless one exists (a concurrent writer wins); returns the pair in force. */
  async setLocalKeysIfMissing(id: string, keys: LocalKeys): Promise<LocalKeys | undefined> {
    await this.db.exec('UPDATE accounts SET public_key_pem = $2, private_key_pem = $3 WHERE id = $1 AND domain IS NULL AND private_key_pem IS NULL', [
      id,
      keys.publicKeyPem,
      keys.privateKeyPem,
    ]);
    return this.localKeys(id);
  }

  async instanceActor(): Promise<Account | undefined> {
    const r = await this.db.one<AccountDbRow>(`${SELECT} WHERE a.instance_actor`);
    return r && toAccount(r);
  }

  /** Creates the instance actor once; its username is the handle domain, which no member can take. */
  async ensureInstanceActor(username: string, keys: () => Promise<LocalKeys>): Promise<Account> {
    const existing = await this.instanceActor();
    if (existing) return existing;
    const k = await keys();
    await this.db.exec(
      `INSERT INTO accounts (username, domain, actor_type, instance_actor, locked, bot, discoverable, public_key_pem, private_key_pem)
       VALUES ($1, NULL, 'Service', true, true, true, false, $2, $3) ON CONFLICT DO NOTHING`,
      [username, k.publicKeyPem, k.privateKeyPem],
    );
    return (await this.instanceActor())!;
  }

  /**
   * Profile edits of a member's account (update_credentials). Notifies AUTH_CHANNEL `user:<id>` in the same
   * statement so cached credential entities are dropped everywhere; run it through AuthEventListener.publish.
   */
  /**
   * Changes a member's profile and posting defaults (undefined: unchanged; null avatar/header: removed) and tells
   * every node's token cache in the same transaction. Returns the image files the change replaced, for deletion.
   */
  async updateLocalProfile(id: string, p: ProfileChange, nonce: string): Promise<{ changed: boolean; replacedFiles: string[] }> {
    return this.db.tx(async (q) => {
      const old = (
        await q.query<{ avatar_file: string | null; header_file: string | null }>(
          'SELECT avatar_file, header_file FROM accounts WHERE id = $1 AND domain IS NULL FOR UPDATE',
          [id],
        )
      ).rows[0];
      if (!old) return { changed: false, replacedFiles: [] };
      await q.query(
        `UPDATE accounts SET display_name = coalesce($2, display_name), note = coalesce($3, note), locked = coalesce($4, locked),
           bot = coalesce($5, bot), discoverable = coalesce($6, discoverable), fields = coalesce($7::jsonb, fields),
           avatar_file = CASE WHEN $8 THEN $9 ELSE avatar_file END, header_file = CASE WHEN $10 THEN $11 ELSE header_file END,
           updated_at = now()
         WHERE id = $1`,
        [
          id,
          p.displayName ?? null,
          p.note ?? null,
          p.locked ?? null,
          p.bot ?? null,
          p.discoverable ?? null,
          p.fields ? JSON.stringify(p.fields) : null,
          p.avatarFile !== undefined,
          p.avatarFile ?? null,
          p.headerFile !== undefined,
          p.headerFile ?? null,
        ],
      );
      await q.query(
        `UPDATE users SET default_privacy = coalesce($2, default_privacy), default_sensitive = coalesce($3, default_sensitive),
           default_language = CASE WHEN $4 THEN $5 ELSE default_language END WHERE account_id = $1`,
        [
          id,
          p.defaultPrivacy === undefined ? null : VISIBILITIES.indexOf(p.defaultPrivacy),
          p.defaultSensitive ?? null,
          p.defaultLanguage !== undefined,
          p.defaultLanguage ?? null,
        ],
      );
      await q.query(`SELECT pg_notify('${AUTH_CHANNEL}', 'user:' || u.id || '|' || $2) FROM users u WHERE u.account_id = $1`, [id, nonce]);
      const replacedFiles = [p.avatarFile !== undefined ? old.avatar_file : null, p.headerFile !== undefined ? old.header_file : null];
      return { changed: true, replacedFiles: replacedFiles.filter((f): f is string => f !== null) };
    });
  }

  /** Whether a local account's avatar or header is this file (what /system/accounts serves). */
  /** Whether a live local account has one of these files as its avatar or header. */
  async profileImage(kind: 'avatar' | 'header', fileNames: readonly string[]): Promise<boolean> {
    const column = kind === 'avatar' ? 'avatar_file' : 'header_file';
    return (await this.db.one(`SELECT 1 FROM accounts WHERE ${column} = ANY($1::text[]) AND domain IS NULL AND deleted_at IS NULL`, [fileNames])) !== undefined;
  }
}
