/**
 * Webhook delivery: a serving process claims due deliveries from the store, POSTs each event to
 * its endpoint signed per Standard Webhooks, and records how it went. Any number of processes
 * may deliver at once: the store hands each delivery to one of them at a time, under a lease
 * that outlasts an attempt, so a process that dies mid-delivery only delays it (at least once).
 */
import { setMaxListeners } from 'node:events';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Logger } from 'pino';
import { formatInstant } from '../domain/dates.js';
import { toEventResource } from '../domain/events.js';
import {
  attemptOutcome,
  signature,
  signingSecret,
  type AllowedNetworks,
  type AttemptResult,
  type RetryPolicy,
} from '../domain/webhooks.js';
import type { ClaimedDelivery, Store } from '../store/port.js';
import { DestinationRefused, guardedLookup, refusedAddress, type Resolver } from './destination.js';

export interface DispatcherOptions {
  /** The webhook key (see secrets/service-keys.ts). */
  key: Buffer;
  /** How long an endpoint has to answer an attempt. */
  timeoutMs: number;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** How often to look for due deliveries when nothing woke the dispatcher. */
  pollMs: number;
  retry: RetryPolicy;
  /** Networks deliveries may reach beyond public addresses (WEBHOOK_ALLOWED_NETWORKS). */
  allowedNetworks: AllowedNetworks;
  /** How names are resolved; the system's resolver unless a test stands in for it. */
  resolve?: Resolver;
  log: Pick<Logger, 'warn' | 'error' | 'debug'>;
}

export interface Dispatcher {
  /** Looks for due deliveries now (after a change made in this process, say). */
  wake(): void;
  /** Claims nothing more, cuts the attempts in flight short and hands their deliveries back. */
  stop(): Promise<void>;
}

const USER_AGENT = 'circulation-webhooks/1';
const INTERRUPTED = 'the delivering process stopped during the attempt';
/**
 * Why an attempt failed, in words that say nothing of what the network answered: a delivery's
 * lastError is shown to admins, and must not make a port scanner of the service.
 */
const REFUSED =
  'the endpoint resolves to an address deliveries may not reach (loopback, private, link-local or another ' +
  'internal range; see WEBHOOK_ALLOWED_NETWORKS)';
const UNREACHABLE = 'the endpoint could not be reached';
/** Wakes within this long make one look for due deliveries, not one each: a busy process writes often. */
const WAKE_COALESCE_MS = 20;

export function startDispatcher(store: Store, options: DispatcherOptions): Dispatcher {
  // Long enough that an attempt ends (answered or timed out) well before another process may take it.
  const leaseMs = options.timeoutMs * 2 + 1000;
  const lookup = guardedLookup(options.allowedNetworks, options.resolve);
  const inFlight = new Set<Promise<void>>();
  // Stopping cuts the attempts in flight short rather than wait out their timeouts.
  const stopping = new AbortController();
  setMaxListeners(Infinity, stopping.signal);
  let stopped = false;
  let filling: Promise<void> | undefined;
  let again = false;

  function fill(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (filling) {
      again = true;
      return filling;
    }
    filling = claimWhileRoom().finally(() => {
      filling = undefined;
    });
    return filling;
  }

  async function claimWhileRoom(): Promise<void> {
    try {
      do {
        again = false;
        while (!stopped && inFlight.size < options.concurrency) {
          const claimed = await store.webhooks.claimDeliveries(
            Date.now(),
            leaseMs,
            options.concurrency - inFlight.size,
          );
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
    }
  }

  async function attemptDelivery(claimed: ClaimedDelivery): Promise<void> {
    const { delivery } = claimed;
    const context = { webhookId: delivery.webhookId, deliveryId: delivery.id, attempt: delivery.attempts };
    try {
      // Claimed as the dispatcher stopped: handed back unsent.
      const result = stopped ? undefined : await post(claimed, { ...options, lookup }, stopping.signal);
      const now = Date.now();
      const outcome =
        result === undefined || (stopping.signal.aborted && 'error' in result)
          ? // Not the endpoint's failure: due again at once, for another process (or this one, restarted).
            { state: 'pending' as const, at: now, nextAttemptAt: now, status: null, error: INTERRUPTED }
          : attemptOutcome(result, delivery.attempts, now, options.retry);
      if (outcome.state === 'delivered') options.log.debug(context, 'webhook delivered');
      else options.log.warn({ ...context, state: outcome.state, error: outcome.error }, 'webhook attempt failed');
      if (!(await store.webhooks.finishDelivery(delivery.id, delivery.version, outcome))) {
        options.log.warn(context, 'a webhook attempt outlived its lease; its outcome was not recorded');
      }
    } catch (error) {
      // The lease runs out and the delivery is attempted again: at least once, never lost.
      options.log.error({ err: error, ...context }, 'the outcome of a webhook attempt could not be recorded');
    }
  }

  const timer = setInterval(() => void fill(), options.pollMs);
  timer.unref();
  let waking: NodeJS.Timeout | undefined;
  void fill();
  return {
    wake() {
      waking ??= setTimeout(() => {
        waking = undefined;
        void fill();
      }, WAKE_COALESCE_MS);
    },
    async stop() {
      const claiming = filling;
      stopped = true;
      clearInterval(timer);
      clearTimeout(waking);
      stopping.abort();
      await claiming;
      await Promise.all(inFlight);
    },
  };
}

/** The message of a delivery: its body, and the Standard Webhooks headers that sign it. */
function webhookMessage(claimed: ClaimedDelivery, key: Buffer, nowSeconds: number) {
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

async function post(
  claimed: ClaimedDelivery,
  options: DispatcherOptions & { lookup: ReturnType<typeof guardedLookup> },
  stop: AbortSignal,
): Promise<AttemptResult> {
  const url = new URL(claimed.url);
  if (refusedAddress(url, options.allowedNetworks)) return { error: REFUSED };
  const message = webhookMessage(claimed, options.key, Math.floor(Date.now() / 1000));
  // One controller, its timer cleared with the answer: AbortSignal.timeout() would keep a timer
  // alive for the whole timeout after every delivery, thousands of them at a busy moment.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onStop = () => controller.abort();
  stop.addEventListener('abort', onStop);
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(
        url,
        {
          method: 'POST',
          headers: { ...message.headers, 'content-length': Buffer.byteLength(message.body) },
          // Every address the connection may use is checked as it connects (see destination.ts).
          lookup: options.lookup,
          signal: controller.signal,
        },
        (response) => {
          // The status is the answer; the body is not read (a redirect is not a delivery either).
          resolve(response.statusCode ?? 0);
          response.destroy();
        },
      );
      request.on('error', reject);
      request.end(message.body);
    });
    return { status };
  } catch (error) {
    if (timedOut) return { error: `no answer within ${options.timeoutMs} ms` };
    return { error: error instanceof DestinationRefused ? REFUSED : UNREACHABLE };
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', onStop);
  }
}
