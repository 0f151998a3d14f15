/**
 * Reports on SQLite.
 */
import type { ReportWeek } from '../../domain/report.js';
import type { ReportStore, SubscriptionCounts } from '../port.js';
import { activeGroupsQuery, toActiveGroup, toWeekCounts, weekCountsQuery } from '../sql/reports.js';
import type { SqliteDatabase } from './database.js';

export function sqliteReports(database: SqliteDatabase): ReportStore {
  async function countSubscriptions(at: number, weeks: readonly ReportWeek[]): Promise<SubscriptionCounts> {
    // One read transaction: the counts are of one moment.
    return database.db.transaction(() => ({
      active: database.all(activeGroupsQuery(at, 'sqlite')).map(toActiveGroup),
      weeks: toWeekCounts(database.all(weekCountsQuery(weeks, 'sqlite'))[0] ?? {}, weeks),
    }))();
  }

  return { countSubscriptions };
}
