import { randomUUID } from 'node:crypto';
import { Command, InvalidArgumentError } from 'commander';
import type { HttpApi } from '../internal/client';
import type { NamespaceData } from '../internal/core';
import type { Context } from '../internal/evaluation';
import type { BooleanEvaluationJson, EvaluationRequestJson, VariantEvaluationJson } from '../internal/wire';
import { addressOption, configFrom, fail, type GlobalOptions } from './common';

interface EvaluateOptions {
  entityId?: string;
  context: string[];
  namespace: string;
  requestId?: string;
  address?: string;
  token?: string;
  json?: boolean;
}

function contextPair(value: string, previous: string[]): string[] {
  if (!value.includes('=')) throw new InvalidArgumentError(`"${value}" is not key=value`);
  return [...previous, value];
}

function contextOf(pairs: string[]): Context {
  const context: Context = Object.create(null);
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    context[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return context;
}

/**
 * The namespace's data: read from the configured database (which must exist: nothing is
 * created for a read), or from a server's API. `where` names what was read, for "not found".
 */
async function load(options: EvaluateOptions, flagKey: string, globals: GlobalOptions): Promise<{ data: NamespaceData | null; where: string; api?: HttpApi }> {
  if (options.address) {
    const { HttpApi, fetchFlagData } = await import('../internal/client');
    const api = new HttpApi({ address: options.address, token: options.token });
    return { data: await fetchFlagData(api, options.namespace, flagKey), where: options.address, api };
  }
  const { config } = await configFrom(globals);
  const { compose } = await import('../internal/service/compose');
  const { connection, store, close } = await compose(config, { only: 'database', database: 'existing' });
  try {
    // Only this flag (and the segments it uses): a namespace of 10,000 flags reads as fast as one of ten.
    const data = (await store.loadFlags(options.namespace, [flagKey], [])) ?? (await store.loadNamespace(options.namespace));
    return { data, where: connection.describe };
  } finally {
    await close();
  }
}

export function evaluateCommand(program: Command): void {
  program
    .command('evaluate')
    .description('evaluate a flag for an entity and show why it answered what it did')
    .argument('<flagKey>', 'the flag to evaluate')
    .option('-e, --entity-id <id>', 'the entity (default: a random id)')
    .option('-c, --context <key=value>', 'a context value (repeatable)', contextPair, [])
    .option('-n, --namespace <key>', 'the namespace', 'default')
    .option('-r, --request-id <id>', 'the request id to report')
    .addOption(addressOption('evaluate on a running server (e.g. http://localhost:8080) instead of the database'))
    .option('-t, --token <token>', 'client token for --address')
    .option('--json', 'print the /evaluate/v1 response as JSON')
    .action(async (flagKey: string, options: EvaluateOptions, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      try {
        const started = performance.now();
        const entityId = options.entityId ?? randomUUID();
        const context = contextOf(options.context);
        const { data, where, api } = await load(options, flagKey, globals);
        const { notFound } = await import('../internal/core');
        const { compileNamespace, evaluateBoolean, evaluateVariant, explain, newTrace } = await import('../internal/evaluation');
        const { booleanEvaluationToJson, timing, variantEvaluationToJson } = await import('../internal/wire');
        const flag = data && compileNamespace(data).flags.get(flagKey);
        if (!flag) throw notFound(`flag "${options.namespace}/${flagKey}" not found in ${where}`);

        const trace = newTrace();
        const isBoolean = flag.type === 'BOOLEAN_FLAG_TYPE';
        const local = isBoolean ? evaluateBoolean(flag, entityId, context, trace) : evaluateVariant(flag, entityId, context, trace);
        const requestId = options.requestId ?? randomUUID();
        const request: EvaluationRequestJson = { namespaceKey: options.namespace, flagKey, entityId, context, requestId };
        const response: VariantEvaluationJson | BooleanEvaluationJson = api
          ? await api.post<VariantEvaluationJson | BooleanEvaluationJson>(`/evaluate/v1/${isBoolean ? 'boolean' : 'variant'}`, request)
          : isBoolean
            ? booleanEvaluationToJson(flagKey, local as ReturnType<typeof evaluateBoolean>, timing(requestId, started))
            : variantEvaluationToJson(flagKey, local as ReturnType<typeof evaluateVariant>, timing(requestId, started));

        if (options.json) {
          process.stdout.write(`${JSON.stringify(response, null, 2)}\n`);
          return;
        }
        const lines = [`namespace ${options.namespace}, entity ${JSON.stringify(entityId)}`, ...explain(flag, trace, local)];
        const remote = isBoolean ? String((response as BooleanEvaluationJson).enabled) : String((response as VariantEvaluationJson).variantKey);
        const mine = isBoolean ? String((local as { enabled: boolean }).enabled) : (local as { variantKey: string }).variantKey;
        if (api && remote !== mine) lines.push(`note: the server answered ${remote}; its flag changed since it was read here`);
        process.stdout.write(`${lines.join('\n')}\n`);
      } catch (err) {
        fail(err, globals);
      }
    });
}
