import { useEffect, useRef, useState } from 'preact/hooks';
import { Link, Route, Router, Switch, useLocation } from 'wouter-preact';
import { useHashLocation } from 'wouter-preact/use-hash-location';
import { apiGet, onUnauthorized, UnauthorizedError } from './api';
import { clearApiKey, getApiKey, setApiKey } from './api-key';
import { KeyPrompt } from './components/key-prompt';
import { ActionPage } from './pages/action';
import { Actions } from './pages/actions';
import { Group } from './pages/group';
import { Groups } from './pages/groups';
import { Operations } from './pages/operations';
import { Overview } from './pages/overview';
import { Tenants } from './pages/tenants';

type Access = 'checking' | 'granted' | 'key-needed';

/** Primary navigation; the current page is marked for screen readers. */
function Nav() {
  const [location] = useLocation();
  const current = (prefix: string) => (prefix === '/' ? location === '/' : location.startsWith(prefix));
  const item = (href: string, label: string) => (
    <li>
      <Link href={href} aria-current={current(href) ? 'page' : undefined}>
        {label}
      </Link>
    </li>
  );
  return (
    <ul>
      {item('/', 'Overview')}
      {item('/groups', 'Groups')}
      {item('/actions', 'Actions')}
      {item('/tenants', 'Tenants')}
      {item('/operations', 'Operations')}
    </ul>
  );
}

/** The pages, by hash route: `#/`, `#/groups`, `#/groups/26`, `#/actions`, `#/actions/17`, `#/tenants`, `#/operations`. */
function Pages() {
  const [location] = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // Another page: move the focus to it, so keyboard and screen reader users start there (not on the first load).
  useEffect(() => {
    if (first.current) first.current = false;
    else main.current?.focus({ preventScroll: true });
  }, [location]);
  return (
    <main id="main" class="container" tabIndex={-1} ref={main}>
      <Switch>
        <Route path="/" component={Overview} />
        <Route path="/groups" component={Groups} />
        <Route path="/groups/:lockId">{(params) => <Group lockId={params.lockId} />}</Route>
        <Route path="/actions" component={Actions} />
        <Route path="/actions/:id">{(params) => <ActionPage id={params.id} />}</Route>
        <Route path="/tenants" component={Tenants} />
        <Route path="/operations" component={Operations} />
        <Route>
          <h2>Not found</h2>
          <p>
            <Link href="/">Back to the overview</Link>
          </p>
        </Route>
      </Switch>
    </main>
  );
}

/**
 * The dashboard: asks for the API key when the service wants one (and again
 * whenever a request is refused), then shows the pages. Nothing is requested
 * while the key is missing or wrong.
 */
export function App() {
  const [access, setAccess] = useState<Access>('checking');
  const [rejected, setRejected] = useState(false);

  const check = async () => {
    try {
      await apiGet('/stats');
      setAccess('granted');
    } catch (e) {
      if (!(e instanceof UnauthorizedError)) setAccess('granted'); // the pages show the error
    }
  };

  useEffect(() => {
    const off = onUnauthorized(() => {
      setRejected(getApiKey() !== null);
      clearApiKey();
      setAccess('key-needed');
    });
    void check();
    return off;
  }, []);

  return (
    <Router hook={useHashLocation}>
      <a
        class="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="container">
        <nav aria-label="main">
          <ul>
            <li>
              <strong>Ordered action queue</strong>
            </li>
          </ul>
          {access === 'granted' && <Nav />}
          {access === 'granted' && getApiKey() !== null && (
            <ul>
              <li>
                <button
                  type="button"
                  class="secondary small"
                  onClick={() => {
                    clearApiKey();
                    setRejected(false);
                    setAccess('key-needed');
                  }}
                >
                  Forget key
                </button>
              </li>
            </ul>
          )}
        </nav>
      </header>
      {access === 'checking' && (
        <main class="container" aria-busy="true">
          Connecting…
        </main>
      )}
      {access === 'key-needed' && (
        <main class="container">
          <KeyPrompt
            rejected={rejected}
            onSubmit={(key) => {
              setApiKey(key);
              setAccess('checking');
              void check();
            }}
          />
        </main>
      )}
      {access === 'granted' && <Pages />}
    </Router>
  );
}
