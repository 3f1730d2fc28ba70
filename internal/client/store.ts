import { PennonError, type ErrorKind, type Namespace, type Page, type Variant } from '../core';
import type {
  ConstraintInput,
  DistributionInput,
  FlagCreateInput,
  FlagUpdateInput,
  ListParams,
  NamespaceInput,
  ReadStore,
  RolloutInput,
  RuleInput,
  SegmentInput,
  VariantInput,
  WriteStore,
} from '../storage';
import { ApiError, type HttpApi } from './http';
import { flagFromJson, rolloutFromJson, ruleFromJson, segmentFromJson } from './resources';

/**
 * The part of the store ports that `pennon flag import/export --address` needs, over the
 * management API (Pennon's or Flipt's). There are no transactions over HTTP, so the importer
 * validates everything first; if a write still fails, `writes` says how many succeeded before
 * it and the error names the request that failed.
 */

type J = Record<string, any>;

export type HttpStoreMethods =
  | 'getNamespace'
  | 'listNamespaces'
  | 'listFlags'
  | 'listSegments'
  | 'listRules'
  | 'listRollouts'
  | 'createNamespace'
  | 'deleteNamespace'
  | 'createFlag'
  | 'updateFlag'
  | 'createVariant'
  | 'createSegment'
  | 'createConstraint'
  | 'createRule'
  | 'createDistribution'
  | 'createRollout';

/** Lists are read in pages of this size, following `nextPageToken`. */
const PAGE = 500;

const KIND_OF_STATUS: Record<number, ErrorKind> = { 400: 'invalid', 401: 'unauthenticated', 403: 'forbidden', 404: 'not_found', 413: 'too_large', 503: 'unavailable' };

const seg = encodeURIComponent;

function namespaceFromJson(n: J): Namespace {
  const micros = (t: unknown) => (typeof t === 'string' ? Date.parse(t) * 1000 : 0);
  return {
    key: n.key,
    name: n.name ?? '',
    description: n.description ?? '',
    protected: n.protected === true,
    createdAt: micros(n.createdAt),
    updatedAt: micros(n.updatedAt),
  };
}

/** One segment goes in `segmentKey` (what every Flipt v1 server accepts), several in `segmentKeys`. */
const segmentFields = (keys: string[]) => (keys.length === 1 ? { segmentKey: keys[0] } : { segmentKeys: keys });

export class HttpStore implements Pick<ReadStore & WriteStore, HttpStoreMethods> {
  /** Successful writes (creates, updates, deletes) so far. */
  writes = 0;
  /** The last successful write, as `METHOD /path`. */
  lastWrite = '';

  constructor(private readonly api: HttpApi) {}

