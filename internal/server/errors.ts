import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { isPennonError, type ErrorKind, type PennonError } from '../core';
import type { ErrorJson, OfrepErrorJson } from '../wire';
import type { RequestErrorLog } from './error-log';
import { connectionHeaderAllowed, drainThenClose } from './oversized';

/**
 * The one place where errors become HTTP responses: Flipt's grpc-gateway body
 * `{code, message, details}` with the gRPC code, and the status grpc-gateway maps it to.
 * Internal errors are logged with the request id (at most one line per kind of failure per
 * interval: error-log.ts) and answered without their details.
 */

/** gRPC status codes used here. */
export const GRPC = {
  CANCELED: 1,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const BY_KIND: Record<ErrorKind, { status: number; code: number }> = {
  invalid: { status: 400, code: GRPC.INVALID_ARGUMENT },
  not_found: { status: 404, code: GRPC.NOT_FOUND },
  unauthenticated: { status: 401, code: GRPC.UNAUTHENTICATED },
  forbidden: { status: 403, code: GRPC.PERMISSION_DENIED },
  // Flipt answers a write on a read-only store with a plain error, which the gateway maps to 500.
  read_only: { status: 500, code: GRPC.INTERNAL },
  unavailable: { status: 503, code: GRPC.UNAVAILABLE },
  too_large: { status: 413, code: GRPC.RESOURCE_EXHAUSTED },
  // Failed authentication past authentication.rate_limit (auth/failures.ts): Retry-After says when.
  rate_limited: { status: 429, code: GRPC.RESOURCE_EXHAUSTED },
  internal: { status: 500, code: GRPC.INTERNAL },
};

/** grpc-gateway's HTTP status for a gRPC code, for errors raised by Fastify itself. */
function codeForStatus(status: number): number {
  switch (status) {
    case 400:
    case 415:
      return GRPC.INVALID_ARGUMENT;
    case 401:
      return GRPC.UNAUTHENTICATED;
    case 403:
      return GRPC.PERMISSION_DENIED;
    case 404:
      return GRPC.NOT_FOUND;
    case 413:
    case 429:
    case 431:
      return GRPC.RESOURCE_EXHAUSTED;
    case 503:
      return GRPC.UNAVAILABLE;
    default:
      return GRPC.INTERNAL;
  }
}

export function errorBody(code: number, message: string): ErrorJson {
  return { code, message, details: [] };
}

/** grpc-gateway puts the message of a 401 in WWW-Authenticate as well. */
export function wwwAuthenticate(message: string): string {
  return `Bearer realm="pennon", error="invalid_token", error_description="${message.replace(/["\\]/g, "'")}"`;
}

/** A 413 for the body's size closes the connection once the rest of the upload is read (oversized.ts). */
export function closeAfterOversized(request: FastifyRequest, reply: FastifyReply): void {
  if (connectionHeaderAllowed(request.raw)) reply.header('connection', 'close');
  drainThenClose(request.raw, request.routeOptions.bodyLimit);
}

/** The seconds a rate-limited caller is told to wait (`Retry-After`), when the error says. */
export function retryAfterOf(error: unknown): number | undefined {
  return isPennonError(error) ? error.retryAfterSeconds : undefined;
}

function sendError(request: FastifyRequest, reply: FastifyReply, status: number, code: number, message: string, retryAfter?: number) {
  reply.header('x-request-id', request.id);
  if (status === 401) reply.header('www-authenticate', wwwAuthenticate(message));
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  if (status === 413) closeAfterOversized(request, reply);
  return reply.status(status).type('application/json').send(errorBody(code, message));
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * An error answered at the HTTP server itself, ahead of Fastify (the evaluation fast lane, the
 * health lane): the same body and headers as Fastify's error answers.
 */
export function writeError(res: ServerResponse, status: number, code: number, message: string, options: { requestId?: string; close?: boolean; retryAfter?: number } = {}): void {
  const json = JSON.stringify(errorBody(code, message));
  const headers: Record<string, string | number> = { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(json) };
  if (options.requestId) headers['x-request-id'] = options.requestId;
  if (status === 401) headers['www-authenticate'] = wwwAuthenticate(message);
  if (options.retryAfter !== undefined) headers['retry-after'] = options.retryAfter;
  if (options.close && connectionHeaderAllowed((res as ServerResponse & { req?: IncomingMessage }).req)) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(json);
}

/**
 * A refusal a route answers itself rather than throws, having logged why already (the webhook):
 * the same body, status and headers as the error handler gives that error, and no log line.
 */
export function refuse(request: FastifyRequest, reply: FastifyReply, error: PennonError) {
  const { status, code } = BY_KIND[error.kind];
  return sendError(request, reply, status, code, error.message, error.retryAfterSeconds);
}

/**
 * The error handler. It logs through the service's logger rather than `request.log`: Fastify
 * builds a child logger per request only when access logging is on (it costs throughput).
 */
export const errorHandler = (errors: RequestErrorLog) => (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) =>
  handleError(error, request, reply, errors);

function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply, errors: RequestErrorLog) {
  const { status, code, message } = describeError(error, request.id, errors);
  return sendError(request, reply, status, code, message, retryAfterOf(error));
}

/**
 * A server stream's error line, as grpc-gateway writes one (Flipt v2's snapshot stream):
 * `{"error": {code, message, details}}` and the newline that ends every frame, so a client
 * reading the stream line by line reads it as one.
 */
export function streamErrorLine(code: number, message: string): string {
  return `${JSON.stringify({ error: errorBody(code, message) })}\n`;
}

/**
 * The error handler of a server stream's route: refused before its first frame (401, 404, 400,
 * 503 beyond `streams.max`), the stream answers with the error's status and its error line,
 * as grpc-gateway does when the stream ends before a message.
 */
export const streamErrorHandler = (errors: RequestErrorLog) => (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
  const { status, code, message } = describeError(error, request.id, errors);
  reply.header('x-request-id', request.id);
  if (status === 401) reply.header('www-authenticate', wwwAuthenticate(message));
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  return reply.status(status).type('application/json').send(streamErrorLine(code, message));
};

/** A failure in the middle of a stream (its headers sent): the line that ends it. */
export function streamFailure(error: unknown, requestId: string, errors: RequestErrorLog): string {
  const { code, message } = describeError(error, requestId, errors);
  return streamErrorLine(code, message);
}

/**
 * What kind of failure an error is, for the error log's one line per kind: the error's kind,
 * the driver's code behind it (ECONNREFUSED, 57P01…) and our message (never the client's data).
 */
export function failureKind(error: unknown): string {
  const cause = isPennonError(error) ? (error.cause as { code?: unknown } | undefined) : (error as { code?: unknown } | null);
  const code = typeof cause?.code === 'string' || typeof cause?.code === 'number' ? String(cause.code) : '';
  const kind = isPennonError(error) ? `${error.kind}|${code}|${error.message}` : `unhandled|${(error as Error | null)?.name ?? typeof error}|${code}`;
  return kind.slice(0, 200);
}

/** Status, gRPC code and client-safe message of any error; logs the ones that are ours to fix. */
export function describeError(error: unknown, requestId: string, errors: RequestErrorLog): { status: number; code: number; message: string } {
  const logger = errors.logger;
  if (isPennonError(error)) {
    const { status, code } = BY_KIND[error.kind];
    if (status >= 500) errors.error(failureKind(error), { err: error.cause ?? error, reqId: requestId }, error.message);
    else logger.debug({ reqId: requestId, status, reason: error.message }, 'request refused');
    const message = error.kind === 'internal' ? `internal error (request id ${requestId})` : error.message;
    return { status, code, message };
  }
  const status = (error as FastifyError).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    logger.debug({ reqId: requestId, status, reason: (error as FastifyError).code }, 'request refused');
    return { status, code: codeForStatus(status), message: clientMessage(error as FastifyError) };
  }
  errors.error(failureKind(error), { err: error, reqId: requestId }, 'unhandled error');
  return { status: 500, code: GRPC.INTERNAL, message: `internal error (request id ${requestId})` };
}

