import type { CacheCounters } from '../telemetry';
import type { Cache } from './types';

interface Entry {
  value: string;
  expires: number;
}

/** Bound on entries, so that a flood of distinct keys (random tokens) cannot grow memory. */
const MAX_ENTRIES = 50_000;

/** Per-instance cache; expired entries are dropped on read and swept every `evictionInterval`. */
export class MemoryCache implements Cache {
  readonly kind = 'memory';
  private readonly entries = new Map<string, Entry>();
  private readonly timer: NodeJS.Timeout | undefined;

  private readonly now: () => number;
  private readonly counters: CacheCounters | null;

  constructor(evictionIntervalMs: number, options: { now?: () => number; counters?: CacheCounters } = {}) {
    this.now = options.now ?? Date.now;
    this.counters = options.counters ?? null;
    if (evictionIntervalMs > 0) {
      this.timer = setInterval(() => this.evict(), evictionIntervalMs);
      this.timer.unref();
    }
  }

  async get(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    if (!entry || entry.expires <= this.now()) {
      if (entry) this.entries.delete(key);
      this.counters?.miss(this.kind);
      return undefined;
    }
    this.counters?.hit(this.kind);
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (this.entries.size >= MAX_ENTRIES) this.evict();
    // Still full of live entries: forget the oldest (a Map iterates in insertion order).
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expires: this.now() + ttlMs });
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  /** Drops every expired entry; returns how many. */
  evict(): number {
    const now = this.now();
    let n = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expires <= now) {
        this.entries.delete(key);
        n++;
      }
    }
    return n;
  }

  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.entries.clear();
  }
}
