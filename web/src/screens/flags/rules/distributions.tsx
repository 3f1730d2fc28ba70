import { useId } from 'preact/hooks';
import type { Rule, Variant } from '../../../api/types';

/**
 * What a rule serves once its segments match: one variant (a single distribution at 100%), a
 * split with a percentage per variant, or — for a flag without variants, or a rule that has no
 * distribution — none (the rule matches and the flag's default is served). The server does not
 * check that a split adds up to at most 100% (Flipt's UI does, and so do we, live).
 */
export type DistMode = 'none' | 'single' | 'split';

/**
 * One percentage of a split: a distribution the rule has, or one to create for a variant it
 * does not distribute yet. A rule may hold two distributions of the same variant (the API
 * allows it; each takes its own buckets), so rows are distributions, not variants.
 */
export interface SplitRow {
  /** Stable across edits: the distribution's id, or `new-<variant id>`. Errors are keyed by it. */
  key: string;
  distributionId?: string;
  variantId: string;
  /** The percentage as typed. */
  value: string;
}

export interface DistDraft {
  mode: DistMode;
  /** The variant id of a single-variant rule. */
  single: string;
  split: SplitRow[];
}

/** A distribution to hold after saving; `row` names the editor's row (`single` for a single variant). */
export interface Wanted {
  row: string;
  distributionId?: string;
  variantId: string;
  rollout: number;
}

/** "50" for two variants, "33.33" for three: never more than 100 in all. */
export function evenShare(count: number): number {
  return count === 0 ? 0 : Math.floor(10000 / count) / 100;
}

const newRow = (variantId: string, value: string): SplitRow => ({ key: `new-${variantId}`, variantId, value });

/** Every row at the same share. */
export function evenSplit(rows: SplitRow[]): SplitRow[] {
  const share = String(evenShare(rows.length));
  return rows.map((r) => ({ ...r, value: share }));
}

/**
 * The editor's starting point: a new rule serves the first variant (its split offers every
 * variant evenly); an existing one what it has — a split lists each distribution, in the flag's
 * variant order, then the variants it does not distribute at 0.
 */
export function draftFrom(rule: Rule | undefined, variants: Variant[]): DistDraft {
  const first = variants[0]?.id ?? '';
  const fresh = evenSplit(variants.map((v) => newRow(v.id, '')));
  if (!rule) return { mode: variants.length === 0 ? 'none' : 'single', single: first, split: fresh };
  const dists = rule.distributions;
  if (dists.length === 0) return { mode: 'none', single: first, split: fresh };
  if (dists.length === 1 && dists[0].rollout === 100) return { mode: 'single', single: dists[0].variantId, split: fresh };
  const split = variants.flatMap((v) => {
    const own = dists.filter((d) => d.variantId === v.id);
    return own.length === 0 ? [newRow(v.id, '0')] : own.map((d) => ({ key: d.id, distributionId: d.id, variantId: v.id, value: String(d.rollout) }));
  });
  return { mode: 'split', single: first, split };
}

/** The sum of a split, to two decimals; null when a value is not a number. */
export function splitTotal(draft: DistDraft): number | null {
  let sum = 0;
  for (const row of draft.split) {
    const text = row.value.trim();
    const n = text === '' ? 0 : Number(text);
    if (!Number.isFinite(n)) return null;
    sum += n;
  }
  return Math.round(sum * 100) / 100;
}

/** Why the draft cannot be saved as it is (shown beside the split), or null. */
export function distributionProblem(draft: DistDraft, variants: Variant[]): string | null {
  if (draft.mode === 'single' && !variants.some((v) => v.id === draft.single)) return 'Pick the variant to serve.';
  if (draft.mode !== 'split') return null;
  const total = splitTotal(draft);
  if (total === null) return 'Each percentage must be a number.';
  if (total > 100) return `The split adds up to ${total}%: it may not exceed 100%.`;
  return null;
}

/** The distributions the draft asks for (a split keeps every row, 0 included, as Flipt's UI does). */
export function wanted(draft: DistDraft): Wanted[] {
  if (draft.mode === 'none') return [];
  if (draft.mode === 'single') return [{ row: 'single', variantId: draft.single, rollout: 100 }];
  return draft.split.map((r) => ({ row: r.key, distributionId: r.distributionId, variantId: r.variantId, rollout: r.value.trim() === '' ? 0 : Number(r.value) }));
}

export interface DistributionEditorProps {
  variants: Variant[];
  draft: DistDraft;
  onDraft: (draft: DistDraft) => void;
  /** Offer "no variant" (the rule has no distribution now, or the flag has no variants). */
  allowNone: boolean;
  /** The API's messages, by row (`Wanted.row`: a split row's key, or `single`). */
  errors: Record<string, string>;
}

