import { describe, expect, it } from 'vitest';
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from '../../internal/server/grpc-health';

/** The hand-written protobuf of the two health messages (the integration tests check it against protobufjs). */
describe('gRPC health messages', () => {
  it('round-trips requests and responses, the proto3 defaults as empty messages', () => {
    for (const service of ['', 'flipt.Flipt', 'é'.repeat(100)]) expect(decodeRequest(encodeRequest({ service }))).toEqual({ service });
    expect(encodeRequest({ service: '' }).length).toBe(0);
    for (const status of [0, 1, 2, 3]) expect(decodeResponse(encodeResponse({ status }))).toEqual({ status });
    expect([...encodeResponse({ status: 2 })]).toEqual([0x08, 0x02]);
  });

  it('skips unknown fields and refuses truncated input', () => {
    // field 2 varint 150, field 3 fixed64, field 1 "ab", field 4 fixed32
    const bytes = Buffer.from([0x10, 0x96, 0x01, 0x19, 1, 2, 3, 4, 5, 6, 7, 8, 0x0a, 0x02, 0x61, 0x62, 0x25, 1, 2, 3, 4]);
    expect(decodeRequest(bytes)).toEqual({ service: 'ab' });
    expect(() => decodeRequest(Buffer.from([0x0a, 0x05, 0x61]))).toThrow(/truncated/);
    expect(() => decodeRequest(Buffer.from([0x10, 0x96]))).toThrow(/truncated/);
  });
});
