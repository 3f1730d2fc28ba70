import { Placeholder } from '../../components/page';

export function TokensPlaceholder() {
  return <Placeholder title="API tokens" what="List, create (with expiry and namespace scope) and delete client tokens." />;
}
