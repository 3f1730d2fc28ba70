import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { OPERATIONS, routesOf, type OperationName, type RouteSpec } from '../../wire/routes';
import { PERMISSIONS, type Permission } from '../../wire/permissions';
import { decodeEvaluationRequest } from '../../wire';
import { answerEvaluation } from '../evaluation-answer';
import type { CallRequest, Operations } from '../route-table';
import { ofrepBulk } from '../routes/ofrep';
import type { FlagSources } from '../sources';
import type { SnapshotMessages } from './snapshot-messages';

/**
 * Which operation answers each gRPC method: the wire table's `rpc` names it. Most are the
 * operations the HTTP routes registered (`app.operations`), called with the message as the
 * request; the few whose HTTP route does more than JSON in, JSON out (the evaluation fast path,
 * the OFREP bulk ETag, the snapshot's cached bodies) are answered here from the same pieces their
 * routes use; the metadata documents are their routes' answers carried in an HttpBody.
 */

type Json = Record<string, unknown>;

/** What a call carries besides its message. */
export interface CallContext {
  headers: IncomingHttpHeaders;
  request: CallRequest;
  /** performance.now() when the call arrived. */
  startedAt: number;
}

/**
 * What the gate and the call's request need of a method: its surface (authentication), how its
 * namespace is read (scoped tokens, roles), the HTTP method its message stands in for, and the
 * operation it is (the route table's name, or a flagd method's) with the permission it needs.
 */
export type CallSpec = Pick<RouteSpec, 'method' | 'surface' | 'namespace'> & { operation: string; permission: Permission };

/** A call's status where a protocol words its errors itself (flagd's); null leaves it to errors.ts. */
export type DescribeError = (err: unknown) => { code: number; message: string } | null;

export interface Answerer {
  /** The operation's HTTP route (the Family A one where there are two), or what stands for one. */
  spec: CallSpec;
  /** The names of its path values (`:flagKey`…), read once rather than per call. */
  params: readonly string[];
  /** The JSON answer, synchronously where the operation can give it so (evaluation). */
  answer(context: CallContext): unknown;
  describe?: DescribeError;
}

/** A server-streaming method (flagd's EventStream), behind the same gate as a unary one. */
export interface Streamer {
  spec: CallSpec;
  /**
   * Starts the stream once the call is allowed (throwing if it is refused: its status is the
   * error's), and resolves with the status code it ended with, however it ended.
   */
  open(context: CallContext, call: ServerWritableStream<Json, unknown>): Promise<number>;
  describe?: DescribeError;
}

const PARAM = /:([A-Za-z]+)/g;

/** The path values a route would have read from its URL, taken from the message's fields of the same names. */
export function callRequest(spec: CallSpec, names: readonly string[], message: Json, headers: IncomingHttpHeaders): CallRequest {
  const params: Record<string, string> = {};
  for (const name of names) {
    const value = message[name];
    params[name] = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  }
  const given = headers['x-request-id'];
  const id = typeof given === 'string' && given !== '' ? given.slice(0, 128) : randomUUID();
  return { method: spec.method, params, query: message, body: message, headers, auth: null, id, transport: 'grpc' };
}

/** Flipt's metadata service answers HttpBody: the route's JSON document as bytes. */
const AS_HTTP_BODY = new Set<OperationName>(['GetInfo', 'GetConfiguration']);
const httpBody = (document: unknown) => ({ contentType: 'application/json', data: Buffer.from(JSON.stringify(document)) });

export function answerers(operations: Operations, sources: FlagSources, snapshots: SnapshotMessages, options: { tokenMethod: boolean }): Map<string, Answerer> {
  const byRpc = new Map<string, Answerer>();
  const generic = (name: OperationName, spec: RouteSpec) => {
    const handler = operations.get(name);
    if (!handler) return null;
    return AS_HTTP_BODY.has(name) ? async (context: CallContext) => httpBody(await handler(context.request, spec)) : (context: CallContext) => handler(context.request, spec);
  };
  const special: Partial<Record<OperationName, (context: CallContext) => unknown>> = {
    EvaluateVariant: ({ request, headers, startedAt }) => answerEvaluation('variant', decodeEvaluationRequest(request.body), sources.of(headers).snapshots, startedAt),
    EvaluateBoolean: ({ request, headers, startedAt }) => answerEvaluation('boolean', decodeEvaluationRequest(request.body), sources.of(headers).snapshots, startedAt),
    OfrepEvaluateBulk: ({ request }) => ofrepBulk(sources, request),
    EvaluationSnapshotNamespace: async ({ request, headers }) => {
      const accept = headers['x-flipt-accept-server-version'];
      const snapshot = await sources.of(headers).snapshots.get(request.params.key ?? '');
      // The message's bytes, built once per snapshot and gate (snapshot-messages.ts).
      return snapshots.of(snapshot, Array.isArray(accept) ? accept[0] : accept);
    },
  };
  for (const [name, operation] of Object.entries(OPERATIONS) as [OperationName, (typeof OPERATIONS)[OperationName]][]) {
    if (operation.rpc === null || operation.rpc.startsWith('grpc.health.')) continue;
    if (operation.when === 'token-method' && !options.tokenMethod) continue;
    const specs = routesOf(name);
    const spec = specs[specs.length - 1];
    const answer = special[name] ?? generic(name, spec);
    const callSpec: CallSpec = { method: spec.method, surface: spec.surface, namespace: spec.namespace, operation: name, permission: PERMISSIONS[name] };
    if (answer) byRpc.set(operation.rpc, { spec: callSpec, params: [...spec.path.matchAll(PARAM)].map((m) => m[1]), answer });
  }
  return byRpc;
}
