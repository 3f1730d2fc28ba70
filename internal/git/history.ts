import { createHash } from 'node:crypto';
import { normaliseDirectory } from '../config';
import { PennonError, type AuditEvent, type AuditQuery } from '../core';
import { CommitComparer, type ChangedObject, type NamespaceChange, type TreeReader } from './commit-changes';
import { Kept } from './kept';

/**
 * A Git environment's audit trail: the commits of its branch that changed flag files under its
 * directory, newest first, one event per commit and namespace it touched (commit-changes.ts).
 * It runs where the repository is (LocalGitObjects, on the storage's thread in `serve`), since
 * inflating objects and decoding flag files are synchronous work.
 *
 * Event ids sort like the database's UUIDv7 ids, so the route's keyset paging (`before`: strictly
 * older) works unchanged. They are UUID-shaped (version 8, "custom"), and derived only from the
 * commit and its ancestry, so the same event has the same id at every request and on every
 * instance: `tttttttt-tttt-8sss-8ccc-cccccnnnnnnn`, where `t` is the committer time in ms (48 bits,
 * as UUIDv7's), `s` the commit's place among its ancestors committed in the same second (so a
 * child sorts after its parent even when both share a second, as scripts' commits do), `c` the
 * first 8 hex digits of the SHA and `n` of the namespace's SHA-1. A commit whose clock ran behind
 * its parent's is still listed after it, where the walk meets it.
 */

export interface Person {
  name: string;
  email: string;
  /** Epoch seconds, as Git records it. */
  timestamp: number;
}

export interface CommitHeader {
  oid: string;
  tree: string;
  parents: string[];
  message: string;
  author: Person;
  committer: Person;
}

export interface HistoryReader extends TreeReader {
  /** A commit's header; null when the repository does not hold it (beyond a shallow fetch's edge). */
  commit(oid: string): Promise<CommitHeader | null>;
  /**
   * Fetches the branch's history to `depth` commits from its tip (a shallow repository's older
   * commits); false when there is nothing to fetch from (no remote). Throws when the fetch fails.
   */
  deepen(depth: number): Promise<boolean>;
}

/** Commits read past the page's start per request (a filter matching none of them ends the list there). */
export const MAX_EXAMINED = 1000;
/** Commits walked per request to reach the page's start (`before`, `until`). */
const MAX_SKIPPED = 50_000;
/** History fetches per request; each asks for twice the depth walked so far plus DEEPEN_STEP, or twice the last one's. */
const MAX_DEEPENS = 6;
const DEEPEN_STEP = 200;
/** Same-second ancestors counted (12 bits of the id). */
const MAX_SEQ = 0xfff;
/** What is kept between requests: commits are immutable, so nothing kept goes stale. */
const HEADERS_KEPT = 100_000;
const CHANGES_KEPT = 20_000;
/** The part of an event id that is the commit's. */
const COMMIT_KEY_LENGTH = 29;

interface Header extends CommitHeader {
  /** Same-second ancestors, once every one of them could be read. */
  seq?: number;
  key?: string;
}

/** A request's walk: its budgets, and the repository's edge as far as it is known. */
interface Walk {
  walked: number;
  deepens: number;
  /** The depth last fetched to in this request. */
  depth: number;
  /** Why a fetch failed in this request (no further ones are tried). */
  fetchError: unknown;
}

export class CommitHistory {
  private readonly headers = new Kept<Header>(HEADERS_KEPT);
  /** By commit and directory: what it changed ([] for nothing under the directory). */
  private readonly changes = new Kept<NamespaceChange[]>(CHANGES_KEPT);
  /** Commits a fetch as deep as the walk did not bring, for the tip they were missed under. */
  private absent = { tip: '', oids: new Set<string>() };

  private readonly compare: CommitComparer;

  constructor(private readonly reader: HistoryReader) {
    this.compare = new CommitComparer(reader);
  }

