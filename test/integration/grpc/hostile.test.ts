import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient } from '../../support/grpc-client';
import { expectStatus, useServer } from '../../support/server';

/**
 * Hostile messages over gRPC never get Internal: bytes that are not the message and a Struct
 * nested past protobuf's recursion limit (100 messages deep, as protoc's) or thousands of levels
 * deep get InvalidArgument, as does an unknown enum number. protobufjs reads some malformed
 * fields leniently (a string field given as a varint, a length past the end: read as empty,
 * where Go's decoder refuses): those are answered as the message without them. Nothing is
 * written; the server answers the next call.
 */

const PROTO_DIR = resolve(__dirname, '../../../proto');

describe('hostile gRPC messages', () => {
  const server = useServer();
  let raw: Client;
  let grpc: GrpcClient;
  beforeAll(() => {
    raw = new Client(`127.0.0.1:${server.service.grpcPort}`, credentials.createInsecure());
    grpc = new GrpcClient(server.service.grpcPort);
  });
  afterAll(() => {
    raw.close();
    grpc.close();
  });

  /** Sends bytes as they are to a method; resolves with the error's code and details. */
  const send = (path: string, bytes: Buffer) =>
    new Promise<{ code: number; details: string }>((done, fail) =>
      raw.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, bytes, new Metadata(), { deadline: Date.now() + 10_000 }, (err: ServiceError | null) =>
        err ? done({ code: err.code, details: err.details }) : fail(new Error('the call succeeded')),
      ),
    );

  /** A CreateFlagRequest whose metadata Struct nests `levels` deep, encoded by protobufjs. */
  function nested(levels: number): Buffer {
    const root = protobuf.loadSync(resolve(PROTO_DIR, 'flipt/flipt.proto'));
    const Struct = root.lookupType('google.protobuf.Struct');
    const Request = root.lookupType('flipt.CreateFlagRequest');
    // Built from the inside out as bytes: Struct{fields{"a": Value{struct_value: <inner>}}}.
    let inner = Buffer.from(Struct.encode(Struct.fromObject({ fields: {} })).finish());
    for (let i = 0; i < levels - 1; i++) {
      const value = Buffer.concat([Buffer.from([0x2a]), varint(inner.length), inner]); // Value.struct_value = 5
      const entry = Buffer.concat([Buffer.from([0x0a, 0x01, 0x61, 0x12]), varint(value.length), value]); // key "a", value
      inner = Buffer.concat([Buffer.from([0x0a]), varint(entry.length), entry]); // Struct.fields = 1
    }
    const head = Buffer.from(Request.encode(Request.fromObject({ key: `deep${levels}`, name: 'Deep' })).finish());
    return Buffer.concat([head, Buffer.from([0x3a]), varint(inner.length), inner]); // metadata = 7
  }
  function varint(n: number): Buffer {
    const out: number[] = [];
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    out.push(n);
    return Buffer.from(out);
  }

  it('bytes that are not the message, or a field of the wrong wire type: InvalidArgument', async () => {
    const garbage = await send('/flipt.Flipt/CreateFlag', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]));
    expect(garbage.code).toBe(status.INVALID_ARGUMENT);
    expect(garbage.details).toMatch(/^request message is not a valid CreateFlagRequest/);
    // key (field 1) sent as a varint instead of a string; a length past the end of the message.
    expect(await send('/flipt.Flipt/CreateFlag', Buffer.from([0x08, 0x01]))).toEqual(await send('/flipt.Flipt/CreateFlag', Buffer.alloc(0)));
    const pastTheEnd = await send('/flipt.evaluation.EvaluationService/Variant', Buffer.from([0x0a, 0x7f]));
    expect(pastTheEnd).toEqual(await send('/flipt.evaluation.EvaluationService/Variant', Buffer.alloc(0)));
    expect([status.INVALID_ARGUMENT, status.NOT_FOUND]).toContain(pastTheEnd.code);
  });

  it('a Struct nested past the recursion limit, or thousands of levels deep: InvalidArgument, nothing written', async () => {
    const past = await send('/flipt.Flipt/CreateFlag', nested(70));
    expect(past).toEqual({ code: status.INVALID_ARGUMENT, details: 'request message is not a valid CreateFlagRequest: maximum nesting depth exceeded' });
    expect((await send('/flipt.Flipt/CreateFlag', nested(3000))).code).toBe(status.INVALID_ARGUMENT);
    expect((await grpc.call('flipt.Flipt/ListFlags', {})).flags).toEqual([]);
    // Within the bound, the same call is accepted.
    expect(expectStatus(await server.api.get('/api/v1/flags'), 200).flags).toEqual([]);
    await expect(send('/flipt.Flipt/CreateFlag', nested(10))).rejects.toThrow('the call succeeded');
  });

  it('an enum number the .proto does not know: InvalidArgument naming the field', async () => {
    const failed = await grpc.fails('flipt.Flipt/CreateFlag', { key: 'x', name: 'X', type: 9 });
    expect(failed.code).toBe(status.INVALID_ARGUMENT);
    expect(failed.details).toContain('type');
  });
});
