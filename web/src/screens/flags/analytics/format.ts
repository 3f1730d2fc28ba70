/** Numbers as the Evaluations section writes them. */

const counts = new Intl.NumberFormat();

export const formatCount = (n: number): string => counts.format(n);

/** Milliseconds with two significant digits below 10 ms (evaluations take tens of µs). */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '∞';
  if (ms === 0) return '0 ms';
  if (ms < 10) return `${Number(ms.toPrecision(2))} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Number((ms / 1000).toPrecision(3))} s`;
}

/** A share of a total, `50%`; `<1%` rather than a misleading 0%. */
export function percent(part: number, total: number): string {
  if (total <= 0) return '';
  const p = (part / total) * 100;
  if (part > 0 && p < 1) return '<1%';
  return `${Math.round(p)}%`;
}

const REASONS: Record<string, string> = {
  MATCH_EVALUATION_REASON: 'Match',
  DEFAULT_EVALUATION_REASON: 'Default',
  FLAG_DISABLED_EVALUATION_REASON: 'Flag disabled',
  UNKNOWN_EVALUATION_REASON: 'Unknown',
};

/** Flipt's reason enum → a word (the enum stays in the tooltip). */
export const reasonLabel = (reason: string): string => REASONS[reason] ?? reason;
