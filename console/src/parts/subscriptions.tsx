/** A reader's subscriptions with their status and product, and what an agent does to them. */
import { useState } from 'preact/hooks';
import { errorsOf } from '../api/client';
import type { LoadedReader, Subscription } from '../api/readers';
import {
  addSubscription,
  dayOf,
  deleteSubscription,
  expireSubscription,
  extendSubscription,
} from '../api/subscriptions';
import { messagesByField } from './errors';
import { Field } from './field';

type Named = { id: string; name: string };
type Reload = () => Promise<unknown>;

export function Subscriptions({
  loaded,
  products,
  reload,
}: {
  loaded: LoadedReader;
  products: Named[];
  reload: Reload;
}) {
  const userId = loaded.reader.id;
  const productName = (s: Subscription) => {
    const id = s.relationships?.product?.data?.id;
    return id ? (products.find((p) => p.id === id)?.name ?? id) : '—';
  };
  return (
    <section aria-labelledby="subscriptions-heading">
      <h2 id="subscriptions-heading">Subscriptions</h2>
      {loaded.subscriptions.length === 0 ? (
        <p>No subscriptions.</p>
      ) : (
        <ul class="subscriptions">
          {loaded.subscriptions.map((s) => (
            <SubscriptionItem key={s.id} userId={userId} subscription={s} product={productName(s)} reload={reload} />
          ))}
        </ul>
      )}
      <AddSubscription userId={userId} products={products} reload={reload} />
    </section>
  );
}

function SubscriptionItem({
  userId,
  subscription,
  product,
  reload,
}: {
  userId: string;
  subscription: Subscription;
  product: string;
  reload: Reload;
}) {
  const a = subscription.attributes;
  const [mode, setMode] = useState<'idle' | 'extend' | 'delete'>('idle');
  const [dateEnded, setDateEnded] = useState(dayOf(a.dateEnded));
  const [problem, setProblem] = useState<string | undefined>();
  const [endMessage, setEndMessage] = useState<string | undefined>();
  const label = `${product}, ${dayOf(a.dateStarted)} to ${dayOf(a.dateEnded) || 'open-ended'}`;
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
      <span class={`status status-${a.status}`}>{a.status}</span> <strong>{product}</strong>{' '}
      <span>
        {dayOf(a.dateStarted)} → {dayOf(a.dateEnded) || 'open-ended'}
      </span>
      <div class="actions">
        <button type="button" aria-label={`Extend ${label}`} onClick={() => setMode('extend')}>
          Extend
        </button>
        {!a.expired && (
          <button
            type="button"
            aria-label={`Expire ${label}`}
            onClick={async () => done(await expireSubscription(userId, subscription.id))}
          >
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
      {mode === 'delete' && (
        <div role="alertdialog" aria-labelledby={`confirm-${subscription.id}`}>
          <p id={`confirm-${subscription.id}`}>Delete this subscription for good?</p>
          <button
            type="button"
            class="danger"
            autoFocus
            onClick={async () => done(await deleteSubscription(userId, subscription.id))}
          >
            Yes, delete it
          </button>{' '}
          <button type="button" onClick={() => setMode('idle')}>
            Keep it
          </button>
        </div>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </li>
  );
}

function AddSubscription({ userId, products, reload }: { userId: string; products: Named[]; reload: Reload }) {
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
