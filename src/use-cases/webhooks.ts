/**
 * What the service does with webhooks: registers an endpoint (refusing an address internal on its
 * face, and giving its signing secret that once), lists, reads, changes and removes them, and
 * lists, reads and sends again their deliveries. A name is checked at each delivery
 * (webhooks/destination.ts), not here.
 */
import type { AuditContext } from '../domain/audit.js';
import { failures } from '../domain/failures.js';
import {
  isRefusedLiteral,
  newSecretSalt,
  signingSecret,
  type AllowedNetworks,
  type Webhook,
  type WebhookDelivery,
} from '../domain/webhooks.js';
import type { DeliveryQuery, IfVersion, Store, WebhookChanges } from '../store/port.js';

/** Registers the endpoint; answers it with its signing secret, derived from `key` and never stored. */
export async function registerWebhook(
  store: Store,
  key: Buffer,
  allowedNetworks: AllowedNetworks,
  { url, events }: { url: string; events: Webhook['events'] },
  audit: AuditContext,
): Promise<{ webhook: Webhook; secret: string }> {
  checkDestination(url, allowedNetworks);
  const webhook = await store.webhooks.create({ url, events, secretSalt: newSecretSalt() }, audit);
  return { webhook, secret: signingSecret(key, webhook.secretSalt) };
}

export async function listWebhooks(store: Store): Promise<Webhook[]> {
  return store.webhooks.list();
}

export async function readWebhook(store: Store, id: string): Promise<Webhook | undefined> {
  return store.webhooks.get(id);
}

/** Changes the endpoint (a new address refused as at registering); undefined when there is none. */
export async function changeWebhook(
  store: Store,
  allowedNetworks: AllowedNetworks,
  id: string,
  changes: WebhookChanges,
  audit: AuditContext,
  ifVersion: IfVersion,
): Promise<Webhook | undefined> {
  checkDestination(changes.url, allowedNetworks);
  return store.webhooks.update(id, changes, audit, ifVersion);
}

/** Removes the endpoint with its deliveries; false when there is none. */
export async function removeWebhook(store: Store, id: string, audit: AuditContext, ifVersion: IfVersion) {
  return store.webhooks.delete(id, audit, ifVersion);
}

/** A page of the webhook's deliveries; undefined when there is no such webhook. */
export async function listWebhookDeliveries(
  store: Store,
  webhookId: string,
  query: DeliveryQuery,
): Promise<WebhookDelivery[] | undefined> {
  return store.webhooks.listDeliveries(webhookId, query);
}

export async function readWebhookDelivery(store: Store, webhookId: string, id: string) {
  return store.webhooks.getDelivery(webhookId, id);
}

/** Sends the delivery again, due from `now` (epoch milliseconds); undefined when there is none. */
export async function redeliverWebhookDelivery(store: Store, webhookId: string, id: string, now: number) {
  return store.webhooks.redeliver(webhookId, id, now);
}

/** Refuses an endpoint whose address is internal on its face; a name is checked at each delivery. */
function checkDestination(url: string | undefined, allowedNetworks: AllowedNetworks): void {
  if (url !== undefined && isRefusedLiteral(url, allowedNetworks)) {
    throw failures.invalid([
      {
        pointer: '/data/attributes/url',
        detail: 'must not point at a loopback, private, link-local or other internal address',
      },
    ]);
  }
}
