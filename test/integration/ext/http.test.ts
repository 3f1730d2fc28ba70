import { afterEach, describe, expect, it } from 'vitest';
import { HttpApi, HttpStore } from '../../../internal/client';
import {
  ExtError,
  PartialImportError,
  applyPlan,
  decodeDocuments,
  droppedState,
  encodeDocuments,
  exportDocuments,
  importText,
  planImport,
  type Document,
} from '../../../internal/ext';
import { useServer } from '../../support/server';
import { fixture, seedMissingSegments } from '../../support/documents-in-store';
import { openTestStore, type TestStore } from '../../support/store';

/** `pennon flag import/export --address`: the HTTP adapter against a real server. */

describe('importing and exporting over HTTP', () => {
  const server = useServer();
  const local: TestStore[] = [];
  const adapter = () => new HttpStore(new HttpApi({ address: server.url }));

  afterEach(async () => {
    for (const fresh of local.splice(0)) await fresh.close();
    // Start every test from an empty default namespace.
    await importText(adapter(), '', { encoding: 'yaml', drop: true });
  });

  /** The same import and export done in-process, for comparison. */
  async function inProcess(text: string, encoding: 'yaml' | 'json', namespaces: string[]): Promise<Document[]> {
    const fresh = await openTestStore();
    local.push(fresh);
    await seedMissingSegments(fresh.store, { default: ['staff'] });
    await importText(fresh.store, text, { encoding });
    return exportDocuments(fresh.store, { namespaces });
  }

  it.each([['export/default.yml'], ['import/stream-default-namespace.json'], ['import/v1.3.yml']])('imports %s and exports it back as an in-process import does', async (file) => {
    const { text, encoding } = fixture(file);
    const remote = adapter();
    await server.api.post('/api/v1/namespaces/default/segments', { key: 'staff', name: 'staff', description: 'seeded', matchType: 'ALL_MATCH_TYPE' });
    const result = await importText(remote, text, { encoding });
    expect(result.created.flags).toBeGreaterThan(0);
    // One request per object created, plus one per default variant.
    const defaults = decodeDocuments(text, { encoding }).documents.flatMap((d) => d.flags ?? []).filter((f) => f.variants?.some((v) => v.default)).length;
    expect(remote.writes).toBe(Object.values(result.created).reduce((a, b) => a + b, 0) + defaults);

    const overHttp = await exportDocuments(adapter(), { namespaces: ['default'] });
    expect(overHttp).toEqual(await inProcess(text, encoding, ['default']));
    expect(encodeDocuments(overHttp, 'yaml')).toBe(encodeDocuments(await inProcess(text, encoding, ['default']), 'yaml'));
  });

  it('creates missing namespaces, and --drop deletes them all and re-creates default', async () => {
    const remote = adapter();
    await importText(remote, 'namespace: {key: team, name: Team}\nsegments:\n- {key: s, name: s}\n', { encoding: 'yaml' });
    expect((await server.api.get('/api/v1/namespaces/team')).body).toMatchObject({ key: 'team', name: 'Team' });
    const result = await importText(remote, 'flags:\n- {key: f, name: f}\n', { encoding: 'yaml', drop: true });
    expect(result.dropped).toEqual(['default', 'team']);
    const list = await server.api.get('/api/v1/namespaces');
    expect(list.body.namespaces.map((n: { key: string; name: string }) => [n.key, n.name])).toEqual([['default', 'Default']]);
    expect((await server.api.get('/api/v1/namespaces/default/flags/f')).status).toBe(200);
  });

  it('sends nothing when the documents do not validate', async () => {
    const remote = adapter();
    const err = await importText(remote, 'flags:\n- {key: f, name: f, rules: [{segment: nowhere}]}\n', { encoding: 'yaml', drop: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtError);
    expect(remote.writes).toBe(0);
  });

  it('reports how far it got when the server refuses a write part-way', async () => {
    const remote = adapter();
    const stream = decodeDocuments('namespace: part\nflags:\n- {key: f, name: f, variants: [{key: v}], rules: [{segment: s}]}\nsegments:\n- {key: s, name: s}\n', { encoding: 'yaml' });
    const plan = planImport(stream, droppedState());
    plan.documents[0].flags[0].rules[0].input.segmentKeys = ['ghost'];
    const err = await applyPlan(remote, plan).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(PartialImportError);
    expect((err as Error).message).toMatch(
      /^4 objects were created before the failure and were not rolled back \(1 namespace, 1 flag, 1 variant, 1 segment\): creating rule 1 of flag "part\/f": POST \/api\/v1\/namespaces\/part\/flags\/f\/rules: http:\/\/127\.0\.0\.1:\d+ answered 404: flag "part\/f" or segment "part\/ghost" not found$/,
    );
    expect(remote.writes).toBe(4);
    expect(remote.lastWrite).toBe('POST /api/v1/namespaces/part/segments');
    // What was created stays.
    expect((await server.api.get('/api/v1/namespaces/part/flags/f')).body.variants).toHaveLength(1);
  });

  it('reads every page of long lists', async () => {
    const flags = Array.from({ length: 1203 }, (_, i) => `- {key: f${i}, name: f${i}}`).join('\n');
    const remote = adapter();
    await importText(remote, `flags:\n${flags}\n`, { encoding: 'yaml' });
    const page = await remote.listFlags('default', { limit: 0, offset: 0 });
    expect(page.items).toHaveLength(1203);
    expect(page.items[1202].key).toBe('f1202');
  }, 120_000);
});
