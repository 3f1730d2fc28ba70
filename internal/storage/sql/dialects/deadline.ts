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

/** A connection of the health probe's own: made at once, connected, asked one trivial question; reset drops it at once. */
export interface ProbeSession {
  connect(): Promise<void>;
  ask(): Promise<void>;
  reset(): void;
  end(): Promise<void>;
}

/**
 * The health probe's connection, kept between probes. A question not answered within a probe's
 * `timeoutMs` fails that probe but stays asked: the next probe waits on the same answer, so a
 * database that is merely slow (a loaded machine) is back the moment it answers — and nothing
 * queues behind a silent one. A question (or a connection being opened) outstanding for
 * `giveUpMs` — a partition — is abandoned: its connection is reset and the next probe starts
 * over on a new one. Opening a connection is not held to the probe's short window (on a loaded
 * machine it can take longer while the database is fine), only to `giveUpMs`.
 */
export function probeSessions(create: () => Promise<ProbeSession>, giveUpMs: number) {
  let session: ProbeSession | null = null;
  let connected = false;
  let outstanding: { since: number; done: Promise<void> } | null = null;
  const drop = () => {
    session?.reset();
    session = null;
    connected = false;
  };
  return {
    async probe(timeoutMs: number): Promise<void> {
      if (!outstanding) {
        const since = performance.now();
        const work = (async () => {
          if (!session) {
            const opened = await create();
            session = opened;
            await opened.connect();
            if (session === opened) connected = true;
          }
          await session.ask();
        })();
        const done = work.then(
          () => {
            if (outstanding?.done === done) outstanding = null;
          },
          (err: unknown) => {
            if (outstanding?.done === done) outstanding = null;
            drop();
            throw err;
          },
        );
        done.catch(() => undefined); // a probe that gave up on it no longer listens
        outstanding = { since, done };
      }
      const current = outstanding;
      await withDeadline(current.done, connected ? timeoutMs : giveUpMs, 'the database health check', () => {
        if (performance.now() - current.since < giveUpMs) return;
        if (outstanding === current) outstanding = null;
        drop();
      });
    },
    async close(): Promise<void> {
      const closing = session;
      session = null;
      connected = false;
      await closing?.end().catch(() => undefined);
    },
  };
}
