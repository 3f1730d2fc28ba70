import { credentials, makeGenericClientConstructor, Metadata, type Client, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import protobuf from 'protobufjs';

/**
 * A real @grpc/grpc-js client for grpc.health.v1.Health, its messages built by protobufjs from
 * the standard health.proto text — independent of the server's hand-written codec, so a wire
 * mistake on either side shows.
 */
const { root } = protobuf.parse(`
  syntax = "proto3";
  package grpc.health.v1;
  message HealthCheckRequest { string service = 1; }
  message HealthCheckResponse {
    enum ServingStatus { UNKNOWN = 0; SERVING = 1; NOT_SERVING = 2; SERVICE_UNKNOWN = 3; }
    ServingStatus status = 1;
  }
`);
const Request = root.lookupType('grpc.health.v1.HealthCheckRequest');
const Response = root.lookupType('grpc.health.v1.HealthCheckResponse');

const codec = {
  requestSerialize: (value: { service: string }) => Buffer.from(Request.encode(Request.create(value)).finish()),
  requestDeserialize: (bytes: Buffer) => Request.toObject(Request.decode(bytes)),
  responseSerialize: (value: object) => Buffer.from(Response.encode(Response.create(value)).finish()),
  responseDeserialize: (bytes: Buffer) => Response.toObject(Response.decode(bytes), { enums: String, defaults: true }) as { status: string },
};

const HealthClientCtor = makeGenericClientConstructor(
  {
    Check: { path: '/grpc.health.v1.Health/Check', requestStream: false, responseStream: false, ...codec },
    Watch: { path: '/grpc.health.v1.Health/Watch', requestStream: false, responseStream: true, ...codec },
  },
  'Health',
);

export interface Watching {
  /** Every status received so far, in order. */
  statuses: string[];
  /** Resolves once `status` has been received (now or later). */
  until(status: string, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ends the stream (with its status code). */
  ended: Promise<number>;
  cancel(): void;
}

export class HealthClient {
  private readonly client: Client & Record<string, (...args: any[]) => any>;

  constructor(port: number) {
    this.client = new HealthClientCtor(`127.0.0.1:${port}`, credentials.createInsecure()) as never;
  }

  /** The status string, or `code:<grpc code>` when the call failed. */
  check(service = '', deadlineMs = 3000): Promise<string> {
    return new Promise((resolve) => {
      this.client.Check({ service }, { deadline: Date.now() + deadlineMs }, (err: ServiceError | null, res: { status: string }) =>
        resolve(err ? `code:${err.code}` : res.status),
      );
    });
  }

  watch(service = ''): Watching {
    // waitForReady: a watcher may start before the server listens (it binds during start-up).
    const call: ClientReadableStream<{ status: string }> = this.client.Watch({ service }, new Metadata({ waitForReady: true }));
    const statuses: string[] = [];
    const waiters: Array<() => void> = [];
    call.on('data', (res: { status: string }) => {
      statuses.push(res.status);
      for (const wake of waiters.splice(0)) wake();
    });
    const ended = new Promise<number>((resolve) => {
      call.on('status', (s: { code: number }) => resolve(s.code));
      call.on('error', () => undefined); // the status event carries the outcome
    });
    const until = (status: string, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${status} within ${timeoutMs} ms (got ${statuses.join(', ')})`)), timeoutMs);
        const look = () => {
          if (statuses.includes(status)) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(look);
        };
        look();
      });
    return { statuses, until, ended, cancel: () => call.cancel() };
  }

  close(): void {
    this.client.close();
  }
}
