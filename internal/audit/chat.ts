import type { AuditEvent } from '../core';
import { timestamp } from '../wire/encode';

/**
 * Chat formats (issue 20, item 4): one readable sentence per event — "alice enabled flag
 * checkout-v2 in shop", "alice updated flag checkout-v2 in shop: name "Old" → "New"" — posted
 * to a Slack or Microsoft Teams incoming webhook in the shape each expects.
 */

type Obj = Record<string, unknown>;
const obj = (value: unknown): Obj => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {});
const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Who did it, as a reader knows them. */
export function actorName(e: AuditEvent): string {
  const a = e.actor;
  if (a.name || a.email) return (a.name || a.email)!;
  if (a.authentication === 'system') return 'Pennon';
  if (a.authentication === 'local') return 'a local user (CLI)';
  if (a.authentication === 'none') return 'someone (authentication off)';
  return a.id ? `token ${a.id}` : 'someone';
}

/** Fields a flag or segment change names; timestamps and nested lists are left to the event itself. */
const DESCRIBED = ['name', 'description', 'enabled', 'type', 'matchType', 'property', 'operator', 'value', 'rollout', 'rank', 'segmentKeys', 'segmentOperator', 'attachment', 'expiresAt'];
const MAX_CHANGES = 4;
const MAX_VALUE_CHARS = 60;

function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : value === undefined ? 'none' : JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

/** `name "A" → "B", enabled false → true` for the fields that changed. */
function changes(before: Obj, after: Obj): string {
  const lines: string[] = [];
  for (const field of DESCRIBED) {
    if (!(field in before) && !(field in after)) continue;
    if (JSON.stringify(before[field]) === JSON.stringify(after[field])) continue;
    lines.push(`${field} ${shown(before[field])} → ${shown(after[field])}`);
  }
  const more = lines.length - MAX_CHANGES;
  return lines.slice(0, MAX_CHANGES).join(', ') + (more > 0 ? ` and ${more} more` : '');
}

/** What the event is about, e.g. `flag checkout-v2`, `variant on of flag checkout-v2`. */
function subject(e: AuditEvent): string {
  const p = { ...obj(e.before), ...obj(e.payload) };
  switch (e.type) {
    case 'namespace':
    case 'flag':
    case 'segment':
      return `${e.type} ${e.key}`;
    case 'variant':
      return `variant ${str(p.key) ?? e.objectId ?? ''} of flag ${e.key}`;
    case 'constraint':
      return `a constraint${str(p.property) ? ` on ${str(p.property)}` : ''} of segment ${e.key}`;
    case 'rule':
      return e.action === 'reordered' ? `the rules of flag ${e.key}` : `rule${typeof p.rank === 'number' ? ` ${p.rank}` : ''} of flag ${e.key}`;
    case 'rollout':
      return e.action === 'reordered' ? `the rollouts of flag ${e.key}` : `rollout${typeof p.rank === 'number' ? ` ${p.rank}` : ''} of flag ${e.key}`;
    case 'distribution':
      return `a distribution of flag ${e.key}`;
    case 'token': {
      const name = str(obj(p.metadata)['io.flipt.auth.token.name']);
      return name ? `token ${name}` : `token ${e.key}`;
    }
    default:
      return e.key ? `${e.type} ${e.key}` : e.type;
  }
}

/** The sentence for one event, plain text. */
export function sentence(e: AuditEvent): string {
  const who = actorName(e);
  const where = e.namespace && e.type !== 'namespace' ? ` in ${e.namespace}` : '';
  if (e.type === 'import') {
    const counts = Object.entries(obj(e.payload)).filter(([, n]) => typeof n === 'number' && n > 0);
    const what = counts.length ? counts.map(([name, n]) => `${n} ${n === 1 ? name.replace(/s$/, '') : name}`).join(', ') : 'nothing';
    return `${who} imported ${what} into ${e.namespace || 'the default namespace'}`;
  }
  if (e.type === 'authorization') {
    const needed = str(obj(e.payload).needed);
    return `${who} was denied ${e.key}${where}${needed ? ` (${needed} role needed)` : ''}`;
  }
  if (e.type === 'migration') return `${who} migrated ${str(obj(e.payload).from) ?? 'a Flipt v1 database'} into Pennon`;
  if (e.type === 'flag' && e.action === 'updated') {
    const before = obj(e.before);
    const after = obj(e.payload);
    const rest = changes({ ...before, enabled: undefined }, { ...after, enabled: undefined });
    if (before.enabled !== after.enabled && typeof after.enabled === 'boolean') {
      return `${who} ${after.enabled ? 'enabled' : 'disabled'} flag ${e.key}${where}${rest ? `, and changed ${rest}` : ''}`;
    }
    return `${who} updated flag ${e.key}${where}${rest ? `: ${rest}` : ''}`;
  }
  if (e.action === 'updated') {
    const detail = changes(obj(e.before), obj(e.payload));
    return `${who} updated ${subject(e)}${where}${detail ? `: ${detail}` : ''}`;
  }
  return `${who} ${e.action} ${subject(e)}${where}`;
}

/** The facts shown under the sentence: when, through which door, which request. */
function facts(e: AuditEvent): [string, string][] {
  const list: [string, string][] = [
    ['When', timestamp(e.timestamp)],
    ['Source', e.source],
  ];
  if (e.namespace) list.push(['Namespace', e.namespace]);
  if (e.requestId) list.push(['Request', e.requestId]);
  list.push(['Event', e.id]);
  return list;
}

/** Slack's mrkdwn reserves these three. */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A Slack incoming webhook's message: `text` (notifications, and clients without blocks) and the same as blocks. */
export function slackMessage(e: AuditEvent): unknown {
  const text = slackEscape(sentence(e));
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: slackEscape(facts(e).map(([k, v]) => `${k}: ${v}`).join(' · ')) }] },
    ],
  };
}

/**
 * A Microsoft Teams incoming webhook's message: an Adaptive Card in a message's attachments,
 * the shape both Teams' Workflows webhooks and the older connector webhooks take.
 */
export function teamsMessage(e: AuditEvent): unknown {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: sentence(e), wrap: true, weight: 'Bolder' },
            { type: 'FactSet', facts: facts(e).map(([title, value]) => ({ title, value })) },
          ],
        },
      },
    ],
  };
}
