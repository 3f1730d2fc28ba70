import type { FastifyInstance } from 'fastify';
import { invalid, unauthenticated, unavailable } from '../../core';
import { MAX_WEBHOOK_BODY_BYTES, type WebhookService } from '../../webhook';
import { refuse } from '../errors';
import { serve } from '../route-table';
import type { HealthState } from '../health';

/**
 * `POST /api/v2/webhooks/{environment}`: the transport of the webhook service
 * (internal/webhook). Registered only when the licence grants `webhook` (the composition root
 * decides). The body is read as raw bytes — signatures are over exactly those — up to 5 MiB
 * (413 beyond, Flipt's error body). Authentication is the provider's own (signature or token),
 * so the route is on the `public` surface.
 *
 * 202 accepted (a fetch was scheduled, not finished), 200 ignored, 401 for a failed
 * authentication, an unknown environment and one without a webhook secret alike (one identical
 * response; the service logs the reason), 400 malformed, 503 while draining.
 */
export function webhookRoutes(app: FastifyInstance, webhook: WebhookService, health: Pick<HealthState, 'phase'>): void {
  // This scope alone reads bodies as bytes: no JSON parsing before the signature is checked.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BODY_BYTES }, (_request, body, done) => done(null, body));

  serve<{ Params: { environment: string } }>(
    app,
    'Webhook',
    async (request, reply) => {
      if (health.phase === 'draining') return refuse(request, reply, unavailable('the service is shutting down'));
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { result } = webhook.deliver({ environment: request.params.environment, headers: request.headers, body, requestId: request.id });
      switch (result) {
        case 'accepted':
          return reply.status(202).type('application/json').send({ result: 'accepted' });
        case 'ignored':
          return reply.status(200).type('application/json').send({ result: 'ignored' });
        case 'invalid':
          return refuse(request, reply, invalid('malformed webhook delivery'));
        case 'unauthorized':
          return refuse(request, reply, unauthenticated());
      }
    },
    { bodyLimit: MAX_WEBHOOK_BODY_BYTES },
  );
}
