/**
 * A password reset for the reader, as the service is set up to give one: mailed to the reader
 * (the agent never sees the token), or else, for an admin only (whoever sees a token can take the
 * account), a link to the reset page to copy, or else the bare token, shown once; and erasing the
 * reader once their email is typed.
 */
import { useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import { eraseReader, issueResetToken, mailResetLink, type LoadedReader } from '../api/readers';
import type { Offers } from '../api/session';
import { Field } from './field';
import { flash } from './flash';

/** What the last reset gave: a sent mail, a link to copy, or a bare token. */
type Reset = { mailedTo: string } | { link: string } | { token: string };

export function DangerZone({ loaded, offers }: { loaded: LoadedReader; offers: Offers }) {
  const { reader } = loaded;
  const [reset, setReset] = useState<Reset | undefined>();
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const email = reader.attributes.email ?? '';
  const say = (error: unknown) =>
    setProblem(
      errorsOf(error)
        .map((e) => e.detail ?? e.title)
        .join(' ') || 'The service did not answer.',
    );
  const resetPassword = async () => {
    setReset(undefined);
    setProblem(undefined);
    if (offers.mail) {
      const { data, error } = await mailResetLink(reader.id);
      if (data?.meta.mailed) setReset({ mailedTo: email });
      else say(error);
      return;
    }
    const { data, error } = await issueResetToken(reader.id);
    if (data?.meta.resetUrl) setReset({ link: data.meta.resetUrl });
    else if (data?.meta.token) setReset({ token: data.meta.token });
    else say(error);
  };
  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">Account</h2>
      {offers.mail || offers.resetTokensShown ? (
        <button type="button" onClick={resetPassword}>
          {offers.mail
            ? 'Send password reset email'
            : offers.passwordResetLinks
              ? 'Create a password reset link'
              : 'Issue a password-reset token'}
        </button>
      ) : (
        <p id="reset-unavailable">
          Only an admin can make a password reset link for a reader here, since the service does not mail them.
        </p>
      )}
      {reset && 'mailedTo' in reset && (
        <p class="notice" role="status">
          A password reset email was sent to {reset.mailedTo}.
        </p>
      )}
      {reset && 'link' in reset && <ResetLink link={reset.link} />}
      {reset && 'token' in reset && (
        <p role="status">
          Password-reset token, shown only this once, for the website's reset form (the service has no reset page
          address to make a link with): <code id="reset-token">{reset.token}</code>
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
          } else say(error);
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

/** The link, shown this once, ready to copy and send to the reader. */
function ResetLink({ link }: { link: string }) {
  const [copied, setCopied] = useState<boolean | undefined>();
  return (
    <div role="status">
      <label for="reset-link">Password reset link (shown only this once; send it to the reader)</label>
      <input id="reset-link" type="text" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />{' '}
      <button
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(link);
            setCopied(true);
          } catch {
            // Without clipboard access (an insecure origin, a refusing browser), the agent copies by hand.
            (document.getElementById('reset-link') as HTMLInputElement | null)?.select();
            setCopied(false);
          }
        }}
      >
        Copy link
      </button>
      {copied === true && <span class="notice"> Copied.</span>}
      {copied === false && <span> Selected: press Ctrl+C (⌘C) to copy.</span>}
    </div>
  );
}
