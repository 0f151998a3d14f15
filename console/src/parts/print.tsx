/**
 * A reader's print deliveries: each subscription that gives print and has not ended, with the
 * days it is delivered on, its holds (running and to come; the last few ended or withdrawn
 * folded) and its delivery complaints. A hold is added with the cut-off said before it is sent,
 * withdrawn before it starts, or ended early once it has; a complaint is added with its remedy.
 * What each change did is said in the subscription's live region.
 */
import { useEffect, useState } from 'preact/hooks';
import {
  addComplaint,
  addHold,
  endHold,
  listComplaints,
  listHolds,
  withdrawHold,
  type ChangesOpen,
  type Complaint,
  type ComplaintCreate,
  type Hold,
  type HoldCreate,
} from '../api/print';
import type { LoadedReader, Subscription } from '../api/readers';
import { DatedRecords, messagesOf, Result, SendingForm, useChangesOpen, useFormFlow } from './dated-records';
import {
  deliveryDaysOf,
  deliveryDaysText,
  gives,
  resourceOf,
  subscriptionName,
  type CatalogueProduct,
} from './entitlements';
import { Field, SelectField } from './field';

type Reload = () => Promise<unknown>;

const COMPENSATION_TEXT: Record<HoldCreate['compensation'] & string, string> = {
  extend: 'term extended by the deliveries missed',
  credit: 'credited',
  donate: 'donated',
};
const COMPENSATION_CHOICE: Record<HoldCreate['compensation'] & string, string> = {
  extend: 'Extend the term by the deliveries missed',
  credit: 'Credit the reader',
  donate: 'Donate the copies',
};
const REASON_TEXT: Record<ComplaintCreate['reason'], string> = {
  missed: 'Missed',
  damaged: 'Damaged',
  wet: 'Wet',
  late: 'Late',
  incomplete: 'Incomplete',
  'wrong-address': 'Wrong address',
};
const REMEDY_CHOICE: Record<ComplaintCreate['remedy'] & string, string> = {
  none: 'None: record it only',
  redeliver: 'Redeliver on the next run',
  extend: 'Extend the term by one delivery',
};

export function PrintDeliveries({
  loaded,
  products,
  reload,
}: {
  loaded: LoadedReader;
  products: CatalogueProduct[];
  reload: Reload;
}) {
  const printed = loaded.subscriptions.filter(
    (s) =>
      gives(resourceOf(s, products), 'print') &&
      (s.attributes.status === 'active' || s.attributes.status === 'scheduled'),
  );
  return (
    <section aria-labelledby="print-heading">
      <h2 id="print-heading">Print deliveries</h2>
      {printed.length === 0 ? (
        <p>No print subscription running or to come.</p>
      ) : (
        printed.map((s) => (
          <PrintSubscription
            key={s.id}
            userId={loaded.reader.id}
            subscription={s}
            name={subscriptionName(s, products)}
            days={deliveryDaysText(deliveryDaysOf(s, products))}
            version={loaded}
            reload={reload}
          />
        ))
      )}
    </section>
  );
}

function PrintSubscription({
  userId,
  subscription,
  name,
  days,
  version,
  reload,
}: {
  userId: string;
  subscription: Subscription;
  name: string;
  days: string;
  /** A new value whenever the reader was read anew (after every change), so the lists are read again. */
  version: unknown;
  reload: Reload;
}) {
  const id = subscription.id;
  const [holds, setHolds] = useState<Hold[] | undefined>();
  const [open, setOpen] = useState<ChangesOpen | undefined>();
  const [complaints, setComplaints] = useState<Complaint[] | undefined>();
  const flow = useFormFlow(reload);
  useEffect(() => {
    listHolds(userId, id).then(({ records, meta }) => {
      setHolds(records);
      setOpen(meta);
    });
    listComplaints(userId, id).then(({ records }) => setComplaints(records));
  }, [userId, id, version]);
  const heading = `print-${id}-heading`;
  return (
    <section class="print" aria-labelledby={heading}>
      <h3 id={heading}>{name}</h3>
      <p class="days">Delivered {days}.</p>
      <h4>Holds</h4>
      <DatedRecords
        records={holds}
        noun="hold"
        plural="holds"
        pastSummary="Ended and withdrawn holds"
        line={(hold) => <HoldLine hold={hold} />}
        verb="delivered again"
        withdraw={(hold) => withdrawHold(userId, id, hold.id)}
        end={(hold, endDate) => endHold(userId, id, hold.id, endDate)}
        ended={(endDate) => `Hold now ends on ${endDate}: deliveries resume the day after.`}
        userId={userId}
        flow={flow}
      />
      <button
        type="button"
        class="secondary"
        aria-label={`Add a hold to ${name}`}
        aria-expanded={flow.form === 'hold'}
        onClick={flow.openWith('hold')}
      >
        Add a hold
      </button>
      {flow.form === 'hold' && (
        <HoldForm
          userId={userId}
          subscriptionId={id}
          done={(hold) => flow.finish(`Hold ${spanOf(hold)} added: ${missed(hold.attributes.deliveriesMissed)}.`)}
          cancel={flow.close}
        />
      )}
      <h4>Delivery complaints</h4>
      {complaints === undefined ? (
        <p>Reading complaints…</p>
      ) : complaints.length === 0 ? (
        <p>No complaints.</p>
      ) : (
        <ul class="records">
          {[...complaints]
            .sort((a, b) => b.attributes.deliveryDate.localeCompare(a.attributes.deliveryDate))
            .map((complaint) => (
              <li key={complaint.id}>
                <ComplaintLine complaint={complaint} />
              </li>
            ))}
        </ul>
      )}
      <button
        type="button"
        class="secondary"
        aria-label={`Add a delivery complaint to ${name}`}
        aria-expanded={flow.form === 'complaint'}
        onClick={flow.openWith('complaint')}
      >
        Add a complaint
      </button>
      {flow.form === 'complaint' && (
        <ComplaintForm
          userId={userId}
          subscriptionId={id}
          today={open?.today ?? ''}
          done={(complaint) => flow.finish(`Complaint for ${complaint.attributes.deliveryDate} added.`)}
          cancel={flow.close}
        />
      )}
      <Result flow={flow} />
    </section>
  );
}

