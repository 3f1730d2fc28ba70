import { expectStatus, type ApiClient, type TestServer } from '../../../support/server';

/**
 * The data the fuzzer aims at: one namespace of everything (a variant flag with variants,
 * metadata, a rule and a distribution; a segment with a constraint; a boolean flag with a
 * rollout). `fuzz` is protected — only requests that must be refused may write to it, and it
 * must read back unchanged after every one — and `sandbox` takes any request.
 */
export interface World {
  ns: string;
  flag: string;
  bool: string;
  seg: string;
  variant: string;
  rule: string;
  constraint: string;
  distribution: string;
  rollout: string;
}

export async function seedWorld(api: ApiClient, ns: string): Promise<World> {
  const p = `/api/v1/namespaces/${ns}`;
  expectStatus(await api.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
  const flag = `${ns}-flag`;
  const bool = `${ns}-bool`;
  const seg = `${ns}-seg`;
  expectStatus(await api.post(`${p}/flags`, { key: flag, name: 'Fuzz flag', enabled: true, metadata: { team: 'qa', nested: { list: [1, 'two'] } } }), 200);
  const v1 = expectStatus(await api.post(`${p}/flags/${flag}/variants`, { key: 'v1', attachment: '{"a":[1,{"b":null}]}' }), 200);
  expectStatus(await api.post(`${p}/flags/${flag}/variants`, { key: 'v2' }), 200);
  expectStatus(await api.put(`${p}/flags/${flag}`, { name: 'Fuzz flag', enabled: true, defaultVariantId: v1.id }), 200);
  expectStatus(await api.post(`${p}/segments`, { key: seg, name: 'Fuzz segment', matchType: 'ANY_MATCH_TYPE' }), 200);
  const constraint = expectStatus(
    await api.post(`${p}/segments/${seg}/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'region', operator: 'isoneof', value: '["eu","us"]' }),
    200,
  );
  const rule = expectStatus(await api.post(`${p}/flags/${flag}/rules`, { segmentKey: seg, rank: 1 }), 200);
  const distribution = expectStatus(await api.post(`${p}/flags/${flag}/rules/${rule.id}/distributions`, { variantId: v1.id, rollout: 100 }), 200);
  expectStatus(await api.post(`${p}/flags`, { key: bool, name: 'Fuzz boolean', type: 'BOOLEAN_FLAG_TYPE' }), 200);
  const rollout = expectStatus(await api.post(`${p}/flags/${bool}/rollouts`, { rank: 1, threshold: { percentage: 50, value: true } }), 200);
  return { ns, flag, bool, seg, variant: v1.id, rule: rule.id, constraint: constraint.id, distribution: distribution.id, rollout: rollout.id };
}

/** Every value a world names, so that generated "hostile" values never hit one by chance. */
export function namesOf(world: World): string[] {
  return Object.values(world);
}

/** The world's value for a route parameter, by the collection the parameter names an item of. */
export function valueFor(world: World, url: string, param: string): string {
  const segments = url.split('/');
  const collection = segments[segments.indexOf(param === '*' ? '*' : `:${param}`) - 1];
  if (param === 'namespaceKey' || collection === 'namespaces' || collection === 'namespace') return world.ns;
  switch (collection) {
    case 'flags':
      return url.includes('/rollouts') ? world.bool : world.flag;
    case 'segments':
      return world.seg;
    case 'variants':
      return world.variant;
    case 'rules':
      return world.rule;
    case 'constraints':
      return world.constraint;
    case 'distributions':
      return world.distribution;
    case 'rollouts':
      return world.rollout;
    default:
      return world.ns;
  }
}

/** What the API shows of a world: any change here is a change to the world. */
export async function snapshotOf(server: TestServer, world: World): Promise<Record<string, { status: number; body: unknown }>> {
  const p = `/api/v1/namespaces/${world.ns}`;
  const paths = [
    p,
    `${p}/flags`,
    `${p}/flags/${world.flag}`,
    `${p}/flags/${world.bool}`,
    `${p}/segments`,
    `${p}/segments/${world.seg}`,
    `${p}/flags/${world.flag}/rules`,
    `${p}/flags/${world.flag}/rules/${world.rule}`,
    `${p}/flags/${world.bool}/rollouts`,
    `${p}/flags/${world.bool}/rollouts/${world.rollout}`,
    `/internal/v1/evaluation/snapshot/namespace/${world.ns}`,
  ];
  const out: Record<string, { status: number; body: unknown }> = {};
  for (const path of paths) {
    const res = await server.api.get(path);
    out[path] = { status: res.status, body: res.body };
  }
  return out;
}

/** The namespace's revision as the client snapshot's ETag shows it ('' when the namespace does not exist). */
export async function revisionOf(server: TestServer, ns: string): Promise<string> {
  const res = await fetch(`${server.url}/internal/v1/evaluation/snapshot/namespace/${ns}`, { method: 'HEAD' });
  return res.headers.get('etag') ?? '';
}
