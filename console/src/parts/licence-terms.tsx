/**
 * A licence's networks, email domains and seats, shown and edited: a range or a domain a line, so
 * that a list from an institution's IT pastes in whole. The service checks each line and says
 * what is wrong with it at its element (`/data/attributes/ipRanges/3`), which is shown under the
 * box as that line's problem; a change made meanwhile by someone else (412) is shown anew.
 */
import { useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import { saveTerms, type LoadedLicence } from '../api/licences';
import { messagesByField } from './errors';
import { Field } from './field';

type Reload = () => Promise<unknown>;

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** The problems of one list's elements (`ipRanges.3`), each naming the line it is about. */
function lineProblems(messages: Record<string, string>, name: string, sent: readonly string[]): string[] {
  const problems: string[] = [];
  for (const [field, message] of Object.entries(messages)) {
    if (field === name) problems.push(message);
    const element = field.startsWith(`${name}.`) ? Number(field.slice(name.length + 1)) : NaN;
    if (Number.isInteger(element)) problems.push(`Line ${element + 1} (${sent[element] ?? ''}) ${message}`);
  }
  return problems;
}

function TermList({
  id,
  label,
  hint,
  value,
  onInput,
  problems,
}: {
  id: string;
  label: string;
  hint: string;
  value: string;
  onInput: (value: string) => void;
  problems: string[];
}) {
  const described = [`${id}-hint`, ...(problems.length > 0 ? [`${id}-error`] : [])].join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        name={id}
        rows={4}
        value={value}
        aria-invalid={problems.length > 0 ? 'true' : undefined}
        aria-describedby={described}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      <p id={`${id}-hint`} class="muted">
        {hint}
      </p>
      {problems.length > 0 && (
        <ul class="error" id={`${id}-error`}>
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function LicenceTerms({ loaded, reload }: { loaded: LoadedLicence; reload: Reload }) {
  const a = loaded.licence.attributes;
  const [ranges, setRanges] = useState((a.ipRanges ?? []).join('\n'));
  const [domains, setDomains] = useState((a.emailDomains ?? []).join('\n'));
  const [seats, setSeats] = useState(a.seats == null ? '' : String(a.seats));
  const [messages, setMessages] = useState<Record<string, string>>({});
  const [sent, setSent] = useState<{ ipRanges: string[]; emailDomains: string[] }>({ ipRanges: [], emailDomains: [] });
  const [said, setSaid] = useState<string | undefined>();
  return (
    <section aria-labelledby="terms-heading">
      <h2 id="terms-heading">Networks, domains and seats</h2>
      <form
        aria-labelledby="terms-heading"
        onSubmit={async (e) => {
          e.preventDefault();
          const terms = { ipRanges: lines(ranges), emailDomains: lines(domains) };
          const written = seats.trim();
          // A number is what the service takes: text that is none would be sent as null, taking every seat away.
          if (written !== '' && !/^[0-9]+$/.test(written)) {
            setMessages({ seats: 'is a whole number, or empty for none.' });
            return;
          }
          const number = written === '' ? null : Number(written);
          setSent(terms);
          setSaid(undefined);
          const { response, error } = await saveTerms(loaded, { ...terms, seats: number });
          if (response.status === 412) {
            setMessages({ '': 'Someone changed the licence meanwhile: its terms are shown as they are now.' });
            const next = (await reload()) as LoadedLicence | undefined;
            if (next) {
              setRanges((next.licence.attributes.ipRanges ?? []).join('\n'));
              setDomains((next.licence.attributes.emailDomains ?? []).join('\n'));
              setSeats(next.licence.attributes.seats == null ? '' : String(next.licence.attributes.seats));
            }
            return;
          }
          if (!response.ok) {
            setMessages(messagesByField(errorsOf(error)));
            return;
          }
          setMessages({});
          const next = (await reload()) as LoadedLicence | undefined;
          if (next) {
            // As the service writes them: one form for each range, domains in lower case.
            setRanges((next.licence.attributes.ipRanges ?? []).join('\n'));
            setDomains((next.licence.attributes.emailDomains ?? []).join('\n'));
          }
          setSaid('Networks, domains and seats saved.');
        }}
      >
        <TermList
          id="ipRanges"
          label="IP ranges, one a line"
          hint="CIDR, IPv4 or IPv6 (192.0.2.0/24, 2001:db8::/32); a bare address is one machine."
          value={ranges}
          onInput={setRanges}
          problems={lineProblems(messages, 'ipRanges', sent.ipRanges)}
        />
        <TermList
          id="emailDomains"
          label="Email domains, one a line"
          hint="uni.example is that domain exactly; *.uni.example every domain below it."
          value={domains}
          onInput={setDomains}
          problems={lineProblems(messages, 'emailDomains', sent.emailDomains)}
        />
        <Field id="seats" label="Seats (empty for none)" value={seats} onInput={setSeats} error={messages.seats} />
        {messages[''] && (
          <p class="error" role="alert">
            {messages['']}
          </p>
        )}
        <button type="submit">Save networks, domains and seats</button>
        <p role="status">{said}</p>
      </form>
    </section>
  );
}
