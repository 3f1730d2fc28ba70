import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './cli';

/**
 * A private redis-server for one test file, on a free port, so that a test can stop it (by its
 * PID, never by name) and start it again without touching the machine's shared Redis.
 */
export class PrivateRedis {
  private child: ChildProcess | null = null;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async restart(): Promise<void> {
    if (this.child) return;
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.child = child;
    child.on('exit', () => {
      if (this.child === child) this.child = null;
    });
    // Ready when it answers PING.
    const deadline = Date.now() + 5000;
    for (;;) {
      const probe = new Redis(this.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not start`);
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        probe.disconnect();
      }
    }
  }

  /** Kills the server by its PID and waits until it is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid, 'SIGKILL');
    await exited;
  }
}
