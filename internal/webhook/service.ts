import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { classifyDelivery, type DeliveryHeaders, type DeliveryResult, type ScmType } from './providers';

/**
 * The inbound Git webhook (Flipt v2's `POST /api/v2/webhooks/{environment}`, as Flipt
 * documents it; its public code has none) as a service: one delivery in, one verdict out. A
 * delivery is authenticated and sorted by the environment's provider (`providers/`); a push to
 * the tracked branch schedules a fetch of the environment's Git storage. Every delivery is
 * counted and its reason logged here; the caller only maps the verdict to an answer.
 */

/** A Git environment as the webhook needs it (internal/git's GitEnvironment has this shape). */
export interface WebhookEnvironment {
  readonly name: string;
  /** The environment's `scm` settings; without `webhook.secret` it takes no deliveries. */
  readonly scm?: { readonly type: ScmType; readonly webhook?: { readonly secret: string } };
  readonly repository: {
    /** The storage key, for the log. */
    readonly key: string;
    readonly branch: string;
    /** Schedules a fetch (concurrent calls share the queued one); `error` says whether it failed. */
    requestSync(): Promise<{ error: unknown }>;
  };
}

/** The counters a delivery moves (telemetry's Metrics has them). */
export interface WebhookMetrics {
  webhookRequest(environment: string, scm: string, result: string): void;
  webhookSync(environment: string, scm: string, seconds: number, failed: boolean): void;
}

export interface WebhookDeps {
  /** By name (the path's `{environment}`). */
  environments: ReadonlyMap<string, WebhookEnvironment>;
  metrics: WebhookMetrics | null;
  logger: Logger;
}

export interface Delivery {
  /** The environment the path names. */
  environment: string;
  headers: DeliveryHeaders;
  /** The body exactly as received: signatures are over these bytes. */
  body: Uint8Array;
  /** For the log lines about this delivery. */
  requestId?: string;
}

/**
 * accepted: a fetch was scheduled (not finished); ignored: authentic but nothing to fetch;
 * unauthorized: not authenticated, or an environment unknown or without a secret (alike to the
 * caller: the reason is in the log only); invalid: authentic but malformed.
 */
export interface Verdict {
  result: DeliveryResult;
}

export interface WebhookService {
  deliver(delivery: Delivery): Verdict;
}

export function webhookService({ environments, metrics, logger }: WebhookDeps): WebhookService {
  /** Times the fetch a delivery scheduled, counts whether it failed; never awaited by the delivery. */
  function scheduleSync(environment: WebhookEnvironment, scm: ScmType): void {
    const { repository } = environment;
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    repository.requestSync().then(
      (result) => {
        const failed = result.error !== null && result.error !== undefined;
        metrics?.webhookSync(environment.name, scm, seconds(), failed);
        // The repository has logged the error itself ("error performing fetch"); not repeated here.
        if (failed) logger.warn({ environment: environment.name, storage: repository.key }, 'the fetch scheduled by a webhook failed (polling remains the fallback)');
      },
      (err: unknown) => {
        metrics?.webhookSync(environment.name, scm, seconds(), true);
        logger.error({ environment: environment.name, storage: repository.key, error: err instanceof Error ? err.message : String(err) }, 'the fetch scheduled by a webhook failed');
      },
    );
  }

  return {
    deliver({ environment: name, headers, body, requestId }) {
      const environment = environments.get(name);
      const scm = environment?.scm;
      const secret = scm?.webhook?.secret ?? '';
      if (!environment || !scm || secret === '') {
        metrics?.webhookRequest('unknown', 'unknown', 'not_found');
        logger.warn({ environment: name, reqId: requestId }, 'webhook refused: no such environment, or it has no scm.webhook.secret');
        return { result: 'unauthorized' };
      }
      const verdict = classifyDelivery({ scm: scm.type, secret, headers, body, tracked: environment.repository.branch });
      metrics?.webhookRequest(environment.name, scm.type, verdict.result);
      const fields = { environment: environment.name, scm: scm.type, event: verdict.event, branch: verdict.branch, reqId: requestId, reason: verdict.reason };
      switch (verdict.result) {
        case 'unauthorized':
          logger.warn(fields, 'webhook refused: not authenticated');
          break;
        case 'invalid':
          logger.warn(fields, 'webhook refused: malformed delivery');
          break;
        case 'ignored':
          logger.info(fields, 'webhook ignored');
          break;
        case 'accepted':
          logger.info(fields, 'webhook accepted: fetch scheduled');
          scheduleSync(environment, scm.type);
          break;
      }
      return { result: verdict.result };
    },
  };
}
