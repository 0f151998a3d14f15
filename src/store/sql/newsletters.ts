/**
 * Newsletters as every adapter reads them with their count: one statement, the count an index
 * range of the newsletter's members (see the user_newsletters_newsletter index).
 */
import { raw, sql, type Sql } from './builder.js';
import { catalogueColumns, NEWSLETTERS_TABLE } from './catalogue.js';

export function newsletterWithCountQuery(id: string): Sql {
  return sql`SELECT ${raw(catalogueColumns(NEWSLETTERS_TABLE))},
      (SELECT count(*) FROM user_newsletters n WHERE n.newsletter_id = ${id}) AS members
    FROM newsletters WHERE id = ${id}`;
}
