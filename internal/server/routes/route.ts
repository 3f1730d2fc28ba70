import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import { DEFAULT_NAMESPACE } from '../../core';
import type { Management } from '../../management';
import type { FlagSources } from '../sources';
import { Fields } from '../wire/decode';

/** What a management handler gets: the resolved namespace, path values, body and query. */
export interface Input {
  ns: string;
  /** Path values; they win over body fields of the same name. */
  params: Record<string, string>;
  body: Fields;
  query: Fields;
  /** The parsed JSON body as sent. */
  raw: unknown;
  request: FastifyRequest;
  /** The management API over the request's flag source (the database or its Git environment). */
  management: Management;
}

function inputOf(request: FastifyRequest, ns: string, sources: FlagSources): Input {
  let body: Fields | undefined;
  let query: Fields | undefined;
  return {
    ns: ns === '' ? DEFAULT_NAMESPACE : ns,
    request,
    management: sources.of(request.raw).management,
    params: request.params as Record<string, string>,
    raw: request.body,
    get body() {
      return (body ??= Fields.body(request.body));
    },
    get query() {
      return (query ??= Fields.query(request.query));
    },
  };
}

/**
 * Family A has no namespace in the path: it comes from `namespaceKey` in the query (GET,
 * HEAD, DELETE) or the body (POST, PUT), and defaults to `default`.
 */
function familyANamespace(request: FastifyRequest): string {
  const fromQuery = request.method === 'GET' || request.method === 'HEAD' || request.method === 'DELETE';
  const source = fromQuery ? Fields.query(request.query) : Fields.body(request.body);
  return source.str('namespaceKey');
}

/**
 * Registers a management route under Family B (`/api/v1/namespaces/{ns}/…`) and, unless told
 * otherwise, Family A (`/api/v1/…`). Both call the same handler: one implementation.
 */
export function managementRoute(
  app: FastifyInstance,
  sources: FlagSources,
  method: HTTPMethods,
  path: string,
  handler: (input: Input) => Promise<unknown>,
  options: { familyA?: boolean } = {},
): void {
  const familyB = (request: FastifyRequest) => (request.params as { namespaceKey: string }).namespaceKey || DEFAULT_NAMESPACE;
  app.route({
    method,
    url: `/api/v1/namespaces/:namespaceKey${path}`,
    config: { surface: 'management', namespaceOf: familyB },
    handler: (request) => handler(inputOf(request, familyB(request), sources)),
  });
  if (options.familyA ?? true) {
    const familyA = (request: FastifyRequest) => familyANamespace(request) || DEFAULT_NAMESPACE;
    app.route({
      method,
      url: `/api/v1${path}`,
      config: { surface: 'management', namespaceOf: familyA },
      handler: (request) => handler(inputOf(request, familyA(request), sources)),
    });
  }
}

/** Flipt answers every delete and order with an empty message. */
export const EMPTY = Object.freeze({});

export function listInput(query: Fields) {
  return { limit: query.int32('limit'), offset: query.int32('offset'), pageToken: query.str('pageToken') };
}
