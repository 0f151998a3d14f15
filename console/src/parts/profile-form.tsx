/**
 * The profile and address, edited in place. A save sends only the attributes the agent changed,
 * with the ETag the page was read with as If-Match: whatever the form does not show (the
 * honorifics, notes, employer, and any address field it lacks) stays as it was, and when someone
 * else changed the reader meanwhile (412) the form shows their values. The API replaces an
 * address as a whole, so a changed address is the one read with the edited fields put in.
 * The API's 422 messages stand beside the fields they name.
 */
import { useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import { updateReader, type LoadedReader, type Profile, type Reader } from '../api/readers';
import { messagesByField } from './errors';
import { CountryField, Field } from './field';

const FIELDS = [
  ['givenName', 'Given name'],
  ['familyName', 'Family name'],
  ['email', 'Email'],
  ['telephone', 'Telephone'],
  ['address.streetAddress', 'Street address'],
  ['address.unitNumber', 'Flat, suite or unit'],
  ['address.addressLocality', 'Town or city'],
  ['address.addressRegion', 'State, province or region'],
  ['address.postalCode', 'Postal code'],
  ['address.addressCountry', 'Country'],
] as const;
type FieldName = (typeof FIELDS)[number][0];
type Values = Record<FieldName, string>;
type AddressFieldName = Extract<FieldName, `address.${string}`>;

const ADDRESS = 'address.';
const isAddressField = (name: FieldName): name is AddressFieldName => name.startsWith(ADDRESS);

function valuesOf(reader: Reader): Values {
  const attributes = reader.attributes as Record<string, unknown>;
  const address = (reader.attributes.address ?? {}) as Record<string, string | null | undefined>;
  return Object.fromEntries(
    FIELDS.map(([name]) => [
      name,
      (isAddressField(name) ? address[name.slice(ADDRESS.length)] : attributes[name]) ?? '',
    ]),
  ) as Values;
}

const orNull = (text: string) => (text.trim() === '' ? null : text);

/** The attributes the agent changed, from the values the form was filled with; undefined when none. */
export function changedProfile(reader: Reader, before: Values, after: Values): NonNullable<Profile> | undefined {
  const changed = FIELDS.map(([name]) => name).filter((name) => before[name] !== after[name]);
  if (changed.length === 0) return undefined;
  const profile: Record<string, unknown> = {};
  for (const name of changed.filter((name) => !isAddressField(name))) {
    // The required two are sent as typed, so that a blank one is the API's "can't be blank", not a silent null.
    profile[name] = name === 'familyName' || name === 'email' ? after[name] : orNull(after[name]);
  }
  if (changed.some(isAddressField)) {
    const address: Record<string, string | null> = { ...(reader.attributes.address ?? {}) };
    for (const name of changed.filter(isAddressField)) address[name.slice(ADDRESS.length)] = orNull(after[name]);
    profile.address = address;
  }
  return profile as NonNullable<Profile>;
}

export function ProfileForm({
  loaded,
  reload,
}: {
  loaded: LoadedReader;
  reload: () => Promise<LoadedReader | undefined>;
}) {
  const [shown, setShown] = useState<Values>(() => valuesOf(loaded.reader));
  const [values, setValues] = useState<Values>(shown);
  const [messages, setMessages] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string | undefined>();
  const set = (name: FieldName) => (value: string) => setValues({ ...values, [name]: value });
  const showAnew = (next: LoadedReader | undefined) => {
    if (!next) return;
    const read = valuesOf(next.reader);
    setShown(read);
    setValues(read);
  };

  async function save(event: Event) {
    event.preventDefault();
    setNotice(undefined);
    const attributes = changedProfile(loaded.reader, shown, values);
    if (!attributes) {
      setMessages({});
      setNotice('Nothing has changed: there is nothing to save.');
      return;
    }
    const { response, error } = await updateReader(loaded.reader.id, loaded.etag, attributes);
    if (response.ok) {
      setMessages({});
      showAnew(await reload());
      setNotice('Saved.');
      return;
    }
    if (response.status === 412) {
      showAnew(await reload());
      setMessages({});
      setNotice('Someone else changed this reader meanwhile: the form now shows their values. Make your change again.');
      return;
    }
    const byField = messagesByField(errorsOf(error));
    setMessages(byField);
    if (byField[''] || Object.keys(byField).every((k) => !FIELDS.some(([name]) => name === k))) {
      setNotice(byField[''] ?? Object.values(byField).join(' '));
    }
  }

  return (
    <section aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile and address</h2>
      <form onSubmit={save} noValidate>
        {FIELDS.map(([name, label]) =>
          name === 'address.addressCountry' ? (
            <CountryField
              key={name}
              id={name}
              label={label}
              value={values[name]}
              onInput={set(name)}
              error={messages[name]}
            />
          ) : (
            <Field key={name} id={name} label={label} value={values[name]} onInput={set(name)} error={messages[name]} />
          ),
        )}
        {notice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <button type="submit">Save profile</button>
      </form>
    </section>
  );
}
