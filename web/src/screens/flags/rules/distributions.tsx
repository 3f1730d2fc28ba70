import { useId } from 'preact/hooks';
import type { Rule, Variant } from '../../../api/types';

/**
 * What a rule serves once its segments match: one variant (a single distribution at 100%), a
 * split with a percentage per variant, or — for a flag without variants, or a rule that has no
 * distribution — none (the rule matches and the flag's default is served). The server does not
 * check that a split adds up to at most 100% (Flipt's UI does, and so do we, live).
 */
export type DistMode = 'none' | 'single' | 'split';

export interface DistDraft {
  mode: DistMode;
  /** The variant id of a single-variant rule. */
  single: string;
  /** Variant id → the percentage as typed. */
  split: Record<string, string>;
}

export interface Wanted {
  variantId: string;
  rollout: number;
}

/** "50" for two variants, "33.33" for three: never more than 100 in all. */
export function evenShare(count: number): number {
  return count === 0 ? 0 : Math.floor(10000 / count) / 100;
}

export function evenSplit(variants: Variant[]): Record<string, string> {
  const share = String(evenShare(variants.length));
  return Object.fromEntries(variants.map((v) => [v.id, share]));
}

/** The editor's starting point: a new rule serves the first variant; an existing one what it has. */
export function draftFrom(rule: Rule | undefined, variants: Variant[]): DistDraft {
  const split = evenSplit(variants);
  const first = variants[0]?.id ?? '';
  if (!rule) return { mode: variants.length === 0 ? 'none' : 'single', single: first, split };
  const dists = rule.distributions;
  if (dists.length === 0) return { mode: 'none', single: first, split };
  if (dists.length === 1 && dists[0].rollout === 100) return { mode: 'single', single: dists[0].variantId, split };
  const have = Object.fromEntries(variants.map((v) => [v.id, '0']));
  for (const d of dists) have[d.variantId] = String(d.rollout);
  return { mode: 'split', single: first, split: have };
}

/** The sum of a split, to two decimals; null when a value is not a number. */
export function splitTotal(draft: DistDraft, variants: Variant[]): number | null {
  let sum = 0;
  for (const v of variants) {
    const text = (draft.split[v.id] ?? '').trim();
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
  const total = splitTotal(draft, variants);
  if (total === null) return 'Each percentage must be a number.';
  if (total > 100) return `The split adds up to ${total}%: it may not exceed 100%.`;
  return null;
}

/** The distributions the draft asks for, in the flag's variant order (a split keeps every variant, as Flipt's UI does). */
export function wanted(draft: DistDraft, variants: Variant[]): Wanted[] {
  if (draft.mode === 'none') return [];
  if (draft.mode === 'single') return [{ variantId: draft.single, rollout: 100 }];
  return variants.map((v) => {
    const text = (draft.split[v.id] ?? '').trim();
    return { variantId: v.id, rollout: text === '' ? 0 : Number(text) };
  });
}

export interface DistributionEditorProps {
  variants: Variant[];
  draft: DistDraft;
  onDraft: (draft: DistDraft) => void;
  /** Offer "no variant" (the rule has no distribution now, or the flag has no variants). */
  allowNone: boolean;
  /** The API's messages, by variant id (a refused distribution). */
  errors: Record<string, string>;
}

export function DistributionEditor({ variants, draft, onDraft, allowNone, errors }: DistributionEditorProps) {
  const id = useId();
  const problemId = `${id}-problem`;
  const total = splitTotal(draft, variants);
  const problem = distributionProblem(draft, variants);
  const set = (patch: Partial<DistDraft>) => onDraft({ ...draft, ...patch });

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
        <div class={errors[draft.single] ? 'field field-invalid' : 'field'}>
          <label for={`${id}-single`}>Variant</label>
          <select id={`${id}-single`} value={draft.single} onChange={(e) => set({ single: e.currentTarget.value })} aria-describedby={errors[draft.single] ? `${id}-single-error` : undefined}>
            {variants.map((v) => (
              <option key={v.id} value={v.id}>
                {v.name && v.name !== v.key ? `${v.key} — ${v.name}` : v.key}
              </option>
            ))}
          </select>
          {errors[draft.single] && (
            <p class="field-error" id={`${id}-single-error`} data-field="rollout">
              {errors[draft.single]}
            </p>
          )}
        </div>
      )}

      {draft.mode === 'split' && (
        <div class="rule-split">
          {variants.map((v) => {
            const inputId = `${id}-${v.id}`;
            const errorId = errors[v.id] ? `${inputId}-error` : undefined;
            const value = draft.split[v.id] ?? '';
            const n = Number(value || '0');
            return (
              <div class={errors[v.id] ? 'split-row field-invalid' : 'split-row'} key={v.id}>
                <label for={inputId} class="split-label">
                  <span class="mono">{v.key}</span>
                  <span class="visually-hidden"> percentage</span>
                </label>
                <span class="split-input">
                  <input
                    id={inputId}
                    type="number"
                    inputMode="decimal"
                    min={0}
                    max={100}
                    step="any"
                    value={value}
                    aria-invalid={errors[v.id] || problem ? true : undefined}
                    aria-describedby={[errorId, problem ? problemId : ''].filter(Boolean).join(' ') || undefined}
                    onInput={(e) => set({ split: { ...draft.split, [v.id]: e.currentTarget.value } })}
                  />
                  <span aria-hidden="true">%</span>
                </span>
                <progress class="split-bar" max={100} value={Number.isFinite(n) ? Math.max(0, Math.min(100, n)) : 0} aria-hidden="true" />
                {errors[v.id] && (
                  <p class="field-error split-error" id={errorId} data-field="rollout">
                    {errors[v.id]}
                  </p>
                )}
              </div>
            );
          })}
          <div class="split-footer">
            <button type="button" class="button button-small" onClick={() => set({ split: evenSplit(variants) })}>
              Split evenly ({evenShare(variants.length)}% each)
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
