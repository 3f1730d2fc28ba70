import type { Logger } from 'pino';
import type { TracingConfig } from '../config';
import type { Tracing } from './tracing-types';

/**
 * OpenTelemetry traces (`tracing.enabled`). This file is the light public face: the SDK, the
 * exporters and gRPC are loaded only by `startTracing`, so a service with tracing off never
 * loads them, and every hook of `Tracing` is simply not installed (callers hold `null`): tracing off
 * costs the request path nothing, not even a no-op tracer call.
 *
 * Nothing is registered globally (no global tracer provider, context manager or propagator):
 * each service owns its own, so two services in one process (the tests) do not mix traces,
 * and the `@opentelemetry/api` globals of any library stay untouched.
 */

export type { RequestHandler, TraceableConnection, Tracing } from './tracing-types';

/** Sets OpenTelemetry up as configured; call only when `tracing.enabled`. */
export async function startTracing(config: TracingConfig, logger: Logger): Promise<Tracing> {
  const { createTracing } = await import('./tracing-sdk');
  return createTracing(config, logger);
}
