/**
 * Webhook delivery: a serving process claims due deliveries from the store, POSTs each event to
 * its endpoint signed per Standard Webhooks, and records how it went. Any number of processes
 * may deliver at once: the store hands each delivery to one of them at a time, under a lease
 * that outlasts an attempt, so a process that dies mid-delivery only delays it (at least once).
 */
import type { Logger } from 'pino';
import { formatInstant } from './domain/dates.js';
import { toEventResource } from './domain/events.js';
import { attemptOutcome, signature, signingSecret, type AttemptResult, type RetryPolicy } from './domain/webhooks.js';
import type { ClaimedDelivery, Store } from './store/port.js';

export interface DispatcherOptions {
  /** The webhook key (see webhook-key.ts). */
  key: Buffer;
  /** How long an endpoint has to answer an attempt. */
  timeoutMs: number;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** How often to look for due deliveries when nothing woke the dispatcher. */
  pollMs: number;
  retry: RetryPolicy;
  log: Pick<Logger, 'warn' | 'error' | 'debug'>;
}

export interface Dispatcher {
  /** Looks for due deliveries now (after a change made in this process, say). */
  wake(): void;
  /** Claims nothing more, and waits for the attempts in flight. */
  stop(): Promise<void>;
}

const USER_AGENT = 'circulation-webhooks/1';
const MAX_ERROR_LENGTH = 500;

export function startDispatcher(store: Store, options: DispatcherOptions): Dispatcher {
  // Long enough that an attempt ends (answered or timed out) well before another process may take it.
  const leaseMs = options.timeoutMs * 2 + 1000;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let filling = false;
  let again = false;

  async function fill(): Promise<void> {
    if (stopped) return;
    if (filling) {
      again = true;
      return;
    }
    filling = true;
    try {
      do {
        again = false;
        while (!stopped && inFlight.size < options.concurrency) {
          const claimed = await store.claimWebhookDeliveries(Date.now(), leaseMs, options.concurrency - inFlight.size);
          for (const delivery of claimed) {
            const attempt = attemptDelivery(delivery).finally(() => {
              inFlight.delete(attempt);
              void fill();
            });
            inFlight.add(attempt);
          }
          if (claimed.length === 0) break;
        }
      } while (again && !stopped);
    } catch (error) {
      options.log.error({ err: error }, 'webhook deliveries could not be claimed; trying again shortly');
    } finally {
      filling = false;
    }
  }

  async function attemptDelivery(claimed: ClaimedDelivery): Promise<void> {
    const { delivery } = claimed;
    const result = await post(claimed, options);
    const outcome = attemptOutcome(result, delivery.attempts, Date.now(), options.retry);
    const context = { webhookId: delivery.webhookId, deliveryId: delivery.id, attempt: delivery.attempts };
    if (outcome.state === 'delivered') options.log.debug(context, 'webhook delivered');
    else options.log.warn({ ...context, state: outcome.state, error: outcome.error }, 'webhook attempt failed');
    try {
      await store.finishWebhookDelivery(delivery.id, outcome);
    } catch (error) {
      // The lease runs out and the delivery is attempted again: at least once, never lost.
      options.log.error({ err: error, ...context }, 'the outcome of a webhook attempt could not be recorded');
    }
  }

  const timer = setInterval(() => void fill(), options.pollMs);
  timer.unref();
  void fill();
  return {
    wake: () => void fill(),
    async stop() {
      stopped = true;
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

/** The message of a delivery: its body, and the Standard Webhooks headers that sign it. */
export function webhookMessage(claimed: ClaimedDelivery, key: Buffer, nowSeconds: number) {
  const event = toEventResource(claimed.event);
  const body = JSON.stringify({
    type: event.attributes.eventType,
    timestamp: formatInstant(claimed.event.occurredAt),
    data: event,
  });
  const secret = signingSecret(key, claimed.secretSalt);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': event.id,
      'webhook-timestamp': String(nowSeconds),
      'webhook-signature': signature(secret, event.id, nowSeconds, body),
    },
  };
}

async function post(claimed: ClaimedDelivery, options: DispatcherOptions): Promise<AttemptResult> {
  const message = webhookMessage(claimed, options.key, Math.floor(Date.now() / 1000));
  try {
    const response = await fetch(claimed.url, {
      method: 'POST',
      headers: message.headers,
      body: message.body,
      // A redirect is not a delivery: the endpoint should be registered at its final address.
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    return { error: describe(error, options.timeoutMs) };
  }
}

function describe(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const text = e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
  return text.slice(0, MAX_ERROR_LENGTH);
}
