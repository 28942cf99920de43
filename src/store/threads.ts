// A status's context (GET /api/v1/statuses/:id/context) in one statement: the status asked for as the viewer may
// read it (through a boost, the boosted one), its ancestors and descendants by ref (status-refs.ts), and the dynamic
// parts of all of them (ref-pages.ts withDynamics). A thread the render cache holds costs one round trip; it cost
// three when the status, the walk and the dynamic parts were read one after the other (issue 19).
import type { Database } from './db.js';
import { isId } from './ids.js';
import { dynamicsOf, withDynamics } from './ref-pages.js';
import type { RenderBundle } from './render-bundle.js';
import { STATUS_REF_NAMES, STATUS_REFS, type StatusRef } from './status-refs.js';
import { quiet, visibleTo } from './visibility.js';

export interface Thread {
  /** Oldest first. */
  readonly ancestors: readonly StatusRef[];
  /**
   * As Mastodon orders them (Status::ThreadingConcern): depth-first, each parent's replies oldest first (by id), then
   * the self-replies (a reply to its own author's status) moved, in that order, ahead of the others.
   */
  readonly descendants: readonly StatusRef[];
  /** Read for the thread's statuses (the one asked for among them) as if all were held. */
  readonly dynamics: RenderBundle | null;
}

/**
 * The columns of statuses the thread's rule (visibility.ts: readableRow, quiet, the boost's test) and the refs
 * (STATUS_REFS) read, carried by the walks; a rule that reads another column fails the thread's tests at once.
 */
const COLUMNS = 'xmin, deleted_at, account_id, visibility, reblog_of_id, quote_of_id';
/** A self-reply (Mastodon's test: the reply's author is the author of the status it answers), which comes first. */
const OWN = 's.in_reply_to_account_id IS NOT DISTINCT FROM s.account_id AS own';
const CARRIED = COLUMNS.split(', ')
  .map((c) => `s.${c} AS ${c}`)
  .join(', ');

/** How far a context reaches: ancestors, descendants, and how deep below the status the descendants go. */
export interface ContextLimits {
  readonly ancestors: number;
  readonly descendants: number;
  readonly depth: number;
}

/**
 * Mastodon's limits of a context (Api::V1::StatusesController): an account (a member's token) is given up to
 * CONTEXT_LIMIT of each, quasi-unlimited, as the API was before; an anonymous caller or an app's own token (no account)
 * gets ANCESTORS_LIMIT, DESCENDANTS_LIMIT and DESCENDANTS_DEPTH_LIMIT, the walk being costly.
 */
export const MEMBER_CONTEXT: ContextLimits = { ancestors: 4096, descendants: 4096, depth: 4096 };
export const ANONYMOUS_CONTEXT: ContextLimits = { ancestors: 40, descendants: 60, depth: 20 };

/** Placeholders of the kept statement's parameters: the status asked for and the viewer. */
const ID = '\u0000id';
const VIEWER = '\u0000viewer';

export class ThreadStore {
  private readonly statements = new Map<string, { sql: string; params: readonly unknown[] }>();

  constructor(private readonly db: Database) {}

  /**
   * The context of status `id` as `viewerId` (null: anonymous) sees it, or undefined when they may not read it. The
   * ancestors walk up from its parent, stopping at the first the viewer may not read or has silenced (blocks, mutes,
   * domain blocks), at most `limits.ancestors`; the descendants go only through replies the viewer may read and has not silenced, at most `limits.descendants` of
   * them, no deeper than `limits.depth` (a descendant deeper than the count cannot be among the first so many in
   * depth-first order either, so the walk stops at the smaller).
   */
  async context(id: string, viewerId: string | null, limits: ContextLimits): Promise<Thread | undefined> {
    const { ancestors: maxUp, descendants: maxDown, depth } = limits;
    if (!isId(id) || ![maxUp, maxDown, depth].every((n) => Number.isSafeInteger(n) && n > 0)) return undefined;
    const { sql, params } = this.statement(viewerId !== null, maxUp, maxDown, Math.min(depth, maxDown));
    const values = params.map((p) => (p === ID ? id : p === VIEWER ? viewerId : p));
    const rows = await this.db.rows<{ part: string }>(sql, values, 'prepared');
    if (!rows.some((r) => r.part === 't')) return undefined;
    const ancestors: StatusRef[] = [];
    const descendants: StatusRef[] = [];
    for (const r of rows) if (r.part !== 't') (r.part === 'a' ? ancestors : descendants).push(STATUS_REFS.map(r));
    return { ancestors, descendants, dynamics: dynamicsOf(rows, viewerId) };
  }

