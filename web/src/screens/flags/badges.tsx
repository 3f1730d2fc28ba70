import type { FlagType } from '../../api/types';

/** A flag's state and type as small labels: words, not colour alone, so they read in any theme. */
export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return <span class={enabled ? 'flag-badge flag-badge-on' : 'flag-badge flag-badge-off'}>{enabled ? 'Enabled' : 'Disabled'}</span>;
}

export function TypeBadge({ type }: { type: FlagType }) {
  return <span class="flag-badge">{type === 'BOOLEAN_FLAG_TYPE' ? 'Boolean' : 'Variant'}</span>;
}
