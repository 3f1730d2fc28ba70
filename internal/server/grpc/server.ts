import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import {
  Server,
  ServerCredentials,
  setLogger,
  status as GrpcStatus,
  type Metadata,
  type ServerUnaryCall,
  type ServerWritableStream,
  type sendUnaryData,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import type { Logger } from 'pino';
import type { Config } from '../../config';
import type { Authenticator } from '../../auth';
import type { Clock } from '../../core';
import type { LiveHub } from '../../live';
import type { Metrics } from '../../telemetry';
import type { Tracing } from '../../telemetry/tracing';
import { namespaceOf } from '../../wire/routes';
import { namespacesOf } from '../../wire/permissions';
import { auditOriginOf } from '../audit-origin';
import { AuthGate, type Authorization } from '../auth-gate';
import { RequestErrorLog } from '../error-log';
import { describeError } from '../errors';
import { healthImplementation, HEALTH_SERVICE } from '../grpc-health';
import type { HealthState } from '../health';
import type { Operations } from '../route-table';
import type { FlagSources } from '../sources';
import { answerers, callRequest, type Answerer, type CallContext, type Streamer } from './calls';
import { methodDefinition, undecodable } from './codec';
import { flagdCalls } from './flagd';
import { protoRoot } from './protos';
import { SnapshotMessages } from './snapshot-messages';
import { addReflection } from './reflection';

/**
 * The gRPC server on `server.grpc_port`: the health service always, and Flipt v1's API — the
 * management, evaluation, data, authentication, OFREP and metadata services of the project's
 * .proto files — answered by the same operations as HTTP (calls.ts), and flagd's evaluation
 * protocol (flagd.ts, flagd-events.ts) over the same evaluator, behind the same gate
 * (bearer token in the `authorization` metadata, exclusions, namespace scopes), with the same
 * errors as gRPC codes; reflection; every call counted and traced.
 */

export interface GrpcApi {
  config: Config;
  clock: Clock;
  operations: Operations;
  sources: FlagSources;
  authenticator: Pick<Authenticator, 'authenticate'>;
  /** Roles and what becomes of a refusal: the HTTP server's. */
  authorization: Authorization;
  metrics: Metrics | null;
  tracing: Tracing | null;
  /** Live streams (flagd's EventStream): the limit, heartbeats, the end at shutdown. */
  live: LiveHub;
}

export interface GrpcServer {
  /** The port bound (the configured one, or the one picked for port 0). */
  port: number;
  /** Ends Watch streams, lets calls in flight finish up to `graceMs`, then cuts what is left. */
  close(graceMs?: number): Promise<void>;
}

/** Status codes as Go names them (`NotFound`): the `grpc_code` label of go-grpc-prometheus, which Flipt's dashboards read. */
const CODE_NAMES = ['OK', 'Canceled', 'Unknown', 'InvalidArgument', 'DeadlineExceeded', 'NotFound', 'AlreadyExists', 'PermissionDenied', 'ResourceExhausted', 'FailedPrecondition', 'Aborted', 'OutOfRange', 'Unimplemented', 'Internal', 'Unavailable', 'DataLoss', 'Unauthenticated'];

/** Call metadata as HTTP headers (lower-case names, text values; binary `-bin` entries left out). */
function headersOf(metadata: Metadata): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [key, value] of Object.entries(metadata.getMap())) if (typeof value === 'string') headers[key] = value;
  return headers;
}

let nextCall = 0;
const callIds = () => `grpc-${(++nextCall).toString(36)}`;

const NO_PARAMS: readonly string[] = [];

/** One call's count and span: `finish(code)` once it is over (a stream's end, as a unary call's answer). */
function observe(api: GrpcApi, service: string, method: string, headers: IncomingHttpHeaders, type: 'unary' | 'server_stream') {
  const startedAt = performance.now();
  const span = api.tracing?.call(service, method, headers) ?? null;
  let finished = false;
  return {
    startedAt,
    span,
    finish(code: number) {
      if (finished) return;
      finished = true;
      api.metrics?.grpcCall(service, method, CODE_NAMES[code] ?? String(code), (performance.now() - startedAt) / 1000, type);
      span?.end(code, code !== GrpcStatus.OK);
    },
  };
}