/**
 * Errors Fastify raises before routing (a malformed percent-encoding, an over-long path
 * parameter): the same body as every other error.
 */
export function handleFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path parameter is too long' : 'the request path is not a valid URL';
  return sendError(request, reply, 400, GRPC.INVALID_ARGUMENT, message);
}

/** Fastify's own 4xx errors, in words a client can act on (never a stack or internals). */
function clientMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'request body is too large';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return `request body is not valid JSON: ${error.message}`;
    default:
      return error.message;
  }
}

/**
 * Unknown routes answer 404 `Not Found`; a known path with the wrong method answers 501
 * `Method Not Allowed`, as grpc-gateway does. A second router mirrors the routes to tell
 * the two apart without touching the hot path.
 */
export function installNotFound(app: FastifyInstance, logger?: Logger): void {
  const mirror = FindMyWay({ ignoreTrailingSlash: true });
  const noop = () => undefined;
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method !== 'HEAD' && !mirror.hasRoute(method as HTTPMethod, route.url)) {
        mirror.on(method as HTTPMethod, route.url, noop);
      }
    }
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const other = (['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const).some(
      (m) => m !== request.method && mirror.find(m, path) !== null,
    );
    logger?.debug({ reqId: request.id, status: other ? 501 : 404, reason: 'no such route' }, 'request refused');
    return other
      ? sendError(request, reply, 501, GRPC.UNIMPLEMENTED, 'Method Not Allowed')
      : sendError(request, reply, 404, GRPC.NOT_FOUND, 'Not Found');
  });
}

const OFREP_STATUS: Partial<Record<PennonError['kind'], number>> = { unauthenticated: 401, forbidden: 403, unavailable: 503, too_large: 413, rate_limited: 429 };

/**
 * OFREP's own error body, with Flipt's OFREP error mapping (the OFREP routes' error handler).
 * The body ends with a newline, as Go's JSON encoder writes it. Unlike Flipt, an internal
 * error's text is not passed to the client.
 */
export function ofrepError(err: PennonError | FastifyError | Error, key: string | undefined): { status: number; body: string } {
  let status = 500;
  let errorCode: OfrepErrorJson['errorCode'] = 'GENERAL';
  let details = 'internal error';
  let withKey: string | undefined;
  if (isPennonError(err)) {
    details = err.message;
    if (err.kind === 'not_found') {
      [status, errorCode, details, withKey] = [404, 'FLAG_NOT_FOUND', `flag was not found ${key ?? ''}`, key];
    } else if (err.kind === 'invalid') {
      [status, errorCode, withKey] = [400, 'INVALID_CONTEXT', key];
    } else {
      status = OFREP_STATUS[err.kind] ?? 500;
      if (status === 500) details = 'internal error';
    }
  } else if (typeof (err as FastifyError).statusCode === 'number' && (err as FastifyError).statusCode! < 500) {
    status = (err as FastifyError).statusCode!;
    errorCode = status === 400 ? 'INVALID_CONTEXT' : 'GENERAL';
    details = err.message;
  }
  const body: OfrepErrorJson = withKey !== undefined && withKey !== '' ? { key: withKey, errorCode, errorDetails: details } : { errorCode, errorDetails: details };
  return { status, body: `${JSON.stringify(body)}\n` };
}
