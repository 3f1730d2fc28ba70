import type { Clock } from '../../internal/core';

/**
 * A clock a test moves by hand, for code that reads time through a `Clock` (token expiry, the
 * token lookup cache, timestamps): `advance(ms)` jumps it forward, so a test proves what happens
 * after a while without waiting for it. `running` (the default) also follows the wall clock, so
 * whatever else in the process reads the real time still agrees with it; `stopped` never moves
 * on its own (only by 1 µs per reading, as a Clock must strictly increase).
 */
export class ManualClock implements Clock {
  private offsetMicros = 0;
  private last = 0;
  private readonly startMicros = Date.now() * 1000;

  constructor(private readonly mode: 'running' | 'stopped' = 'running') {}

  nowMicros(): number {
    const base = this.mode === 'running' ? Date.now() * 1000 : this.startMicros;
    this.last = Math.max(this.last + 1, base + this.offsetMicros);
    return this.last;
  }

  /** The clock's time in epoch milliseconds (as the API's timestamps read). */
  nowMs(): number {
    return Math.floor(this.nowMicros() / 1000);
  }

  advance(ms: number): void {
    this.offsetMicros += ms * 1000;
  }
}
