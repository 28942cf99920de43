// Browser sessions. The cookie holds a random secret; the table holds its SHA-256, so a database leak yields no
// usable session.
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from './db.js';

export const SESSION_TTL_DAYS = 30;

function hash(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export class SessionStore {
  constructor(private readonly db: Database) {}

  async create(userId: string, ip: string, userAgent: string): Promise<string> {
    const secret = randomBytes(32).toString('base64url');
    await this.db.exec('INSERT INTO sessions (id_hash, user_id, ip, user_agent) VALUES ($1, $2, $3, $4)', [hash(secret), userId, ip, userAgent.slice(0, 500)]);
    return secret;
  }

  /** The user id of a live session, refreshing its last-seen time at most once a minute. */
  async resolve(secret: string): Promise<string | undefined> {
    const r = await this.db.one<{ user_id: string }>(
      `UPDATE sessions SET last_seen_at = CASE WHEN last_seen_at < now() - interval '1 minute' THEN now() ELSE last_seen_at END
        WHERE id_hash = $1 AND last_seen_at > now() - make_interval(days => $2)
        RETURNING user_id`,
      [hash(secret), SESSION_TTL_DAYS],
    );
    return r?.user_id;
  }

  async destroy(secret: string): Promise<void> {
    await this.db.exec('DELETE FROM sessions WHERE id_hash = $1', [hash(secret)]);
  }

  async destroyAllFor(userId: string): Promise<void> {
    await this.db.exec('DELETE FROM sessions WHERE user_id = $1', [userId]);
  }
}
