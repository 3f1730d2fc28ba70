import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { gitStoragesOf, type Config } from '../../config';
import type { GitEnvironments } from '../../git';
import type { Metrics } from '../../telemetry';
import { classifyDelivery, MAX_WEBHOOK_BODY_BYTES, type ScmType } from '../../webhook/providers';
import { errorBody, GRPC } from '../errors';
import type { HealthState } from '../health';

/**
 * `POST /api/v2/webhooks/{environment}` (Flipt v2's inbound Git webhook as Flipt documents it;
 * its public code has none): a provider's push
 * delivery schedules a fetch of the environment's Git storage. Registered only when the licence
 * grants `webhook` (serve.ts decides). The body is read as raw bytes — signatures are over
 * exactly those — up to 5 MiB (413 beyond, Flipt's error body). Authentication is the
 * provider's own (signature or token), so the route is on the `public` surface.
 *
 * 202 accepted (a fetch was scheduled, not finished), 200 ignored, 401 for a failed
 * authentication, an unknown environment and one without a webhook secret alike (one identical
 * response; the reason goes to the log only), 400 malformed, 503 while draining.
 */

export interface WebhookDeps {
  config: Config;
  environments: GitEnvironments;
}

interface Target {
  name: string;
  scm: ScmType;
  secret: string;
  storage: string;
  branch: string;
}

const UNAUTHORIZED = errorBody(GRPC.UNAUTHENTICATED, 'request was not authenticated');

export function webhookRoutes(app: FastifyInstance, deps: WebhookDeps, health: HealthState, metrics: Metrics | null | undefined, logger: Logger): void {
  const storages = gitStoragesOf(deps.config.storage);
  const targets = new Map<string, Target>();
  for (const env of Object.values(deps.config.environments)) {
    const secret = env.scm?.webhook?.secret ?? '';
    const storage = storages.get(env.storage);
    if (secret === '' || !storage) continue; // answered like an unknown environment
    targets.set(env.name, { name: env.name, scm: env.scm?.type ?? 'github', secret, storage: env.storage, branch: storage.branch });
  }

  // This scope alone reads bodies as bytes: no JSON parsing before the signature is checked.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BODY_BYTES }, (_request, body, done) => done(null, body));

  const unauthorized = (reply: FastifyReply) => reply.status(401).type('application/json').send(UNAUTHORIZED);

  app.post<{ Params: { environment: string } }>(
    '/api/v2/webhooks/:environment',
    { config: { surface: 'public' }, bodyLimit: MAX_WEBHOOK_BODY_BYTES },
    async (request, reply) => {
      if (health.phase === 'draining') {
        return reply.status(503).type('application/json').send(errorBody(GRPC.UNAVAILABLE, 'the service is shutting down'));
      }
      const name = request.params.environment;
      const target = targets.get(name);
      const repository = target && deps.environments.repositories.get(target.storage);
      if (!target || !repository) {
        metrics?.webhookRequest('unknown', 'unknown', 'not_found');
        logger.warn({ environment: name, reqId: request.id }, 'webhook refused: no such environment, or it has no scm.webhook.secret');
        return unauthorized(reply);
      }
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const verdict = classifyDelivery({ scm: target.scm, secret: target.secret, headers: request.headers, body, tracked: target.branch });
      metrics?.webhookRequest(target.name, target.scm, verdict.result);
      const fields = { environment: target.name, scm: target.scm, event: verdict.event, branch: verdict.branch, reqId: request.id, reason: verdict.reason };
      switch (verdict.result) {
        case 'unauthorized':
          logger.warn(fields, 'webhook refused: not authenticated');
          return unauthorized(reply);
        case 'invalid':
          logger.warn(fields, 'webhook refused: malformed delivery');
          return reply.status(400).type('application/json').send(errorBody(GRPC.INVALID_ARGUMENT, 'malformed webhook delivery'));
        case 'ignored':
          logger.info(fields, 'webhook ignored');
          return reply.status(200).type('application/json').send({ result: 'ignored' });
        case 'accepted': {
          logger.info(fields, 'webhook accepted: fetch scheduled');
          const started = performance.now();
          // Not awaited: a 202 means scheduled. Concurrent requests share the queued fetch.
          repository.requestSync().then(
            (result) => {
              const failed = result.error !== null && result.error !== undefined;
              metrics?.webhookSync(target.name, target.scm, (performance.now() - started) / 1000, failed);
              // The repository has logged the error itself ("error performing fetch"); not repeated here.
              if (failed) logger.warn({ environment: target.name, storage: target.storage }, 'the fetch scheduled by a webhook failed (polling remains the fallback)');
            },
            (err: unknown) => {
              metrics?.webhookSync(target.name, target.scm, (performance.now() - started) / 1000, true);
              logger.error({ environment: target.name, storage: target.storage, error: err instanceof Error ? err.message : String(err) }, 'the fetch scheduled by a webhook failed');
            },
          );
          return reply.status(202).type('application/json').send({ result: 'accepted' });
        }
      }
    },
  );
}
