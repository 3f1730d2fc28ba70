import { status as GrpcStatus } from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { isPennonError } from '../../core';
import type { CompiledFlag } from '../../evaluation';
import type { LiveHub } from '../../live';
import { bridgeInput, bulkFlags, type BridgeInput } from '../../wire';
import { booleanOf, flagFor, variantOf } from '../observed-evaluation';
import type { FlagSources } from '../sources';
import type { Answerer, CallContext, CallSpec, DescribeError, Streamer } from './calls';
import { eventStreamer } from './flagd-events';

/**
 * flagd's evaluation protocol (`flagd.evaluation.v1.Service` and `.v2`), as the OpenFeature flagd
 * providers call it in RPC mode, answered by Pennon's evaluator with Flipt's semantics:
 *
 * - the request's `context` is the evaluation context and `targetingKey` the entity id, read as
 *   OFREP reads them (bridgeInput: a random entity without it, non-string values as text); the
 *   namespace is the `x-flipt-namespace` metadata (`default` without it), the Git environment
 *   `x-flipt-environment` — metadata only, never the context, because EventStream carries no
 *   context and must follow what the resolves read;
 * - a variant flag answers ResolveString (the variant key), ResolveObject (its attachment),
 *   ResolveFloat / ResolveInt (the key when it is a number, else the attachment when it is one);
 *   a boolean flag answers ResolveBoolean; anything else is TYPE_MISMATCH;
 * - reasons are OpenFeature's: STATIC where the flag has no rules or rollouts (the same answer
 *   for everyone: the providers cache it until EventStream says the flag changed), TARGETING_MATCH,
 *   SPLIT where the entity's bucket chose, DEFAULT, DISABLED;
 * - errors are flagd's: the gRPC code flagd sends with the word as details, which the providers
 *   turn back into OpenFeature's error codes (NOT_FOUND → FLAG_NOT_FOUND, INVALID_ARGUMENT →
 *   TYPE_MISMATCH, DATA_LOSS → PARSE_ERROR; any other code → GENERAL).
 *
 * The surface is `evaluation` (authentication.exclude.evaluation, namespace-scoped tokens for
 * their namespace), the namespace read as OFREP's header.
 */

type Json = Record<string, unknown>;
type Kind = 'Boolean' | 'String' | 'Float' | 'Int' | 'Object';
type Generation = 'v1' | 'v2';

/** Every flagd method evaluates: the `evaluate` permission, on the namespace X-Flipt-Namespace names. */
const specOf = (rpc: string): CallSpec => ({ method: 'POST', surface: 'evaluation', namespace: { from: 'header' }, operation: rpc, permission: 'evaluate' });
const NO_PARAMS: readonly string[] = [];

/** An error in flagd's words: the status flagd answers it with. */
class FlagdError extends Error {
  constructor(
    readonly code: number,
    word: string,
  ) {
    super(word);
  }
}

const flagNotFound = () => new FlagdError(GrpcStatus.NOT_FOUND, 'FLAG_NOT_FOUND');
const typeMismatch = () => new FlagdError(GrpcStatus.INVALID_ARGUMENT, 'TYPE_MISMATCH');
const parseError = () => new FlagdError(GrpcStatus.DATA_LOSS, 'PARSE_ERROR');

/**
 * flagd's words for what can fail here; the rest (authentication, an unknown environment, the
 * streams' limit, an outage) keeps errors.ts's status, whose codes the providers read alike.
 */
const describe: DescribeError = (err) => {
  if (err instanceof FlagdError) return { code: err.code, message: err.message };
  // `invalid` here is a request message that could not be read (bridgeInput accepts any Struct)
  // or flag data the evaluator refuses (rules out of order): flagd's "input or configuration".
  if (isPennonError(err) && err.kind === 'invalid') return { code: GrpcStatus.DATA_LOSS, message: 'PARSE_ERROR' };
  return null;
};

/** One resolution in protojson's shape; `value` and `variant` absent where nothing answered. */
interface Resolution {
  value?: unknown;
  variant?: string;
  reason: string;
  metadata: Json;
}

function reasonOf(match: boolean, split: boolean, untargeted: boolean): string {
  if (match) return split ? 'SPLIT' : 'TARGETING_MATCH';
  return untargeted ? 'STATIC' : 'DEFAULT';
}

