import { Placeholder } from '../../components/page';

export function FlagsPlaceholder() {
  return <Placeholder title="Flags" what="The flags list, flag editor, variants, rules and rollouts will live here." />;
}
