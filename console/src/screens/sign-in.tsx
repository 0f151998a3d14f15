import { useState } from 'preact/hooks';
import { signIn, type SignedIn } from '../api/session';
import { Field } from '../parts/field';

export function SignInPage({ ended, onSignedIn }: { ended: boolean; onSignedIn: (session: SignedIn) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="narrow">
      <h1>Sign in to the console</h1>
      {ended && <p role="status">Your session has ended: sign in again.</p>}
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          const result = await signIn(email, password);
          setBusy(false);
          if (Array.isArray(result)) setProblem(result.map((e) => e.detail ?? e.title).join(' ') || 'Sign-in failed.');
          else onSignedIn(result);
        }}
      >
        <Field
          id="email"
          label="Email"
          type="email"
          value={email}
          onInput={setEmail}
          required
          autoComplete="username"
        />
        <Field
          id="password"
          label="Password"
          type="password"
          value={password}
          onInput={setPassword}
          required
          autoComplete="current-password"
        />
        {problem && (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
