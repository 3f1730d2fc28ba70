import type { FastifyInstance } from 'fastify';
import { DEFAULT_NAMESPACE } from '../../core';
import type { Management } from '../../management';
import type { Snapshots } from '../../snapshots';
import { Fields, namespaceOf, type OperationName, type RouteSpec } from '../../wire';
import { auditOriginOf } from '../audit-origin';
import { operation, type CallRequest } from '../route-table';
import type { FlagSource, FlagSources } from '../sources';

/** What a management handler gets: the resolved namespace, path values, body and query. */
export interface Input {
  ns: string;
  /** Path values; they win over body fields of the same name. */
  params: Record<string, string>;
  body: Fields;
  query: Fields;
  /** The parsed JSON body as sent. */
  raw: unknown;
  request: CallRequest;
  /** The management API over the request's flag source (the database or its Git environment). */
  management: Management;
  /** The evaluation snapshots of the same source. */
  snapshots: Snapshots;
}

function inputOf(request: CallRequest, spec: RouteSpec, sources: FlagSources): Input {
  let body: Fields | undefined;
  let query: Fields | undefined;
  const source = sources.of(request.headers);
  let management: Management | undefined;
  return {
    // Family B names the namespace in the path; Family A in `namespaceKey` (query or body).
    ns: namespaceOf(spec.namespace, request) ?? DEFAULT_NAMESPACE,
    request,
    get management() {
      return (management ??= managementFor(source, request));
    },
    snapshots: source.snapshots,
    params: request.params,
    raw: request.body,
    get body() {
      return (body ??= Fields.body(request.body));
    },
    get query() {
      return (query ??= Fields.query(request.query));
    },
  };
}

/** Reads share the source's one management; a write's is recorded in the audit trail as the caller's. */
export function managementFor(source: FlagSource, request: CallRequest): Management {
  return request.method === 'GET' ? source.management : source.managementAs(auditOriginOf(request));
}

/**
 * Registers a management operation on every path the wire table gives it — Family B
 * (`/api/v1/namespaces/{ns}/…`) and, for most, Family A (`/api/v1/…`). All call the same
 * handler: one implementation.
 */
export function managementRoute(app: FastifyInstance, sources: FlagSources, name: OperationName, handler: (input: Input) => Promise<unknown>): void {
  operation(app, name, (request, spec) => handler(inputOf(request, spec, sources)));
}

/** Flipt answers every delete and order with an empty message. */
export const EMPTY = Object.freeze({});

export function listInput(query: Fields) {
  return { limit: query.int32('limit'), offset: query.int32('offset'), pageToken: query.str('pageToken') };
}
