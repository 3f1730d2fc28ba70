import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, startServer, testBackend, useServer, type TestServer } from '../../support/server';
import { systemClock } from '../../../internal/core';
import { compileNamespace } from '../../../internal/evaluation';
import { snapshotSlices } from '../../../internal/server/routes/snapshot-json';
import { openDatabase, storeFor } from '../../../internal/storage';
import { largeDocument } from '../../support/large-document';
import { longestStall } from '../../support/stall';

/**
 * Issue 16, item 1: a full rebuild never holds the event loop in one piece. A write made by
 * another instance that the change log cannot describe reaches this one through its revision
 * poll as a whole-namespace rebuild;
 * with 10,000 flags of five rules that was one synchronous read and compile (1.7 s of stall at
 * ten rules). It is now read in pages of flags and compiled in slices, the loop free between
 * them, and the new snapshot replaces the old whole; evaluations answer from the old one until
 * then (they waited for the rebuild before: 3.2 s at 10,000 flags of ten rules). SQLite only: its reads are the synchronous
 * ones (both instances run in this process, so the stall measured is theirs).
 */

const FLAGS = 10_000;

/** Three variants and five rules over 50 shared segments per flag. */
const document = () => largeDocument({ flags: FLAGS, segments: 50, variants: ['a', 'b', 'c'], rollouts: [34, 33, 33], segmentsOf: (i) => [0, 1, 2, 3, 4].map((r) => (i + r * 11) % 50) });

describe.runIf(testBackend() === 'sqlite')('a whole-namespace rebuild of 10,000 flags', () => {
  const writer = useServer();
  let reader: TestServer;
  beforeAll(async () => {
    expectStatus(await writer.api.request('POST', '/api/v1/import', document(), { 'content-type': 'application/yaml' }), 200);
    reader = await startServer({ PENNON_DB_URL: writer.dbUrl, PENNON_EVALUATION_REFRESH_INTERVAL: '100ms' });
  }, 240_000);
  afterAll(async () => reader?.service.stop());

  /**
   * A write the change log does not record — an older Pennon or Flipt itself on the same
   * database — so the reader cannot tell what it touched and rebuilds the whole namespace
   * (a write it can follow is only reloaded: change-log.test.ts).
   */
  async function writeUnlogged(name: string): Promise<void> {
    const conn = openDatabase(writer.dbUrl);
    try {
      await conn.db.transaction().execute(async (trx) => {
        await trx.updateTable('flags').set({ name }).where('namespace_key', '=', 'default').where('key', '=', 'flag-42').execute();
        await trx.updateTable('namespaces').set({ revision: sql`revision + 1` }).where('key', '=', 'default').execute();
      });
    } finally {
      await conn.close();
    }
  }

  it('after a write by another instance, is read and compiled without holding the loop more than 50 ms, evaluations answered meanwhile', async () => {
    const { snapshots } = reader.service.services;
    const stalls: number[] = [];
    for (let round = 0; round < 3; round++) {
      const before = snapshots.stats.rebuilds;
      const started = performance.now();
      // Evaluations back to back on the reader while it rebuilds: they answer from the snapshot
      // held (nobody there waits to read another instance's write), never behind the rebuild.
      let rebuilding = true;
      const during: number[] = [];
      const evaluations = (async () => {
        while (rebuilding) {
          const asked = performance.now();
          expectStatus(await reader.api.post('/evaluate/v1/variant', { namespaceKey: 'default', flagKey: 'flag-7', entityId: 'u1', context: {} }), 200);
          during.push(performance.now() - asked);
        }
      })();
      const { cpuMs, wallMs } = await longestStall(async () => {
        await writeUnlogged(`Renamed ${round}`);
        while (snapshots.stats.rebuilds === before) await new Promise((r) => setTimeout(r, 5));
        const answeredBefore = during.length;
        while ((await snapshots.flag('default', 'flag-42')).name !== `Renamed ${round}`) await new Promise((r) => setTimeout(r, 5));
        expect(during.length - answeredBefore).toBeGreaterThan(10); // answered while the rebuild ran
      });
      rebuilding = false;
      await evaluations;
      // A wait behind the rebuild would be its whole length (2–6 s here). One evaluation's wall
      // time also counts this process being preempted on a machine busy with other suites (up to
      // ~300 ms seen), so the bound is well under the rebuild rather than tight: what holds the
      // loop is bounded by CPU time below.
      const rebuildMs = performance.now() - started;
      expect(Math.max(...during)).toBeLessThan(Math.min(1000, rebuildMs / 2));
      const flag = await snapshots.flag('default', 'flag-42');
      expect(flag.name).toBe(`Renamed ${round}`);
      // Read in pages, whole and in order: every flag in creation order, each with its five rules' segments.
      const rebuilt = await snapshots.get('default');
      expect(rebuilt.ordered.map((f) => f.key)).toEqual(Array.from({ length: FLAGS }, (_, i) => `flag-${i}`));
      for (const i of [0, 249, 250, 9999]) {
        const f = rebuilt.flags.get(`flag-${i}`)!;
        expect(f.rules.map((r) => r.segments[0].key)).toEqual([0, 1, 2, 3, 4].map((r) => `seg-${(i + r * 11) % 50}`));
        expect(f.rules[0].segments[0].constraints).toHaveLength(3);
        expect(f.rules[0].distributions.map((d) => [d.variantKey, d.rollout])).toEqual([['a', 34], ['b', 33], ['c', 33]]);
      }
      console.log(`rebuild of ${FLAGS} flags after a remote write: ${(performance.now() - started).toFixed(0)} ms; longest stall ${cpuMs.toFixed(1)} ms of CPU (${wallMs.toFixed(1)} ms wall); ${during.length} evaluations meanwhile, the longest ${Math.max(...during).toFixed(1)} ms`);
      stalls.push(cpuMs);
    }
    // Compiled page by page, the snapshot equals one compiled from the whole read model.
    const conn = openDatabase(writer.dbUrl);
    try {
      const whole = compileNamespace((await storeFor(conn, systemClock()).loadNamespace('default'))!);
      const paged = await snapshots.get('default');
      expect(paged.revision).toBe(whole.revision);
      expect([...snapshotSlices(paged, '1.47.0', 500)].join('')).toBe([...snapshotSlices(whole, '1.47.0', 500)].join(''));
    } finally {
      await conn.close();
    }
    // The best of three rounds: a major collection may fall into one (the main thread's CPU time
    // measured 30–32 ms; wall time 28–45 ms on a quiet machine).
    expect(Math.min(...stalls)).toBeLessThan(50);
  }, 120_000);
});
