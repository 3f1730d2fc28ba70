import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { RequestErrorLog } from '../../internal/server/error-log';
import { until } from '../support/wait';

/** The request error log (internal/server/error-log.ts): one line per kind per interval, a summary, bounded kinds. */

function capture() {
  const lines: { level: number; msg: string; failure?: string; suppressed?: number; reqId?: string }[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) }) };
}

describe('RequestErrorLog', () => {
  it('logs the first failure of a kind, counts the rest, and writes the summary when the interval ends by itself', async () => {
    const { lines, logger } = capture();
    const log = new RequestErrorLog(logger, { intervalMs: 200 });
    for (let i = 0; i < 15; i++) log.error('unavailable|ECONNREFUSED|database unavailable', { reqId: `r${i}` }, 'database unavailable');
    log.error('internal||boom', { reqId: 'other' }, 'boom');
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([
      ['database unavailable', 'r0'],
      ['boom', 'other'],
    ]);
    await until(() => lines.length === 3, 'the summary is written at the end of the interval');
    expect(lines[2]).toMatchObject({ level: 50, failure: 'unavailable|ECONNREFUSED|database unavailable', suppressed: 14, msg: 'database unavailable … and 14 more like it in the last 200 ms' });
    // A new interval: logged in full again.
    log.error('unavailable|ECONNREFUSED|database unavailable', { reqId: 'again' }, 'database unavailable');
    expect(lines.at(-1)).toMatchObject({ reqId: 'again', failure: 'unavailable|ECONNREFUSED|database unavailable' });
    log.close();
  });

  it('bounds the kinds it tracks: past 100 at once, failures share one overflow kind', () => {
    const { lines, logger } = capture();
    let now = 0;
    const log = new RequestErrorLog(logger, { intervalMs: 10_000, now: () => now });
    for (let i = 0; i < 1000; i++) log.error(`internal||message ${i}`, {}, `message ${i}`);
    expect(lines).toHaveLength(101); // 100 kinds, then the overflow's first line
    expect(lines.at(-1)!.failure).toBe('other failures');
    log.close();
    expect(lines.at(-1)).toMatchObject({ failure: 'other failures', suppressed: 899 });
    // After the interval the table is swept: new kinds are tracked again.
    now = 20_000;
    log.error('internal||fresh', {}, 'fresh');
    expect(lines.at(-1)).toMatchObject({ failure: 'internal||fresh' });
    log.close();
  });
});
