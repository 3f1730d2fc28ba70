import type { Worker } from 'node:worker_threads';
import { PennonError } from '../core';
import { threadFailure } from './bulk-thread-protocol';

/** Messages in arrival order, taken one at a time; a failure is taken after what came before it. */
export class Inbox<T> {
  private readonly queue: T[] = [];
  private failure: Error | null = null;
  private waiting: { resolve: (value: T) => void; reject: (err: Error) => void } | null = null;

  put(value: T): void {
    if (this.waiting) {
      this.waiting.resolve(value);
      this.waiting = null;
    } else this.queue.push(value);
  }

  fail(err: Error): void {
    this.failure ??= err;
    if (this.waiting && this.queue.length === 0) {
      this.waiting.reject(this.failure);
      this.waiting = null;
    }
  }

  take(): Promise<T> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift()!);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }
}

/**
 * A bulk thread's messages as an Inbox: its own failure (out of memory: a 413-kind error with
 * `advice`) or an exit before the last message is taken after what it sent before.
 */
export function inboxOf<T>(worker: Worker, what: 'export' | 'Git snapshot', advice: string): Inbox<T> {
  const inbox = new Inbox<T>();
  worker.on('message', (message: T) => inbox.put(message));
  worker.once('error', (err: Error & { code?: string }) => inbox.fail(threadFailure(err, what, advice)));
  worker.once('exit', (code) => inbox.fail(new PennonError('internal', `the ${what} thread stopped (exit code ${code}) before it finished`)));
  return inbox;
}
