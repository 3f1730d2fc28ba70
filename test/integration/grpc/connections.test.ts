import { connect } from 'node:http2';
import { describe, expect, it } from 'vitest';
import { useServer } from '../../support/server';

/**
 * Flipt's keepalive keys reach the gRPC server: a connection open longer than
 * `server.grpc_conn_max_age` (plus its grace) is told to go away, as one idle longer than
 * `server.grpc_conn_max_idle_time` is.
 */

function goawayWithin(port: number, ms: number): Promise<number> {
  const started = performance.now();
  const session = connect(`http://127.0.0.1:${port}`);
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`no GOAWAY within ${ms} ms`));
    }, ms);
    session.on('error', () => undefined);
    session.on('goaway', () => {
      clearTimeout(timer);
      session.destroy();
      resolve(performance.now() - started);
    });
  });
}

describe('gRPC connection lifetime', () => {
  const aged = useServer({ PENNON_SERVER_GRPC_CONN_MAX_AGE: '400ms', PENNON_SERVER_GRPC_CONN_MAX_AGE_GRACE: '100ms' });
  const idle = useServer({ PENNON_SERVER_GRPC_CONN_MAX_IDLE_TIME: '300ms' });
  const unlimited = useServer();

  it('server.grpc_conn_max_age: GOAWAY after about that long', async () => {
    const after = await goawayWithin(aged.service.grpcPort, 5000);
    // gRPC adds up to ±10% jitter to the age.
    expect(after).toBeGreaterThan(300);
  });

  it('server.grpc_conn_max_idle_time: GOAWAY to a connection with no calls', async () => {
    expect(await goawayWithin(idle.service.grpcPort, 5000)).toBeGreaterThan(250);
  });

  it('by default (0, as Flipt) a connection is never told to go away', async () => {
    await expect(goawayWithin(unlimited.service.grpcPort, 1200)).rejects.toThrow('no GOAWAY within 1200 ms');
  });
});
