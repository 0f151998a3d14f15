/**
 * A reader's temporary addresses: where all their print goes for a while. Those running or to come
 * are listed (the last few ended folded away); one is added with the cut-off said before it is
 * sent and an address written as the profile's is (the country picked by name), deleted before it
 * starts, or ended early once it has. What each change did is said in the section's live region.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  addTemporaryAddress,
  deleteTemporaryAddress,
  endTemporaryAddress,
  listTemporaryAddresses,
  type TemporaryAddress,
  type TemporaryAddressCreate,
} from '../api/print';
import type { LoadedReader } from '../api/readers';
import {
  CutoffNote,
  EndEarlyForm,
  messagesOf,
  PastRecords,
  SendingForm,
  splitByTime,
  useChangesOpen,
} from './dated-records';
import { CountryField, Field } from './field';

const ADDRESS_FIELDS = [
  ['streetAddress', 'Street address'],
  ['unitNumber', 'Flat, suite or unit'],
  ['addressLocality', 'Town or city'],
  ['addressRegion', 'State, province or region'],
  ['postalCode', 'Postal code'],
  ['addressCountry', 'Country'],
] as const;
type AddressField = (typeof ADDRESS_FIELDS)[number][0];

export function TemporaryAddresses({ loaded, reload }: { loaded: LoadedReader; reload: () => Promise<unknown> }) {
  const userId = loaded.reader.id;
  const [records, setRecords] = useState<TemporaryAddress[] | undefined>();
  const [form, setForm] = useState<'none' | 'add' | `end-${string}`>('none');
  const [result, setResult] = useState('');
  const opener = useRef<HTMLButtonElement | null>(null);
  useEffect(() => {
    listTemporaryAddresses(userId).then(({ records }) => setRecords(records));
  }, [userId, loaded]);
  const close = () => {
    setForm('none');
    opener.current?.focus();
  };
  const finish = async (message: string) => {
    setForm('none');
    setResult(message);
    await reload();
    opener.current?.focus();
  };
  const openWith = (next: typeof form) => (event: Event) => {
    opener.current = event.currentTarget as HTMLButtonElement;
    setResult('');
    setForm(next);
  };
  const { current, past } = splitByTime(records ?? []);
  return (
    <section aria-labelledby="temporary-addresses-heading">
      <h2 id="temporary-addresses-heading">Temporary addresses</h2>
      {records === undefined ? (
        <p>Reading temporary addresses…</p>
      ) : current.length === 0 ? (
        <p>No temporary address running or to come.</p>
      ) : (
        <ul class="records">
          {current.map((record) => (
            <li key={record.id}>
              <AddressLine record={record} />
              <div class="actions">
                {record.attributes.status === 'scheduled' && (
                  <button
                    type="button"
                    aria-label={`Withdraw temporary address ${spanOf(record)}`}
                    onClick={async () => {
                      const answer = await deleteTemporaryAddress(userId, record.id);
                      if (!answer.response.ok) return setResult(Object.values(messagesOf(answer)).join(' '));
                      await finish(`Temporary address ${spanOf(record)} withdrawn.`);
                    }}
                  >
                    Withdraw
                  </button>
                )}
                {record.attributes.status === 'active' && (
                  <button
                    type="button"
                    aria-label={`End temporary address ${spanOf(record)} early`}
                    onClick={openWith(`end-${record.id}`)}
                  >
                    End early
                  </button>
                )}
              </div>
              {form === `end-${record.id}` && (
                <EndEarlyForm
                  id={`temporary-${record.id}-end`}
                  userId={userId}
                  what={`temporary address ${spanOf(record)}`}
                  verb="sent home again"
                  end={(endDate) => endTemporaryAddress(userId, record.id, endDate)}
                  done={(endDate) => finish(`Temporary address now ends on ${endDate}.`)}
                  cancel={close}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {past.length > 0 && (
        <PastRecords summary={`Ended temporary addresses (the last ${past.length})`}>
          {past.map((record) => (
            <li key={record.id}>
              <AddressLine record={record} />
            </li>
          ))}
        </PastRecords>
      )}
      <button type="button" class="secondary" aria-expanded={form === 'add'} onClick={openWith('add')}>
        Add a temporary address
      </button>
      {form === 'add' && (
        <TemporaryAddressForm
          userId={userId}
          done={(record) => finish(`Temporary address ${spanOf(record)} added.`)}
          cancel={close}
        />
      )}
      <p class="notice" role="status">
        {result}
      </p>
    </section>
  );
}

const spanOf = (r: TemporaryAddress) => `${r.attributes.startDate} to ${r.attributes.endDate}`;

function AddressLine({ record }: { record: TemporaryAddress }) {
  const a = record.attributes;
  const address = a.address as Record<string, string | null | undefined>;
  const line = ADDRESS_FIELDS.map(([name]) => address[name])
    .filter(Boolean)
    .join(', ');
  return (
    <>
      <span class={`status status-${a.status}`}>{a.status}</span>{' '}
      <span>
        {a.startDate} → {a.endDate}
      </span>
      <span class="gives"> · {line}</span>
    </>
  );
}

/** The fields whose messages the form shows beside them (one about the address as a whole, at the street). */
const FIELDS = ['startDate', 'endDate', 'address', ...ADDRESS_FIELDS.map(([name]) => `address.${name}`)];

