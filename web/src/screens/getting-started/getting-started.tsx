import type { ComponentChildren } from 'preact';
import { Link } from 'wouter-preact';
import { Page } from '../../components/page';
import { paths } from '../../routes/paths';
import { useCurrentNamespace } from '../../session/namespaces';
import { useWritable } from '../../session/access';
import { useSession } from '../../session/session';
import { curlCommand, pennonCommand, serverAddress, TOKEN_VARIABLE } from '../console/commands';
import { CommandBlock } from '../console/result';

/** The flag the examples ask for: a placeholder the reader replaces with one of theirs. */
const EXAMPLE_FLAG = 'my-flag';

/**
 * Getting started (Flipt's onboarding and support pages): four steps from an empty namespace to
 * an explained answer, each linking to its screen, then how an application asks — the same
 * `curl` and `pennon evaluate` commands the console copies, for this server and namespace.
 */
export function GettingStartedScreen() {
  const ns = useCurrentNamespace();
  const session = useSession();
  const access = useWritable(ns);
  const writable = access.allowed;
  const authRequired = session.meta?.authentication.required === true;
  const address = serverAddress();
  const request = { namespaceKey: ns, flagKey: EXAMPLE_FLAG, entityId: 'user-42', context: { plan: 'pro' } };

  return (
    <Page title="Getting started">
      <div class="start">
        <p class="start-intro">
          Pennon serves feature flags over Flipt’s v1 API: applications ask it which variant of a flag an entity (a user, an account) gets, or
          whether a boolean flag is on for it. These steps work in namespace <strong class="mono">{ns}</strong>; the switcher in the header
          changes it.
          {session.readOnly
            ? ' This instance is read-only: its flags are managed elsewhere, so browse them and evaluate.'
            : !writable && ` Your role here allows browsing and evaluating, not changes (${access.reason?.toLowerCase()}).`}
        </p>

        <section class="start-section" aria-labelledby="start-steps">
          <h2 id="start-steps">First steps</h2>
          <ol class="start-steps">
            <Step title="Create a flag" link={writable ? ['New flag', paths.newFlag(ns)] : ['Browse flags', paths.flags(ns)]}>
              A <em>variant</em> flag picks one of its variants (a colour, a layout, a JSON attachment); a <em>boolean</em> flag is on or off.
              Its key is what applications ask for.
            </Step>
            <Step title="Add a segment" link={writable ? ['New segment', paths.newSegment(ns)] : ['Browse segments', paths.segments(ns)]}>
              A segment says who: constraints on the context an application sends, such as <code>plan = pro</code> or{' '}
              <code>country is one of US, CA</code>.
            </Step>
            <Step title="Add a rule" link={['Choose a flag', paths.flags(ns)]}>
              On a flag’s page, a rule serves a variant — or splits entities between variants — to a segment, in order; a boolean flag has
              rollouts instead: a segment, or a percentage of entities.
            </Step>
            <Step title="Evaluate" link={['Open the console', paths.console(ns)]}>
              The console asks as an application would, then shows the path to the answer: which rule matched, which constraints passed, the
              bucket.
            </Step>
          </ol>
        </section>

        <section class="start-section" aria-labelledby="start-apps">
          <h2 id="start-apps">Call Pennon from an application</h2>
          <p>
            One request per evaluation: the namespace, the flag, the entity and its context.{' '}
            {authRequired && (
              <>
                Set <code>{TOKEN_VARIABLE}</code> to a client token first.
              </>
            )}
          </p>
          <CommandBlock
            title="curl command"
            testId="start-curl"
            command={curlCommand(request, 'variant', address, authRequired)}
            note={`Replace ${EXAMPLE_FLAG} with a flag’s key. A boolean flag: /evaluate/v1/boolean with the same body.`}
          />
          <CommandBlock title="pennon command" testId="start-pennon" command={pennonCommand(request, address, authRequired)} />
          <p class="start-sdks">
            Flipt’s SDKs and OpenFeature providers work unchanged: point them at <code>{address}</code>. Server-side SDKs call{' '}
            <code>/evaluate/v1</code>, client-side SDKs read <code>/internal/v1/evaluation/snapshot/namespace/{ns}</code>, OpenFeature’s OFREP
            providers use <code>/ofrep/v1</code>.
          </p>
        </section>

        <section class="start-section" aria-labelledby="start-tokens">
          <h2 id="start-tokens">Tokens</h2>
          {authRequired ? (
            <p>
              This instance requires a client token on every call. Create one in <Link href={paths.tokens}>API tokens</Link> — scoped to
              namespace <span class="mono">{ns}</span> if the application needs no other — and give it to the SDK as its client token, or send
              it as <code>Authorization: Bearer …</code>. It is shown once.
            </p>
          ) : (
            <p>
              This instance does not require authentication, so the commands above carry no token. Where it is required, applications send a
              client token made in <Link href={paths.tokens}>API tokens</Link> as <code>Authorization: Bearer …</code>.
            </p>
          )}
        </section>
      </div>
    </Page>
  );
}

function Step({ title, link: [label, href], children }: { title: string; link: [string, string]; children: ComponentChildren }) {
  return (
    <li class="start-step">
      <h3>{title}</h3>
      <p>{children}</p>
      <Link href={href} class="button button-small">
        {label}
      </Link>
    </li>
  );
}