  private async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    let result: T;
    try {
      result = await this.api.call<T>(method, path, body);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const kind = KIND_OF_STATUS[err.status] ?? (err.status === 0 ? 'unavailable' : 'internal');
      throw new PennonError(kind, `${method} ${path}: ${err.message}`, { cause: err });
    }
    if (method !== 'GET') {
      this.writes++;
      this.lastWrite = `${method} ${path}`;
    }
    return result;
  }

  /** Every page of a list; `field` names the array in the response. */
  private async all(path: string, field: string): Promise<J[]> {
    const items: J[] = [];
    let token = '';
    do {
      const query = `?limit=${PAGE}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
      const page = await this.call<J>('GET', path + query);
      items.push(...((page?.[field] as J[] | undefined) ?? []));
      token = page?.nextPageToken ?? '';
    } while (token !== '');
    return items;
  }

  private page<T>(items: T[], params: ListParams): Page<T> {
    const from = params.offset;
    const to = params.limit > 0 ? from + params.limit : items.length;
    return { items: items.slice(from, to), total: items.length, next: null };
  }

  private ns(ns: string): string {
    return `/api/v1/namespaces/${seg(ns)}`;
  }

  async getNamespace(key: string): Promise<Namespace> {
    return namespaceFromJson(await this.call<J>('GET', this.ns(key)));
  }

  async listNamespaces(params: ListParams) {
    return this.page((await this.all('/api/v1/namespaces', 'namespaces')).map(namespaceFromJson), params);
  }

  async listFlags(ns: string, params: ListParams) {
    return this.page((await this.all(`${this.ns(ns)}/flags`, 'flags')).map(flagFromJson), params);
  }

  async listSegments(ns: string, params: ListParams) {
    return this.page((await this.all(`${this.ns(ns)}/segments`, 'segments')).map(segmentFromJson), params);
  }

  async listRules(ns: string, flagKey: string, params: ListParams) {
    return this.page((await this.all(`${this.ns(ns)}/flags/${seg(flagKey)}/rules`, 'rules')).map(ruleFromJson), params);
  }

  async listRollouts(ns: string, flagKey: string, params: ListParams) {
    // Flipt names the rollout list's array `rules`.
    return this.page((await this.all(`${this.ns(ns)}/flags/${seg(flagKey)}/rollouts`, 'rules')).map(rolloutFromJson), params);
  }

  async createNamespace(input: NamespaceInput) {
    return namespaceFromJson(await this.call<J>('POST', '/api/v1/namespaces', input));
  }

  async deleteNamespace(key: string, force: boolean): Promise<void> {
    await this.call('DELETE', `${this.ns(key)}${force ? '?force=true' : ''}`);
  }

  async createFlag(ns: string, input: FlagCreateInput) {
    const { metadata, ...rest } = input;
    return flagFromJson(await this.call<J>('POST', `${this.ns(ns)}/flags`, { ...rest, ...(metadata ? { metadata } : {}) }));
  }

  async updateFlag(ns: string, key: string, input: FlagUpdateInput) {
    const { metadata, ...rest } = input;
    const body = { ...rest, ...(metadata !== undefined ? { metadata: metadata ?? {} } : {}) };
    return flagFromJson(await this.call<J>('PUT', `${this.ns(ns)}/flags/${seg(key)}`, body));
  }

  async createVariant(ns: string, flagKey: string, input: VariantInput): Promise<Variant> {
    const v = await this.call<J>('POST', `${this.ns(ns)}/flags/${seg(flagKey)}/variants`, input);
    return { id: v.id, namespaceKey: ns, flagKey, key: v.key, name: v.name ?? '', description: v.description ?? '', attachment: v.attachment ?? '', createdAt: 0, updatedAt: 0 };
  }

  async createSegment(ns: string, key: string, input: SegmentInput) {
    return segmentFromJson(await this.call<J>('POST', `${this.ns(ns)}/segments`, { key, ...input }));
  }

  async createConstraint(ns: string, segmentKey: string, input: ConstraintInput) {
    const c = await this.call<J>('POST', `${this.ns(ns)}/segments/${seg(segmentKey)}/constraints`, input);
    return segmentFromJson({ constraints: [c] }).constraints[0];
  }

  async createRule(ns: string, flagKey: string, rank: number, input: RuleInput) {
    const body = { ...segmentFields(input.segmentKeys), segmentOperator: input.segmentOperator, rank };
    return ruleFromJson(await this.call<J>('POST', `${this.ns(ns)}/flags/${seg(flagKey)}/rules`, body));
  }

  async createDistribution(ns: string, flagKey: string, ruleId: string, input: DistributionInput) {
    const d = await this.call<J>('POST', `${this.ns(ns)}/flags/${seg(flagKey)}/rules/${seg(ruleId)}/distributions`, input);
    return ruleFromJson({ distributions: [d] }).distributions[0];
  }

  async createRollout(ns: string, flagKey: string, rank: number, input: RolloutInput) {
    const body: J = { rank, description: input.description };
    if (input.segment) {
      const { segmentKeys, segmentOperator, value } = input.segment;
      body.segment = { ...segmentFields(segmentKeys), segmentOperator, value };
    }
    if (input.threshold) body.threshold = input.threshold;
    return rolloutFromJson(await this.call<J>('POST', `${this.ns(ns)}/flags/${seg(flagKey)}/rollouts`, body));
  }
}
