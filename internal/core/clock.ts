import { v7 as uuidv7 } from 'uuid';
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

/**
 * A new row id: a UUID as Flipt's, but version 7 (time-ordered, monotonic within a process)
 * rather than 4. The ids are primary keys: random ones land anywhere in the index, so a bulk
 * import of 300,000 distributions touched pages all over it (8.8 s against 1.4 s in order).
 */
export function newId(): string {
  return uuidv7();
}
