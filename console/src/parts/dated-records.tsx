/**
 * What holds and temporary addresses share on the reader's page: records running now or to come
 * listed, those ended or withdrawn folded away (the last few), forms whose first field takes the
 * focus as they open and that Escape closes, the cut-off said before anything is sent, and the
 * API's messages placed at the fields they name.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import { changesOpen, type ChangesOpen } from '../api/print';
import { agentZone, cutoffText } from './cutoff';
import { messagesByField } from './errors';
import { Field } from './field';

/** How many ended or withdrawn records are kept on the page, folded. */
const PAST_SHOWN = 5;

/** Records running or to come, and the last PAST_SHOWN of the others (the latest first). */
function splitByTime<R extends { attributes: { status: string; endDate: string } }>(
  records: readonly R[],
): { current: R[]; past: R[] } {
  const current = records.filter((r) => r.attributes.status === 'scheduled' || r.attributes.status === 'active');
  const past = records
    .filter((r) => !current.includes(r))
    .sort((a, b) => b.attributes.endDate.localeCompare(a.attributes.endDate))
    .slice(0, PAST_SHOWN);
  return { current, past };
}

/** A hold or a temporary address, as the lists have them. */
interface DatedRecord {
  id: string;
  attributes: { status: string; startDate: string; endDate: string };
}

/** Which form of a section is open, what its last change did, and the button the focus goes back to. */
export function useFormFlow(reload: () => Promise<unknown>) {
  const [form, setForm] = useState('none');
  const [result, setResult] = useState('');
  const opener = useRef<HTMLButtonElement | null>(null);
  return {
    form,
    result,
    /** Says why a change was refused. */
    fail: (answer: Answer) => setResult(Object.values(messagesOf(answer)).join(' ')),
    close: () => {
      setForm('none');
      opener.current?.focus();
    },
    /** Closes the form, says what was done, and reads the reader anew. */
    finish: async (message: string) => {
      setForm('none');
      setResult(message);
      await reload();
      opener.current?.focus();
    },
    /** A button's handler that opens the form `next`. */
    openWith: (next: string) => (event: Event) => {
      opener.current = event.currentTarget as HTMLButtonElement;
      setResult('');
      setForm(next);
    },
  };
}
export type FormFlow = ReturnType<typeof useFormFlow>;

/** What is said of the change a form made, heard by a screen reader as it changes. */
export function Result({ flow }: { flow: FormFlow }) {
  return (
    <p class="notice" role="status">
      {flow.result}
    </p>
  );
}

/**
 * Holds or temporary addresses: those running or to come, each withdrawn before it starts or ended
 * early after, and the last few ended or withdrawn folded under a summary.
 */
