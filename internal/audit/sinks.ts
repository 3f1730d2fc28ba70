import { createHmac } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import type { AuditConfig } from '../config';
import type { AuditEvent } from '../core';
import { auditEventToJson } from '../wire/audit';
import { slackMessage, teamsMessage } from './chat';
import { DeliveryFailed, type Poster } from './http';
import { parseTemplate } from './template';

/**
 * The sinks events are delivered to, named as the outbox knows them (selection.ts). A sink
 * takes events in order and either has them all or throws: the deliverer hands an HTTP sink one
 * event at a time (each its own request, as Flipt sends them) and the log sink a whole batch
 * (one write).
 */
export interface AuditSink {
  readonly name: string;
  /** Whether one call takes a whole batch (else one event per call). */
  readonly batched: boolean;
  send(events: readonly AuditEvent[], signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** Every request carries the event's id, so a receiver can drop a delivery it already has (at least once means sometimes twice). */
export const DELIVERY_ID_HEADER = 'x-pennon-delivery-id';
/** Flipt's header: the hex HMAC-SHA256 of the exact body bytes, keyed with `signing_secret`. */
export const SIGNATURE_HEADER = 'x-flipt-webhook-signature';

/** JSON lines appended to a file (opened once, reopened after a failure), or written to standard output. */
export function logSink(file: string): AuditSink {
  let handle: FileHandle | null = null;
  return {
    name: 'log',
    batched: true,
    async send(events) {
      const text = events.map((e) => `${JSON.stringify(auditEventToJson(e))}\n`).join('');
      if (file === '') {
        await new Promise<void>((done, fail) => process.stdout.write(text, (err) => (err ? fail(err) : done())));
        return;
      }
      try {
        handle ??= await open(file, 'a');
        await handle.appendFile(text);
      } catch (err) {
        const failed = handle;
        handle = null;
        await failed?.close().catch(() => undefined);
        throw err;
      }
    },
    async close() {
      await handle?.close().catch(() => undefined);
      handle = null;
    },
  };
}

/** An HTTP sink: each event one POST of the body `render` makes, with `headers`. */
function httpSink(name: string, url: string, poster: Poster, render: (e: AuditEvent) => { body: string; headers: Record<string, string> }): AuditSink {
  return {
    name,
    batched: false,
    async send(events, signal) {
      for (const e of events) {
        const { body, headers } = render(e);
        await poster.post(url, body, { ...headers, [DELIVERY_ID_HEADER]: e.id }, signal);
      }
    },
    close: async () => undefined,
  };
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** Flipt's webhook: the event's JSON, signed when there is a secret. */
export function webhookSink(url: string, secret: string, poster: Poster): AuditSink {
  return httpSink('webhook', url, poster, (e) => {
    const body = JSON.stringify(auditEventToJson(e));
    const headers: Record<string, string> = { ...JSON_TYPE };
    if (secret !== '') headers[SIGNATURE_HEADER] = createHmac('sha256', secret).update(body).digest('hex');
    return { body, headers };
  });
}

/** A template per URL: the body rendered over the event's JSON must be JSON; its headers as configured. */
export function templateSink(template: { url: string; body: string; headers: Record<string, string> }, poster: Poster): AuditSink {
  const compiled = parseTemplate(template.body);
  const lower = Object.keys(template.headers).map((h) => h.toLowerCase());
  const headers = lower.includes('content-type') ? template.headers : { ...JSON_TYPE, ...template.headers };
  return httpSink(`template:${template.url}`, template.url, poster, (e) => {
    const body = compiled.render(auditEventToJson(e));
    try {
      JSON.parse(body);
    } catch (err) {
      throw new DeliveryFailed(`the template's body is not valid JSON for this event (${(err as Error).message}); it began: ${body.slice(0, 120)}`);
    }
    return { body, headers };
  });
}

export function chatSink(kind: 'slack' | 'teams', url: string, poster: Poster): AuditSink {
  const message = kind === 'slack' ? slackMessage : teamsMessage;
  return httpSink(kind, url, poster, (e) => ({ body: JSON.stringify(message(e)), headers: JSON_TYPE }));
}

/** Every sink the configuration enables, named as auditSinkSelections names them. */
export function configuredSinks(audit: AuditConfig, poster: Poster): AuditSink[] {
  const { log, webhook } = audit.sinks;
  const sinks: AuditSink[] = [];
  if (log.enabled) sinks.push(logSink(log.file));
  if (webhook.enabled) {
    if (webhook.url !== '') sinks.push(webhookSink(webhook.url, webhook.signing_secret, poster));
    for (const template of webhook.templates) sinks.push(templateSink(template, poster));
    if (webhook.slack.enabled) sinks.push(chatSink('slack', webhook.slack.url, poster));
    if (webhook.teams.enabled) sinks.push(chatSink('teams', webhook.teams.url, poster));
  }
  return sinks;
}
