/**
 * The profile and address, edited in place. A save sends the ETag the page was read with as
 * If-Match: when someone else changed the reader meanwhile (412), the form shows their values.
 * The API's 422 messages stand beside the fields they name.
 */
import { useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import { updateReader, type LoadedReader, type Reader } from '../api/readers';
import { messagesByField } from './errors';
import { Field } from './field';

const FIELDS = [
  ['givenName', 'Given name'],
  ['familyName', 'Family name'],
  ['email', 'Email'],
  ['telephone', 'Telephone'],
  ['address.streetAddress', 'Street address'],
  ['address.postalCode', 'Postal code'],
  ['address.addressLocality', 'Town or city'],
  ['address.addressCountry', 'Country'],
] as const;
type FieldName = (typeof FIELDS)[number][0];
type Values = Record<FieldName, string>;

function valuesOf(reader: Reader): Values {
  const a = reader.attributes;
  const address = a.address ?? {};
  return {
    givenName: a.givenName ?? '',
    familyName: a.familyName ?? '',
    email: a.email ?? '',
    telephone: a.telephone ?? '',
    'address.streetAddress': address.streetAddress ?? '',
    'address.postalCode': address.postalCode ?? '',
    'address.addressLocality': address.addressLocality ?? '',
    'address.addressCountry': address.addressCountry ?? '',
  };
}

const orNull = (text: string) => (text.trim() === '' ? null : text);

export function ProfileForm({
  loaded,
  reload,
}: {
  loaded: LoadedReader;
  reload: () => Promise<LoadedReader | undefined>;
}) {
  const [values, setValues] = useState<Values>(() => valuesOf(loaded.reader));
  const [messages, setMessages] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<string | undefined>();
  const set = (name: FieldName) => (value: string) => setValues({ ...values, [name]: value });

  async function save(event: Event) {
    event.preventDefault();
    setNotice(undefined);
    const { response, error } = await updateReader(loaded.reader.id, loaded.etag, {
      givenName: orNull(values.givenName),
      familyName: values.familyName,
      email: values.email,
      telephone: orNull(values.telephone),
      address: {
        streetAddress: orNull(values['address.streetAddress']),
        postalCode: orNull(values['address.postalCode']),
        addressLocality: orNull(values['address.addressLocality']),
        addressCountry: orNull(values['address.addressCountry']),
      },
    });
    if (response.ok) {
      setMessages({});
      const next = await reload();
      if (next) setValues(valuesOf(next.reader));
      setNotice('Saved.');
      return;
    }
    if (response.status === 412) {
      const next = await reload();
      if (next) setValues(valuesOf(next.reader));
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
        {FIELDS.map(([name, label]) => (
          <Field key={name} id={name} label={label} value={values[name]} onInput={set(name)} error={messages[name]} />
        ))}
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
