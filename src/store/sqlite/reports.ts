/**
 * Reports on SQLite.
 */
import type { ReportWeek } from '../../domain/report.js';
import type { ReportStore, SubscriptionCounts } from '../port.js';
import { activeGroupsQuery, toActiveGroup, toWeekCounts, weekCountsQuery } from '../sql/reports.js';
import type { SqliteDatabase } from './database.js';

export function sqliteReports(database: SqliteDatabase): ReportStore {
  async function countSubscriptions(at: number, weeks: readonly ReportWeek[]): Promise<SubscriptionCounts> {
    const [active = [], [counts = {}] = []] = await database.longReads.read([
      activeGroupsQuery(at, 'sqlite'),
      weekCountsQuery(weeks, 'sqlite'),
    ]);
    return { active: active.map(toActiveGroup), weeks: toWeekCounts(counts, weeks) };
  }

  return { countSubscriptions };
}
