// One remote-history job run (contract 3): from the job's cursor, at most its budget of collection documents, 20
// items examined per page, 30 s at most. Each page is judged and its objects fetched first, then its imports and the
// walk's progress commit together through the ledger (a kill mid-page imports nothing of it and the page is read
// again next time; dedup by uri makes that harmless). Whatever goes wrong becomes the job's outcome.
import { untilAborted } from '../abort.js';
import type { HttpClient, Signer } from '../federation/http-client.js';
import { refUrl, isRecord } from '../federation/as2.js';
import type { Logger } from '../log.js';
import type { Account, AccountStore } from '../store/accounts.js';
import { HISTORY_LIMITS, type ClaimedJob, type HistorySettings, type JobLedger, type JobOutcome, type PageProgress } from '../store/history-types.js';
import type { MediaStore } from '../store/media.js';
import type { PollStore } from '../store/polls.js';
import type { Status, StatusStore } from '../store/statuses.js';
import type { LocalUris } from '../urls/local-uris.js';
import { isCollectionDoc, itemId, pageRefusal, readCollection } from './collection-walk.js';
import { HistoryFailure, HistoryFetcher, OutOfTime, type FetchContext } from './history-fetcher.js';
import { HistoryImporter } from './history-import.js';
import { judgeFetched, judgeItem, type HistoryActor, type ItemVerdict } from './history-items.js';

export interface HistoryRunnerDeps {
  readonly log: Logger;
  readonly http: HttpClient;
  /** Signs as the instance actor (GoToSocial and authorized-fetch servers refuse unsigned GETs: P27). */
  readonly signer: Signer;
  readonly accounts: AccountStore;
  readonly statuses: StatusStore;
  readonly media: MediaStore;
  readonly polls: PollStore;
  readonly uris: LocalUris;
  readonly settings: { current(): Promise<HistorySettings> };
  /** The job's time limit: HISTORY_LIMITS.jobMs (tests shorten it). */
  readonly jobMs?: number;
  /** One fetch's time limit: FETCH_MS (tests shorten it). */
  readonly fetchMs?: number;
}

/** Actor types whose outbox is a person's posts (others are refused as the request does: a Group's is its members'). */
const HISTORY_ACTOR_TYPES = new Set(['Person', 'Service']);

type Judged = Exclude<ItemVerdict, { kind: 'fetch' }>;

/** Runs database reads within the history's share of connections (JobLedger.read). */
type Reader = <T>(fn: () => Promise<T>) => Promise<T>;

/** A page judged and its objects fetched: what to store once the page commits. */
interface PreparedPage {
  readonly store: (() => Promise<boolean>)[];
  /** Items not stored yet (an estimate made before the commit; the commit corrects it). */
  readonly fresh: number;
  /** Items this job had not seen and that are not history posts here already (a page of none ends the walk). */
  readonly added: number;
}

export class HistoryRunner {
  private readonly fetcher: HistoryFetcher;
  private readonly importer: HistoryImporter;

  constructor(private readonly d: HistoryRunnerDeps) {
    this.fetcher = new HistoryFetcher(d.http, d.signer, d.fetchMs);
    this.importer = new HistoryImporter(d);
  }

  /** The same runner with other time limits (tests: a slow origin without waiting 10 or 30 s). */
  withLimits(limits: { jobMs?: number; fetchMs?: number }): HistoryRunner {
    return new HistoryRunner({ ...this.d, ...limits });
  }

  async run(job: ClaimedJob, ledger: JobLedger, signal: AbortSignal): Promise<JobOutcome> {
    const deadline = Date.now() + (this.d.jobMs ?? HISTORY_LIMITS.jobMs);
    // Database reads take one of the history's connections for their moment only, never across a fetch: a job spends
    // its time waiting on its origin, and other jobs' pages commit meanwhile.
    const read: Reader = ledger.read ? (fn) => ledger.read!(job, fn) : (fn) => fn();
    const { actor, settings } = await read(async () => ({ actor: await this.d.accounts.byId(job.accountId), settings: await this.d.settings.current() }));
    const refusal = actor ? refusalOf(actor) : 'not_found';
    if (refusal) return { kind: 'unsupported', reason: refusal };
    const author = actor!;
    const ctx: FetchContext = { deadline, attempts: job.attempts, signal };
    const seenPages = new Set<string>();
    const seenItems = new Set<string>();
    let cursor = job.cursor;
    // Whether a page was read already: in this run, or by an earlier job (its cursor moved past the outbox). Only
    // the cursor tells of earlier jobs, so an earlier run that read a bare outbox and no page counts too.
    let pageRead = job.cursor !== author.outboxUrl;
    try {
      for (let documents = 0; ; documents++) {
        if (documents >= job.pagesBudget || signal.aborted || Date.now() >= deadline) return { kind: 'partial' };
        // P32, P33: every page on the actor's origin, over http(s) (the request refused an outbox elsewhere; a
        // `next` may still stray, and is checked before its page commits).
        const refused = pageRefusal(cursor, author.uri!);
        if (refused) return { kind: 'unsupported', reason: refused };
        const fetched = await untilAborted(this.fetcher.get(cursor, ctx), signal, stopped);
        if (!isCollectionDoc(fetched.doc)) return { kind: 'unsupported', reason: 'not_a_collection' };
        const view = readCollection(fetched.doc, cursor);
        seenPages.add(cursor).add(view.key).add(fetched.url);
        const items = view.items.slice(0, HISTORY_LIMITS.itemsPerPage);
        const page = await this.prepare(items, author, settings.bareIri, seenItems, ctx, read);
        // P10: a next page already read, or a page that brought nothing new, ends the walk (endless or looping next).
        let next = view.next !== null && !seenPages.has(view.next) ? view.next : null;
        if (view.isPage && page.added === 0) next = null;
        const refusedNext = next === null ? null : pageRefusal(next, author.uri!);
        if (refusedNext) next = null; // the page's posts are kept; the walk stops here, refused
        const progress: { -readonly [K in keyof PageProgress]: PageProgress[K] } = { nextCursor: next, examined: items.length, imported: page.fresh };
        const committed = await ledger.commitPage(job, progress, async () => {
          let imported = 0;
          for (const store of page.store) if (await store()) imported++;
          progress.imported = imported;
        });
        if (!committed) return { kind: 'lease_lost' };
        if (view.isPage) pageRead = true;
        this.d.log.debug({ account: job.accountId, page: view.key, examined: items.length, imported: progress.imported, next }, 'history page');
        if (refusedNext) return { kind: 'unsupported', reason: refusedNext };
        if (next === null) return { kind: 'complete' };
        cursor = next;
      }
    } catch (e) {
      // Stopped, or out of time before a page committed: that page is read again by the next job.
      if (e instanceof OutOfTime) return { kind: 'partial' };
      if (e instanceof HistoryFailure) {
        // A later page gone missing (the posts behind it deleted, the pagination changed): as Mastodon does, keep
        // what was read and end the walk there, rather than call the whole history missing.
        if (e.status === 404 && pageRead) {
          this.d.log.info({ account: job.accountId, err: e.message }, 'history walk ended at a missing page');
          return { kind: 'complete' };
        }
        this.d.log.info({ account: job.accountId, outcome: e.outcome, err: e.message }, 'history job stopped');
        return e.outcome;
      }
      throw e;
    }
  }

