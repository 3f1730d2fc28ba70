import type { AuditConfig } from '../config';
import type { AuditSinkSelection } from '../storage';

/**
 * The sinks an event waits for in the outbox, named as the deliverer knows them, each with the
 * events it takes (`audit.events`). The names are stable across restarts and instances: they are
 * how an instance finds the events still owed to a sink it delivers.
 */
export function auditSinkSelections(audit: AuditConfig): AuditSinkSelection[] {
  const { log, webhook } = audit.sinks;
  const events = audit.events;
  const sinks: AuditSinkSelection[] = [];
  if (log.enabled) sinks.push({ name: 'log', events });
  if (webhook.enabled) {
    if (webhook.url !== '') sinks.push({ name: 'webhook', events });
    for (const template of webhook.templates) sinks.push({ name: `template:${template.url}`, events });
    if (webhook.slack.enabled) sinks.push({ name: 'slack', events });
    if (webhook.teams.enabled) sinks.push({ name: 'teams', events });
  }
  return sinks;
}
