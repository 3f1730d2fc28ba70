import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type ContextManager,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import { routeOf } from './routes';
import type { RequestHandler } from './tracing-types';

/** What the span makers share: our own tracer, context manager and propagator (none global). */
export interface TracingCore {
  tracer: Tracer;
  contexts: ContextManager;
  propagator: TextMapPropagator | null;
}

/** A query started (compiled) on behalf of a request and not finished yet (see tracing-db.ts). */
export interface PendingQuery {
  end(endTime: number, failed: boolean): void;
}

/** One traced request: its span and its unfinished queries. */
export interface RequestTrace {
  span: Span;
  method: string;
  queries: Map<object, PendingQuery>;
}

/** Where a query finds the request it runs for (its context carries this key). */
export const REQUEST_KEY = createContextKey('pennon.request');

/**
 * Probes and scrapes are not traced: a load balancer's health check every few seconds and
 * Prometheus' scrape would each make a trace, burying the requests worth looking at.
 */
const UNTRACED = new Set(['/health', '/metrics']);

/** Reads a trace's parent from request headers (HTTP) or call metadata read as headers (gRPC). */
export const headerGetter = {
  get: (carrier: IncomingMessage['headers'], key: string) => carrier[key],
  keys: (carrier: IncomingMessage['headers']) => Object.keys(carrier),
};

export function tracedRequests(core: TracingCore, handler: RequestHandler): RequestHandler {
  return (req, res) => {
    const parent = core.propagator ? core.propagator.extract(ROOT_CONTEXT, req.headers, headerGetter) : ROOT_CONTEXT;
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (UNTRACED.has(path)) return handler(req, res);
    const span = core.tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path, 'url.scheme': 'http' } },
      parent,
    );
    // Unsampled: the request runs untouched (its evaluations and queries find no recording span).
    if (!span.isRecording()) return handler(req, res);
    const state: RequestTrace = { span, method, queries: new Map() };
    const context = trace.setSpan(parent, span).setValue(REQUEST_KEY, state);
    // Body chunks and 'end' are emitted from the socket's parser, outside this call: binding the
    // request makes their listeners (Fastify's body reading, the fast lane's) run in its context,
    // and with them everything they await. (The response's events run nothing that makes spans.)
    core.contexts.bind(context, req);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      finish(state, req, res);
    };
    res.once('finish', end);
    res.once('close', end);
    core.contexts.with(context, handler, undefined, req, res);
  };
}

/** A request that no route answered keeps the bare method as its name: raw paths never become span names. */
function finish(state: RequestTrace, req: IncomingMessage, res: ServerResponse): void {
  const { span } = state;
  const route = routeOf(req);
  if (route !== undefined) {
    span.setAttribute('http.route', route);
    span.updateName(`${state.method} ${route}`);
  }
  if (res.headersSent) span.setAttribute('http.response.status_code', res.statusCode);
  if (!res.writableFinished) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the response was complete' });
  } else if (res.statusCode >= 500) {
    span.setAttribute('error.type', String(res.statusCode));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  endTrace(state);
}

/** Ends a request's span, after its queries: one without a result by now failed (Kysely tells its plugins only of successes). */
export function endTrace(state: RequestTrace): void {
  const end = performance.now();
  for (const pending of state.queries.values()) pending.end(end, true);
  state.queries.clear();
  state.span.end();
}

/** The request a query runs for, when it runs inside a sampled, traced request. */
export function requestOf(context: Context): RequestTrace | undefined {
  return context.getValue(REQUEST_KEY) as RequestTrace | undefined;
}