export function DistributionEditor({ variants, draft, onDraft, allowNone, errors }: DistributionEditorProps) {
  const id = useId();
  const problemId = `${id}-problem`;
  const total = splitTotal(draft);
  const problem = distributionProblem(draft, variants);
  const set = (patch: Partial<DistDraft>) => onDraft({ ...draft, ...patch });
  const keyOf = (variantId: string) => variants.find((v) => v.id === variantId)?.key ?? '(deleted variant)';
  const rowsOf = (variantId: string) => draft.split.filter((r) => r.variantId === variantId);
  const repeated = variants.filter((v) => rowsOf(v.id).length > 1).map((v) => v.key);

  if (variants.length === 0)
    return (
      <fieldset class="rule-fieldset distribution-editor">
        <legend>Serve</legend>
        <p class="muted">This flag has no variants yet: a matching rule serves the flag's default. Add variants to split entities between them.</p>
      </fieldset>
    );

  return (
    <fieldset class="rule-fieldset distribution-editor">
      <legend>Serve</legend>
      <div class="rule-choice" role="radiogroup" aria-label="Distribution">
        <label>
          <input type="radio" name={`${id}-mode`} checked={draft.mode === 'single'} onChange={() => set({ mode: 'single' })} />
          Single variant
        </label>
        <label>
          <input type="radio" name={`${id}-mode`} checked={draft.mode === 'split'} onChange={() => set({ mode: 'split' })} />
          Multi-variant split
        </label>
        {allowNone && (
          <label>
            <input type="radio" name={`${id}-mode`} checked={draft.mode === 'none'} onChange={() => set({ mode: 'none' })} />
            No variant (the flag's default)
          </label>
        )}
      </div>

      {draft.mode === 'single' && (
        <div class={errors.single ? 'field field-invalid' : 'field'}>
          <label for={`${id}-single`}>Variant</label>
          <select id={`${id}-single`} value={draft.single} onChange={(e) => set({ single: e.currentTarget.value })} aria-describedby={errors.single ? `${id}-single-error` : undefined}>
            {variants.map((v) => (
              <option key={v.id} value={v.id}>
                {v.name && v.name !== v.key ? `${v.key} — ${v.name}` : v.key}
              </option>
            ))}
          </select>
          {errors.single && (
            <p class="field-error" id={`${id}-single-error`} data-field="rollout">
              {errors.single}
            </p>
          )}
        </div>
      )}

      {draft.mode === 'split' && (
        <div class="rule-split">
          {draft.split.map((row, i) => {
            const inputId = `${id}-${i}`;
            const errorId = errors[row.key] ? `${inputId}-error` : undefined;
            const n = Number(row.value || '0');
            const same = rowsOf(row.variantId);
            // "2 of 2": the second distribution of the same variant, told apart for sight and for screen readers.
            const nth = same.length > 1 ? `${same.indexOf(row) + 1} of ${same.length}` : null;
            return (
              <div class={errors[row.key] ? 'split-row field-invalid' : 'split-row'} key={row.key} data-distribution={row.distributionId}>
                <label for={inputId} class="split-label">
                  <span class="mono">{keyOf(row.variantId)}</span>
                  {nth && (
                    <span class="rule-tag split-nth" aria-hidden="true">
                      {nth}
                    </span>
                  )}
                  <span class="visually-hidden"> percentage{nth ? ` (distribution ${nth})` : ''}</span>
                </label>
                <span class="split-input">
                  <input
                    id={inputId}
                    type="number"
                    inputMode="decimal"
                    min={0}
                    max={100}
                    step="any"
                    value={row.value}
                    aria-invalid={errors[row.key] || problem ? true : undefined}
                    aria-describedby={[errorId, problem ? problemId : ''].filter(Boolean).join(' ') || undefined}
                    onInput={(e) => {
                      const value = e.currentTarget.value;
                      set({ split: draft.split.map((r) => (r === row ? { ...r, value } : r)) });
                    }}
                  />
                  <span aria-hidden="true">%</span>
                </span>
                <progress class="split-bar" max={100} value={Number.isFinite(n) ? Math.max(0, Math.min(100, n)) : 0} aria-hidden="true" />
                {errors[row.key] && (
                  <p class="field-error split-error" id={errorId} data-field="rollout">
                    {errors[row.key]}
                  </p>
                )}
              </div>
            );
          })}
          {repeated.length > 0 && (
            <p class="field-hint" data-testid="split-repeated">
              This rule distributes {repeated.join(' and ')} more than once (the API allows it): each distribution takes its own share of the buckets, and each is edited here on
              its own.
            </p>
          )}
          <div class="split-footer">
            <button type="button" class="button button-small" onClick={() => set({ split: evenSplit(draft.split) })}>
              Split evenly ({evenShare(draft.split.length)}% each)
            </button>
            <span class={problem ? 'split-total over' : 'split-total'} role="status" aria-live="polite">
              Total: {total === null ? '—' : `${total}%`}
            </span>
          </div>
          {problem ? (
            <p class="field-error" id={problemId} data-field="distributions">
              {problem}
            </p>
          ) : (
            total !== null &&
            total < 100 && <p class="field-hint">The other {Math.round((100 - total) * 100) / 100}% of the entities this rule matches get no variant from it (they are served the flag's default).</p>
          )}
        </div>
      )}
    </fieldset>
  );
}
