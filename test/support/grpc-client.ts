import { resolve } from 'node:path';
import { credentials, loadPackageDefinition, Metadata, type ChannelCredentials, type Client, type ChannelOptions, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

/**
 * A gRPC client for Flipt's API as Flipt's SDKs build theirs: from the .proto files (the
 * project's proto/ folder), with @grpc/grpc-js and @grpc/proto-loader's usual options — enums
 * as names, 64-bit integers as strings, defaults filled in, oneofs named. `call` answers a
 * unary method by its full name (`flipt.Flipt/GetFlag`) and rejects with the ServiceError.
 */

const PROTO_DIR = resolve(__dirname, '../../proto');
const FILES = [
  'flipt/flipt.proto',
  'flipt/evaluation/evaluation.proto',
  'flipt/auth/auth.proto',
  'flipt/ofrep/ofrep.proto',
  'flipt/meta/meta.proto',
  'flagd/evaluation/v1/evaluation.proto',
  'flagd/evaluation/v2/evaluation.proto',
];

export const LOADER_OPTIONS = { keepCase: false, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [PROTO_DIR] };

let definitions: Record<string, any> | undefined;
function packages(): Record<string, any> {
  return (definitions ??= loadPackageDefinition(loadSync(FILES, LOADER_OPTIONS)) as Record<string, any>);
}

/** The client constructor of a service by its full name (`flipt.evaluation.EvaluationService`). */
function serviceClient(service: string): new (address: string, creds: ChannelCredentials, options?: ChannelOptions) => Client {
  let node: any = packages();
  for (const part of service.split('.')) node = node[part];
  if (typeof node !== 'function') throw new Error(`${service} is not in the .proto files`);
  return node;
}

export class GrpcClient {
  private readonly clients = new Map<string, Client>();

  constructor(
    private readonly port: number,
    private token: string | null = null,
    private readonly options: ChannelOptions = {},
    /** TLS for a server with `server.protocol: https`; plaintext otherwise. */
    private readonly channel: ChannelCredentials = credentials.createInsecure(),
  ) {}

  withToken(token: string | null): GrpcClient {
    return new GrpcClient(this.port, token, this.options, this.channel);
  }

  private client(service: string): Client {
    let client = this.clients.get(service);
    if (!client) {
      const Ctor = serviceClient(service);
      client = new Ctor(`127.0.0.1:${this.port}`, this.channel, this.options);
      this.clients.set(service, client);
    }
    return client;
  }

  /** One unary call; `metadata` adds entries beside the token's `authorization`. */
  call<T = any>(method: string, request: object = {}, metadata: Record<string, string> = {}): Promise<T> {
    const { client, fn, md } = this.method(method, metadata);
    return new Promise((resolvePromise, reject) =>
      fn.call(client, request, md, { deadline: Date.now() + 10_000 }, (err: ServiceError | null, res: T) => (err ? reject(err) : resolvePromise(res))),
    );
  }

  /** A server-streaming call (flagd's EventStream); the caller reads, cancels or leaves it. */
  stream<T = any>(method: string, request: object = {}, metadata: Record<string, string> = {}): ClientReadableStream<T> {
    const { client, fn, md } = this.method(method, metadata);
    return fn.call(client, request, md) as ClientReadableStream<T>;
  }

  private method(method: string, metadata: Record<string, string>) {
    const slash = method.lastIndexOf('/');
    const name = method.slice(slash + 1);
    const client = this.client(method.slice(0, slash)) as unknown as Record<string, (...args: unknown[]) => unknown>;
    const md = new Metadata();
    if (this.token) md.set('authorization', `Bearer ${this.token}`);
    for (const [k, v] of Object.entries(metadata)) md.set(k, v);
    const fn = client[name[0].toLowerCase() + name.slice(1)] ?? client[name];
    if (typeof fn !== 'function') throw new Error(`${method} is not in the .proto files`);
    return { client, fn, md };
  }

  /** The error a call fails with (its code and details); throws if it succeeds. */
  async fails(method: string, request: object = {}, metadata: Record<string, string> = {}): Promise<{ code: number; details: string }> {
    try {
      await this.call(method, request, metadata);
    } catch (err) {
      const { code, details } = err as ServiceError;
      return { code, details };
    }
    throw new Error(`${method} succeeded; an error was expected`);
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
