/**
 * Newsletters as every adapter reads them with their count: one statement, the count an index
 * range of the newsletter's members (see the user_newsletters_newsletter index).
 */
import type { Newsletter } from '../../domain/newsletter.js';
import { raw, sql, type Sql } from './builder.js';
import { catalogueColumns, NEWSLETTERS_TABLE, toCatalogueRecord } from './catalogue.js';
import type { Row } from './rows.js';

export function newsletterWithCountQuery(id: string): Sql {
  return sql`SELECT ${raw(catalogueColumns(NEWSLETTERS_TABLE))},
      (SELECT count(*) FROM user_newsletters n WHERE n.newsletter_id = ${id}) AS members
    FROM newsletters WHERE id = ${id}`;
}

export function toNewsletterWithCount(row: Row): { newsletter: Newsletter; members: number } {
  return { newsletter: toCatalogueRecord<Newsletter>(NEWSLETTERS_TABLE, row), members: Number(row.members) };
}