  /**
   * Judges a page's items, fetching (bare-IRI switch on) at most 5 objects of the actor's origin. Its lookups are made
   * in two reads, before and after the fetches, so no connection is held while an object is fetched.
   */
  private async prepare(
    items: readonly unknown[],
    author: Account,
    bareIri: boolean,
    seen: Set<string>,
    ctx: FetchContext,
    read: Reader,
  ): Promise<PreparedPage> {
    const actor: HistoryActor = { uri: author.uri!, followersUrl: author.followersUrl };
    const boosted = new Set<string>();
    const announced = items.map((item) => (isRecord(item) && item['type'] === 'Announce' ? refUrl(item['object']) : null)).filter((o) => o !== null);
    if (announced.length > 0) {
      await read(async () => {
        for (const object of announced) if (await this.importer.held(object)) boosted.add(object);
      });
    }
    // Judged (and fetched) in order: `seen` as each item found it, whatever the lookups below answer.
    const judged: { readonly verdict: Exclude<Judged, { kind: 'skip' }>; readonly uri: string; readonly counts: boolean }[] = [];
    let fetches = 0;
    let added = 0;
    for (const item of items) {
      const id = itemId(item);
      const unseen = id !== null && !seen.has(id);
      if (id) seen.add(id);
      const first = judgeItem(item, actor, bareIri && fetches < HISTORY_LIMITS.bareIriFetchesPerPage, (uri) => boosted.has(uri));
      if (first.kind === 'fetch') fetches++;
      const verdict = first.kind === 'fetch' ? await this.fetchItem(first.uri, actor, ctx) : first;
      if (verdict.kind === 'skip') {
        if (unseen) added++;
        continue;
      }
      const uri = verdict.kind === 'post' ? verdict.note.id : verdict.id;
      judged.push({ verdict, uri, counts: unseen && (uri === id || !seen.has(uri)) });
      seen.add(uri);
    }
    const existing = await read(async () => {
      const found: (Status | undefined)[] = [];
      for (const j of judged) found.push(await this.d.statuses.byUri(j.uri));
      return found;
    });
    const store: (() => Promise<boolean>)[] = [];
    let fresh = 0;
    for (const [k, { verdict: v, counts }] of judged.entries()) {
      const held = existing[k];
      if (counts && !held?.history) added++;
      if (held) continue;
      fresh++;
      store.push(() =>
        v.kind === 'post' ? this.importer.importPost(v.note, v.visibility, author) : this.importer.importBoost(v.id, v.objectUri, v.visibility, author),
      );
    }
    return { store, fresh, added };
  }

  /** One object fetched and judged; a refusal skips the item, but a slow-down (429, 503, timeout) ends the job. */
  private async fetchItem(uri: string, actor: HistoryActor, ctx: FetchContext): Promise<Judged> {
    try {
      const { doc } = await untilAborted(this.fetcher.get(uri, ctx), ctx.signal, stopped);
      return judgeFetched(doc, actor);
    } catch (e) {
      if (e instanceof HistoryFailure && e.outcome.kind === 'unsupported') return { kind: 'skip', why: 'not_found' };
      throw e;
    }
  }
}

/** Why an account's history cannot be walked at all, or null. */
function refusalOf(a: Account): 'not_found' | 'federation_policy' | 'actor_type' | null {
  if (!a.uri || a.domain === null) return 'not_found'; // a local account has no remote history
  if (a.deletedAt || a.suspendedAt) return 'federation_policy'; // P36: a removed or suspended actor is not fetched from
  if (!HISTORY_ACTOR_TYPES.has(a.actorType)) return 'actor_type';
  return null;
}

/** Stopped (the job's signal): the fetch ends by its own timeout, unread. */
function stopped(): Error {
  return new OutOfTime('aborted');
}