/** The call's request and context, checked by the gate (token, the namespace scope, then the role) before `then`. */
function admitted<T>(gate: AuthGate | null, callee: Answerer | Streamer, message: Record<string, unknown>, headers: IncomingHttpHeaders, peer: string, startedAt: number, then: (context: CallContext) => T): T | Promise<T> {
  const unreadable = undecodable(message);
  if (unreadable !== undefined) throw unreadable;
  const { spec } = callee;
  const request = callRequest(spec, 'params' in callee ? callee.params : NO_PARAMS, message, headers);
  request.ip = peerAddress(peer);
  const context: CallContext = { headers, request, startedAt };
  if (gate === null || !gate.guards(spec.surface)) return then(context);
  return gate.check(headers.authorization as string | undefined, spec.surface, request.ip).then((auth) => {
    request.auth = auth;
    gate.checkNamespace(auth, namespaceOf(spec.namespace, request));
    const { operation, permission } = spec;
    request.grants = gate.authorize({ auth, operation, permission, namespaces: namespacesOf(spec.namespace, request), origin: () => auditOriginOf(request) });
    return then(context);
  });
}

/** The client's address from grpc-js's peer (`ipv4:127.0.0.1:5000`, `ipv6:[::1]:5000`), what failed attempts are counted by. */
export function peerAddress(peer: string): string {
  const bare = peer.replace(/^ipv[46]:/, '');
  if (bare.startsWith('[')) return bare.slice(1, bare.indexOf(']'));
  const colon = bare.lastIndexOf(':');
  return colon > 0 && bare.indexOf(':') === colon ? bare.slice(0, colon) : bare;
}

function statusOf(err: unknown, callee: Answerer | Streamer, errors: RequestErrorLog): { code: number; message: string } {
  return callee.describe?.(err) ?? describeError(err, callIds(), errors);
}

function unaryHandler(api: GrpcApi, gate: AuthGate | null, errors: RequestErrorLog, service: string, method: string, answerer: Answerer) {
  return (call: ServerUnaryCall<Record<string, unknown>, unknown>, callback: sendUnaryData<unknown>) => {
    const headers = headersOf(call.metadata);
    const { startedAt, span, finish } = observe(api, service, method, headers, 'unary');
    const fail = (err: unknown) => {
      const { code, message } = statusOf(err, answerer, errors);
      callback({ code, details: message });
      finish(code);
    };
    const succeed = (value: unknown) => {
      callback(null, value);
      finish(GrpcStatus.OK);
    };
    const run = () => {
      try {
        return admitted(gate, answerer, call.request, headers, call.getPeer(), startedAt, (context) => answerer.answer(context));
      } catch (err) {
        return Promise.reject(err);
      }
    };
    const result = span ? span.run(run) : run();
    // An evaluation with a fresh snapshot answers synchronously: no promise on the hot path.
    if (result instanceof Promise) result.then(succeed, fail);
    else succeed(result);
  };
}

/** A server-streaming method: counted and traced as a unary call is, from its start to its end. */
function streamHandler(api: GrpcApi, gate: AuthGate | null, errors: RequestErrorLog, service: string, method: string, streamer: Streamer) {
  return (call: ServerWritableStream<Record<string, unknown>, unknown>) => {
    const headers = headersOf(call.metadata);
    const { startedAt, span, finish } = observe(api, service, method, headers, 'server_stream');
    const run = async () => finish(await admitted(gate, streamer, call.request, headers, call.getPeer(), startedAt, (context) => streamer.open(context, call)));
    (span ? span.run(run) : run()).catch((err: unknown) => {
      // Refused before it started (the gate, the streams' limit): the status alone, as a unary error.
      const { code, message } = statusOf(err, streamer, errors);
      call.emit('error', { code, details: message });
      finish(code);
    });
  };
}

/** A service's methods, each answered by its operation or, where Pennon has none, UNIMPLEMENTED naming it. */
function serviceOf(api: GrpcApi, gate: AuthGate | null, errors: RequestErrorLog, service: protobuf.Service, byRpc: Map<string, Answerer>, streams: Map<string, Streamer>) {
  const definition: Record<string, ServiceDefinition[string]> = {};
  const implementation: UntypedServiceImplementation = {};
  const name = service.fullName.slice(1);
  let served = 0;
  for (const method of service.methodsArray) {
    definition[method.name] = methodDefinition(method);
    const rpc = `${name}/${method.name}`;
    const answerer = byRpc.get(rpc);
    const streamer = streams.get(rpc);
    if (answerer || streamer) served++;
    const unimplemented = { code: GrpcStatus.UNIMPLEMENTED, details: `${name}/${method.name} is not served by Pennon` };
    implementation[method.name] = answerer
      ? unaryHandler(api, gate, errors, name, method.name, answerer)
      : streamer
        ? streamHandler(api, gate, errors, name, method.name, streamer)
        : method.responseStream
          ? (call: ServerWritableStream<unknown, unknown>) => call.emit('error', unimplemented)
          : (_call: unknown, callback: sendUnaryData<unknown>) => callback(unimplemented);
  }
  return served > 0 ? { definition, implementation } : null;
}

