/**
 * The port for delivery complaints. Every call names the user and the subscription; a complaint is
 * made inside the store's transaction with the subscription locked, its rules
 * (domain/delivery-complaint.ts) reading the subscription, its holds and its other complaints, so
 * two complaints for one date cannot both be made. Complaints are never changed or deleted.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { ComplaintContext, ComplaintPlan, StoredDeliveryComplaint } from '../../domain/delivery-complaint.js';

/** A page of a subscription's complaints, by id. */
export interface ComplaintPageQuery {
  afterId?: string;
  limit: number;
}

export interface DeliveryComplaintStore {
  /**
   * Makes the complaint `plan` gives for the subscription as it stands (or throws its refusal),
   * and moves the term's end as the plan says (an update of the subscription, with its event).
   * Undefined when the user has no such subscription.
   */
  create(
    userId: string,
    subscriptionId: string,
    plan: (context: ComplaintContext) => ComplaintPlan,
    audit: AuditContext,
  ): Promise<StoredDeliveryComplaint | undefined>;
  /** A page of the subscription's complaints; undefined when the user has no such subscription. */
  list(
    userId: string,
    subscriptionId: string,
    query: ComplaintPageQuery,
  ): Promise<StoredDeliveryComplaint[] | undefined>;
  get(userId: string, subscriptionId: string, id: string): Promise<StoredDeliveryComplaint | undefined>;
}
