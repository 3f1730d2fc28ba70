import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../internal/cache/breaker';
import { until } from '../support/wait';

/** The Redis cache's circuit breaker (internal/cache/breaker.ts): trips once, probes one at a time, closes on an answer. */
describe('CircuitBreaker', () => {
  it('trips once, keeps probing while the probe fails, closes on the first answer, and reports each change once', async () => {
    const events: string[] = [];
    let answer = false;
    let probes = 0;
    let running = 0;
    let overlapped = false;
    const breaker = new CircuitBreaker(
      async () => {
        probes++;
        running++;
        overlapped ||= running > 1;
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return answer;
      },
      10,
      { opened: (err) => events.push(`opened: ${(err as Error).message}`), closed: () => events.push('closed') },
    );
    expect(breaker.isOpen).toBe(false);
    breaker.trip(new Error('Command timed out'));
    breaker.trip(new Error('a second failure while open'));
    expect(breaker.isOpen).toBe(true);
    expect(breaker.since).not.toBeNull();
    await until(() => probes >= 3, 'the probe has failed three times');
    expect(breaker.isOpen).toBe(true);
    answer = true;
    await until(() => !breaker.isOpen, 'a probe has closed the breaker');
    const probesWhenClosed = probes;
    await new Promise((r) => setTimeout(r, 50));
    expect(probes).toBe(probesWhenClosed); // no probing while closed
    expect(overlapped).toBe(false);
    expect(events).toEqual(['opened: Command timed out', 'closed']);
    breaker.stop();
  });

  it('stops probing when stopped', async () => {
    let probes = 0;
    const breaker = new CircuitBreaker(async () => (probes++, false), 10, { opened: () => undefined, closed: () => undefined });
    breaker.trip(new Error('x'));
    await until(() => probes >= 1, 'a probe ran');
    breaker.stop();
    const stoppedAt = probes;
    await new Promise((r) => setTimeout(r, 60));
    expect(probes).toBeLessThanOrEqual(stoppedAt + 1); // at most the one already running
  });
});
