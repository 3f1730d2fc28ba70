import { connect, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy } from '../../support/fault-proxy';

/** The fault proxy itself, in front of an echo server: each mode does what the outage tests rely on. */

function echoServer(): Promise<Server> {
  const server = createServer((socket) => socket.on('data', (chunk) => socket.write(chunk)).on('error', () => undefined));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}

/** The next chunk the socket receives, or null if none arrives within `ms`. */
function nextChunk(socket: Socket, ms: number): Promise<string | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.off('data', onData);
      resolve(null);
    }, ms);
    const onData = (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(chunk.toString());
    };
    socket.once('data', onData);
  });
}

describe('fault proxy', () => {
  let echo: Server;
  let proxy: FaultProxy;
  beforeAll(async () => {
    echo = await echoServer();
    const address = echo.address() as { port: number };
    proxy = await FaultProxy.start({ host: '127.0.0.1', port: address.port });
  });
  afterAll(async () => {
    await proxy.close();
    echo.close();
  });

  it('passes bytes both ways', async () => {
    const socket = await open(proxy.port);
    socket.write('hello');
    expect(await nextChunk(socket, 2000)).toBe('hello');
    socket.destroy();
  });

  it('holds bytes while blackholed and delivers them once healed', async () => {
    const socket = await open(proxy.port);
    await proxy.set('blackhole');
    socket.write('held');
    expect(await nextChunk(socket, 200)).toBeNull();
    const delivered = nextChunk(socket, 2000);
    await proxy.set('pass');
    expect(await delivered).toBe('held');
    socket.destroy();
  });

  it('accepts new connections while blackholed but answers nothing', async () => {
    await proxy.set('blackhole');
    const socket = await open(proxy.port);
    socket.write('anyone?');
    expect(await nextChunk(socket, 200)).toBeNull();
    socket.destroy();
    await proxy.set('pass');
  });

  it('refuses connections, resets open ones, and listens on the same port again', async () => {
    const socket = await open(proxy.port);
    const closed = once(socket, 'close');
    socket.on('error', () => undefined);
    await proxy.set('refuse');
    await closed;
    const refused = connect(proxy.port, '127.0.0.1');
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');
    await proxy.set('pass');
    const again = await open(proxy.port);
    again.write('back');
    expect(await nextChunk(again, 2000)).toBe('back');
    again.destroy();
  });

  it('delays every chunk when slow', async () => {
    await proxy.set('slow', { delayMs: 150 });
    const socket = await open(proxy.port);
    const started = performance.now();
    socket.write('late');
    expect(await nextChunk(socket, 3000)).toBe('late');
    // Both directions are delayed: at least two delays pass before the echo comes back.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    socket.destroy();
    await proxy.set('pass');
  });

  it('rewrites a service URL to go through it', () => {
    expect(proxy.rewrite('postgres://postgres@localhost:5432/postgres?x=1')).toBe(`postgres://postgres@127.0.0.1:${proxy.port}/postgres?x=1`);
  });
});
