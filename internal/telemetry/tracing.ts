import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CompiledQuery, Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { TracingConfig } from '../config';

/**
 * OpenTelemetry traces (`tracing.enabled`). This file is the light public face: the SDK, the
 * exporters and gRPC are loaded only by `startTracing`, so a service with tracing off never
 * loads them, and every hook below is simply not installed (callers hold `null`): tracing off
 * costs the request path nothing, not even a no-op tracer call.
 *
 * Nothing is registered globally (no global tracer provider, context manager or propagator):
 * each service owns its own, so two services in one process (the tests) do not mix traces,
 * and the `@opentelemetry/api` globals of any library stay untouched.
 */

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** What a database connection needs to be traced (structurally the storage room's Connection). */
export interface TraceableConnection {
  db: Kysely<any>;
  adapter: { name: string; arrayRows?(query: CompiledQuery): unknown[][] };
}

export interface Tracing {
  /** Wraps the HTTP server's handler once: a SERVER span per request, the rest runs inside it. */
  requests(handler: RequestHandler): RequestHandler;
  /** The same connection whose queries (made on behalf of a traced request) become CLIENT spans. */
  queries<C extends TraceableConnection>(connection: C): C;
  /** Exports what is buffered and stops (bounded in time: a dead collector cannot hold up a stop). */
  shutdown(): Promise<void>;
}

/** Sets OpenTelemetry up as configured; call only when `tracing.enabled`. */
export async function startTracing(config: TracingConfig, logger: Logger): Promise<Tracing> {
  const { createTracing } = await import('./tracing-sdk');
  return createTracing(config, logger);
}