  /**
   * The thread's statement for a viewer signed in or not, written once per shape and kept: the same text object every
   * time, so naming the prepared statement hashes no 6 KB text anew per page (~10 µs of a thread's Node time). Its
   * parameters are placeholders (ID, VIEWER) the caller fills.
   */
  private statement(signedIn: boolean, maxUp: number, maxDown: number, maxDepth: number): { sql: string; params: readonly unknown[] } {
    const key = `${signedIn}:${maxUp}:${maxDown}:${maxDepth}`;
    const kept = this.statements.get(key);
    if (kept) return kept;
    const values: unknown[] = [ID];
    const v = signedIn ? `$${values.push(VIEWER)}` : null;
    // Each status met is judged once (readable; a descendant also not silenced), its ref read as it is. The walks
    // carry the columns the rule and the ref read (COLUMNS), so that judging is no second search of statuses per row
    // (~50 µs of a 50-reply thread, issue 19); the rule is written once, over the walked rows as `s`: PostgreSQL sets
    // up every node of a plan before running it, and the rules and refs written into each walk's branches had been
    // most of the statement's ~380 µs of fixed cost. The ancestors end below the first the viewer may not read or has
    // silenced; a descendant is shown when neither it nor any reply on its path is hidden, as if the walk had stopped there. The
    // status asked for is the page's row of part 't': present exactly when the viewer may read it. The descendants
    // come numbered in their order, not with their paths (a path array a row was ~3 % of the page's Node time to parse):
    // Mastodon's order, the first maxDown by path (depth-first, siblings by id), then the self-replies (`own`) first,
    // each group keeping its path order (ThreadingConcern's promote_by!, a stable partition).
    // The viewer's blocks, mutes and domain blocks (quiet, `calm`) judge ancestors and descendants alike, as Mastodon's
    // find_statuses_from_tree_path runs StatusFilter over both; the status asked for is judged by visibility only.
    // A silenced ancestor is left out alone, as Mastodon drops each filtered status; only one the viewer may not read
    // (`vis`) ends the chain. The silenced set is read once per statement (a hashed SubPlan) for all the rows.
    const vis = v === null ? visibleTo(null) : visibleTo(v, 's', 'called');
    const calm = v === null ? 'true' : `(s.part = 't' OR ${quiet(v)})`;
    const sql = `WITH RECURSIVE target AS (
         SELECT s.id, s.in_reply_to_id, ${CARRIED} FROM statuses s
         WHERE s.id = (SELECT CASE WHEN x.reblog_of_id IS NOT NULL AND x.deleted_at IS NULL THEN x.reblog_of_id ELSE x.id END FROM statuses x WHERE x.id = $1)),
       up AS (
         SELECT s.id, s.in_reply_to_id AS parent, 1 AS depth, ${CARRIED} FROM statuses s WHERE s.id = (SELECT t.in_reply_to_id FROM target t)
         UNION ALL
         SELECT s.id, s.in_reply_to_id, up.depth + 1, ${CARRIED} FROM up JOIN statuses s ON s.id = up.parent WHERE up.depth < ${maxUp}),
       down AS (
         SELECT s.id, 1 AS depth, ARRAY[s.id] AS path, ${OWN}, ${CARRIED} FROM statuses s WHERE s.in_reply_to_id = (SELECT t.id FROM target t)
         UNION ALL
         SELECT s.id, down.depth + 1, down.path || s.id, ${OWN}, ${CARRIED} FROM down JOIN statuses s ON s.in_reply_to_id = down.id
         WHERE down.depth < ${maxDepth} AND s.id <> ALL (down.path)),
       walked AS (
         SELECT 't' AS part, 0 AS k1, NULL::bigint[] AS k2, false AS own, id, ${COLUMNS} FROM target
         UNION ALL SELECT 'a', -depth, NULL, false, id, ${COLUMNS} FROM up
         UNION ALL SELECT 'd', depth, path, own, id, ${COLUMNS} FROM down),
       judged AS MATERIALIZED (SELECT s.part, s.k1, s.k2, s.own, ${STATUS_REFS.columns}, (${vis}) AS vis, ${calm} AS calm FROM walked s)
       (SELECT 'a' AS part, k1, ${STATUS_REF_NAMES} FROM judged
         WHERE part = 'a' AND vis AND calm AND k1 > coalesce((SELECT max(j.k1) FROM judged j WHERE j.part = 'a' AND NOT j.vis), -${maxUp} - 1))
       UNION ALL
       (SELECT 'd', row_number() OVER (ORDER BY NOT own, k2)::int, ${STATUS_REF_NAMES} FROM
         (SELECT * FROM judged WHERE part = 'd' AND vis AND calm AND NOT (k2 && ARRAY(SELECT j.id FROM judged j WHERE j.part = 'd' AND NOT (j.vis AND j.calm)))
          ORDER BY k2 LIMIT ${maxDown}) kept)
       UNION ALL
       (SELECT 't', 0, ${STATUS_REF_NAMES} FROM judged WHERE part = 't' AND vis)`;
    const made = {
      sql: withDynamics(sql, values, signedIn ? VIEWER : null, 'page.part, page.k1', {
        statuses: ['id', 'reblog_of_id'],
        accounts: ['account_id', 'reblog_account_id'],
      }),
      params: values,
    };
    if (this.statements.size >= 16) this.statements.clear();
    this.statements.set(key, made);
    return made;
  }
}
