/**
 * What is wrong with this instance's dependencies, for `/health`. The instance keeps serving
 * evaluations through a database or cache outage, so a problem does not make it unhealthy for a
 * load balancer; it is reported so that an operator sees what is wrong and since when. Only a
 * short reason (an error code) is shown — the endpoint is public; the logs have the details.
 */
interface Problem {
  reason: string;
  since: number;
}

export interface CacheLink {
  readonly available: boolean;
}

function reasonOf(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? code : 'unreachable';
}

export class HealthState {
  private database: Problem | null = null;
  private cacheDownSince: number | null = null;

  constructor(private readonly cache: CacheLink | null = null) {}

  /** The outcome of a database check: null when it answered. */
  databaseChecked(err: unknown): void {
    if (err === null || err === undefined) this.database = null;
    else this.database ??= { reason: reasonOf(err), since: Date.now() };
  }

  report(): { status: 'SERVING'; problems?: string[] } {
    const problems: string[] = [];
    if (this.database) {
      problems.push(
        `database unavailable (${this.database.reason}) since ${new Date(this.database.since).toISOString()}: ` +
          'evaluations are answered from the last snapshot; writes are refused',
      );
    }
    if (this.cache && !this.cache.available) {
      this.cacheDownSince ??= Date.now();
      problems.push(`cache unavailable since ${new Date(this.cacheDownSince).toISOString()}: working from the database`);
    } else {
      this.cacheDownSince = null;
    }
    return problems.length === 0 ? { status: 'SERVING' } : { status: 'SERVING', problems };
  }
}