  /** The audit events of `tip`'s history under `directory` that `query` selects, newest first, `query.limit` at most. */
  async events(tip: string, directory: string, query: AuditQuery): Promise<AuditEvent[]> {
    if (!selectable(query)) return [];
    if (this.absent.tip !== tip) this.absent = { tip, oids: new Set() };
    const dir = normaliseDirectory(directory);
    const walk: Walk = { walked: 0, deepens: 0, depth: 0, fetchError: null };
    const start = await this.header(tip, walk);
    if (!start) return [];
    const beforeKey = query.before?.slice(0, COMMIT_KEY_LENGTH);
    // Waiting commits, ascending by key: the newest is taken from the end.
    const queue: Waiting[] = [{ key: await this.keyOf(start, walk), header: start }];
    const queued = new Set([tip]);
    const out: AuditEvent[] = [];
    let [examined, skipped] = [0, 0];
    while (queue.length > 0 && out.length < query.limit && examined < MAX_EXAMINED && skipped < MAX_SKIPPED) {
      const { key, header } = queue.pop()!;
      walk.walked++;
      const time = header.committer.timestamp * 1_000_000;
      if (query.since !== undefined && time < query.since) break;
      const parents = await Promise.all(header.parents.map((p) => this.header(p, walk)));
      for (const parent of parents) {
        if (!parent || queued.has(parent.oid)) continue;
        queued.add(parent.oid);
        insertSorted(queue, { key: await this.keyOf(parent, walk), header: parent });
      }
      if ((beforeKey !== undefined && key > beforeKey) || (query.until !== undefined && time >= query.until)) {
        skipped++;
        continue;
      }
      examined++;
      if (query.actor !== undefined && header.author.name !== query.actor && header.author.email !== query.actor) continue;
      // A commit whose parents are beyond the repository's edge changed what nobody can tell.
      if (parents.some((p) => p === null)) continue;
      const changes = await this.changesOf(header, parents as Header[], dir);
      for (const event of eventsOf(header, key, changes)) if (selected(event, query)) out.push(event);
    }
    // Older commits could not be fetched: a full page is still right, a short one would say the trail ends there.
    if (walk.fetchError !== null && out.length < query.limit) {
      const reason = walk.fetchError instanceof Error ? walk.fetchError.message : String(walk.fetchError);
      throw new PennonError('unavailable', `reading the branch's older commits: ${reason}`, { cause: walk.fetchError });
    }
    return out.slice(0, query.limit);
  }

  private async changesOf(header: Header, parents: Header[], dir: string): Promise<NamespaceChange[]> {
    const cacheKey = `${header.oid}\u0000${dir}`;
    const kept = this.changes.get(cacheKey);
    if (kept) return kept;
    let files = await this.compare.changedFlagFiles(header.tree, parents[0]?.tree ?? null, dir);
    // A merge is listed only when its directory differs from every parent's (as `git log <path>`
    // simplifies), and then with what it brought into its first parent's line.
    for (const other of parents.slice(1)) if (files !== null && (await this.compare.changedFlagFiles(header.tree, other.tree, dir)) === null) files = null;
    const changes = files === null ? [] : await this.compare.namespaceChanges(files, dir);
    this.changes.set(cacheKey, changes);
    return changes;
  }

  private async header(oid: string, walk: Walk): Promise<Header | null> {
    const kept = this.headers.get(oid);
    if (kept) return kept;
    let header = await this.reader.commit(oid);
    // Beyond a shallow fetch's edge: fetch deeper, at least twice as deep as walked, and twice as deep as the last fetch.
    while (header === null && !this.absent.oids.has(oid) && walk.fetchError === null && walk.deepens < MAX_DEEPENS) {
      walk.deepens++;
      walk.depth = Math.max(2 * walk.depth, 2 * walk.walked + DEEPEN_STEP);
      let fetched: boolean;
      try {
        fetched = await this.reader.deepen(walk.depth);
      } catch (err) {
        walk.fetchError = err;
        break;
      }
      header = await this.reader.commit(oid);
      if (!fetched || (header === null && walk.deepens === MAX_DEEPENS)) this.absent.oids.add(oid);
      if (!fetched) break;
    }
    if (header === null) return null;
    this.headers.set(oid, header);
    return header;
  }

