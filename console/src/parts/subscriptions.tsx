/**
 * A reader's subscriptions with their status, product and what each gives, and what an agent does
 * to them. Expiring ends a subscription now, so it asks first, naming the subscription and what
 * the reader loses; an expired one cannot be extended (the service keeps it expired), so it
 * offers no Extend. A new subscription is of an active product, picked by name.
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import type { LoadedReader, Subscription } from '../api/readers';
import {
  addSubscription,
  dayOf,
  deleteSubscription,
  expireSubscription,
  extendSubscription,
} from '../api/subscriptions';
import {
  gives,
  givesText,
  resourceOf,
  subscriptionName,
  type CatalogueProduct,
  type Entitlement,
  type Resource,
} from './entitlements';
import { Confirmation } from './confirmation';
import { messagesByField } from './errors';
import { Field } from './field';

type Reload = () => Promise<unknown>;

const STATUS_TEXT: Record<string, string> = {
  active: 'active',
  scheduled: 'scheduled',
  ended: 'ended',
  expired: 'expired early',
};

export function Subscriptions({
  loaded,
  products,
  reload,
}: {
  loaded: LoadedReader;
  products: CatalogueProduct[];
  reload: Reload;
}) {
  const userId = loaded.reader.id;
  const { givenName, familyName, email } = loaded.reader.attributes;
  const readerName = [givenName, familyName].filter(Boolean).join(' ') || email || 'The reader';
  /** What expiring `s` takes from the reader now: what it gives that no other active subscription does. */
  const lostBy = (s: Subscription): Entitlement[] => {
    if (s.attributes.status !== 'active') return [];
    const others = loaded.subscriptions.filter((o) => o.id !== s.id && o.attributes.status === 'active');
    return (['print', 'online'] as const).filter(
      (what) => gives(resourceOf(s, products), what) && !others.some((o) => gives(resourceOf(o, products), what)),
    );
  };
  return (
    <section aria-labelledby="subscriptions-heading">
      <h2 id="subscriptions-heading">Subscriptions</h2>
      {loaded.subscriptions.length === 0 ? (
        <p>No subscriptions.</p>
      ) : (
        <ul class="subscriptions">
          {loaded.subscriptions.map((s) => (
            <SubscriptionItem
              key={s.id}
              userId={userId}
              subscription={s}
              name={subscriptionName(s, products)}
              resource={resourceOf(s, products)}
              consequence={expiryConsequence(s, readerName, lostBy(s))}
              reload={reload}
            />
          ))}
        </ul>
      )}
      <AddSubscription userId={userId} products={products.filter((p) => p.active)} reload={reload} />
    </section>
  );
}

/** What an agent is told before expiring a subscription: what the reader loses, or that they lose nothing now. */
function expiryConsequence(s: Subscription, readerName: string, lost: Entitlement[]): string {
  const a = s.attributes;
  if (a.status === 'scheduled')
    return `It will not start: ${readerName} will not get what it gives from ${dayOf(a.dateStarted)}.`;
  if (a.status !== 'active') return `It has already ended: ${readerName}'s access does not change.`;
  if (lost.length === 0) return `${readerName} keeps their access through their other subscriptions.`;
  return `${readerName} loses ${lost.join(' and ')} access now.`;
}

