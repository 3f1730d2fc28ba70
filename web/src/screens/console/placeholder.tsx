import { Placeholder } from '../../components/page';

export function ConsolePlaceholder() {
  return <Placeholder title="Console" what="Evaluate a flag for an entity and context, and see which rule or rollout matched and why." />;
}
