import type { Socket } from 'node:net';

/**
 * Client-side deadlines on database calls, whatever the driver. A database that is partitioned
 * away (connections accepted, nothing answered) never fails a call by itself: without a
 * deadline the call waits until TCP gives up, minutes later, holding its pooled connection the
 * whole time — and the statement, held in the network, may still reach the database and commit
 * after the client was told it failed.
 */

/** A call that got no answer within its deadline: its connection was reset and never reused. */
export class DeadlineExceeded extends Error {
  /** Shown by /health as the reason (only codes are shown there). */
  readonly code = 'DEADLINE_EXCEEDED';

  constructor(what: string, ms: number) {
    super(`${what} got no answer within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

export function isDeadlineExceeded(err: unknown): boolean {
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DeadlineExceeded) return true;
  }
  return false;
}

/**
 * Settles with `work`, or rejects with DeadlineExceeded after `ms` (0: no deadline), calling
 * `expire` first so that the caller can tear the connection down. `work`'s own late outcome is
 * swallowed (its connection is gone by then).
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string, expire: (err: DeadlineExceeded) => void): Promise<T> {
  if (!(ms > 0)) return work;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      // A timer that came due while the event loop was blocked runs before the I/O that arrived
      // meanwhile is read. Deciding one turn later (setImmediate runs after the poll phase) lets
      // an answer already waiting in the socket win: a stalled process must not take a database
      // that answered for a silent one.
      setImmediate(() => {
        if (settled) return;
        settled = true;
        const err = new DeadlineExceeded(what, ms);
        try {
          expire(err);
        } finally {
          reject(err);
        }
      });
    }, ms);
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/**
 * Closes a connection's socket with a reset (SO_LINGER 0), not a FIN: a plain close lets the
 * kernel keep retransmitting what is still in its send buffer — a COMMIT sent into a partition
 * would then reach the database once the network heals, and apply a write its client was told
 * had failed. A reset discards it.
 */
export function resetSocket(socket: Socket | undefined | null): void {
  if (!socket || socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy(); // a socket that never connected (or a TLS wrapper without a handle to reset)
  }
}
