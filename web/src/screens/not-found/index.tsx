import { Link } from 'wouter-preact';
import { Page } from '../../components/page';

/** A hash path no screen claims (an old bookmark, a typo). */
export function NotFoundScreen() {
  return (
    <Page title="Not found">
      <div class="state state-empty">
        <p class="state-title">There is nothing at this address.</p>
        <Link href="/">Go to the start</Link>
      </div>
    </Page>
  );
}
