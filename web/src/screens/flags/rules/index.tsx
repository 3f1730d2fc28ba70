import type { Flag } from '../../../api/types';

export interface RulesSectionProps {
  ns: string;
  flag: Flag;
  onChanged?: () => void;
}

/** A variant flag's rules (placeholder until the rules screen lands). */
export function RulesSection({ flag }: RulesSectionProps) {
  return (
    <section class="rules" aria-labelledby="rules-title">
      <h2 id="rules-title">Rules</h2>
      <p class="muted">Rules for {flag.key}.</p>
    </section>
  );
}
