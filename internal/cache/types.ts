/**
 * A cache of strings with a time to live. Implementations never throw: a backend that fails
 * answers "miss" (and counts the error), because the database behind is always the truth.
 */
export interface Cache {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Messages between instances (Redis pub/sub). Delivery is best effort: an instance that misses
 * one still catches up through its revision poll.
 */
export interface Broadcast {
  publish(message: string): void;
  subscribe(handler: (message: string) => void): void;
  /** Called when the link comes back after an outage: messages may have been missed. */
  onRecover(handler: () => void): void;
}
