import { once } from 'node:events';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeadlineExceeded, probeSessions, withDeadline } from '../../internal/storage/sql/dialects/deadline';
import { until } from '../support/wait';

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

describe('probeSessions (the health probe connection)', () => {
  /** A fake connection whose answers the test releases by hand. */
  function fakeSessions() {
    const made: { asks: number; resets: number; answer: () => void }[] = [];
    const create = async () => {
      const state = { asks: 0, resets: 0, answer: () => undefined as void };
      made.push(state);
      return {
        connect: async () => undefined,
        ask: () => {
          state.asks++;
          return new Promise<void>((resolve) => (state.answer = resolve));
        },
        reset: () => void state.resets++,
        end: async () => undefined,
      };
    };
    return { made, create };
  }

  it('a late answer still counts: the next probe waits on the same question, on the same connection', async () => {
    const { made, create } = fakeSessions();
    const probes = probeSessions(create, 10_000);
    const first = probes.probe(1000);
    await until(() => made[0]?.asks === 1, 'the first question is asked');
    made[0].answer();
    await first;
    expect(await probes.probe(30).catch((e: unknown) => e)).toBeInstanceOf(DeadlineExceeded); // a second question, unanswered in 30 ms
    const again = probes.probe(1000); // waits on that same question: asks nothing new
    expect(made[0].asks).toBe(2);
    made[0].answer();
    await again;
    expect(made).toHaveLength(1);
    expect(made[0].resets).toBe(0);
  });

  it('a question outstanding for giveUpMs is abandoned: its connection reset, the next probe starts over on a new one', async () => {
    const { made, create } = fakeSessions();
    const probes = probeSessions(create, 150);
    const first = probes.probe(1000);
    await until(() => made[0]?.asks === 1, 'the first question is asked');
    made[0].answer();
    await first;
    expect(await probes.probe(50).catch((e: unknown) => e)).toBeInstanceOf(DeadlineExceeded); // 50 ms in: kept
    expect(made[0].resets).toBe(0);
    expect(await probes.probe(200).catch((e: unknown) => e)).toBeInstanceOf(DeadlineExceeded); // past 150 ms: abandoned
    expect(made[0].resets).toBe(1);
    const fresh = probes.probe(1000);
    await until(() => made[1]?.asks === 1, 'a new connection is asked');
    made[1].answer();
    await fresh;
  });
});
