import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { ErrorNote } from '../parts/bits';

interface OAuthSignIn {
  readonly sign_in_with: { readonly name: string; readonly url: string } | null;
  /** Why the last OAuth sign-in of this browser failed (the issuer's words, or the services'), told once. */
  readonly error: string | null;
}

/**
 * Sign-in with an admin key (sent once to the console service, which keeps it) or, where the console
 * is configured for it, at the OAuth issuer (a plain navigation: the token stays on the console
 * service). Either way the page keeps only a session cookie it cannot read.
 */
export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [oauth, setOAuth] = useState<OAuthSignIn | null>(null);
  useEffect(() => {
    api<OAuthSignIn>('session/oauth').then(setOAuth, () => setOAuth(null));
  }, []);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (key.trim() === '') return setError('Enter an admin key.');
    setBusy(true);
    setError(null);
    try {
      await api('session', { method: 'POST', body: { key: key.trim() } });
      setKey('');
      onSignedIn();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Onceport console</h1>
      <p>Approvals, reviews, runs and the vault of this gateway. Sign in with an admin key (the admins: of the actors file).</p>
      {oauth?.sign_in_with ? (
        // A plain navigation (a link, not fetch or a form: form-action is 'self'): to the issuer and back to the console service.
        <p>
          <a href={oauth.sign_in_with.url}>Sign in with {oauth.sign_in_with.name}</a>, or with an admin key:
        </p>
      ) : null}
      <ErrorNote message={oauth?.error ? `Sign-in failed: ${oauth.error}` : null} />
      <form onSubmit={(event) => void submit(event)}>
        <label for="admin-key">Admin key</label>
        <input
          id="admin-key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
        <ErrorNote message={error} />
      </form>
    </main>
  );
}
