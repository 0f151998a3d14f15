/**
 * What a reader's data export (transfer/reader-export.ts) reads across the reader's records that
 * the other ports read one subscription or one webhook at a time: every hold and delivery
 * complaint of theirs, and every webhook delivery of the events about them. Each a page by key,
 * so that an export of any size reads a bounded number of rows at a time. Every call names the
 * reader, so on Citus the reads of their records route to their shard.
 */
import type { StoredDeliveryComplaint } from '../../domain/delivery-complaint.js';
import type { StoredHold } from '../../domain/hold.js';
import type { WebhookDelivery } from '../../domain/webhooks.js';

/** A page by id. */
export interface ReaderDataPageQuery {
  afterId?: string;
  limit: number;
}

/** The deliveries of a page of the reader's audit entries, and the last entry that page read. */
export interface ReaderWebhookDeliveryPage {
  deliveries: WebhookDelivery[];
  /** The id of the last audit entry read, to go on after; undefined when there were no more. */
  readTo: string | undefined;
}

export interface ReaderDataStore {
  /** A page of the reader's holds, of every subscription, withdrawn ones too, by id. */
  listHolds(userId: string, query: ReaderDataPageQuery): Promise<StoredHold[]>;
  /** A page of the reader's delivery complaints, of every subscription, by id. */
  listDeliveryComplaints(userId: string, query: ReaderDataPageQuery): Promise<StoredDeliveryComplaint[]>;
  /**
   * The webhook deliveries of up to `limit` of the reader's audit entries after `afterId` (by
   * the entry's id, then the delivery's): at most `limit` entries' worth, one a webhook each.
   */
  listWebhookDeliveries(userId: string, query: ReaderDataPageQuery): Promise<ReaderWebhookDeliveryPage>;
}
