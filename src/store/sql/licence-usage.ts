/**
 * The usage of site licences as every adapter keeps it (migration 34): a count per licence,
 * month and way, added to in batches (domain/licence-usage.ts), and read by the licence.
 */
import { MAX_USAGE_MONTHS, USAGE_VIAS, type UsageCount, type UsageVia } from '../../domain/licence-usage.js';
import { sql, type Sql } from './builder.js';
import type { Row } from './rows.js';

/** A licence's counts, oldest month first; as many rows as a century of months has ways. */
export function usageQuery(userId: string, subscriptionId: string): Sql {
  return sql`SELECT month, via, checks FROM licence_usage WHERE user_id = ${userId} AND subscription_id = ${subscriptionId}
    ORDER BY month, via LIMIT ${MAX_USAGE_MONTHS * USAGE_VIAS.length}`;
}

export function toUsageCount(row: Row): Pick<UsageCount, 'month' | 'via' | 'count'> {
  return { month: row.month as string, via: row.via as UsageVia, count: Number(row.checks) };
}

/**
 * A batch in one order (owner, licence, month, way), so that two processes adding at once take
 * the rows' locks in the same order and never wait on each other in a circle.
 */
export function inKeyOrder(counts: readonly UsageCount[]): UsageCount[] {
  // Each count's key made once, not at every comparison.
  const keyed = counts.map((c) => ({
    key: `${c.userId.padStart(20, '0')}/${c.subscriptionId.padStart(20, '0')}/${c.month}/${c.via}`,
    count: c,
  }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((k) => k.count);
}
