import { SpanKind, SpanStatusCode, type Attributes, type Context } from '@opentelemetry/api';
import type {
  CompiledQuery,
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryExecutor,
  QueryId,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { TraceableConnection } from './tracing-types';
import { requestOf, type PendingQuery, type RequestTrace, type TracingCore } from './tracing-http';

/**
 * A CLIENT span per database query made on behalf of a traced request, through a Kysely plugin
 * (the storage room's files stay as they are). Kysely shows a plugin each query twice: when it
 * is compiled (`transformQuery`) and when its result is back (`transformResult`); it does not
 * show failures. So: the span starts at compilation; a result ends it; a query still without a
 * result when its request ends failed (or was abandoned) and is ended then, with an error status
 * and the request's end as its end. Queries outside requests (the revision poller, token
 * cleanup) make no spans: a trace per poll each second would bury the requests' traces.
 *
 * SQLite's evaluation reads bypass Kysely's executor (`adapter.arrayRows`, prepared statements
 * kept); the wrapper below ends their spans exactly. BEGIN/COMMIT are issued by the driver
 * without the plugin and have no spans.
 */

/** `db.system` as OpenTelemetry names our dialects. */
const SYSTEMS: Record<string, string> = { sqlite: 'sqlite', postgres: 'postgresql', mysql: 'mysql', cockroach: 'cockroachdb' };

const OPERATIONS: Record<string, string> = {
  SelectQueryNode: 'SELECT',
  InsertQueryNode: 'INSERT',
  UpdateQueryNode: 'UPDATE',
  DeleteQueryNode: 'DELETE',
  MergeQueryNode: 'MERGE',
};

type Node = OperationNode & Record<string, any>;

/** The table a query is about, when it names one plainly. */
function tableOf(node: Node): string | undefined {
  const target: Node | undefined =
    node.kind === 'InsertQueryNode' ? node.into : node.kind === 'UpdateQueryNode' ? node.table : node.from?.froms?.[0];
  const table: Node | undefined = target?.kind === 'AliasNode' ? target.node : target;
  return table?.kind === 'TableNode' ? table.table?.identifier?.name : undefined;
}

class Query implements PendingQuery {
  private ended = false;
  sql?: string;

  constructor(
    private readonly core: TracingCore,
    private readonly system: string,
    private readonly executor: () => QueryExecutor,
    private readonly request: RequestTrace,
    private readonly parent: Context,
    private readonly node: RootOperationNode,
    private readonly queryId: QueryId,
    private readonly start: number,
  ) {}

  end(endTime: number, failed: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.request.queries.delete(this.queryId);
    // Compiled again here, for the text only: the plugin never sees the compiled query. The
    // text has placeholders, never the values.
    const sql = this.sql ?? this.executor().compileQuery(this.node, this.queryId).sql;
    const operation = OPERATIONS[this.node.kind] ?? (/^\s*(\w+)/.exec(sql)?.[1] ?? 'QUERY').toUpperCase();
    const table = tableOf(this.node as Node);
    const attributes: Attributes = {
      'db.system': this.system,
      'db.system.name': this.system,
      'db.operation.name': operation,
      'db.query.text': sql,
    };
    if (table) attributes['db.collection.name'] = table;
    const span = this.core.tracer.startSpan(table ? `${operation} ${table}` : operation, { kind: SpanKind.CLIENT, startTime: this.start, attributes }, this.parent);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: 'no result before the request ended: the query failed or was abandoned (end time is the request’s)' });
    span.end(endTime);
  }
}

export function tracedQueries<C extends TraceableConnection>(core: TracingCore, connection: C): C {
  const system = SYSTEMS[connection.adapter.name] ?? connection.adapter.name;
  const pending = new WeakMap<QueryId, Query>();
  /** By node: a query built only to be a subquery is found inside its parent's node and dropped. */
  const byNode = new WeakMap<OperationNode, { queryId: QueryId; request: RequestTrace }>();
  let executor: QueryExecutor | undefined;
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
      const parent = core.contexts.active();
      const request = requestOf(parent);
      if (request) {
        // A builder passed as a subquery (`where('id', 'in', db.selectFrom(…))`) comes through
        // here too, but is never executed itself: it is no query of its own, not a failed one.
        for (const nested of nestedQueries(node as Node)) {
          const inner = byNode.get(nested);
          if (!inner) continue;
          pending.delete(inner.queryId);
          inner.request.queries.delete(inner.queryId);
        }
        const query = new Query(core, system, () => executor!, request, parent, node, queryId, performance.now());
        pending.set(queryId, query);
        byNode.set(node, { queryId, request });
        request.queries.set(queryId, query);
      }
      return node;
    },
    async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      pending.get(queryId)?.end(performance.now(), false);
      return result;
    },
  };
  const db = connection.db.withPlugin(plugin);
  executor = db.getExecutor();
  const arrayRows = connection.adapter.arrayRows?.bind(connection.adapter);
  const adapter = arrayRows
    ? {
        ...connection.adapter,
        arrayRows(query: CompiledQuery): unknown[][] {
          const traced = pending.get(query.queryId);
          if (!traced) return arrayRows(query);
          traced.sql = query.sql;
          let failed = true;
          try {
            const rows = arrayRows(query);
            failed = false;
            return rows;
          } finally {
            traced.end(performance.now(), failed);
          }
        },
      }
    : connection.adapter;
  return { ...connection, db, adapter };
}

/** The query nodes inside a query's node (its subqueries), not the node itself. */
function nestedQueries(root: Node): OperationNode[] {
  const found: OperationNode[] = [];
  const visit = (value: unknown, isRoot: boolean): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, false);
      return;
    }
    if (value === null || typeof value !== 'object' || !('kind' in value)) return;
    const node = value as Node;
    if (!isRoot && OPERATIONS[node.kind]) found.push(node);
    for (const key of Object.keys(node)) if (key !== 'kind') visit(node[key], false);
  };
  visit(root, true);
  return found;
}
