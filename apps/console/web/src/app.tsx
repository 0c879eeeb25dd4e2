import { useEffect, useState } from 'preact/hooks';
import { api, onSignedOut } from './api';
import { closeLiveFeed, openLiveFeed, useLive } from './live';
import { type Route, href, useRoute } from './router';
import { ApprovalsPage } from './pages/approvals';
import { CampaignPage } from './pages/campaign';
import { ExecutionPage } from './pages/execution';
import { ReviewsPage } from './pages/reviews';
import { RunsPage } from './pages/runs';
import { SignInPage } from './pages/sign-in';
import { VaultPage } from './pages/vault';

const NAV: readonly { readonly page: Route['page']; readonly label: string; readonly to: string }[] = [
  { page: 'approvals', label: 'Approvals', to: href('approvals') },
  { page: 'reviews', label: 'Reviews', to: href('reviews') },
  { page: 'runs', label: 'Runs', to: href('runs') },
  { page: 'execution', label: 'Executions', to: href('executions') },
  { page: 'vault', label: 'Vault', to: href('vault') },
];

export function App() {
  const [signedIn, setSignedIn] = useState<boolean | null>(null);
  const route = useRoute();
  useEffect(() => {
    api<{ signed_in: boolean }>('session').then(
      (session) => setSignedIn(session.signed_in),
      () => setSignedIn(false),
    );
    return onSignedOut(() => setSignedIn(false));
  }, []);
  useEffect(() => {
    if (signedIn) openLiveFeed();
    else closeLiveFeed();
  }, [signedIn]);
  useLive('signed_out', () => setSignedIn(false));
  // A new page moves focus to its heading, so keyboard and screen-reader users land where the content is.
  useEffect(() => document.getElementById('page-title')?.focus(), [route]);

  if (signedIn === null) return <p class="loading">Loading the console…</p>;
  if (!signedIn) return <SignInPage onSignedIn={() => setSignedIn(true)} />;
  const signOut = (): void => {
    void api('session', { method: 'DELETE' }).finally(() => setSignedIn(false));
  };
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Onceport</span>
        <nav aria-label="Console">
          <ul>
            {NAV.map((item) => (
              <li key={item.page}>
                <a href={item.to} aria-current={route.page === item.page ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" class="plain" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Page route={route} />
      </main>
    </>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'approvals':
      return <ApprovalsPage />;
    case 'reviews':
      return <ReviewsPage />;
    case 'vault':
      return <VaultPage />;
    case 'runs':
      return <RunsPage runId={route.runId} />;
    case 'execution':
      return <ExecutionPage executionId={route.executionId} />;
    case 'campaign':
      return <CampaignPage runId={route.runId} tool={route.tool} />;
    default: {
      const _exhaustive: never = route;
      return _exhaustive;
    }
  }
}