function TemporaryAddressForm({
  userId,
  done,
  cancel,
}: {
  userId: string;
  done: (record: TemporaryAddress) => void;
  cancel: () => void;
}) {
  const [dates, setDates] = useState({ startDate: '', endDate: '' });
  const [address, setAddress] = useState<Record<AddressField, string>>(
    () => Object.fromEntries(ADDRESS_FIELDS.map(([name]) => [name, ''])) as Record<AddressField, string>,
  );
  const [messages, setMessages] = useState<Record<string, string>>({});
  const open = useChangesOpen(userId, (read) =>
    setDates((typed) => (typed.startDate ? typed : { ...typed, startDate: read.firstOpenDate })),
  );
  const setDate = (name: keyof typeof dates) => (value: string) => setDates((d) => ({ ...d, [name]: value }));
  const setLine = (name: AddressField) => (value: string) => setAddress((a) => ({ ...a, [name]: value }));
  return (
    <SendingForm
      label="Add a temporary address"
      describedBy="temporary-cutoff"
      fields={FIELDS}
      messages={messages}
      submit="Add temporary address"
      cancel={cancel}
      send={async () => {
        const written = Object.fromEntries(
          Object.entries(address).map(([name, value]) => [name, value.trim() === '' ? null : value]),
        );
        const attributes = { ...dates, address: written } as TemporaryAddressCreate;
        const answer = await addTemporaryAddress(userId, attributes);
        if (!answer.data) return setMessages(messagesOf(answer));
        done(answer.data.data);
      }}
    >
      <CutoffNote id="temporary-cutoff" open={open} verb="sent elsewhere" />
      <Field
        id="temporary-startDate"
        label="First day there"
        type="date"
        value={dates.startDate}
        onInput={setDate('startDate')}
        error={messages.startDate}
      />
      <Field
        id="temporary-endDate"
        label="Last day there"
        type="date"
        value={dates.endDate}
        onInput={setDate('endDate')}
        error={messages.endDate}
      />
      {ADDRESS_FIELDS.map(([name, label]) => {
        const props = {
          key: name,
          id: `temporary-address.${name}`,
          label,
          value: address[name],
          onInput: setLine(name),
          error: messages[`address.${name}`] ?? (name === 'streetAddress' ? messages.address : undefined),
        };
        return name === 'addressCountry' ? <CountryField {...props} /> : <Field {...props} />;
      })}
    </SendingForm>
  );
}
