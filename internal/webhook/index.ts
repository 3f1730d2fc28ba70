export { webhookService, type Delivery, type Verdict, type WebhookDeps, type WebhookEnvironment, type WebhookMetrics, type WebhookService } from './service';
export { MAX_WEBHOOK_BODY_BYTES } from './providers';