const spanOf = (r: { attributes: { startDate: string; endDate: string } }) =>
  `${r.attributes.startDate} to ${r.attributes.endDate}`;

const missed = (n: number) => (n === 1 ? '1 delivery missed' : `${n} deliveries missed`);

function HoldLine({ hold }: { hold: Hold }) {
  const a = hold.attributes;
  return (
    <>
      <span class={`status status-${a.status}`}>{a.status}</span>{' '}
      <span>
        {a.startDate} → {a.endDate}
      </span>
      <span class="gives">
        {' '}
        · {missed(a.deliveriesMissed)} · {COMPENSATION_TEXT[a.compensation]}
      </span>
    </>
  );
}

function ComplaintLine({ complaint }: { complaint: Complaint }) {
  const a = complaint.attributes;
  const remedy =
    a.remedy === 'redeliver'
      ? `redelivered on ${a.redeliveryDate ?? 'the next run'}`
      : a.remedy === 'extend'
        ? 'term extended by one delivery'
        : 'no remedy';
  return (
    <>
      <span>{a.deliveryDate}</span> <strong>{REASON_TEXT[a.reason]}</strong>
      <span class="gives"> · {remedy}</span>
      {a.repeat && (
        <>
          {' '}
          <span class="status status-repeat">repeat</span>
        </>
      )}
    </>
  );
}

const HOLD_FIELDS = ['startDate', 'endDate', 'compensation'] as const;

function HoldForm({
  userId,
  subscriptionId,
  done,
  cancel,
}: {
  userId: string;
  subscriptionId: string;
  done: (hold: Hold) => void;
  cancel: () => void;
}) {
  const [values, setValues] = useState({ startDate: '', endDate: '', compensation: 'extend' });
  const [messages, setMessages] = useState<Record<string, string>>({});
  const open = useChangesOpen(userId, (read) =>
    setValues((typed) => (typed.startDate ? typed : { ...typed, startDate: read.firstOpenDate })),
  );
  const set = (name: keyof typeof values) => (value: string) => setValues((v) => ({ ...v, [name]: value }));
  const prefix = `hold-${subscriptionId}`;
  return (
    <SendingForm
      label="Add a hold"
      cutoff={{ id: `${prefix}-cutoff`, open, verb: 'stopped' }}
      fields={HOLD_FIELDS}
      messages={messages}
      submit="Add hold"
      cancel={cancel}
      send={async () => {
        const answer = await addHold(userId, subscriptionId, values as HoldCreate);
        if (!answer.data) return setMessages(messagesOf(answer));
        done(answer.data.data);
      }}
    >
      <Field
        id={`${prefix}-startDate`}
        label="First day held"
        type="date"
        value={values.startDate}
        onInput={set('startDate')}
        error={messages.startDate}
      />
      <Field
        id={`${prefix}-endDate`}
        label="Last day held"
        type="date"
        value={values.endDate}
        onInput={set('endDate')}
        error={messages.endDate}
      />
      <SelectField
        id={`${prefix}-compensation`}
        label="Compensation"
        value={values.compensation}
        onInput={set('compensation')}
        options={optionsOf(COMPENSATION_CHOICE)}
        error={messages.compensation}
      />
    </SendingForm>
  );
}

const COMPLAINT_FIELDS = ['deliveryDate', 'reason', 'remedy'] as const;

function ComplaintForm({
  userId,
  subscriptionId,
  today,
  done,
  cancel,
}: {
  userId: string;
  subscriptionId: string;
  today: string;
  done: (complaint: Complaint) => void;
  cancel: () => void;
}) {
  const [values, setValues] = useState({ deliveryDate: today, reason: 'missed', remedy: 'none' });
  const [messages, setMessages] = useState<Record<string, string>>({});
  const set = (name: keyof typeof values) => (value: string) => setValues((v) => ({ ...v, [name]: value }));
  const prefix = `complaint-${subscriptionId}`;
  return (
    <SendingForm
      label="Add a delivery complaint"
      fields={COMPLAINT_FIELDS}
      messages={messages}
      submit="Add complaint"
      cancel={cancel}
      send={async () => {
        const answer = await addComplaint(userId, subscriptionId, values as ComplaintCreate);
        if (!answer.data) return setMessages(messagesOf(answer));
        done(answer.data.data);
      }}
    >
      <Field
        id={`${prefix}-deliveryDate`}
        label="Delivery date"
        type="date"
        value={values.deliveryDate}
        onInput={set('deliveryDate')}
        error={messages.deliveryDate}
      />
      <SelectField
        id={`${prefix}-reason`}
        label="Reason"
        value={values.reason}
        onInput={set('reason')}
        options={optionsOf(REASON_TEXT)}
        error={messages.reason}
      />
      <SelectField
        id={`${prefix}-remedy`}
        label="Remedy"
        value={values.remedy}
        onInput={set('remedy')}
        options={optionsOf(REMEDY_CHOICE)}
        error={messages.remedy}
      />
    </SendingForm>
  );
}

/** The options of a picker, from codes and their texts. */
const optionsOf = (choices: Record<string, string>) =>
  Object.entries(choices).map(([value, text]) => ({ value, text }));