function servicesIn(namespace: protobuf.NamespaceBase): protobuf.Service[] {
  const found: protobuf.Service[] = [];
  for (const nested of namespace.nestedArray) {
    if ('methodsArray' in nested) found.push(nested as protobuf.Service);
    else if ('nestedArray' in nested) found.push(...servicesIn(nested as protobuf.NamespaceBase));
  }
  return found;
}

/** TLS with the HTTP server's certificate when `server.protocol` is https, as Flipt's gRPC server has. */
function credentialsFor(config: Config['server'] | undefined): ServerCredentials {
  if (config?.protocol !== 'https') return ServerCredentials.createInsecure();
  return ServerCredentials.createSsl(null, [{ cert_chain: readFileSync(config.cert_file), private_key: readFileSync(config.cert_key) }], false);
}

function serverOptions(config: Config['server']): Record<string, number> {
  const options: Record<string, number> = {
    'grpc.max_receive_message_length': config.grpc_max_recv_msg_size,
    'grpc.max_send_message_length': config.grpc_max_send_msg_size,
  };
  // 0 means never, as in Flipt (gRPC's own default is infinity).
  if (config.grpc_conn_max_idle_time > 0) options['grpc.max_connection_idle_ms'] = config.grpc_conn_max_idle_time;
  if (config.grpc_conn_max_age > 0) options['grpc.max_connection_age_ms'] = config.grpc_conn_max_age;
  if (config.grpc_conn_max_age_grace > 0) options['grpc.max_connection_age_grace_ms'] = config.grpc_conn_max_age_grace;
  return options;
}

/** Binds `host:port`: health, and the API when given; a port in use is an error naming it. */
export async function startGrpcServer(health: HealthState, api: GrpcApi | null, host: string, port: number, logger: Logger): Promise<GrpcServer> {
  // grpc-js writes its own errors to stderr ("No address added…" for a port in use); what
  // matters reaches the operator through our errors and logs, so its lines go to debug.
  const debug = (...args: unknown[]) => logger.debug({ grpc: args.map(String).join(' ') }, 'grpc-js');
  setLogger({ error: debug, info: debug, debug });
  const server = new Server(api ? serverOptions(api.config.server) : {});
  const healthService = healthImplementation(health);
  server.addService(HEALTH_SERVICE, healthService.implementation);
  let errors: RequestErrorLog | null = null;
  if (api) {
    const root = await protoRoot();
    const gate = api.config.authentication.required ? new AuthGate(api.config.authentication, api.authenticator, api.authorization) : null;
    errors = new RequestErrorLog(logger, { now: () => api.clock.nowMicros() / 1000 });
    const byRpc = answerers(api.operations, api.sources, new SnapshotMessages(root), { tokenMethod: api.config.authentication.methods.token.enabled });
    const flagd = flagdCalls(root, api.sources, api.live, api.config.streams.max_buffered_bytes);
    for (const [rpc, answerer] of flagd.answerers) byRpc.set(rpc, answerer);
    for (const service of servicesIn(root)) {
      const served = serviceOf(api, gate, errors, service, byRpc, flagd.streams);
      if (served) server.addService(served.definition, served.implementation);
    }
    addReflection(server, root);
  }
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, credentialsFor(api?.config.server), (err, actual) => {
      if (err) {
        const inUse = /EADDRINUSE|address already in use|No address added/i.test(err.message);
        reject(new Error(inUse ? `server.grpc_port ${port} on ${host} is in use (EADDRINUSE)` : `cannot listen for gRPC on ${address}: ${err.message}`));
      } else resolve(actual);
    }),
  );
  logger.debug({ port: bound }, 'gRPC server listening');

  let closing: Promise<void> | undefined;
  return {
    port: bound,
    close: (graceMs = 1000) =>
      (closing ??= new Promise<void>((resolve) => {
        // Watch streams never end by themselves; grpc-js's graceful shutdown would wait for them.
        healthService.endWatches();
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }).finally(() => errors?.close())),
  };
}
