import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { GrpcClient } from '../../support/grpc-client';
import { OtlpHttpReceiver } from '../../support/otlp';
import { startServer, type TestServer } from '../../support/server';

/**
 * One span per gRPC call, as per HTTP request: named by the method, its parent from the
 * call's `traceparent` metadata, the status code as an attribute, an error status for a
 * failed call, and the call's queries and evaluation beneath it.
 */

const SERVER = 2;
const CLIENT = 3;

describe('tracing gRPC calls', () => {
  let receiver: OtlpHttpReceiver;
  let server: TestServer | undefined;
  let grpc: GrpcClient | undefined;
  afterEach(async () => {
    grpc?.close();
    await server?.stop();
    server = undefined;
    await receiver.stop();
  });

  it('a SERVER span per call, continuing the caller’s trace, with its queries and evaluation as children', async () => {
    receiver = await new OtlpHttpReceiver().start();
    server = await startServer({ PENNON_TRACING_ENABLED: 'true', PENNON_TRACING_OTLP_ENDPOINT: receiver.url });
    grpc = new GrpcClient(server.service.grpcPort);
    const create = { traceId: '4bf92f3577b34da6a3ce929d0e0e5001', parentId: '00f067aa0ba95001' };
    const evaluate = { traceId: '4bf92f3577b34da6a3ce929d0e0e5002', parentId: '00f067aa0ba95002' };
    const missing = { traceId: '4bf92f3577b34da6a3ce929d0e0e5003', parentId: '00f067aa0ba95003' };
    const header = (t: { traceId: string; parentId: string }) => ({ traceparent: `00-${t.traceId}-${t.parentId}-01` });
    await grpc.call('flipt.Flipt/CreateFlag', { key: 'on', name: 'On', type: 'BOOLEAN_FLAG_TYPE', enabled: true }, header(create));
    expect((await grpc.call('flipt.evaluation.EvaluationService/Boolean', { flagKey: 'on', entityId: 'e' }, header(evaluate))).enabled).toBe(true);
    expect((await grpc.fails('flipt.Flipt/GetFlag', { key: 'nope' }, header(missing))).code).toBe(status.NOT_FOUND);
    await server.stop();
    server = undefined;

    const spans = receiver.spans;
    const of = (traceId: string) => spans.filter((s) => s.traceId === traceId);
    const createServer = of(create.traceId).find((s) => s.kind === SERVER)!;
    expect(createServer).toMatchObject({
      name: 'flipt.Flipt/CreateFlag',
      parentSpanId: create.parentId,
      attributes: { 'rpc.system': 'grpc', 'rpc.service': 'flipt.Flipt', 'rpc.method': 'CreateFlag', 'rpc.grpc.status_code': 0 },
    });
    const queries = of(create.traceId).filter((s) => s.kind === CLIENT);
    expect(queries.map((q) => q.name)).toContain('INSERT flags');
    expect(queries.every((q) => q.parentSpanId === createServer.spanId)).toBe(true);

    const evalServer = of(evaluate.traceId).find((s) => s.kind === SERVER)!;
    expect(evalServer.name).toBe('flipt.evaluation.EvaluationService/Boolean');
    expect(of(evaluate.traceId).find((s) => s.name === 'evaluation.boolean')?.parentSpanId).toBe(evalServer.spanId);

    const failed = of(missing.traceId).find((s) => s.kind === SERVER)!;
    expect(failed).toMatchObject({ name: 'flipt.Flipt/GetFlag', attributes: { 'rpc.grpc.status_code': status.NOT_FOUND }, status: { code: 2 } });
    // One span per call, no more.
    expect(spans.filter((s) => s.kind === SERVER && s.name.startsWith('flipt.'))).toHaveLength(3);
  });
});