/** A number the variant key spells, else its attachment when that is a JSON number. */
function numberOf(variantKey: string, attachment: string): number | undefined {
  // Flipt keys are [-_,A-Za-z0-9]+: an integer at most; a fraction can only be an attachment.
  if (/^-?\d+$/.test(variantKey)) return Number(variantKey);
  if (attachment.trim() === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(attachment);
    return typeof parsed === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function attachmentObject(attachment: string): Json {
  if (attachment.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(attachment);
  } catch {
    throw parseError();
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw typeMismatch();
  return parsed as Json;
}

/** `kind` of `flag` for `input`: Pennon's evaluator (observed-evaluation.ts), then flagd's shape. */
function resolveFlag(kind: Kind, flag: CompiledFlag, input: BridgeInput): Resolution {
  const { namespaceKey: ns, entityId, context } = input;
  if (flag.type === 'BOOLEAN_FLAG_TYPE') {
    if (kind !== 'Boolean') throw typeMismatch();
    const r = booleanOf(ns, flag, entityId, context);
    const metadata: Json = r.segmentKeys.length > 0 ? { segments: r.segmentKeys.join(',') } : {};
    const reason = reasonOf(r.reason === 'MATCH_EVALUATION_REASON', r.split, flag.rollouts.length === 0);
    return { value: r.enabled, variant: String(r.enabled), reason, metadata };
  }
  if (kind === 'Boolean') throw typeMismatch();
  const r = variantOf(ns, flag, entityId, context);
  const metadata: Json = {};
  if (r.segmentKeys.length > 0) metadata.segments = r.segmentKeys.join(',');
  if (r.variantAttachment !== '') metadata.attachment = r.variantAttachment;
  const disabled = r.reason === 'FLAG_DISABLED_EVALUATION_REASON';
  // No variant answered (no rule matched and no default variant, or a rule without
  // distributions): no value, so that v2 providers answer the code's default.
  if (r.variantKey === '') return { reason: disabled ? 'DISABLED' : 'DEFAULT', metadata };
  const reason = disabled ? 'DISABLED' : reasonOf(r.match, r.split, flag.rules.length === 0);
  switch (kind) {
    case 'String':
      return { value: r.variantKey, variant: r.variantKey, reason, metadata };
    case 'Object':
      return { value: attachmentObject(r.variantAttachment), variant: r.variantKey, reason, metadata };
    default: {
      const n = numberOf(r.variantKey, r.variantAttachment);
      if (n === undefined || (kind === 'Int' && !Number.isSafeInteger(n))) throw typeMismatch();
      return { value: n, variant: r.variantKey, reason, metadata };
    }
  }
}

/** The zero value a v1 answer carries where nothing answered (v1 has no presence). */
const V1_ZERO: Record<Kind, unknown> = { Boolean: false, String: '', Float: 0, Int: 0, Object: {} };

function answerOf(generation: Generation, kind: Kind, resolution: Resolution): Json {
  if (generation === 'v2' || 'value' in resolution) return resolution as unknown as Json;
  return { ...resolution, value: V1_ZERO[kind], variant: '' };
}

/** The request's evaluation context, namespace and entity, as OFREP reads them. */
const inputOf = (context: CallContext): BridgeInput => bridgeInput(context.headers, { context: (context.request.body as Json).context });

function resolver(sources: FlagSources, generation: Generation, kind: Kind, spec: CallSpec): Answerer {
  const type = kind === 'Boolean' ? 'boolean' : 'variant';
  // A lookup that fails is FLAG_NOT_FOUND; an outage keeps its own status.
  const missing = (err: unknown): never => {
    throw isPennonError(err) && err.kind === 'not_found' ? flagNotFound() : err;
  };
  const answer = (flag: CompiledFlag, input: BridgeInput) => answerOf(generation, kind, resolveFlag(kind, flag, input));
  return {
    spec,
    params: NO_PARAMS,
    describe,
    answer(context) {
      const flagKey = (context.request.body as Json).flagKey;
      if (typeof flagKey !== 'string' || flagKey === '') throw flagNotFound();
      const input = inputOf(context);
      // An unknown environment is its own not-found, not a flag's.
      const snapshots = sources.of(context.headers).snapshots;
      let flag: CompiledFlag | Promise<CompiledFlag>;
      try {
        flag = flagFor(snapshots, type, input.namespaceKey, input.namespaceKey, flagKey);
      } catch (err) {
        return missing(err);
      }
      // Synchronous with a fresh snapshot, as Flipt's evaluation methods are.
      if (flag instanceof Promise) return flag.then((f) => answer(f, input), missing);
      return answer(flag, input);
    },
  };
}

/** v1's ResolveAll: what OFREP's bulk evaluates (every boolean flag, every enabled variant flag), each as its own type. */
function resolveAll(sources: FlagSources, spec: CallSpec): Answerer {
  return {
    spec,
    params: NO_PARAMS,
    describe,
    async answer(context) {
      const input = inputOf(context);
      const snapshots = sources.of(context.headers).snapshots;
      const snapshot = await snapshots.get(input.namespaceKey);
      const flags: Json = {};
      for (const key of bulkFlags(input.context, snapshot.ordered)) {
        const flag = snapshot.flags.get(key);
        // As flagd's ResolveAll: a flag that cannot answer (unknown, no variant) is left out.
        if (!flag) continue;
        const kind: Kind = flag.type === 'BOOLEAN_FLAG_TYPE' ? 'Boolean' : 'String';
        const r = resolveFlag(kind, flag, input);
        if (!('value' in r)) continue;
        flags[key] = { reason: r.reason, variant: r.variant, metadata: r.metadata, ...(kind === 'Boolean' ? { boolValue: r.value } : { stringValue: r.value }) };
      }
      return { flags, metadata: {} };
    },
  };
}

const KINDS: readonly Kind[] = ['Boolean', 'String', 'Float', 'Int', 'Object'];

/** Both generations' methods, by full name, for the gRPC server to serve beside Flipt's. */
export function flagdCalls(root: protobuf.Root, sources: FlagSources, live: LiveHub, maxBufferedBytes: number): { answerers: Map<string, Answerer>; streams: Map<string, Streamer> } {
  const answerers = new Map<string, Answerer>();
  const streams = new Map<string, Streamer>();
  for (const generation of ['v1', 'v2'] as const) {
    const service = `flagd.evaluation.${generation}.Service`;
    for (const kind of KINDS) answerers.set(`${service}/Resolve${kind}`, resolver(sources, generation, kind, specOf(`${service}/Resolve${kind}`)));
    const events = root.lookupType(`flagd.evaluation.${generation}.EventStreamResponse`);
    streams.set(`${service}/EventStream`, eventStreamer({ spec: specOf(`${service}/EventStream`), describe, sources, live, maxBufferedBytes, events }));
  }
  answerers.set('flagd.evaluation.v1.Service/ResolveAll', resolveAll(sources, specOf('flagd.evaluation.v1.Service/ResolveAll')));
  return { answerers, streams };
}