export function DatedRecords<R extends DatedRecord>({
  records,
  noun,
  plural,
  pastSummary,
  line,
  verb,
  withdraw,
  end,
  ended,
  userId,
  flow,
}: {
  records: readonly R[] | undefined;
  /** "hold", "temporary address". */
  noun: string;
  plural: string;
  pastSummary: string;
  line: (record: R) => ComponentChildren;
  /** What ending early allows of the first open date: "delivered again". */
  verb: string;
  withdraw: (record: R) => Promise<Answer>;
  end: (record: R, endDate: string) => Promise<Answer>;
  /** What is said once one has been ended early on `endDate`. */
  ended: (endDate: string) => string;
  userId: string;
  flow: FormFlow;
}) {
  if (records === undefined) return <p>Reading {plural}…</p>;
  const { current, past } = splitByTime(records);
  const nameOf = (record: R) => `${noun} ${record.attributes.startDate} to ${record.attributes.endDate}`;
  return (
    <>
      {current.length === 0 ? (
        <p>No {noun} running or to come.</p>
      ) : (
        <ul class="records">
          {current.map((record) => (
            <li key={record.id}>
              {line(record)}
              <div class="actions">
                {record.attributes.status === 'scheduled' && (
                  <button
                    type="button"
                    aria-label={`Withdraw ${nameOf(record)}`}
                    onClick={async () => {
                      const answer = await withdraw(record);
                      if (!answer.response.ok) return flow.fail(answer);
                      await flow.finish(`${capitalised(nameOf(record))} withdrawn.`);
                    }}
                  >
                    Withdraw
                  </button>
                )}
                {record.attributes.status === 'active' && (
                  <button
                    type="button"
                    aria-label={`End ${nameOf(record)} early`}
                    onClick={flow.openWith(`end-${record.id}`)}
                  >
                    End early
                  </button>
                )}
              </div>
              {flow.form === `end-${record.id}` && (
                <EndEarlyForm
                  id={`${noun.replaceAll(' ', '-')}-${record.id}-end`}
                  userId={userId}
                  what={nameOf(record)}
                  verb={verb}
                  end={(endDate) => end(record, endDate)}
                  done={(endDate) => flow.finish(ended(endDate))}
                  cancel={flow.close}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {past.length > 0 && (
        <details class="past">
          <summary>{`${pastSummary} (the last ${past.length})`}</summary>
          <ul class="records">
            {past.map((record) => (
              <li key={record.id}>{line(record)}</li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A form's element whose first field takes the focus when the form opens with its fields. */
function useFocusFirst(ready: boolean) {
  const form = useRef<HTMLFormElement>(null);
  useLayoutEffect(() => {
    if (ready) form.current?.querySelector<HTMLElement>('input, select')?.focus();
  }, [ready]);
  return form;
}

/** Where the cut-off stands, read afresh as a form opens; then `onRead` with it (to fill in a first date). */
export function useChangesOpen(userId: string, onRead?: (open: ChangesOpen) => void): ChangesOpen | undefined {
  const [open, setOpen] = useState<ChangesOpen | undefined>();
  useEffect(() => {
    let live = true;
    changesOpen(userId).then((read) => {
      if (!live || !read) return;
      setOpen(read);
      onRead?.(read);
    });
    return () => {
      live = false;
    };
  }, [userId]);
  return open;
}

/** The cut-off, said before the form is sent ("… can still be stopped until 19:00 today"). */
function CutoffNote({ id, open, verb }: { id: string; open: ChangesOpen | undefined; verb: string }) {
  return (
    <p class="cutoff" id={id}>
      {open ? cutoffText(open, verb, agentZone()) : 'Reading the cut-off…'}
    </p>
  );
}

/** The date before a YYYY-MM-DD date. */
function dayBefore(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

export type Answer = { response: Response; error?: unknown };

/** A failed answer's messages by field ('' for those that name none, or a plain status). */
export function messagesOf(answer: Answer): Record<string, string> {
  const byField = messagesByField(errorsOf(answer.error));
  if (Object.keys(byField).length === 0) byField[''] = `The service answered ${answer.response.status}.`;
  return byField;
}

/** The messages no field of `fields` shows, as one line. */
function unplaced(messages: Record<string, string>, fields: readonly string[]): string | undefined {
  const rest = Object.entries(messages)
    .filter(([field]) => !fields.includes(field))
    .map(([, message]) => message);
  return rest.length === 0 ? undefined : rest.join(' ');
}

/**
 * Ending a running record early: its last date, the day before the first date still open unless
 * the agent types a later one.
 */
function EndEarlyForm({
  id,
  userId,
  what,
  verb,
  end,
  done,
  cancel,
}: {
  id: string;
  userId: string;
  what: string;
  verb: string;
  end: (endDate: string) => Promise<Answer>;
  done: (endDate: string) => void;
  cancel: () => void;
}) {
  const [endDate, setEndDate] = useState('');
  const [messages, setMessages] = useState<Record<string, string>>({});
  const open = useChangesOpen(userId, (read) => setEndDate((typed) => typed || dayBefore(read.firstOpenDate)));
  return (
    <SendingForm
      label={`End ${what} early`}
      cutoff={{ id: `${id}-cutoff`, open, verb }}
      fields={['endDate']}
      messages={messages}
      submit="Save the last day"
      cancel={cancel}
      send={async () => {
        const answer = await end(endDate);
        if (!answer.response.ok) return setMessages(messagesOf(answer));
        done(endDate);
      }}
    >
      <Field
        id={`${id}-endDate`}
        label="Last day"
        type="date"
        value={endDate}
        onInput={setEndDate}
        error={messages.endDate}
      />
    </SendingForm>
  );
}

/**
 * A form that calls `send` when submitted (Enter in any field, or its button), once at a time,
 * with the API's messages that no field of `fields` shows under it; Escape cancels. With a
 * `cutoff`, the form says it first, and shows its fields only once it has been read (so that a
 * date filled in from it never lands in the middle of what the agent is typing).
 */
export function SendingForm({
  send,
  ...props
}: {
  label: string;
  cutoff?: { id: string; open: ChangesOpen | undefined; verb: string };
  fields: readonly string[];
  messages: Record<string, string>;
  submit: string;
  cancel: () => void;
  send: () => Promise<void>;
  children: ComponentChildren;
}) {
  const { cutoff } = props;
  const ready = cutoff === undefined || cutoff.open !== undefined;
  const form = useFocusFirst(ready);
  const problem = unplaced(props.messages, props.fields);
  const [sending, setSending] = useState(false);
  return (
    <form
      ref={form}
      class="change"
      aria-label={props.label}
      aria-describedby={cutoff?.id}
      noValidate
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.cancel();
      }}
      onSubmit={async (e) => {
        e.preventDefault();
        if (sending || !ready) return;
        setSending(true);
        try {
          await send();
        } finally {
          setSending(false);
        }
      }}
    >
      {cutoff && <CutoffNote {...cutoff} />}
      {ready && props.children}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <button type="submit" disabled={sending || !ready}>
        {props.submit}
      </button>{' '}
      <button type="button" class="secondary" onClick={props.cancel}>
        Cancel
      </button>
    </form>
  );
}
