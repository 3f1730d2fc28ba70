import type { IncomingMessage, ServerResponse } from 'node:http';
import fastJson from 'fast-json-stringify';
import { DEFAULT_NAMESPACE, PennonError, type Authentication } from '../core';
import type { OperationName } from '../wire/routes';
import { PERMISSIONS } from '../wire/permissions';
import { auditOriginOf } from './audit-origin';
import { markRoute } from '../telemetry/routes';
import { booleanEvaluationSchema, decodeEvaluationRequest, parseJsonBody, routesOf, variantEvaluationSchema } from '../wire';
import type { AuthGate } from './auth-gate';
import type { RequestErrorLog } from './error-log';
import { describeError, retryAfterOf, writeError } from './errors';
import { answerEvaluation, type EvaluationAnswers, type EvaluationKind } from './evaluation-answer';
import { readChunks } from './body-chunks';
import { drainThenClose } from './oversized';
import type { FlagSources } from './sources';
import { sessionTokenOf } from './session';

/**
 * The evaluation hot path's fast lane. `POST /evaluate/v1/variant` and `/boolean` are answered
 * here, at the HTTP server, before Fastify: Fastify's per-request machinery (shared by ~70
 * routes, so its call sites go megamorphic) cost more than the evaluation itself. The lane is
 * transport only — it reads the body, checks the token, and writes bytes; the answer is
 * answerEvaluation's, as on the Fastify routes, which still serve whenever the lane is off
 * (access logging) or declines a request.
 */

export interface FastLaneOptions {
  /** The database, or the Git environment the request names. */
  sources: FlagSources;
  /** Present when authentication is required: the same checks as the Fastify routes'. */
  gate: AuthGate | null;
  /** Where failures are logged (one line per kind per interval). */
  errors: RequestErrorLog;
  bodyLimit: number;
  nextRequestId: () => string;
  /** With CORS on, browser requests (they carry Origin) go to Fastify, which adds the CORS headers. */
  declineOrigins?: boolean;
  /**
   * With sign-in methods on, a request that a session cookie (not an Authorization header)
   * authenticates goes to Fastify, where the gate checks the cookie and its CSRF token.
   */
  declineSessions?: boolean;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The same schemas the Fastify routes compile: the same bytes for the same answer. */
const SERIALIZE: { [K in EvaluationKind]: (answer: EvaluationAnswers[K]) => string } = {
  variant: fastJson(variantEvaluationSchema),
  boolean: fastJson(booleanEvaluationSchema),
};
const JSON_TYPE = 'application/json; charset=utf-8';

/** The lane's paths, from the wire table's entries for the two operations. */
const LANE: [string, EvaluationKind][] = [
  [routesOf('EvaluateVariant')[0].path, 'variant'],
  [routesOf('EvaluateBoolean')[0].path, 'boolean'],
];

export function fastLane(options: FastLaneOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const guarded = options.gate !== null && options.gate.guards('evaluation');
  const route =
    (kind: EvaluationKind): Handler =>
    (req, res) => {
      if (!guarded) return readBody(req, res, options, (body, started) => evaluate(kind, body, started, req, res, options, null));
      // As in Flipt, an unauthenticated request is refused before its body is looked at.
      options.gate!.check(req.headers.authorization, 'evaluation', req.socket.remoteAddress).then(
        (auth) => readBody(req, res, options, (body, started) => evaluate(kind, body, started, req, res, options, auth)),
        (err: unknown) => fail(res, err, options),
      );
    };
  const routes = new Map<string, Handler>(LANE.map(([path, kind]) => [path, route(kind)]));
  return (req, res) => {
    if (req.method !== 'POST' || (options.declineOrigins && req.headers.origin !== undefined)) return false;
    if (options.declineSessions && req.headers.authorization === undefined && sessionTokenOf(req.headers) !== undefined) return false;
    const url = req.url ?? '';
    const path = url.endsWith('/') ? url.slice(0, -1) : url;
    const handler = routes.get(path);
    if (!handler) return false; // anything unusual (query strings, other paths) goes to Fastify
    markRoute(req, path);
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
  readChunks(
    req,
    options.bodyLimit,
    (chunks, size) => {
      try {
        done(parseJsonBody((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)).toString('utf8')), started);
      } catch (err) {
        fail(res, err, options);
      }
    },
    tooLarge,
  );
}

function evaluate<K extends EvaluationKind>(
  kind: K,
  body: unknown,
  started: number,
  httpReq: IncomingMessage,
  res: ServerResponse,
  options: FastLaneOptions,
  auth: Authentication | null,
): void {
  const request = decodeEvaluationRequest(body);
  if (auth) {
    options.gate!.checkNamespace(auth, request.namespaceKey);
    const ns = request.namespaceKey || DEFAULT_NAMESPACE;
    options.gate!.authorize({ auth, operation: OPERATION[kind], permission: PERMISSIONS[OPERATION[kind]], namespaces: [ns], origin: () => laneOrigin(httpReq, auth) });
  }
  const answer = answerEvaluation(kind, request, options.sources.of(httpReq.headers).snapshots, started);
  const serialize = SERIALIZE[kind];
  if (answer instanceof Promise) answer.then((a) => send(res, serialize(a)), (err: unknown) => fail(res, err, options)).catch((err: unknown) => fail(res, err, options));
  else send(res, serialize(answer));
}

const OPERATION: { [K in EvaluationKind]: OperationName } = { variant: 'EvaluateVariant', boolean: 'EvaluateBoolean' };

/** Who a refused evaluation came from, for the audit trail (only ever built for a refusal). */
function laneOrigin(req: IncomingMessage, auth: Authentication) {
  const given = req.headers['x-request-id'];
  return auditOriginOf({ auth, headers: req.headers, id: typeof given === 'string' && given !== '' ? given : undefined, ip: req.socket.remoteAddress });
}

function send(res: ServerResponse, json: string): void {
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

function fail(res: ServerResponse, err: unknown, options: FastLaneOptions, close = false): void {
  if (res.headersSent) return;
  const given = res.req.headers['x-request-id'];
  const requestId = typeof given === 'string' && given !== '' ? given : options.nextRequestId();
  const { status, code, message } = describeError(err, requestId, options.errors);
  writeError(res, status, code, message, { requestId, close, retryAfter: retryAfterOf(err) });
}
