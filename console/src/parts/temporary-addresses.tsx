/**
 * A reader's temporary addresses: where all their print goes for a while. Those running or to come
 * are listed (the last few ended folded away); one is added with the cut-off said before it is
 * sent and an address written as the profile's is (the country picked by name), deleted before it
 * starts, or ended early once it has. What each change did is said in the section's live region.
 */
import { useEffect, useState } from 'preact/hooks';
import {
  addTemporaryAddress,
  deleteTemporaryAddress,
  endTemporaryAddress,
  listTemporaryAddresses,
  type TemporaryAddress,
  type TemporaryAddressCreate,
} from '../api/print';
import type { LoadedReader } from '../api/readers';
import { DatedRecords, messagesOf, Result, SendingForm, useChangesOpen, useFormFlow } from './dated-records';
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
  const flow = useFormFlow(reload);
  useEffect(() => {
    listTemporaryAddresses(userId).then(({ records }) => setRecords(records));
  }, [userId, loaded]);
  return (
    <section aria-labelledby="temporary-addresses-heading">
      <h2 id="temporary-addresses-heading">Temporary addresses</h2>
      <DatedRecords
        records={records}
        noun="temporary address"
        plural="temporary addresses"
        pastSummary="Ended temporary addresses"
        line={(record) => <AddressLine record={record} />}
        verb="sent home again"
        withdraw={(record) => deleteTemporaryAddress(userId, record.id)}
        end={(record, endDate) => endTemporaryAddress(userId, record.id, endDate)}
        ended={(endDate) => `Temporary address now ends on ${endDate}.`}
        userId={userId}
        flow={flow}
      />
      <button type="button" class="secondary" aria-expanded={flow.form === 'add'} onClick={flow.openWith('add')}>
        Add a temporary address
      </button>
      {flow.form === 'add' && (
        <TemporaryAddressForm
          userId={userId}
          done={(record) => flow.finish(`Temporary address ${spanOf(record)} added.`)}
          cancel={flow.close}
        />
      )}
      <Result flow={flow} />
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
      cutoff={{ id: 'temporary-cutoff', open, verb: 'sent elsewhere' }}
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
