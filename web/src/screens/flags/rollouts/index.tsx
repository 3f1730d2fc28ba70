import type { Flag } from '../../../api/types';

export interface RolloutsSectionProps {
  ns: string;
  flag: Flag;
  onChanged?: () => void;
}

/** A boolean flag's rollouts (placeholder until the rollouts screen lands). */
export function RolloutsSection({ flag }: RolloutsSectionProps) {
  return (
    <section class="rollouts" aria-labelledby="rollouts-title">
      <h2 id="rollouts-title">Rollouts</h2>
      <p class="muted">Rollouts for {flag.key}.</p>
    </section>
  );
}
