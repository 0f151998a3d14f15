/**
 * The port for holds. Every call names the user and the subscription, so a hold is reachable only
 * under its own subscription, and on Citus every statement routes to the user's shard. A write
 * runs its rules (domain/hold.ts) inside the store's transaction, with the subscription locked: of
 * many holds asked for one subscription at once, each sees the others that came before it, so
 * exactly those that do not overlap are made.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { HoldContext, HoldPlan, StoredHold } from '../../domain/hold.js';
import type { IfVersion } from './versions.js';

/** A page of a subscription's holds, by id. */
export interface HoldPageQuery {
  afterId?: string;
  limit: number;
}

export interface HoldStore {
  /**
   * Makes the hold `plan` gives for the subscription as it stands (or throws its refusal), and
   * moves the term's end as the plan says (an update of the subscription, with its event).
   * Undefined when the user has no such subscription.
   */
  create(
    userId: string,
    subscriptionId: string,
    plan: (context: HoldContext) => HoldPlan,
    audit: AuditContext,
  ): Promise<StoredHold | undefined>;
  /** A page of the subscription's holds, withdrawn ones too; undefined when the user has no such subscription. */
  list(userId: string, subscriptionId: string, query: HoldPageQuery): Promise<StoredHold[] | undefined>;
  get(userId: string, subscriptionId: string, id: string): Promise<StoredHold | undefined>;
  /** Changes the hold as `plan` gives, and the term's end with it. */
  update(
    userId: string,
    subscriptionId: string,
    id: string,
    plan: (current: StoredHold, context: HoldContext) => HoldPlan,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredHold | undefined>;
  /**
   * Marks the hold withdrawn and gives the term's end `plan` answers; one already withdrawn is
   * left as it is (no event). Undefined when there is no such hold.
   */
  withdraw(
    userId: string,
    subscriptionId: string,
    id: string,
    plan: (current: StoredHold, context: HoldContext) => number | null,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredHold | undefined>;
}
