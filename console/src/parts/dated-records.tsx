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
export const PAST_SHOWN = 5;

/** Records running or to come, and the last PAST_SHOWN of the others (the latest first). */
export function splitByTime<R extends { attributes: { status: string; endDate: string } }>(
  records: readonly R[],
): { current: R[]; past: R[] } {
  const current = records.filter((r) => r.attributes.status === 'scheduled' || r.attributes.status === 'active');
  const past = records
    .filter((r) => !current.includes(r))
    .sort((a, b) => b.attributes.endDate.localeCompare(a.attributes.endDate))
    .slice(0, PAST_SHOWN);
  return { current, past };
}

/** Ended and withdrawn records, folded under a summary. */
export function PastRecords({ summary, children }: { summary: string; children: ComponentChildren }) {
  return (
    <details class="past">
      <summary>{summary}</summary>
      <ul class="records">{children}</ul>
    </details>
  );
}

/** A form's element whose first field takes the focus when the form opens. */
export function useFocusFirst() {
  const form = useRef<HTMLFormElement>(null);
  useLayoutEffect(() => form.current?.querySelector<HTMLElement>('input, select')?.focus(), []);
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
export function CutoffNote({ id, open, verb }: { id: string; open: ChangesOpen | undefined; verb: string }) {
  return (
    <p class="cutoff" id={id}>
      {open ? cutoffText(open, verb, agentZone()) : 'Reading the cut-off…'}
    </p>
  );
}

/** The date before a YYYY-MM-DD date. */
export function dayBefore(date: string): string {
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
export function unplaced(messages: Record<string, string>, fields: readonly string[]): string | undefined {
  const rest = Object.entries(messages)
    .filter(([field]) => !fields.includes(field))
    .map(([, message]) => message);
  return rest.length === 0 ? undefined : rest.join(' ');
}

/**
 * Ending a running record early: its last date, the day before the first date still open unless
 * the agent types a later one.
 */
export function EndEarlyForm({
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
      describedBy={`${id}-cutoff`}
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
      <CutoffNote id={`${id}-cutoff`} open={open} verb={verb} />
      <Field id={`${id}-endDate`} label="Last day" type="date" value={endDate} onInput={setEndDate} error={messages.endDate} />
    </SendingForm>
  );
}

/**
 * A form that calls `send` when submitted (Enter in any field, or its button), once at a time,
 * with the API's messages that no field of `fields` shows under it; Escape cancels.
 */
export function SendingForm({
  send,
  ...props
}: {
  label: string;
  describedBy?: string;
  fields: readonly string[];
  messages: Record<string, string>;
  submit: string;
  cancel: () => void;
  send: () => Promise<void>;
  children: ComponentChildren;
}) {
  const form = useFocusFirst();
  const problem = unplaced(props.messages, props.fields);
  const [sending, setSending] = useState(false);
  return (
    <form
      ref={form}
      class="change"
      aria-label={props.label}
      aria-describedby={props.describedBy}
      noValidate
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.cancel();
      }}
      onSubmit={async (e) => {
        e.preventDefault();
        if (sending) return;
        setSending(true);
        try {
          await send();
        } finally {
          setSending(false);
        }
      }}
    >
      {props.children}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <button type="submit" disabled={sending}>
        {props.submit}
      </button>{' '}
      <button type="button" class="secondary" onClick={props.cancel}>
        Cancel
      </button>
    </form>
  );
}
