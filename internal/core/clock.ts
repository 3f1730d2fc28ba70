import { randomUUID } from 'node:crypto';
import type { Micros } from './types';

/** Where time comes from; injectable so that tests can pin it. */
export interface Clock {
  /** Epoch microseconds, strictly increasing within this clock. */
  nowMicros(): Micros;
}

/**
 * The system clock at microsecond resolution. Strictly increasing, because list order and
 * the order of a rule's distributions (which decides bucket ownership) follow creation time.
 */
export function systemClock(): Clock {
  const originMicros = Date.now() * 1000;
  const originHr = process.hrtime.bigint();
  let last = 0;
  return {
    nowMicros() {
      const elapsed = Number((process.hrtime.bigint() - originHr) / 1000n);
      const now = Math.max(originMicros + elapsed, last + 1);
      last = now;
      return now;
    },
  };
}

export function newId(): string {
  return randomUUID();
}
