import { SpanKind, SpanStatusCode, trace, type Attributes, type TextMapPropagator } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, ExportResultCode, W3CBaggagePropagator, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import type { TracingConfig } from '../config';
import { VERSION } from '../core/build-info';
import { onEvaluation, type EvaluationEvent } from './evaluations';
import type { Tracing } from './tracing-types';
import { tracedQueries } from './tracing-db';
import { tracedRequests, type TracingCore } from './tracing-http';
import { tracedCall } from './tracing-grpc';

/** How long a stop waits for the last spans to reach the collector. */
const SHUTDOWN_WAIT_MS = 5000;
/** One export attempt (the SDK's default is 30 s, longer than a stop should ever take). */
const EXPORT_TIMEOUT_MS = 10_000;

export type Transport = { protocol: 'http'; url: string } | { protocol: 'grpc'; url: string };

/**
 * `tracing.otlp.endpoint` → transport, as Flipt reads it: `http(s)://…` is OTLP/HTTP (a URL
 * without a path gets the standard `/v1/traces`), `grpc://host:port` or a bare `host:port` is
 * OTLP/gRPC without TLS.
 */
export function transportFor(endpoint: string): Transport {
  if (/^https?:\/\//i.test(endpoint)) {
    const url = new URL(endpoint);
    if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
    return { protocol: 'http', url: url.toString() };
  }
  return { protocol: 'grpc', url: `http://${endpoint.replace(/^grpc:\/\//i, '')}` };
}

async function exporterFor(config: TracingConfig): Promise<SpanExporter> {
  const transport = transportFor(config.otlp.endpoint);
  if (transport.protocol === 'http') {
    // JSON over HTTP: the exporter's default encoding (a collector accepts JSON and protobuf).
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url: transport.url, headers: config.otlp.headers, timeoutMillis: EXPORT_TIMEOUT_MS });
  }
  const [{ OTLPTraceExporter }, { Metadata }] = await Promise.all([import('@opentelemetry/exporter-trace-otlp-grpc'), import('@grpc/grpc-js')]);
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(config.otlp.headers)) metadata.set(key, value);
  return new OTLPTraceExporter({ url: transport.url, metadata, timeoutMillis: EXPORT_TIMEOUT_MS });
}

/**
 * Reports export failures in our log, once per outage (the SDK would report them through its
 * global diagnostic logger, which is silent unless registered — and registering it is global).
 */
class ReportingExporter implements SpanExporter {
  private failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly logger: Logger,
    private readonly endpoint: string,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS && !this.failing) {
        this.failing = true;
        this.logger.warn({ endpoint: this.endpoint, err: result.error }, 'cannot export traces; spans are dropped until the collector answers');
      } else if (result.code === ExportResultCode.SUCCESS && this.failing) {
        this.failing = false;
        this.logger.info({ endpoint: this.endpoint }, 'exporting traces again');
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function propagatorFor(names: readonly string[]): TextMapPropagator | null {
  const propagators: TextMapPropagator[] = [];
  if (names.includes('tracecontext')) propagators.push(new W3CTraceContextPropagator());
  if (names.includes('baggage')) propagators.push(new W3CBaggagePropagator());
  // `none` (or an empty list): incoming trace headers are ignored, each request starts a trace.
  return propagators.length === 0 ? null : propagators.length === 1 ? propagators[0] : new CompositePropagator({ propagators });
}

/**
 * An evaluation as a child span of the request that asked for it. Events fire synchronously
 * inside the request's handler, so the active context is the request's; an evaluation outside
 * a traced request (none today) or under an unsampled one makes no span.
 */
function recordEvaluation(core: TracingCore, event: EvaluationEvent): void {
  const parent = core.contexts.active();
  if (!trace.getSpan(parent)?.isRecording()) return;
  const attributes: Attributes = {
    'feature_flag.key': event.flag,
    'feature_flag.provider_name': 'pennon',
    'flipt.namespace': event.namespace || 'default',
    'flipt.flag': event.flag,
    'flipt.evaluation.type': event.type,
  };
  if (event.result) {
    attributes['feature_flag.variant'] = event.result.value;
    attributes['flipt.match'] = event.result.match;
    attributes['flipt.reason'] = event.result.reason;
    attributes['flipt.value'] = event.result.value;
    if (event.result.segments.length > 0) attributes['flipt.segments'] = [...event.result.segments];
  }
  // Times are performance.now() values: the SDK takes numbers below the time origin as such.
  const span = core.tracer.startSpan(`evaluation.${event.type}`, { kind: SpanKind.INTERNAL, startTime: event.startedAt, attributes }, parent);
  if (event.error !== undefined) {
    const error = event.error as { kind?: unknown; message?: unknown };
    span.setAttribute('error.type', typeof error?.kind === 'string' ? error.kind : 'internal');
    span.setStatus({ code: SpanStatusCode.ERROR, message: typeof error?.message === 'string' ? error.message : String(event.error) });
  }
  span.end(event.startedAt + event.durationMs);
}

export function createTracing(config: TracingConfig, logger: Logger): Promise<Tracing> {
  return exporterFor(config).then((exporter) => {
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'pennon', 'service.version': VERSION }),
      // A request that arrives with a sampling decision keeps it; new traces are sampled at the ratio.
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.sampling_ratio) }),
      spanProcessors: [
        new BatchSpanProcessor({ exporter: new ReportingExporter(exporter, logger, config.otlp.endpoint), exportTimeoutMillis: EXPORT_TIMEOUT_MS }),
      ],
    });
    const contexts = new AsyncLocalStorageContextManager().enable();
    const core: TracingCore = { tracer: provider.getTracer('pennon', VERSION), contexts, propagator: propagatorFor(config.propagators) };
    const stopListening = onEvaluation((event) => recordEvaluation(core, event));
    logger.info({ endpoint: config.otlp.endpoint, protocol: transportFor(config.otlp.endpoint).protocol, samplingRatio: config.sampling_ratio }, 'tracing enabled');

    let stopping: Promise<void> | undefined;
    return {
      requests: (handler) => tracedRequests(core, handler),
      call: (service, method, metadata) => tracedCall(core, service, method, metadata),
      queries: (connection) => tracedQueries(core, connection),
      shutdown: () =>
        (stopping ??= (async () => {
          stopListening();
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), SHUTDOWN_WAIT_MS)));
          try {
            const outcome = await Promise.race([provider.shutdown().then(() => 'done' as const), timeout]);
            if (outcome === 'timeout') logger.warn({ endpoint: config.otlp.endpoint }, 'traces not exported within 5 s of stopping; the rest are dropped');
          } catch (err) {
            logger.warn({ err }, 'cannot export the last traces');
          } finally {
            clearTimeout(timer);
            contexts.disable();
          }
        })()),
    };
  });
}
