/** A password-reset token (shown once), and erasing the reader once their email is typed. */
import { useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import { eraseReader, issueResetToken, type LoadedReader } from '../api/readers';
import { Field } from './field';
import { flash } from './flash';

export function DangerZone({ loaded }: { loaded: LoadedReader }) {
  const { reader } = loaded;
  const [token, setToken] = useState<string | undefined>();
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const email = reader.attributes.email ?? '';
  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">Account</h2>
      <button
        type="button"
        onClick={async () => {
          const { data, error } = await issueResetToken(reader.id);
          if (data) setToken(data.meta.token);
          else
            setProblem(
              errorsOf(error)
                .map((e) => e.detail ?? e.title)
                .join(' '),
            );
        }}
      >
        Issue a password-reset token
      </button>
      {token && (
        <p role="status">
          Reset token (shown once): <code id="reset-token">{token}</code>
        </p>
      )}
      <form
        class="erase"
        onSubmit={async (e) => {
          e.preventDefault();
          const { response, error } = await eraseReader(reader.id);
          if (response.ok) {
            const name = [reader.attributes.givenName, reader.attributes.familyName].filter(Boolean).join(' ');
            flash(`Reader ${reader.id}${name ? ` (${name})` : ''} was erased, with everything held about them.`);
            location.hash = '#/';
          } else
            setProblem(
              errorsOf(error)
                .map((x) => x.detail ?? x.title)
                .join(' '),
            );
        }}
      >
        <h3>Erase this reader</h3>
        <Field
          id="erase-confirm"
          label={`Type ${email} to confirm`}
          value={typed}
          onInput={setTyped}
          autoComplete="off"
        />
        <button type="submit" class="danger" disabled={typed.trim().toLowerCase() !== email.toLowerCase()}>
          Erase reader
        </button>
      </form>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
