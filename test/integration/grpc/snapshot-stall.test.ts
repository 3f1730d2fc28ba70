import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { largeDocument } from '../../support/large-document';
import { expectStatus, useServer } from '../../support/server';
import { longestStall } from '../../support/stall';

/**
 * DataService's snapshot of a large namespace over gRPC: the message is encoded a slice of flags
 * per turn of the event loop (it would hold evaluations for seconds in one piece), kept for the
 * next caller, and holds the same flags as the HTTP snapshot. The answer is taken undecoded, so
 * the client in this same process adds no work of its own to the loop being measured.
 */

const FLAGS = 2000;
const PROTO_DIR = resolve(__dirname, '../../../proto');

describe('the gRPC namespace snapshot of a large namespace', () => {
  const server = useServer();
  let raw: Client;
  beforeAll(async () => {
    raw = new Client(`127.0.0.1:${server.service.grpcPort}`, credentials.createInsecure(), { 'grpc.max_receive_message_length': -1 });
    const document = largeDocument({ flags: FLAGS, segments: 20, variants: ['a', 'b', 'c'], rollouts: [30, 30, 40], segmentsOf: (i) => [i % 20, (i + 3) % 20, (i + 7) % 20] });
    expectStatus(await server.api.request('POST', '/api/v1/import', document, { 'content-type': 'application/yaml' }), 200);
  }, 120_000);
  afterAll(() => raw.close());

  const snapshot = () =>
    new Promise<Buffer>((done, fail) =>
      raw.makeUnaryRequest(
        '/flipt.evaluation.DataService/EvaluationSnapshotNamespace',
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from([0x0a, 0x07, ...Buffer.from('default')]),
        new Metadata(),
        { deadline: Date.now() + 60_000 },
        (err: ServiceError | null, bytes?: Buffer) => (err ? fail(err) : done(bytes!)),
      ),
    );

  it(`encodes ${FLAGS.toLocaleString('en')} flags without holding the event loop more than 50 ms, once, with the HTTP snapshot's flags`, async () => {
    const started = performance.now();
    const { result: bytes, cpuMs, wallMs } = await longestStall(snapshot);
    console.log(`gRPC snapshot of ${FLAGS} flags (${(bytes.length / 1e6).toFixed(1)} MB): ${(performance.now() - started).toFixed(0)} ms; longest stall ${cpuMs.toFixed(1)} ms of CPU (${wallMs.toFixed(1)} ms wall)`);
    expect(cpuMs).toBeLessThan(50);
    // Kept: the second caller gets the same bytes.
    expect((await snapshot()).equals(bytes)).toBe(true);

    const root = protobuf.loadSync(resolve(PROTO_DIR, 'flipt/evaluation/evaluation.proto'));
    const Snapshot = root.lookupType('flipt.evaluation.EvaluationNamespaceSnapshot');
    const decoded = Snapshot.toObject(Snapshot.decode(bytes), { enums: String, defaults: true }) as { namespace: { key: string }; flags: { key: string; rules: { distributions: { variantKey: string; rollout: number }[] }[] }[] };
    const http = expectStatus(await server.api.get('/internal/v1/evaluation/snapshot/namespace/default'), 200);
    expect(decoded.namespace.key).toBe('default');
    expect(decoded.flags.map((f) => f.key)).toEqual(http.flags.map((f: { key: string }) => f.key));
    expect(decoded.flags[7].rules.map((r) => r.distributions.map((d) => [d.variantKey, d.rollout]))).toEqual(
      http.flags[7].rules.map((r: { distributions: { variantKey: string; rollout: number }[] }) => r.distributions.map((d) => [d.variantKey, d.rollout])),
    );
  });
});
