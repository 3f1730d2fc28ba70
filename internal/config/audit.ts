import { z } from 'zod';
import { duration, secret } from './kinds';

/**
 * `audit`: Flipt v1's audit configuration (sinks `log` and `webhook`, `events`, `buffer`), read
 * as Flipt reads it, plus Pennon's own keys: `retention`, the chat formats (`webhook.slack`,
 * `webhook.teams`), and the egress controls (`webhook.allowed_hosts`, `webhook.timeout`).
 * Every change is recorded whether or not a sink is enabled; sinks are where events are also sent.
 */

/** Flipt's nouns and verbs, and Pennon's additions (`import`, `migration`; `reordered`, `expired`). */
const EVENT_PATTERN = /^(\*|namespace|flag|variant|segment|constraint|rule|distribution|rollout|token|import|migration|commit):(\*|created|updated|deleted|reordered|expired)$/;

/** A chat service's incoming webhook: a switch and the URL it gives. */
const chat = z.strictObject({ enabled: z.boolean().default(false), url: z.string().default('') });

export function auditSchema() {
  return z.strictObject({
    /** How long events are kept; older ones are deleted by a job that runs once per service (per database). */
    retention: duration('2160h'),
    /** Which events sinks receive (Flipt's `noun:verb`, `*` for either); all are recorded. */
    events: z
      .array(z.string().regex(EVENT_PATTERN, 'must be noun:verb (e.g. flag:created, *:deleted, *:*)'))
      .default(['*:*']),
    buffer: z
      .strictObject({
        /** Events a sink is handed per round (Flipt: 2 to 10). */
        capacity: z.number().int().min(2, 'buffer capacity below 2 or above 10').max(10, 'buffer capacity below 2 or above 10').default(2),
        /** Flipt's flush period (2m to 5m): accepted; Pennon delivers as soon as an event commits. */
        flush_period: duration('2m'),
      })
      .prefault({}),
    sinks: z
      .strictObject({
        log: z
          .strictObject({
            enabled: z.boolean().default(false),
            /** JSON lines appended to this file; empty: standard output. */
            file: z.string().default(''),
            encoding: z.enum(['json']).default('json'),
          })
          .prefault({}),
        webhook: z
          .strictObject({
            enabled: z.boolean().default(false),
            url: z.string().default(''),
            /** HMAC-SHA256 of the body, hex, in `X-Flipt-Webhook-Signature`. */
            signing_secret: secret(z.string().default('')),
            /** The longest pause between two attempts at one event (exponential backoff with jitter up to it). */
            max_backoff_duration: duration('15s'),
            templates: z
              .array(
                z.strictObject({
                  url: z.string(),
                  body: z.string().default(''),
                  headers: z.record(z.string(), z.string()).default({}),
                }),
              )
              .default([]),
            slack: chat.prefault({}),
            teams: chat.prefault({}),
            /** Hosts (names or addresses) that may resolve to private, loopback or link-local addresses. */
            allowed_hosts: z.array(z.string()).default([]),
            /** One attempt's bound: connecting, sending and the answer's status. */
            timeout: duration('5s'),
          })
          .prefault({}),
      })
      .prefault({}),
  });
}

export type AuditConfig = z.output<ReturnType<typeof auditSchema>>;

/** The checks across `audit`'s keys (Flipt's own, and the URLs'). */
export function auditChecks(audit: AuditConfig): string[] {
  const problems: string[] = [];
  const hook = audit.sinks.webhook;
  const urls: [string, string][] = [];
  if (hook.enabled) {
    const chats = hook.slack.enabled || hook.teams.enabled;
    if (hook.url === '' && hook.templates.length === 0 && !chats) problems.push('audit.sinks.webhook: url or template(s) not provided');
    if (hook.url !== '' && hook.templates.length > 0) problems.push('audit.sinks.webhook: only one of url or template(s) allowed');
    if (hook.url !== '') urls.push(['audit.sinks.webhook.url', hook.url]);
    hook.templates.forEach((t, i) => urls.push([`audit.sinks.webhook.templates.${i}.url`, t.url]));
    for (const name of ['slack', 'teams'] as const) {
      if (!hook[name].enabled) continue;
      if (hook[name].url === '') problems.push(`audit.sinks.webhook.${name}.url: the incoming webhook's URL is required when ${name} is enabled`);
      else urls.push([`audit.sinks.webhook.${name}.url`, hook[name].url]);
    }
  }
  for (const [key, url] of urls) {
    if (!/^https?:\/\/[^/]/i.test(url)) problems.push(`${key}: must be an http:// or https:// URL`);
  }
  const flush = audit.buffer.flush_period;
  if (flush < 2 * 60_000 || flush > 5 * 60_000) problems.push('audit.buffer.flush_period: flush period below 2 minutes or greater than 5 minutes');
  if (audit.retention <= 0) problems.push('audit.retention: must be greater than 0');
  return problems;
}
