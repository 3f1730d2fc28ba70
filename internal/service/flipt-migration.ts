import type { DbConfig } from '../config';
import { type Clock } from '../core';
import { compareNamespaces, type EvaluationDifference } from '../evaluation';
import { copyFliptV1, openFliptDatabase, readFliptV1, type AuditSinkSelection, type CopyCounts } from '../storage';
import { cliOrigin, openPreparedStore } from './database';

/**
 * `pennon migrate --from-flipt <url>`: a Flipt v1 database copied into the configured Pennon
 * database in one transaction (the source only read), then, with `verify`, every flag of every
 * namespace evaluated on Flipt's data and on the copy — both by Pennon's evaluator — for
 * `entities` entity ids and the contexts its segments name, every answer compared.
 */

export interface FliptMigrationReport {
  /** golang-migrate's version of the source schema. */
  sourceSchemaVersion: number | null;
  counts: CopyCounts;
  verification: { evaluations: number; differences: EvaluationDifference[] } | null;
}

export interface FliptMigrationOptions {
  drop: boolean;
  verify: boolean;
  entities: number;
}

export async function migrateFromFlipt(sourceUrl: string, target: DbConfig, clock: Clock, options: FliptMigrationOptions, auditSinks: readonly AuditSinkSelection[] = []): Promise<FliptMigrationReport> {
  const source = openFliptDatabase(sourceUrl);
  try {
    const contents = await readFliptV1(source).catch((err: unknown) => {
      throw new Error(`cannot read the Flipt database (${source.describe}): ${(err as Error).message}`, { cause: err });
    });
    const { connection, store } = await openPreparedStore(target, clock, auditSinks);
    try {
      const counts = await copyFliptV1(connection, clock, contents, { drop: options.drop, from: source.describe, origin: cliOrigin(), auditSinks });
      if (!options.verify) return { sourceSchemaVersion: contents.schemaVersion, counts, verification: null };
      let evaluations = 0;
      const differences: EvaluationDifference[] = [];
      for (const data of contents.data) {
        const copied = await store.loadNamespace(data.key);
        if (!copied) {
          differences.push({ namespace: data.key, flag: '', entityId: '', context: {}, source: 'namespace present', target: 'namespace missing' });
          continue;
        }
        const result = compareNamespaces(data, copied, options.entities);
        evaluations += result.evaluations;
        differences.push(...result.differences);
      }
      return { sourceSchemaVersion: contents.schemaVersion, counts, verification: { evaluations, differences } };
    } finally {
      await connection.close();
    }
  } finally {
    await source.close();
  }
}
