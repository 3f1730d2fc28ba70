import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { endTrace, headerGetter, REQUEST_KEY, type RequestTrace, type TracingCore } from './tracing-http';
import type { CallSpan } from './tracing-types';

/**
 * A SERVER span for one gRPC call, named by its method (`flipt.Flipt/GetFlag`), with the
 * OpenTelemetry RPC attributes; its parent from the call's metadata, as HTTP's from headers.
 * Queries and evaluations made inside `run` hang under it, as under an HTTP request's span.
 */
export function tracedCall(core: TracingCore, service: string, method: string, metadata: IncomingHttpHeaders): CallSpan | null {
  const parent = core.propagator ? core.propagator.extract(ROOT_CONTEXT, metadata, headerGetter) : ROOT_CONTEXT;
  const span = core.tracer.startSpan(
    `${service}/${method}`,
    { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method } },
    parent,
  );
  if (!span.isRecording()) return null;
  const state: RequestTrace = { span, method: `${service}/${method}`, queries: new Map() };
  const context = trace.setSpan(parent, span).setValue(REQUEST_KEY, state);
  return {
    run: (fn) => core.contexts.with(context, fn),
    end(code, failed) {
      span.setAttribute('rpc.grpc.status_code', code);
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
      endTrace(state);
    },
  };
}
