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
import {
  constraintFromJson,
  distributionFromJson,
  flagFromJson,
  namespaceFromJson,
  rolloutFromJson,
  ruleFromJson,
  segmentFromJson,
  variantFromJson,
  type ConstraintJson,
  type ConstraintRequestJson,
  type DistributionJson,
  type DistributionRequestJson,
  type FlagCreateJson,
  type FlagJson,
  type FlagUpdateJson,
  type NamespaceCreateJson,
  type NamespaceJson,
  type PageJson,
  type Received,
  type RolloutJson,
  type RolloutRequestJson,
  type RuleJson,
  type RuleRequestJson,
  type SegmentChoiceJson,
  type SegmentCreateJson,
  type SegmentJson,
  type VariantJson,
  type VariantRequestJson,
} from '../wire';
import { ApiError, type HttpApi } from './http';

/**
 * The part of the store ports that `pennon flag import/export --address` needs, over the
 * management API (Pennon's or Flipt's). There are no transactions over HTTP, so the importer
 * validates everything first; if a write still fails, `writes` says how many succeeded before
 * it and the error names the request that failed.
 */

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

const KIND_OF_STATUS: Record<number, ErrorKind> = { 400: 'invalid', 401: 'unauthenticated', 403: 'forbidden', 404: 'not_found', 413: 'too_large', 429: 'rate_limited', 503: 'unavailable' };

/** One part of a path, encoded. */
const pathPart = encodeURIComponent;

/** One segment goes in `segmentKey` (what every Flipt v1 server accepts), several in `segmentKeys`. */
const segmentChoice = (keys: string[]): SegmentChoiceJson => (keys.length === 1 ? { segmentKey: keys[0] } : { segmentKeys: keys });

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

  /** Every item of every page of a list; `field` names the array in the response. */
  private async all<T, F extends string>(path: string, field: F): Promise<Received<T>[]> {
    const items: Received<T>[] = [];
    let token = '';
    do {
      const query = `?limit=${PAGE}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
      const page = await this.call<Received<PageJson> & { [K in F]?: (Received<T> | null)[] | null }>('GET', path + query);
      for (const item of page?.[field] ?? []) items.push(item ?? ({} as Received<T>));
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
    return `/api/v1/namespaces/${pathPart(ns)}`;
  }

  async getNamespace(key: string): Promise<Namespace> {
    return namespaceFromJson(await this.call<Received<NamespaceJson>>('GET', this.ns(key)));
  }

  async listNamespaces(params: ListParams) {
    return this.page((await this.all<NamespaceJson, 'namespaces'>('/api/v1/namespaces', 'namespaces')).map(namespaceFromJson), params);
  }

  async listFlags(ns: string, params: ListParams) {
    return this.page((await this.all<FlagJson, 'flags'>(`${this.ns(ns)}/flags`, 'flags')).map(flagFromJson), params);
  }

  async listSegments(ns: string, params: ListParams) {
    return this.page((await this.all<SegmentJson, 'segments'>(`${this.ns(ns)}/segments`, 'segments')).map(segmentFromJson), params);
  }

  async listRules(ns: string, flagKey: string, params: ListParams) {
    return this.page((await this.all<RuleJson, 'rules'>(`${this.ns(ns)}/flags/${pathPart(flagKey)}/rules`, 'rules')).map(ruleFromJson), params);
  }

  async listRollouts(ns: string, flagKey: string, params: ListParams) {
    // Flipt names the rollout list's array `rules`.
    return this.page((await this.all<RolloutJson, 'rules'>(`${this.ns(ns)}/flags/${pathPart(flagKey)}/rollouts`, 'rules')).map(rolloutFromJson), params);
  }

  async createNamespace(input: NamespaceInput) {
    const body: NamespaceCreateJson = input;
    return namespaceFromJson(await this.call<Received<NamespaceJson>>('POST', '/api/v1/namespaces', body));
  }

  async deleteNamespace(key: string, force: boolean): Promise<void> {
    await this.call('DELETE', `${this.ns(key)}${force ? '?force=true' : ''}`);
  }

  async createFlag(ns: string, input: FlagCreateInput) {
    const { metadata, ...rest } = input;
    const body: FlagCreateJson = { ...rest, ...(metadata ? { metadata } : {}) };
    return flagFromJson(await this.call<Received<FlagJson>>('POST', `${this.ns(ns)}/flags`, body));
  }

  async updateFlag(ns: string, key: string, input: FlagUpdateInput) {
    const { metadata, ...rest } = input;
    const body: FlagUpdateJson = { ...rest, ...(metadata !== undefined ? { metadata: metadata ?? {} } : {}) };
    return flagFromJson(await this.call<Received<FlagJson>>('PUT', `${this.ns(ns)}/flags/${pathPart(key)}`, body));
  }

  async createVariant(ns: string, flagKey: string, input: VariantInput): Promise<Variant> {
    const body: VariantRequestJson = input;
    const created = await this.call<Received<VariantJson>>('POST', `${this.ns(ns)}/flags/${pathPart(flagKey)}/variants`, body);
    return { ...variantFromJson(created), namespaceKey: ns, flagKey };
  }

  async createSegment(ns: string, key: string, input: SegmentInput) {
    const body: SegmentCreateJson = { key, ...input };
    return segmentFromJson(await this.call<Received<SegmentJson>>('POST', `${this.ns(ns)}/segments`, body));
  }

  async createConstraint(ns: string, segmentKey: string, input: ConstraintInput) {
    const body: ConstraintRequestJson = input;
    return constraintFromJson(await this.call<Received<ConstraintJson>>('POST', `${this.ns(ns)}/segments/${pathPart(segmentKey)}/constraints`, body));
  }

  async createRule(ns: string, flagKey: string, rank: number, input: RuleInput) {
    const body: RuleRequestJson = { ...segmentChoice(input.segmentKeys), segmentOperator: input.segmentOperator, rank };
    return ruleFromJson(await this.call<Received<RuleJson>>('POST', `${this.ns(ns)}/flags/${pathPart(flagKey)}/rules`, body));
  }

  async createDistribution(ns: string, flagKey: string, ruleId: string, input: DistributionInput) {
    const body: DistributionRequestJson = input;
    const path = `${this.ns(ns)}/flags/${pathPart(flagKey)}/rules/${pathPart(ruleId)}/distributions`;
    return distributionFromJson(await this.call<Received<DistributionJson>>('POST', path, body));
  }

  async createRollout(ns: string, flagKey: string, rank: number, input: RolloutInput) {
    const body: RolloutRequestJson = { rank, description: input.description };
    if (input.segment) {
      const { segmentKeys, segmentOperator, value } = input.segment;
      body.segment = { ...segmentChoice(segmentKeys), segmentOperator, value };
    }
    if (input.threshold) body.threshold = input.threshold;
    return rolloutFromJson(await this.call<Received<RolloutJson>>('POST', `${this.ns(ns)}/flags/${pathPart(flagKey)}/rollouts`, body));
  }
}
