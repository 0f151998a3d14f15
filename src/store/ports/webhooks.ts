/**
 * The port for webhooks and their deliveries. A delivery row is written for each subscribed
 * webhook in the transaction of every event (by the database itself), and handed out to
 * dispatchers under a lease.
 */
import type { AuditContext, AuditEvent } from '../../domain/audit.js';
import type { EventType } from '../../domain/events.js';
import type { DeliveryState, Webhook, WebhookDelivery } from '../../domain/webhooks.js';
import type { IfVersion } from './versions.js';

export interface NewWebhook {
  url: string;
  events: readonly EventType[];
  secretSalt: string;
}

export interface WebhookChanges {
  url?: string;
  events?: readonly EventType[];
}

export interface DeliveryQuery {
  /** Only deliveries after this one, in id order. */
  afterId?: string;
  limit: number;
  state?: DeliveryState;
}

/** A delivery handed to one dispatcher, with what it needs to send it. */
export interface ClaimedDelivery {
  delivery: WebhookDelivery;
  url: string;
  secretSalt: string;
  event: AuditEvent;
}

/** How an attempt ended: delivered, failed for good, or pending again from `nextAttemptAt`. */
export interface DeliveryOutcome {
  state: DeliveryState;
  /** Epoch milliseconds, as every instant of a delivery. */
  at: number;
  nextAttemptAt: number | null;
  status: number | null;
  error: string | null;
}

export interface WebhookStore {
  create(webhook: NewWebhook, audit: AuditContext): Promise<Webhook>;
  get(id: string): Promise<Webhook | undefined>;
  list(): Promise<Webhook[]>;
  update(id: string, changes: WebhookChanges, audit: AuditContext, ifVersion?: IfVersion): Promise<Webhook | undefined>;
  /** Removes it with its deliveries, pending ones included. */
  delete(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean>;
  /** A webhook's deliveries by id, or undefined when there is no such webhook. */
  listDeliveries(webhookId: string, query: DeliveryQuery): Promise<WebhookDelivery[] | undefined>;
  /**
   * Hands up to `limit` due deliveries to the caller for `leaseMs`, counting an attempt for each;
   * safe to call from several processes at once: no delivery is handed to two callers while its
   * lease runs. Only the oldest pending delivery of each (webhook, queue) is due, so each endpoint
   * gets the events of a user (or, for events without a user, of a record of the catalogue) in
   * order. A lease that runs out (its process died) makes the
   * delivery due again.
   */
  claimDeliveries(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records how a claimed delivery's attempt ended, if the delivery is still at the version its
   * claim gave it (else another dispatcher or a redelivery has it now: answers false, records
   * nothing). A retry's wait holds back the later deliveries of the same queue too.
   */
  finishDelivery(id: string, claimedVersion: number, outcome: DeliveryOutcome): Promise<boolean>;
  getDelivery(webhookId: string, id: string): Promise<WebhookDelivery | undefined>;
  /** Makes a delivered or failed delivery pending again, due at `now`; undefined when there is none such. */
  redeliver(webhookId: string, id: string, now: number): Promise<WebhookDelivery | undefined>;
}
