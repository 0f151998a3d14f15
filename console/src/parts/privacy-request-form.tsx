/**
 * A privacy request opened for the reader on their page: its kind and notes. The service records
 * it as received now and due one calendar month later, which the answer says; the open ones are
 * kept on the privacy requests screen.
 */
import { useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import { openPrivacyRequest, type PrivacyRequest, type PrivacyRequestKind } from '../api/privacy-requests';
import { messagesByField } from './errors';
import { SelectField } from './field';

/** What each kind of request asks, as an agent reads it. */
export const KIND: Record<PrivacyRequestKind, string> = {
  access: 'Access: a copy of their data',
  erasure: 'Erasure of their data',
  rectification: 'Rectification of their data',
  objection: 'Objection to the use of their data',
};

const KIND_OPTIONS = Object.entries(KIND).map(([value, text]) => ({ value, text }));

export function PrivacyRequestForm({ userId }: { userId: string }) {
  const [kind, setKind] = useState<PrivacyRequestKind>('access');
  const [notes, setNotes] = useState('');
  const [opened, setOpened] = useState<PrivacyRequest | undefined>();
  const [messages, setMessages] = useState<Record<string, string>>({});
  return (
    <section aria-labelledby="privacy-heading">
      <h2 id="privacy-heading">Privacy request</h2>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setOpened(undefined);
          const { data, error } = await openPrivacyRequest(userId, {
            kind,
            notes: notes.trim() === '' ? null : notes,
          });
          setMessages(data ? {} : messagesByField(errorsOf(error)));
          if (data) {
            setOpened(data.data);
            setNotes('');
          }
        }}
      >
        <SelectField
          id="privacy-kind"
          label="Kind"
          value={kind}
          onInput={(value) => setKind(value as PrivacyRequestKind)}
          options={KIND_OPTIONS}
          error={messages.kind}
        />
        <div class="field">
          <label for="privacy-notes">Notes (optional)</label>
          <textarea
            id="privacy-notes"
            rows={3}
            value={notes}
            aria-invalid={messages.notes ? 'true' : undefined}
            aria-describedby={messages.notes ? 'privacy-notes-error' : undefined}
            onInput={(e) => setNotes(e.currentTarget.value)}
          />
          {messages.notes && (
            <p class="error" id="privacy-notes-error">
              {messages.notes}
            </p>
          )}
        </div>
        <button type="submit">Open privacy request</button>
      </form>
      {opened && (
        <p class="notice" role="status">
          Privacy request {opened.id} opened, due {opened.attributes.dueAt.slice(0, 10)}.{' '}
          <a href="#/privacy-requests">Open privacy requests</a>
        </p>
      )}
      {messages[''] && (
        <p class="error" role="alert">
          {messages['']}
        </p>
      )}
    </section>
  );
}