  /** The commit's part of its events' ids: time, then same-second ancestors, then SHA. */
  private async keyOf(header: Header, walk: Walk): Promise<string> {
    if (header.key !== undefined) return header.key;
    const { seq, complete } = await this.seqOf(header, walk);
    const ms = Math.max(0, header.committer.timestamp * 1000).toString(16).padStart(12, '0').slice(-12);
    const sq = seq.toString(16).padStart(3, '0');
    const key = `${ms.slice(0, 8)}-${ms.slice(8)}-8${sq}-8${header.oid.slice(0, 3)}-${header.oid.slice(3, 8)}`;
    if (complete) header.key = key;
    return key;
  }

  /** How many ancestors in an unbroken line share this commit's second (its place among them). */
  private async seqOf(header: Header, walk: Walk): Promise<{ seq: number; complete: boolean }> {
    if (header.seq !== undefined) return { seq: header.seq, complete: true };
    let [seq, complete] = [0, true];
    for (const oid of header.parents) {
      const parent = await this.header(oid, walk);
      if (!parent) complete = false;
      else if (parent.committer.timestamp === header.committer.timestamp) {
        const above = await this.seqOf(parent, walk);
        seq = Math.max(seq, above.seq + 1);
        complete &&= above.complete;
      }
    }
    seq = Math.min(seq, MAX_SEQ);
    if (complete) header.seq = seq;
    return { seq, complete };
  }
}

/** Whether any commit event could match the query's types and actions. */
function selectable(query: AuditQuery): boolean {
  const types = query.types;
  if (types?.length && !types.some((t) => t === 'commit' || t === 'flag' || t === 'segment')) return false;
  const actions = query.actions;
  return !actions?.length || actions.some((a) => a === 'created' || a === 'updated' || a === 'deleted');
}

/**
 * A commit event matches `type=commit` (or no type) and its own action; with a key, or with
 * `type=flag`/`segment`, it matches when one object it changed has that key, type and action.
 */
function selected(event: AuditEvent, query: AuditQuery): boolean {
  if (query.namespace !== null && event.namespace !== query.namespace) return false;
  if (query.before !== undefined && event.id >= query.before) return false;
  const { types, actions, key } = query;
  const changed = (event.payload as { changed: ChangedObject[] }).changed;
  const anyType = !types?.length || types.includes('commit');
  if (key === undefined && anyType) return !actions?.length || actions.includes(event.action) || changed.some((o) => actions.includes(o.action));
  return changed.some((o) => (key === undefined || o.key === key) && (anyType || types!.includes(o.type)) && (!actions?.length || actions.includes(o.action)));
}

function eventsOf(header: Header, key: string, changes: NamespaceChange[]): AuditEvent[] {
  const person = ({ name, email, timestamp }: Person) => ({ name, email, timestamp: new Date(timestamp * 1000).toISOString() });
  const events = changes.map(
    (change): AuditEvent => ({
      id: `${key}${createHash('sha1').update(change.namespace).digest('hex').slice(0, 7)}`,
      type: 'commit',
      action: change.action,
      namespace: change.namespace,
      // A commit is filed under no one key: the key filter matches the keys it changed.
      key: '',
      objectId: header.oid,
      actor: { authentication: 'git', name: header.author.name, email: header.author.email },
      source: 'git',
      requestId: null,
      payload: { sha: header.oid, message: header.message.replace(/\n+$/, ''), author: person(header.author), committer: person(header.committer), changed: change.changed, files: change.files },
      before: null,
      timestamp: header.committer.timestamp * 1_000_000,
    }),
  );
  return events.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

interface Waiting {
  key: string;
  header: Header;
}

function insertSorted(queue: Waiting[], item: Waiting): void {
  let [lo, hi] = [0, queue.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (queue[mid].key < item.key) lo = mid + 1;
    else hi = mid;
  }
  queue.splice(lo, 0, item);
}
