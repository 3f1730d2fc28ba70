import { ConfigError, type AuditConfig } from '../config';
import { egressPolicy, EgressRefused, type EgressPolicy } from './egress';
import { parseTemplate, TemplateError } from './template';

/**
 * What the audit sinks' configuration must pass beyond its schema (config/audit.ts), named by
 * key: templates that parse, and URLs the egress policy lets a delivery reach. `config validate`
 * and the service's start both run these; the start also resolves each host.
 */

/** Every enabled HTTP sink's URL, with the key that sets it. */
export function sinkUrls(audit: AuditConfig): [key: string, url: string][] {
  const hook = audit.sinks.webhook;
  if (!hook.enabled) return [];
  const urls: [string, string][] = [];
  if (hook.url !== '') urls.push(['audit.sinks.webhook.url', hook.url]);
  hook.templates.forEach((t, i) => urls.push([`audit.sinks.webhook.templates.${i}.url`, t.url]));
  for (const chat of ['slack', 'teams'] as const) if (hook[chat].enabled && hook[chat].url !== '') urls.push([`audit.sinks.webhook.${chat}.url`, hook[chat].url]);
  return urls;
}

const MAX_TEMPLATE_URL = 255 - 'audit-sink:template:'.length;

function parsedUrl(url: string): URL | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : null;
  } catch {
    return null;
  }
}

/** Problems found without the network: template syntax, and URLs naming a refused address or `localhost`. */
export function auditConfigProblems(audit: AuditConfig, policy: EgressPolicy = egressPolicy(audit.sinks.webhook.allowed_hosts)): string[] {
  const problems: string[] = [];
  const hook = audit.sinks.webhook;
  if (!hook.enabled) return problems;
  hook.templates.forEach((t, i) => {
    // The URL names the template's outbox rows and lease (VARCHAR(255) with `audit-sink:template:` before it).
    if (t.url.length > MAX_TEMPLATE_URL) problems.push(`audit.sinks.webhook.templates.${i}.url: longer than ${MAX_TEMPLATE_URL} characters`);
    const same = hook.templates.findIndex((other) => other.url === t.url);
    if (same < i) problems.push(`audit.sinks.webhook.templates.${i}.url: the same URL as templates.${same}: one template per URL (merge their bodies, or tell them apart with a query parameter)`);
    try {
      parseTemplate(t.body);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      problems.push(`audit.sinks.webhook.templates.${i}.body: ${err.message}`);
    }
    if (t.body.trim() === '') problems.push(`audit.sinks.webhook.templates.${i}.body: a template needs a body (the JSON to send, e.g. {"event": {{ toJson . }}})`);
  });
  for (const [key, url] of sinkUrls(audit)) {
    const parsed = parsedUrl(url);
    // A malformed URL is config/audit.ts's to report.
    const refused = parsed && policy.checkLiteral(parsed);
    if (refused) problems.push(`${key}: ${refused.message}`);
  }
  return problems;
}

/**
 * The start's check: the problems above, then each URL's host resolved and every address checked.
 * A refusal stops the start (ConfigError, the key named); a host that does not resolve now is a
 * warning — the receiver's name may exist by the first delivery, which checks again.
 */
export async function checkAuditSinks(audit: AuditConfig, resolve?: Parameters<typeof egressPolicy>[1]): Promise<{ warnings: string[] }> {
  const policy = egressPolicy(audit.sinks.webhook.allowed_hosts, resolve);
  const problems = auditConfigProblems(audit, policy);
  const warnings: string[] = [];
  if (problems.length === 0) {
    for (const [key, url] of sinkUrls(audit)) {
      const parsed = parsedUrl(url);
      if (!parsed) continue;
      try {
        await policy.check(parsed);
      } catch (err) {
        if (err instanceof EgressRefused) problems.push(`${key}: ${err.message}`);
        else warnings.push(`${key}: ${parsed.host} does not resolve now (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); each delivery resolves and checks it again`);
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems, 'audit sinks');
  return { warnings };
}
