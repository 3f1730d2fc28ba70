import type { IncomingMessage, ServerResponse } from 'node:http';
import fastJson from 'fast-json-stringify';
import type { Logger } from 'pino';
import { DEFAULT_NAMESPACE, PennonError, type Authentication } from '../core';
import type { AuthGate } from './auth-gate';
import type { CompiledFlag } from '../evaluation';
import { booleanOf, flagFor, variantOf } from './observed-evaluation';
import type { FlagSources } from './sources';
import { describeError, errorBody, GRPC, wwwAuthenticate } from './errors';
import {
  booleanResponse,
  booleanResponseSchema,
  decodeEvaluationRequest,
  requestIdOf,
  timing,
  variantResponse,
  variantResponseSchema,
} from './wire/evaluation';
import { parseJsonBody } from './wire/json';
import { drainThenClose } from './oversized';
import { markRoute } from '../telemetry/routes';

/**
 * The evaluation hot path's fast lane. `POST /evaluate/v1/variant` and `/boolean` are answered
 * here, at the HTTP server, before Fastify: Fastify's per-request machinery (shared by ~70
 * routes, so its call sites go megamorphic) cost more than the evaluation itself. The lane
 * uses the same decoding, evaluation, serialisation and error mapping as the Fastify routes,
 * which still exist and serve whenever the lane is off (access logging) or declines a request.
 */

export interface FastLaneOptions {
  /** The database, or the Git environment the request names. */
  sources: FlagSources;
  /** Present when authentication is required: the same checks as the Fastify routes'. */
  gate: AuthGate | null;
  logger: Logger;
  bodyLimit: number;
  nextRequestId: () => string;
  /** True once the server is shutting down: requests get 503, as Fastify's do. */
  closing: () => boolean;
  /** With CORS on, browser requests (they carry Origin) go to Fastify, which adds the CORS headers. */
  declineOrigins?: boolean;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Answer = (body: unknown, started: number, req: IncomingMessage, res: ServerResponse, options: FastLaneOptions, auth: Authentication | null) => void;

const serializeVariant = fastJson(variantResponseSchema);
const serializeBoolean = fastJson(booleanResponseSchema);
const JSON_TYPE = 'application/json; charset=utf-8';

export function fastLane(options: FastLaneOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const guarded = options.gate !== null && options.gate.guards('evaluation');
  const route =
    (answer: Answer): Handler =>
    (req, res) => {
      if (!guarded) return readBody(req, res, options, (body, started) => answer(body, started, req, res, options, null));
      // As in Flipt, an unauthenticated request is refused before its body is looked at.
      options.gate!.check(req.headers.authorization, 'evaluation').then(
        (auth) => readBody(req, res, options, (body, started) => answer(body, started, req, res, options, auth)),
        (err: unknown) => fail(res, err, options),
      );
    };
  const routes = new Map<string, Handler>([
    ['/evaluate/v1/variant', route(variant)],
    ['/evaluate/v1/boolean', route(boolean)],
  ]);
  return (req, res) => {
    if (req.method !== 'POST' || (options.declineOrigins && req.headers.origin !== undefined)) return false;
    const url = req.url ?? '';
    const path = url.endsWith('/') ? url.slice(0, -1) : url;
    const handler = routes.get(path);
    if (!handler) return false; // anything unusual (query strings, other paths) goes to Fastify
    markRoute(req, path);
    if (options.closing()) {
      send(res, 503, JSON.stringify(errorBody(GRPC.UNAVAILABLE, 'the server is shutting down')), options.nextRequestId(), true);
      return true;
    }
    handler(req, res);
    return true;
  };
}

function readBody(req: IncomingMessage, res: ServerResponse, options: FastLaneOptions, done: (body: unknown, started: number) => void) {
  const started = performance.now();
  const tooLarge = () => {
    // Answered at once; the rest of the upload is read and discarded before closing (oversized.ts).
    drainThenClose(req, options.bodyLimit);
    fail(res, new PennonError('too_large', 'request body is too large'), options, true);
  };
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > options.bodyLimit) return tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= options.bodyLimit) return void chunks.push(chunk);
    req.off('data', onData);
    req.off('end', onEnd);
    tooLarge();
  };
  const onEnd = () => {
    try {
      done(parseJsonBody((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)).toString('utf8')), started);
    } catch (err) {
      fail(res, err, options);
    }
  };
  req.on('data', onData);
  req.on('end', onEnd);
}

function answer(
  flag: CompiledFlag | Promise<CompiledFlag>,
  res: ServerResponse,
  options: FastLaneOptions,
  build: (flag: CompiledFlag) => string,
): void {
  if (flag instanceof Promise) {
    flag.then((f) => send(res, 200, build(f)), (err: unknown) => fail(res, err, options)).catch((err: unknown) => fail(res, err, options));
  } else {
    send(res, 200, build(flag));
  }
}

function variant(body: unknown, started: number, httpReq: IncomingMessage, res: ServerResponse, options: FastLaneOptions, auth: Authentication | null): void {
  const req = decodeEvaluationRequest(body);
  if (auth) options.gate!.checkNamespace(auth, req.namespaceKey);
  answer(flagFor(options.sources.of(httpReq).snapshots, 'variant', req.namespaceKey, req.namespaceKey || DEFAULT_NAMESPACE, req.flagKey), res, options, (flag) =>
    serializeVariant(variantResponse(req.flagKey, variantOf(req.namespaceKey, flag, req.entityId, req.context), timing(requestIdOf(req.requestId), started))),
  );
}

function boolean(body: unknown, started: number, httpReq: IncomingMessage, res: ServerResponse, options: FastLaneOptions, auth: Authentication | null): void {
  const req = decodeEvaluationRequest(body);
  if (auth) options.gate!.checkNamespace(auth, req.namespaceKey);
  answer(flagFor(options.sources.of(httpReq).snapshots, 'boolean', req.namespaceKey, req.namespaceKey || DEFAULT_NAMESPACE, req.flagKey), res, options, (flag) =>
    serializeBoolean(booleanResponse(req.flagKey, booleanOf(req.namespaceKey, flag, req.entityId, req.context), timing(requestIdOf(req.requestId), started))),
  );
}

function send(res: ServerResponse, status: number, json: string, requestId?: string, close = false, message = ''): void {
  const headers: Record<string, string | number> = { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(json) };
  if (requestId) headers['x-request-id'] = requestId;
  if (status === 401) headers['www-authenticate'] = wwwAuthenticate(message);
  if (close) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(json);
}

function fail(res: ServerResponse, err: unknown, options: FastLaneOptions, close = false): void {
  if (res.headersSent) return;
  const given = res.req.headers['x-request-id'];
  const requestId = typeof given === 'string' && given !== '' ? given : options.nextRequestId();
  const { status, code, message } = describeError(err, requestId, options.logger);
  send(res, status, JSON.stringify(errorBody(code, message)), requestId, close, message);
}
