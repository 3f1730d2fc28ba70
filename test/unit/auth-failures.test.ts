import { describe, expect, it } from 'vitest';
import { FailedAuthentications, MAX_ADDRESSES } from '../../internal/auth';
import { keyOf } from '../../internal/auth/failures';
import { isPennonError } from '../../internal/core';
import { ManualClock } from '../support/clock';

/** The failure limiter's rules, on the service's clock (stopped, moved by the test). */

const config = { enabled: true, max_failures: 3, window: 60_000 };

function refusal(fn: () => unknown): { kind: string; retryAfterSeconds: number | undefined } | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (!isPennonError(err)) throw err;
    return { kind: err.kind, retryAfterSeconds: err.retryAfterSeconds };
  }
}

describe('FailedAuthentications', () => {
  it('refuses an address past max_failures until its window ends, other addresses untouched', () => {
    const clock = new ManualClock('stopped');
    const failures = new FailedAuthentications(config, clock);
    for (let i = 0; i < 3; i++) {
      expect(refusal(() => failures.admit('10.0.0.1'))).toBeNull();
      failures.failed('10.0.0.1', 'unknown_token');
    }
    expect(refusal(() => failures.admit('10.0.0.1'))).toEqual({ kind: 'rate_limited', retryAfterSeconds: 60 });
    expect(refusal(() => failures.admit('10.0.0.2'))).toBeNull();
    clock.advance(45_500);
    expect(refusal(() => failures.admit('10.0.0.1'))?.retryAfterSeconds).toBe(15);
    clock.advance(14_501);
    expect(refusal(() => failures.admit('10.0.0.1'))).toBeNull();
    failures.failed('10.0.0.1', 'unknown_token'); // a new window: one failure in it
    expect(refusal(() => failures.admit('10.0.0.1'))).toBeNull();
  });

  it('reports each failure, each refusal, and the limit once per address per window', () => {
    const events: string[] = [];
    const failures = new FailedAuthentications(config, new ManualClock('stopped'), {
      failed: (reason) => events.push(`failed ${reason}`),
      refused: () => events.push('refused'),
      limited: (address, count, retry) => events.push(`limited ${address} ${count} ${retry}`),
    });
    for (let i = 0; i < 5; i++) failures.failed('::ffff:10.0.0.9', 'invalid_jwt');
    refusal(() => failures.admit('10.0.0.9'));
    expect(events).toEqual([...Array(3).fill('failed invalid_jwt'), 'limited 10.0.0.9 3 60', 'failed invalid_jwt', 'failed invalid_jwt', 'refused']);
  });

  it('keeps at most MAX_ADDRESSES addresses, forgetting the oldest', () => {
    const failures = new FailedAuthentications(config, new ManualClock('stopped'));
    for (let i = 0; i < MAX_ADDRESSES + 500; i++) failures.failed(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 'malformed');
    expect(failures.tracked).toBe(MAX_ADDRESSES);
  });

  it('does nothing when disabled or without an address', () => {
    const off = new FailedAuthentications({ ...config, enabled: false }, new ManualClock('stopped'));
    for (let i = 0; i < 10; i++) off.failed('10.0.0.1', 'malformed');
    expect(refusal(() => off.admit('10.0.0.1'))).toBeNull();
    const on = new FailedAuthentications(config, new ManualClock('stopped'));
    for (let i = 0; i < 10; i++) on.failed(undefined, 'malformed');
    expect(on.tracked).toBe(0);
  });

  it('holds lookups in flight within the failures left, and refuses the waiting ones once limited', async () => {
    const failures = new FailedAuthentications(config, new ManualClock('stopped'));
    const granted: (() => void)[] = [];
    const outcomes: string[] = [];
    const attempts = Array.from({ length: 10 }, () =>
      failures.lookupSlot('10.0.0.1').then(
        (release) => {
          granted.push(release);
          outcomes.push('granted');
        },
        () => outcomes.push('refused'),
      ),
    );
    await new Promise((r) => setImmediate(r));
    expect(granted.length).toBe(3);
    // The three lookups find nothing: three failures, the limit.
    for (const release of granted.splice(0)) {
      failures.failed('10.0.0.1', 'unknown_token');
      release();
    }
    await Promise.all(attempts);
    expect(outcomes.filter((o) => o === 'granted').length).toBe(3);
    expect(outcomes.filter((o) => o === 'refused').length).toBe(7);
  });

  it('counts IPv6 addresses by their /64 and IPv4-mapped ones as IPv4', () => {
    expect(keyOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(keyOf('2001:db8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(keyOf('::1')).toBe('0:0:0:0::/64');
    expect(keyOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(keyOf('192.0.2.7')).toBe('192.0.2.7');
  });
});
