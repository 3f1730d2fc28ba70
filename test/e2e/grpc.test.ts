import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, constants } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort, serve } from '../support/cli';
import { GrpcClient, LOADER_OPTIONS } from '../support/grpc-client';
import { HealthClient } from '../support/grpc-health-client';

/**
 * Flipt's gRPC API from the built executable (its .proto files bundled inside it, nothing read
 * from beside it): calls, reflection's v1alpha, the configured message size, and a call in
 * flight at SIGTERM that still completes.
 */
describe('pennon serve: the gRPC API (the built executable)', () => {
  let dir: string;
  const closers: (() => void)[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pennon-grpc-'));
  });
  afterEach(() => {
    for (const close of closers.splice(0)) close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers Flipt’s services and refuses a message over server.grpc_max_recv_msg_size with RESOURCE_EXHAUSTED', async () => {
    const [port, grpcPort] = await Promise.all([freePort(), freePort()]);
    const env = { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}`, PENNON_SERVER_GRPC_PORT: String(grpcPort), PENNON_SERVER_GRPC_MAX_RECV_MSG_SIZE: '4096' };
    const { process: child } = await serve(env, port);
    const grpc = new GrpcClient(grpcPort);
    closers.push(() => grpc.close(), () => child.kill('SIGKILL'));
    await grpc.call('flipt.Flipt/CreateFlag', { key: 'on', name: 'On', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
    const answer = await grpc.call('flipt.evaluation.EvaluationService/Boolean', { flagKey: 'on', entityId: 'e' });
    expect(answer).toMatchObject({ enabled: true, reason: 'DEFAULT_EVALUATION_REASON', flagKey: 'on' });
    const tooLarge = await grpc.fails('flipt.Flipt/CreateFlag', { key: 'big', name: 'Big', description: 'x'.repeat(8000) });
    expect(tooLarge.code).toBe(status.RESOURCE_EXHAUSTED);
    expect((await grpc.fails('flipt.Flipt/GetFlag', { key: 'big' })).code).toBe(status.NOT_FOUND);
  });

  it('SIGTERM: a call whose message is still arriving completes OK, then the process exits 0', async () => {
    const [port, grpcPort] = await Promise.all([freePort(), freePort()]);
    // One process: the health Watch and the held call reach the same server.
    const { process: child } = await serve({ PENNON_DB_URL: `file:${join(dir, 'pennon.db')}`, PENNON_SERVER_GRPC_PORT: String(grpcPort), PENNON_SERVER_WORKERS: '1' }, port);
    closers.push(() => child.kill('SIGKILL'));
    const health = new HealthClient(grpcPort);
    closers.push(() => health.close());
    const watch = health.watch('');
    await watch.until('SERVING');

    // The request message, framed as gRPC frames it, sent in two parts on a raw HTTP/2 stream.
    const root = protobuf.loadSync(join(LOADER_OPTIONS.includeDirs[0], 'flipt/flipt.proto'));
    const CreateFlagRequest = root.lookupType('flipt.CreateFlagRequest');
    const message = Buffer.from(CreateFlagRequest.encode(CreateFlagRequest.fromObject({ key: 'late', name: 'Late', enabled: true })).finish());
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), message]);
    const session = connect(`http://127.0.0.1:${grpcPort}`);
    closers.push(() => session.destroy());
    await once(session, 'connect'); // a PING sent before the session is up is cancelled
    const stream = session.request({ [constants.HTTP2_HEADER_METHOD]: 'POST', [constants.HTTP2_HEADER_PATH]: '/flipt.Flipt/CreateFlag', 'content-type': 'application/grpc', te: 'trailers' });
    const goaway = once(session, 'goaway');
    const trailers = new Promise<Record<string, unknown>>((resolve) => stream.on('trailers', (t) => resolve(t)));
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.write(frame.subarray(0, 4));
    // A PING is answered after the frames before it are read: the server has the call open.
    await new Promise<void>((resolve, reject) => session.ping((err) => (err ? reject(err) : resolve())));

    child.kill('SIGTERM');
    // Draining has begun, and the gRPC server refuses new calls (GOAWAY) while this one is open.
    await watch.until('NOT_SERVING');
    await goaway;
    stream.end(frame.subarray(4));
    const ended = await trailers;
    expect(ended['grpc-status']).toBe('0');
    const Flag = root.lookupType('flipt.Flag');
    expect(Flag.toObject(Flag.decode(Buffer.concat(chunks).subarray(5)))).toMatchObject({ key: 'late', name: 'Late', enabled: true });
    const result = await child;
    expect(result.exitCode).toBe(0);
  });
});
