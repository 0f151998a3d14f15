/**
 * A reader's newsletters: each newsletter they ever had, with where their consent stands, how it
 * came to and since when (the proof of consent the service keeps); a member (or a reader awaiting
 * confirmation) removed, or a newsletter added, with the reader's ETag as If-Match; and one
 * consent's every change, oldest first, opened beneath the list.
 */
import { useEffect, useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import {
  consentHistory,
  listConsents,
  type Consent,
  type ConsentChange,
  type ConsentSource,
  type ConsentState,
} from '../api/consents';
import { updateReader, type LoadedReader } from '../api/readers';
import { when, whoDid } from './history';

type Named = { id: string; name: string };

const STATE: Record<ConsentState, { text: string; look: string }> = {
  pending: { text: 'awaiting confirmation', look: 'status-scheduled' },
  subscribed: { text: 'subscribed', look: 'status-active' },
  unsubscribed: { text: 'unsubscribed', look: 'status-ended' },
  // Suppressed: the service refuses to add the reader again until they confirm.
  bounced: { text: 'bounced (suppressed)', look: 'status-expired' },
  complained: { text: 'complained (suppressed)', look: 'status-expired' },
};

/** How a consent came to its state, as it reads after the state: "subscribed through the API". */
const SOURCE: Record<ConsentSource, string> = {
  api: 'through the API',
  console: 'in the console',
  import: 'by an import',
  confirmation: "by the reader's confirmation",
  'unsubscribe-link': 'by an unsubscribe link',
  'email-provider': 'as the email provider reported',
};

/** The states a `remove` takes a reader out of: a member, or one who has not yet confirmed. */
const REMOVABLE: ReadonlySet<ConsentState> = new Set(['subscribed', 'pending']);

function StateBadge({ state }: { state: ConsentState }) {
  return <span class={`status ${STATE[state].look}`}>{STATE[state].text}</span>;
}

export function Newsletters({
  loaded,
  newsletters,
  reload,
}: {
  loaded: LoadedReader;
  newsletters: Named[];
  reload: () => Promise<unknown>;
}) {
  const userId = loaded.reader.id;
  const current = loaded.reader.attributes.newsletters ?? [];
  const [consents, setConsents] = useState<Consent[] | undefined>();
  const [unread, setUnread] = useState(false);
  const [opened, setOpened] = useState<string | undefined>();
  const [adding, setAdding] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    listConsents(userId).then(({ records, complete }) => {
      if (!live) return;
      setConsents(records);
      setUnread(!complete);
    });
    return () => {
      live = false;
    };
    // A new `loaded` is the reader read again after a change: their consents may have changed with it.
  }, [userId, loaded]);
  const nameOf = (id: string) => newsletters.find((n) => n.id === id)?.name ?? id;
  const held = new Set([
    ...current,
    ...(consents ?? []).filter((c) => REMOVABLE.has(c.attributes.state)).map((c) => c.id),
  ]);
  const change = async (newsletters: { add: string[] } | { remove: string[] }) => {
    const { response, error } = await updateReader(userId, loaded.etag, { newsletters });
    setProblem(
      response.ok
        ? undefined
        : response.status === 412
          ? 'Someone else changed this reader meanwhile: the list now shows their newsletters.'
          : errorsOf(error)
              .map((e) => e.detail ?? e.title)
              .join(' '),
    );
    setAdding('');
    await reload();
  };
  const openedConsent = consents?.find((c) => c.id === opened);
  return (
    <section aria-labelledby="newsletters-heading">
      <h2 id="newsletters-heading">Newsletters</h2>
      {current.length === 0 && <p>No newsletters.</p>}
      {unread && (
        <p class="error" role="alert">
          The newsletter consents could not all be read.
        </p>
      )}
      {consents === undefined && <p role="status">Loading…</p>}
      {consents && consents.length > 0 && (
        <ul class="records" aria-label="Consent for each newsletter the reader ever had">
          {consents.map((consent) => {
            const { state, source, changedAt } = consent.attributes;
            const name = nameOf(consent.id);
            const open = opened === consent.id;
            return (
              <li key={consent.id}>
                <strong>{name}</strong> <StateBadge state={state} /> {SOURCE[source]},{' '}
                <time dateTime={changedAt}>{when(changedAt)}</time>{' '}
                <span class="actions">
                  {REMOVABLE.has(state) && (
                    <button
                      type="button"
                      aria-label={`Remove ${name}`}
                      onClick={() => change({ remove: [consent.id] })}
                    >
                      Remove
                    </button>
                  )}{' '}
                  <button
                    type="button"
                    aria-label={`History of ${name}`}
                    aria-expanded={open}
                    aria-controls={open ? 'consent-history' : undefined}
                    onClick={() => setOpened(open ? undefined : consent.id)}
                  >
                    History
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {openedConsent && (
        <ConsentHistory
          key={openedConsent.id}
          userId={userId}
          newsletterId={openedConsent.id}
          name={nameOf(openedConsent.id)}
          version={openedConsent}
        />
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (adding) change({ add: [adding] });
        }}
      >
        <label for="add-newsletter">Add a newsletter</label>
        <select id="add-newsletter" value={adding} onChange={(e) => setAdding(e.currentTarget.value)}>
          <option value="">Choose a newsletter</option>
          {newsletters
            .filter((n) => !held.has(n.id))
            .map((n) => (
              <option key={n.id} value={n.id}>
                {n.name}
              </option>
            ))}
        </select>{' '}
        <button type="submit">Add newsletter</button>
      </form>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}

/** Every change of one consent, oldest first: when, the state it went to, how, and by whom. */
function ConsentHistory({
  userId,
  newsletterId,
  name,
  version,
}: {
  userId: string;
  newsletterId: string;
  name: string;
  /** The consent as last read: each read of it (after a change on the page) reads its history again. */
  version: unknown;
}) {
  const [changes, setChanges] = useState<ConsentChange[] | undefined>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    consentHistory(userId, newsletterId).then(({ records, complete }) => {
      if (!live) return;
      setChanges(records);
      setFailed(!complete);
    });
    return () => {
      live = false;
    };
  }, [userId, newsletterId, version]);
  return (
    <section id="consent-history" aria-labelledby="consent-history-heading">
      <h3 id="consent-history-heading">Consent history: {name}</h3>
      {failed && (
        <p class="error" role="alert">
          The consent's history could not all be read.
        </p>
      )}
      {changes === undefined && <p role="status">Loading…</p>}
      {changes && changes.length > 0 && (
        <ol class="records">
          {changes.map((change) => {
            const a = change.attributes;
            return (
              <li key={change.id}>
                <time dateTime={a.changedAt}>{when(a.changedAt)}</time> <StateBadge state={a.state} />{' '}
                {SOURCE[a.source]}, by {whoDid(a.actor)}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
