import { useEffect, useState } from 'preact/hooks';
import { Redirect, Route, Router, Switch, useLocation, useSearch } from 'wouter-preact';
import { Layout } from './components/layout';
import { LoadError, Loading } from './components/states';
import { ToastProvider } from './components/toast';
import { paths, screens } from './routes';
import { useHashPath } from './routes/hash-location';
import { LoginScreen } from './screens/login';
import { NotFoundScreen } from './screens/not-found';
import { LiveProvider } from './session/live';
import { NamespacesProvider, useNamespaces } from './session/namespaces';
import { SessionProvider, useSession } from './session/session';

/**
 * The dashboard: hash routing (`/#/namespaces/default/flags`, a query inside the hash:
 * routes/hash-location.ts), so the server serves one page and any deep link survives a reload.
 * The session decides between the sign-in screen and the layout; the layout holds every screen
 * that routes/index.ts lists, and follows the current namespace's live updates (session/live.tsx).
 */
export function App() {
  return (
    <Router hook={useHashPath}>
      <ToastProvider>
        <SessionProvider>
          <Gate />
        </SessionProvider>
      </ToastProvider>
    </Router>
  );
}

const nav = screens.flatMap((s) => (s.nav ? [s.nav] : []));
const routes = screens.flatMap((s) => s.routes);

function Gate() {
  const session = useSession();
  const [location, navigate] = useLocation();
  const search = useSearch();

  useEffect(() => {
    if (session.status === 'login' && location !== paths.login) {
      // Remember where the 401 interrupted (with its query: `…/console?flag=x`), to go back there after logging in.
      session.setReturnTo(search === '' ? location : `${location}?${search}`);
      navigate(paths.login, { replace: true });
    }
  }, [session.status, location]);

  if (session.status === 'loading') return <Loading label="Connecting to Pennon…" />;
  if (session.status === 'error') return <LoadError error={session.error} retry={() => window.location.reload()} />;
  if (session.status === 'login' || location === paths.login) return <LoginScreen />;
  return (
    <NamespacesProvider>
      <LiveProvider>
        <Layout nav={nav}>
          <Switch>
            <Route path="/">
              <Home />
            </Route>
            {routes.map((r) => (
              <Route key={r.path} path={r.path} component={r.component} />
            ))}
            <Route component={NotFoundScreen} />
          </Switch>
        </Layout>
      </LiveProvider>
    </NamespacesProvider>
  );
}

/**
 * `/` opens the flags of the namespace used last — or, back from a provider's sign-in (which
 * returns to `/`), the screen the user was sent to sign in from.
 */
function Home() {
  const { current } = useNamespaces();
  const session = useSession();
  const [to] = useState(() => session.returnTo ?? paths.flags(current));
  useEffect(() => session.setReturnTo(null), []);
  return <Redirect to={to} replace />;
}
