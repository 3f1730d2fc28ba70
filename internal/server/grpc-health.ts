import { status as GrpcStatus, type ServerUnaryCall, type ServerWritableStream, type ServiceDefinition, type sendUnaryData, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { HEALTH_SERVICES, type HealthState, type ServingStatus } from './health';

/**
 * The standard gRPC health service (grpc.health.v1.Health: Check and Watch) on
 * `server.grpc_port`, answering what `/health` answers.
 *
 * The two messages are encoded by hand rather than with the `grpc-health-check` package: that
 * package reads health.proto from disk through proto-loader when it loads, and the single
 * executable has no files beside it. The messages are one field each:
 *   HealthCheckRequest  { string service = 1; }
 *   HealthCheckResponse { ServingStatus status = 1; }  UNKNOWN 0, SERVING 1, NOT_SERVING 2, SERVICE_UNKNOWN 3
 */

export const STATUS = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;

/** Reads a base-128 varint at `pos`; returns [value, next position]. */
function varint(buf: Buffer, pos: number): [number, number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const byte = buf[pos++];
    // Values past 2^53 are not ours to care about (lengths and enums here are small).
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, pos];
    shift += 7;
    if (shift > 63) throw new Error('varint too long');
  }
}

function writeVarint(value: number): number[] {
  const out: number[] = [];
  while (value > 0x7f) {
    out.push((value & 0x7f) | 0x80);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return out;
}

/** Decodes field 1 of a message, skipping any other field (proto3 tolerates unknown fields). */
function field1(buf: Buffer, wireType: 0 | 2): number | Buffer | undefined {
  let found: number | Buffer | undefined;
  let pos = 0;
  while (pos < buf.length) {
    const [key, afterKey] = varint(buf, pos);
    const number = Math.floor(key / 8);
    const type = key & 7;
    pos = afterKey;
    if (type === 0) {
      const [value, next] = varint(buf, pos);
      pos = next;
      if (number === 1 && wireType === 0) found = value;
    } else if (type === 2) {
      const [length, start] = varint(buf, pos);
      if (start + length > buf.length) throw new Error('truncated field');
      if (number === 1 && wireType === 2) found = buf.subarray(start, start + length);
      pos = start + length;
    } else if (type === 1) pos += 8;
    else if (type === 5) pos += 4;
    else throw new Error(`unsupported wire type ${type}`);
  }
  if (pos !== buf.length) throw new Error('truncated field');
  return found;
}

export function encodeRequest(req: { service: string }): Buffer {
  if (req.service === '') return Buffer.alloc(0);
  const text = Buffer.from(req.service, 'utf8');
  return Buffer.concat([Buffer.from([0x0a, ...writeVarint(text.length)]), text]);
}

export function decodeRequest(buf: Buffer): { service: string } {
  const value = field1(buf, 2);
  return { service: value instanceof Buffer ? value.toString('utf8') : '' };
}

export function encodeResponse(res: { status: number }): Buffer {
  return res.status === 0 ? Buffer.alloc(0) : Buffer.from([0x08, ...writeVarint(res.status)]);
}

export function decodeResponse(buf: Buffer): { status: number } {
  const value = field1(buf, 0);
  return { status: typeof value === 'number' ? value : 0 };
}

/** Check and Watch as grpc-js wants them (the same object serves as a client definition). */
export const HEALTH_SERVICE: ServiceDefinition = {
  Check: {
    path: '/grpc.health.v1.Health/Check',
    requestStream: false,
    responseStream: false,
    requestSerialize: encodeRequest,
    requestDeserialize: decodeRequest,
    responseSerialize: encodeResponse,
    responseDeserialize: decodeResponse,
  },
  Watch: {
    path: '/grpc.health.v1.Health/Watch',
    requestStream: false,
    responseStream: true,
    requestSerialize: encodeRequest,
    requestDeserialize: decodeRequest,
    responseSerialize: encodeResponse,
    responseDeserialize: decodeResponse,
  },
};

const wire = (status: ServingStatus) => (status === 'SERVING' ? STATUS.SERVING : STATUS.NOT_SERVING);

/** Check and Watch over `health`; `endWatches` ends the open Watch streams (on shutdown: they never end by themselves). */
export function healthImplementation(health: HealthState): { implementation: UntypedServiceImplementation; endWatches(): void } {
  const watchers = new Set<ServerWritableStream<{ service: string }, { status: number }>>();
  const implementation: UntypedServiceImplementation = {
    Check(call: ServerUnaryCall<{ service: string }, { status: number }>, callback: sendUnaryData<{ status: number }>) {
      if (!HEALTH_SERVICES.has(call.request.service)) callback({ code: GrpcStatus.NOT_FOUND, details: 'unknown service' });
      else callback(null, { status: wire(health.status()) });
    },
    Watch(call: ServerWritableStream<{ service: string }, { status: number }>) {
      // The protocol: an unknown service is not an error for Watch — it says SERVICE_UNKNOWN
      // and keeps the stream open (the service might be registered later).
      if (!HEALTH_SERVICES.has(call.request.service)) {
        call.write({ status: STATUS.SERVICE_UNKNOWN });
      } else {
        call.write({ status: wire(health.status()) });
        const unsubscribe = health.onChange((status) => call.write({ status: wire(status) }));
        call.on('cancelled', unsubscribe);
        call.on('close', unsubscribe);
      }
      watchers.add(call);
      call.on('cancelled', () => watchers.delete(call));
      call.on('close', () => watchers.delete(call));
    },
  };
  return {
    implementation,
    endWatches() {
      for (const call of watchers) call.end();
      watchers.clear();
    },
  };
}
