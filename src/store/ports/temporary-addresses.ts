/**
 * The port for temporary addresses. Every call names the user, so one is reachable only under its
 * own reader, and on Citus every statement routes to the user's shard. A write runs its rules
 * (domain/temporary-address.ts) inside the store's transaction with the user's row locked: of
 * many asked for one reader at once, each sees those before it, so none overlap.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { StoredTemporaryAddress, TemporaryAddressValues } from '../../domain/temporary-address.js';
import type { IfVersion } from './versions.js';

/** A page of a user's temporary addresses, by id. */
export interface TemporaryAddressPageQuery {
  afterId?: string;
  limit: number;
}

export interface TemporaryAddressStore {
  /**
   * Makes the temporary address `plan` gives against the user's others (or throws its refusal).
   * Undefined when there is no such user.
   */
  create(
    userId: string,
    plan: (others: readonly StoredTemporaryAddress[]) => TemporaryAddressValues,
    audit: AuditContext,
  ): Promise<StoredTemporaryAddress | undefined>;
  /** A page of the user's temporary addresses; undefined when there is no such user. */
  list(userId: string, query: TemporaryAddressPageQuery): Promise<StoredTemporaryAddress[] | undefined>;
  get(userId: string, id: string): Promise<StoredTemporaryAddress | undefined>;
  /** Changes it as `plan` gives, against the user's others (itself among them). */
  update(
    userId: string,
    id: string,
    plan: (current: StoredTemporaryAddress, others: readonly StoredTemporaryAddress[]) => TemporaryAddressValues,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredTemporaryAddress | undefined>;
  /** Deletes it once `check` lets it (or throws its refusal); false when there is no such one. */
  delete(
    userId: string,
    id: string,
    check: (current: StoredTemporaryAddress) => void,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<boolean>;
}
