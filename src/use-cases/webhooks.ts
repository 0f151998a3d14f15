/**
 * What the service does with webhooks beyond one store call: registers an endpoint (refusing an
 * address internal on its face, and giving its signing secret that once) and changes one (a new
 * address refused the same way). A name is checked at each delivery (webhooks/destination.ts),
 * not here. Listing, reading and removing them and their deliveries are a store call each, which
 * the routes make.
 */
import type { AuditContext } from '../domain/audit.js';
import { failures } from '../domain/failures.js';
import {
  isRefusedLiteral,
  newSecretSalt,
  signingSecret,
  type AllowedNetworks,
  type Webhook,
} from '../domain/webhooks.js';
import type { IfVersion, Store, WebhookChanges } from '../store/port.js';

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
