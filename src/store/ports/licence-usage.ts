/**
 * The port for the usage of site licences: counts added in batches (never one write per access
 * check, see domain/licence-usage.ts), and read by the licence.
 */
import type { UsageCount } from '../../domain/licence-usage.js';

export interface LicenceUsageStore {
  /**
   * Adds each count to what its licence, month and way hold, in one transaction; a count of a
   * licence that is no more (deleted, its owner erased) is dropped.
   */
  add(counts: readonly UsageCount[]): Promise<void>;
  /** The licence's counts, oldest month first; undefined when the owner has no such subscription. */
  ofLicence(userId: string, subscriptionId: string): Promise<Pick<UsageCount, 'month' | 'via' | 'count'>[] | undefined>;
}
