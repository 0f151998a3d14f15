/**
 * A site licence's usage: how many access checks it granted in each calendar month (UTC), by the
 * way it reached the one asking (`ip`, `email-domain`, `seat`), the evidence a licensee renews on
 * (COUNTER-style monthly counts).
 *
 * The checks are the paywall's hot read, so counting them writes nothing per check: each process
 * tallies in memory (`UsageTally`) and adds what it tallied to the store in one batch, every few
 * seconds and when it stops. A process that dies loses at most the counts since its last batch.
 */
import { Type, type Static } from '@sinclair/typebox';

export const LICENCE_USAGE = 'licence-usage';

/** How a licence reached the one checking: their address, their email's domain, their seat. */
export const USAGE_VIAS = ['ip', 'email-domain', 'seat'] as const;
export type UsageVia = (typeof USAGE_VIAS)[number];

/** The months of usage the store keeps in one answer at most: a century of a licence's life. */
export const MAX_USAGE_MONTHS = 1_200;

/** A count to add: of one licence (its owner and id), one month, one way. */
export interface UsageCount {
  userId: string;
  subscriptionId: string;
  /** The calendar month, `YYYY-MM` (UTC). */
  month: string;
  via: UsageVia;
  count: number;
}

/** The calendar month (UTC) an instant (epoch seconds) falls in, as `YYYY-MM`. */
export function monthOf(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 7);
}

const Count = Type.Integer({ minimum: 0 });

export const UsageMonth = Type.Object({
  month: Type.String({ pattern: '^[0-9]{4}-[0-9]{2}$', description: 'The calendar month (UTC), YYYY-MM.' }),
  counts: Type.Object(
    { ip: Count, 'email-domain': Count, seat: Count },
    { description: 'The access checks the licence granted in the month, by how it reached the one checking.' },
  ),
  total: Count,
});

export const LicenceUsageAttributes = Type.Object({
  months: Type.Array(UsageMonth, {
    description:
      'Each calendar month with a check granted, oldest first. Counts reach the store in batches, every few seconds.',
  }),
});

export type LicenceUsage = Static<typeof LicenceUsageAttributes>;

/** The counts a store holds for a licence, as a resource's attributes: one entry per month, oldest first. */
export function toLicenceUsage(counts: readonly Pick<UsageCount, 'month' | 'via' | 'count'>[]): LicenceUsage {
  const byMonth = new Map<string, Static<typeof UsageMonth>>();
  for (const { month, via, count } of counts) {
    let entry = byMonth.get(month);
    if (!entry) {
      entry = { month, counts: { ip: 0, 'email-domain': 0, seat: 0 }, total: 0 };
      byMonth.set(month, entry);
    }
    entry.counts[via] += count;
    entry.total += count;
  }
  // Stryker disable next-line EqualityOperator: no two entries have the same month, the key they are kept by
  return { months: [...byMonth.values()].sort((a, b) => (a.month < b.month ? -1 : 1)) };
}

/**
 * A process's tally of checks granted, not yet in the store: a counter per (licence, month, way),
 * so it grows with the licences checked, never with the checks.
 */
export class UsageTally {
  /**
   * The counters of each licence, by its id: one per month and way it was counted in, a few at
   * most. Kept by the id the check already holds, as a key made of all four cost a new string on
   * every check.
   */
  private counts = new Map<string, UsageCount[]>();
  private counters = 0;
  /** The month of the instant counted last: checks come many a second, and a date's text is dear to make. */
  private monthAt = { at: Number.NaN, month: '' };

  /** Counts one check that `licence` granted at `at` (epoch seconds) through `via`. */
  count(licence: { userId: string; id: string }, via: UsageVia, at: number): void {
    if (this.monthAt.at !== at) this.monthAt = { at, month: monthOf(at) };
    this.add(licence.userId, licence.id, this.monthAt.month, via, 1);
  }

  /** Everything tallied, which is forgotten here: the caller adds it to the store (or gives it back). */
  take(): UsageCount[] {
    const taken = [...this.counts.values()].flat();
    this.counts = new Map();
    this.counters = 0;
    return taken;
  }

  /** Gives back counts taken whose batch did not reach the store, to go with the next. */
  giveBack(counts: readonly UsageCount[]): void {
    for (const c of counts) this.add(c.userId, c.subscriptionId, c.month, c.via, c.count);
  }

  get size(): number {
    return this.counters;
  }

  private add(userId: string, subscriptionId: string, month: string, via: UsageVia, count: number): void {
    let counters = this.counts.get(subscriptionId);
    if (counters === undefined) {
      counters = [];
      this.counts.set(subscriptionId, counters);
    }
    for (const counter of counters) {
      if (counter.month === month && counter.via === via && counter.userId === userId) {
        counter.count += count;
        return;
      }
    }
    counters.push({ userId, subscriptionId, month, via, count });
    this.counters += 1;
  }
}