function SubscriptionItem({
  userId,
  subscription,
  name,
  resource,
  consequence,
  reload,
}: {
  userId: string;
  subscription: Subscription;
  name: string;
  resource: Resource | null;
  consequence: string;
  reload: Reload;
}) {
  const a = subscription.attributes;
  const [mode, setMode] = useState<'idle' | 'extend' | 'delete' | 'expire'>('idle');
  // A confirmation takes the focus as it opens, so that a keyboard or a screen reader is in it
  // (autofocus works only on a page's first load).
  const confirming = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => confirming.current?.focus(), [mode]);
  const [dateEnded, setDateEnded] = useState(dayOf(a.dateEnded));
  const [problem, setProblem] = useState<string | undefined>();
  const [endMessage, setEndMessage] = useState<string | undefined>();
  const label = `${name}, ${dayOf(a.dateStarted)} to ${dayOf(a.dateEnded) || 'open-ended'}`;
  const done = async (result: { response: Response; error?: unknown }) => {
    if (!result.response.ok) {
      const { dateEnded: atEnd, ...others } = messagesByField(errorsOf(result.error));
      setEndMessage(atEnd);
      const rest = Object.values(others).join(' ');
      setProblem(rest || (atEnd ? undefined : `The service answered ${result.response.status}.`));
      return;
    }
    setProblem(undefined);
    setEndMessage(undefined);
    setMode('idle');
    await reload();
  };
  return (
    <li class="subscription">
      <span class={`status status-${a.status}`}>{STATUS_TEXT[a.status ?? ''] ?? a.status}</span> <strong>{name}</strong>{' '}
      <span>
        {dayOf(a.dateStarted)} → {dayOf(a.dateEnded) || 'open-ended'}
      </span>
      <span class="gives"> · gives {givesText(resource)}</span>
      {a.license === 'site' && (
        <>
          {' · '}
          <a href={`#/readers/${encodeURIComponent(userId)}/licences/${encodeURIComponent(subscription.id)}`}>
            Site licence {subscription.id}: networks, domains, seats and usage
          </a>
        </>
      )}
      <div class="actions">
        {!a.expired && (
          <button type="button" aria-label={`Extend ${label}`} onClick={() => setMode('extend')}>
            Extend
          </button>
        )}
        {!a.expired && (
          <button type="button" aria-label={`Expire ${label}`} onClick={() => setMode('expire')}>
            Expire
          </button>
        )}
        <button type="button" aria-label={`Delete ${label}`} onClick={() => setMode('delete')}>
          Delete
        </button>
      </div>
      {mode === 'extend' && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            done(await extendSubscription(userId, subscription.id, dateEnded === '' ? null : dateEnded));
          }}
        >
          <Field
            id={`ends-${subscription.id}`}
            label="New end date"
            type="date"
            value={dateEnded}
            onInput={setDateEnded}
            error={endMessage}
          />
          <button type="submit">Save end date</button>{' '}
          <button type="button" onClick={() => setMode('idle')}>
            Cancel
          </button>
        </form>
      )}
      {mode === 'expire' && (
        <Confirmation
          id={`expire-${subscription.id}`}
          question={`Expire ${label} now?`}
          detail={consequence}
          yes="Yes, expire it"
          focus={confirming}
          onYes={async () => done(await expireSubscription(userId, subscription.id))}
          onNo={() => setMode('idle')}
        />
      )}
      {mode === 'delete' && (
        <Confirmation
          id={`confirm-${subscription.id}`}
          question="Delete this subscription for good?"
          yes="Yes, delete it"
          focus={confirming}
          onYes={async () => done(await deleteSubscription(userId, subscription.id))}
          onNo={() => setMode('idle')}
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

function AddSubscription({
  userId,
  products,
  reload,
}: {
  userId: string;
  products: CatalogueProduct[];
  reload: Reload;
}) {
  const [product, setProduct] = useState('');
  const [dateStarted, setDateStarted] = useState(new Date().toISOString().slice(0, 10));
  const [dateEnded, setDateEnded] = useState('');
  const [messages, setMessages] = useState<Record<string, string>>({});
  return (
    <form
      class="add"
      aria-labelledby="add-subscription-heading"
      onSubmit={async (e) => {
        e.preventDefault();
        const { response, error } = await addSubscription(userId, product, dateStarted, dateEnded || null);
        if (!response.ok) {
          setMessages(messagesByField(errorsOf(error)));
          return;
        }
        setMessages({});
        setDateEnded('');
        await reload();
      }}
    >
      <h3 id="add-subscription-heading">Add a subscription</h3>
      <div class="field">
        <label for="new-product">Product</label>
        <select
          id="new-product"
          value={product}
          onChange={(e) => setProduct(e.currentTarget.value)}
          aria-describedby={messages[''] ? 'new-product-error' : undefined}
        >
          <option value="">Choose a product</option>
          {products.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        {messages[''] && (
          <p class="error" id="new-product-error">
            {messages['']}
          </p>
        )}
      </div>
      <Field
        id="new-dateStarted"
        label="Starts"
        type="date"
        value={dateStarted}
        onInput={setDateStarted}
        error={messages.dateStarted}
      />
      <Field
        id="new-dateEnded"
        label="Ends (optional)"
        type="date"
        value={dateEnded}
        onInput={setDateEnded}
        error={messages.dateEnded}
      />
      <button type="submit">Add subscription</button>
    </form>
  );
}
