import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { CompiledQuery, Kysely } from 'kysely';

/**
 * The shapes the tracing files share. They live apart from `tracing.ts`, which loads the SDK
 * (`tracing-sdk.ts`), so that the SDK's files can name them without importing their loader.
 */

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** What a database connection needs to be traced (structurally the storage room's Connection). */
export interface TraceableConnection {
  db: Kysely<any>;
  adapter: { name: string; arrayRows?(query: CompiledQuery): unknown[][] };
}

/** A gRPC call's span: what runs inside `run` is traced under it; `end` with the call's status code. */
export interface CallSpan {
  run<T>(fn: () => T): T;
  end(code: number, failed: boolean): void;
}

export interface Tracing {
  /** Wraps the HTTP server's handler once: a SERVER span per request, the rest runs inside it. */
  requests(handler: RequestHandler): RequestHandler;
  /** A SERVER span for one gRPC call; null when it is not sampled. */
  call(service: string, method: string, metadata: IncomingHttpHeaders): CallSpan | null;
  /** The same connection whose queries (made on behalf of a traced request) become CLIENT spans. */
  queries<C extends TraceableConnection>(connection: C): C;
  /** Exports what is buffered and stops (bounded in time: a dead collector cannot hold up a stop). */
  shutdown(): Promise<void>;
}
