/**
 * A reader's history on their page: what happened to them, newest first, when and by whom; read
 * again whenever the page's reader is (after each change made on the page), older events on demand.
 */
import { useEffect, useState } from 'preact/hooks';
import { readerHistory, type HistoryEvent } from '../api/history';

const WHAT: Record<HistoryEvent['attributes']['eventType'], string> = {
  'user.created': 'Reader created',
  'user.updated': 'Profile changed',
  'user.deleted': 'Reader erased',
  'user.signed_in': 'Signed in',
  'subscription.created': 'Subscription added',
  'subscription.updated': 'Subscription changed',
  'subscription.deleted': 'Subscription deleted',
  'subscription.expired': 'Subscription expired',
  'product.created': 'Product created',
  'product.updated': 'Product changed',
  'product.deleted': 'Product deleted',
  'newsletter.created': 'Newsletter created',
  'newsletter.updated': 'Newsletter changed',
  'newsletter.deleted': 'Newsletter deleted',
  'hold.created': 'Hold added',
  'hold.updated': 'Hold changed',
  'hold.withdrawn': 'Hold withdrawn',
  'temporary_address.created': 'Temporary address added',
  'temporary_address.updated': 'Temporary address changed',
  'temporary_address.deleted': 'Temporary address removed',
  'delivery_complaint.created': 'Delivery complaint',
  'newsletter_consent.changed': 'Newsletter consent changed',
  'privacy_request.created': 'Privacy request received',
  'privacy_request.updated': 'Privacy request changed',
  'seat.created': 'Seat given',
  'seat.deleted': 'Seat taken back',
};

/** Who made the change: the staff member or API key by name, the service's own parts as "system". */
export function whoDid(actor: HistoryEvent['attributes']['actor']): string {
  if (actor === null) return 'system';
  if (actor.type === 'system') return `system (${actor.name ?? actor.id})`;
  return actor.name ?? `${actor.type === 'staff' ? 'staff member' : 'API key'} ${actor.id} (gone)`;
}

/** An instant as a person reads it: its day and minute, in UTC as the API gives it. */
export const when = (instant: string) => `${instant.slice(0, 10)} ${instant.slice(11, 16)} UTC`;

export function History({ userId, version }: { userId: string; version: unknown }) {
  const [events, setEvents] = useState<HistoryEvent[] | undefined>();
  const [after, setAfter] = useState<string | undefined>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let current = true;
    readerHistory(userId).then((page) => {
      if (!current) return;
      setFailed(page === undefined);
      setEvents(page?.events ?? []);
      setAfter(page?.after);
    });
    return () => {
      current = false;
    };
  }, [userId, version]);
  const more = async () => {
    const page = await readerHistory(userId, after);
    if (!page) return setFailed(true);
    setEvents([...(events ?? []), ...page.events]);
    setAfter(page.after);
  };
  return (
    <section aria-labelledby="history-heading" class="history">
      <h2 id="history-heading">History</h2>
      {failed && (
        <p class="error" role="alert">
          The history could not be read.
        </p>
      )}
      {events === undefined && <p role="status">Loading…</p>}
      {events?.length === 0 && !failed && <p>Nothing has happened to this reader yet.</p>}
      {events && events.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col">Who</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => {
              const a = event.attributes;
              return (
                <tr key={event.id}>
                  <td>
                    <time dateTime={a.occurredAt}>{when(a.occurredAt)}</time>
                  </td>
                  <td>
                    {WHAT[a.eventType]}
                    {a.changed.length > 0 && <span class="muted"> ({a.changed.join(', ')})</span>}
                  </td>
                  <td>{whoDid(a.actor)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {after && (
        <button type="button" class="secondary" onClick={more}>
          Older events
        </button>
      )}
    </section>
  );
}
