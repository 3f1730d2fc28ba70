import { once } from 'node:events';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadlineExceeded, withDeadline } from '../../internal/storage/sql/dialects/deadline';

/**
 * The client-side deadline on database calls: it rejects a call that gets no answer, tearing its
 * connection down first; and an answer that arrived while the process was blocked (a loaded
 * machine) wins over a deadline that came due in the same stall — only silence is a timeout.
 */
describe('withDeadline', () => {
  // A server in a process of its own (so that it answers while this one is blocked): "pong" 50 ms
  // after "ping", nothing to "hush".
  let child: ChildProcess;
  let port = 0;
  beforeAll(async () => {
    const script =
      "const s=require('net').createServer(c=>c.on('data',d=>String(d)==='ping'&&setTimeout(()=>c.write('pong'),50)).on('error',()=>{}));" +
      "s.listen(0,'127.0.0.1',()=>console.log(s.address().port))";
    child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = await once(child.stdout!, 'data');
    port = Number(String(line).trim());
  });
  afterAll(() => {
    child.kill();
  });

  async function ask(message: string) {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(message);
    return { socket, answer: once(socket, 'data').then(([chunk]) => String(chunk)) };
  }

  it('rejects a call that gets no answer, after running the expiry (which resets its connection)', async () => {
    const { socket, answer } = await ask('hush');
    answer.catch(() => undefined);
    let expired: unknown = null;
    const started = performance.now();
    const err = await withDeadline(answer, 100, 'a statement', (e) => {
      expired = e;
      socket.resetAndDestroy();
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineExceeded);
    expect(expired).toBe(err);
    expect((err as DeadlineExceeded).code).toBe('DEADLINE_EXCEEDED');
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(socket.destroyed).toBe(true);
  });

  it('lets an answer that arrived while the event loop was blocked win over a deadline due in the same stall', async () => {
    const { socket, answer } = await ask('ping');
    let expired = false;
    const result = withDeadline(answer, 20, 'a statement', () => (expired = true));
    // Blocked well past the deadline; the answer (50 ms) lands in the socket meanwhile.
    const until = performance.now() + 400;
    while (performance.now() < until);
    expect(await result).toBe('pong');
    expect(expired).toBe(false);
    socket.destroy();
  });

  it('0 means no deadline', async () => {
    const work = Promise.resolve('done');
    expect(withDeadline(work, 0, 'a statement', () => undefined)).toBe(work);
  });
});
