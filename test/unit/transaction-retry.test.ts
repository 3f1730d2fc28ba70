import { describe, expect, it } from 'vitest';
import { retryWindowMs, TRANSACTION_ATTEMPTS } from '../../internal/storage/sql/transaction';

/**
 * The pause between attempts of a transaction that lost a conflict (CockroachDB's 40001,
 * deadlocks): the window grows with the attempt and with how long the losing attempt ran, so
 * that a burst of writers spreads out on a slow machine as it does on a fast one.
 */
describe('the retry window after a lost conflict', () => {
  it('doubles with each attempt, from at least 10 ms', () => {
    expect([1, 2, 3, 4].map((attempt) => retryWindowMs(attempt, 2))).toEqual([20, 40, 80, 160]);
  });

  it('scales with the duration of the attempt that lost', () => {
    expect(retryWindowMs(1, 150)).toBe(300);
    expect(retryWindowMs(3, 150)).toBe(1200);
    expect(retryWindowMs(3, 150)).toBe(15 * retryWindowMs(3, 10));
  });

  it('never passes 2 s, so the last attempts still come within seconds', () => {
    expect(retryWindowMs(TRANSACTION_ATTEMPTS - 1, 40)).toBe(2000);
    expect(retryWindowMs(1, 60_000)).toBe(2000);
  });
});
