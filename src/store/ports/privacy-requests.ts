/**
 * The port for privacy requests (domain/privacy-request.ts): not a reader's own record but the
 * publisher's, about a reader, so it is reached by its own id and outlives the reader. Erasing the
 * reader (UserStore's delete) strips it of them in the same transaction.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { PrivacyRequestValues, StoredPrivacyRequest } from '../../domain/privacy-request.js';
import type { IfVersion } from './versions.js';

/** A page of requests: by id, or by due date (then id); only the open ones (not completed), or only the others. */
export interface PrivacyRequestPageQuery {
  /** Only requests after this one, in the page's order. */
  afterId?: string;
  limit: number;
  open?: boolean;
  byDueDate?: boolean;
  /** Only those about this reader (what their data export lists). */
  userId?: string;
}

export interface PrivacyRequestStore {
  /** Records a request about the user, with its event; undefined when there is no such user. */
  create(userId: string, values: PrivacyRequestValues, audit: AuditContext): Promise<StoredPrivacyRequest | undefined>;
  list(query: PrivacyRequestPageQuery): Promise<StoredPrivacyRequest[]>;
  get(id: string): Promise<StoredPrivacyRequest | undefined>;
  /**
   * Applies `change` to the current values atomically (it may throw a failure to refuse), with
   * its event; a change that changes nothing writes nothing. Undefined when there is no such request.
   */
  update(
    id: string,
    change: (current: StoredPrivacyRequest) => PrivacyRequestValues,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredPrivacyRequest | undefined>;
}
