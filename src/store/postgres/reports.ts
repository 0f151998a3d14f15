/**
 * Reports on PostgreSQL.
 */
import type { ReportWeek } from '../../domain/report.js';
import type { ReportStore, SubscriptionCounts } from '../port.js';
import { activeGroupsQuery, toActiveGroup, toWeekCounts, weekCountsQuery } from '../sql/reports.js';
import type { PostgresDatabase } from './database.js';

export function postgresReports(database: PostgresDatabase): ReportStore {
  async function countSubscriptions(at: number, weeks: readonly ReportWeek[]): Promise<SubscriptionCounts> {
    const [active, counts] = await Promise.all([
      database.rows(activeGroupsQuery(at, 'postgres')),
      database.rows(weekCountsQuery(weeks, 'postgres')),
    ]);
    return { active: active.map(toActiveGroup), weeks: toWeekCounts(counts[0] ?? {}, weeks) };
  }

  return { countSubscriptions };
}
