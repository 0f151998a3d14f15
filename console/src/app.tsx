/**
 * The console: sign-in until a session is live, then the reader search (#/), a reader's page
 * (#/readers/<id>), a site licence's (#/readers/<owner>/licences/<id>), the dashboard
 * (#/dashboard) and, for an admin, the open privacy requests (#/privacy-requests). Routes live in
 * the address's fragment, so the service serves one shell.
 */
import { useEffect, useState } from 'preact/hooks';
import { SESSION_ENDED } from './api/client';
import { currentSession, signOut, type SignedIn } from './api/session';
import { DashboardPage } from './screens/dashboard';
import { LicencePage } from './screens/licence';
import { PrivacyRequestsPage } from './screens/privacy-requests';
import { ReaderPage } from './screens/reader';
import { SearchPage } from './screens/search';
import { SignInPage } from './screens/sign-in';

function useHashRoute(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return hash;
}

export function App() {
  const [session, setSession] = useState<SignedIn | null | undefined>(undefined);
  const hash = useHashRoute();
  const [ended, setEnded] = useState(false);
  useEffect(() => {
    currentSession().then(setSession, () => setSession(null));
    const end = () => {
      setEnded(true);
      setSession(null);
    };
    addEventListener(SESSION_ENDED, end);
    return () => removeEventListener(SESSION_ENDED, end);
  }, []);

  if (session === undefined)
    return (
      <main id="main">
        <p role="status">Loading…</p>
      </main>
    );
  if (session === null)
    return (
      <SignInPage
        ended={ended}
        onSignedIn={(signedIn) => {
          setEnded(false);
          setSession(signedIn);
        }}
      />
    );

  const reader = /^#\/readers\/([^/]+)$/.exec(hash)?.[1];
  const licence = /^#\/readers\/([^/]+)\/licences\/([^/]+)$/.exec(hash);
  const dashboard = hash === '#/dashboard';
  const privacy = hash === '#/privacy-requests';
  const searching = !reader && !licence && !dashboard && !privacy;
  // The service keeps privacy requests for admins alone; the console offers them to no one else.
  const keepsPrivacyRequests = session.role === 'admin';
  return (
    <>
      <header class="bar">
        <a href="#/" class="brand">
          circulation console
        </a>
        <nav aria-label="Console">
          <a href="#/" aria-current={searching ? 'page' : undefined}>
            Search
          </a>
          <a href="#/dashboard" aria-current={dashboard ? 'page' : undefined}>
            Dashboard
          </a>
          {keepsPrivacyRequests && (
            <a href="#/privacy-requests" aria-current={privacy ? 'page' : undefined}>
              Privacy requests
            </a>
          )}
        </nav>
        <span class="who">
          {session.name} ({session.role})
        </span>
        <button
          type="button"
          onClick={async () => {
            await signOut();
            location.hash = '';
            setSession(null);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main">
        {reader ? (
          <ReaderPage
            key={reader}
            id={decodeURIComponent(reader)}
            offers={session.offers}
            keepsPrivacyRequests={keepsPrivacyRequests}
          />
        ) : licence ? (
          <LicencePage
            key={hash}
            ownerId={decodeURIComponent(licence[1] as string)}
            id={decodeURIComponent(licence[2] as string)}
          />
        ) : dashboard ? (
          <DashboardPage />
        ) : privacy ? (
          <PrivacyRequestsPage />
        ) : (
          // Keyed by the address, so that Back to an earlier search (or to none) shows it anew.
          <SearchPage key={hash} />
        )}
      </main>
    </>
  );
}
