/**
 * A licence's seats: who holds them (a page at a time, with "Show more seats"), a seat given to a
 * reader found by email or id, and a seat taken back after a question, since its reader loses
 * what the licence gives them at once. The service's refusals (no seats left, the reader holds
 * one already, no such reader) stand beside the field.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { describe } from '../api/client';
import { giveSeat, listSeats, removeSeat, type HeldSeat, type LoadedLicence } from '../api/licences';
import { dayOf } from '../api/subscriptions';
import { Confirmation } from './confirmation';
import { Field } from './field';

const holderName = ({ seat, holder }: HeldSeat) => {
  if (!holder) return `Reader ${seat.relationships?.user.data.id ?? ''}`;
  const { givenName, familyName, email } = holder.attributes;
  return [givenName, familyName].filter(Boolean).join(' ') || email || `Reader ${holder.id}`;
};

export function LicenceSeats({ loaded }: { loaded: LoadedLicence }) {
  const ownerId = loaded.owner.id;
  const id = loaded.licence.id;
  const seats = loaded.licence.attributes.seats;
  const [held, setHeld] = useState<HeldSeat[] | undefined>();
  const [next, setNext] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [said, setSaid] = useState<string | undefined>();
  const firstPage = useCallback(async () => {
    const page = await listSeats(ownerId, id);
    if ('refused' in page) return setProblem(page.refused);
    setHeld(page.seats);
    setNext(page.next);
  }, [ownerId, id]);
  useEffect(() => {
    firstPage();
  }, [firstPage]);
  return (
    <section aria-labelledby="seats-heading">
      <h2 id="seats-heading">Seats</h2>
      <p>
        {seats == null
          ? 'This licence has no seats: set a number of seats above to name readers.'
          : `Up to ${seats} readers, each given what the licence gives while it is active.`}
      </p>
      {problem && <p class="error">{problem}</p>}
      {held !== undefined && held.length === 0 && <p>No seat given.</p>}
      {held !== undefined && held.length > 0 && (
        <ul class="records" aria-label="Seat holders">
          {held.map((h) => (
            <SeatItem
              key={h.seat.id}
              held={h}
              onRemove={async () => {
                const { response, error } = await removeSeat(ownerId, id, h.seat.id);
                if (!response.ok) return describe(error, response.status);
                await firstPage();
                setSaid(`Seat of ${holderName(h)} taken back.`);
                return undefined;
              }}
            />
          ))}
        </ul>
      )}
      {next !== undefined && (
        <button
          type="button"
          onClick={async () => {
            const page = await listSeats(ownerId, id, next);
            if ('refused' in page) return setProblem(page.refused);
            setHeld([...(held ?? []), ...page.seats]);
            setNext(page.next);
          }}
        >
          Show more seats
        </button>
      )}
      <p role="status">{said}</p>
      {seats != null && (
        <GiveSeat
          loaded={loaded}
          onGiven={async (text) => {
            await firstPage();
            setSaid(text);
          }}
        />
      )}
    </section>
  );
}

function SeatItem({ held, onRemove }: { held: HeldSeat; onRemove: () => Promise<string | undefined> }) {
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const confirming = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => confirming.current?.focus(), [asking]);
  const name = holderName(held);
  const email = held.holder?.attributes.email;
  return (
    <li>
      {held.holder ? <a href={`#/readers/${encodeURIComponent(held.holder.id)}`}>{name}</a> : name}
      {email && email !== name && <span> · {email}</span>}
      <span class="muted"> · since {dayOf(held.seat.attributes.createdAt)}</span>{' '}
      <button type="button" aria-label={`Take back the seat of ${name}`} onClick={() => setAsking(true)}>
        Take back
      </button>
      {asking && (
        <Confirmation
          id={`take-back-${held.seat.id}`}
          question={`Take back the seat of ${name}?`}
          detail={`${name} loses what the licence gives them now.`}
          yes="Yes, take it back"
          focus={confirming}
          onYes={async () => {
            const refused = await onRemove();
            setProblem(refused);
            if (refused === undefined) setAsking(false);
          }}
          onNo={() => setAsking(false)}
        />
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </li>
  );
}

function GiveSeat({ loaded, onGiven }: { loaded: LoadedLicence; onGiven: (said: string) => Promise<void> }) {
  const [who, setWho] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <form
      class="add"
      aria-labelledby="give-seat-heading"
      onSubmit={async (e) => {
        e.preventDefault();
        const answer = await giveSeat(loaded.owner.id, loaded.licence.id, who);
        if ('unknownEmail' in answer) {
          setProblem(`No reader has the email ${answer.unknownEmail}.`);
          return;
        }
        if (!answer.response.ok) {
          setProblem(describe(answer.error, answer.response.status));
          return;
        }
        setProblem(undefined);
        setWho('');
        await onGiven(`Seat given to ${who.trim()}.`);
      }}
    >
      <h3 id="give-seat-heading">Give a seat</h3>
      <Field
        id="seat-holder"
        label="Reader's email or reader id"
        value={who}
        onInput={setWho}
        error={problem}
        required
      />
      <button type="submit">Give seat</button>
    </form>
  );
}
