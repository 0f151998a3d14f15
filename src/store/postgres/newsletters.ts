/**
 * Newsletters on PostgreSQL.
 */
import type { Newsletter, NewsletterValues } from '../../domain/newsletter.js';
import type { NewsletterStore } from '../port.js';
import { NEWSLETTERS_TABLE } from '../sql/catalogue.js';
import { newsletterWithCountQuery, toNewsletterWithCount } from '../sql/newsletters.js';
import { postgresCatalogue } from './catalogue.js';
import type { PostgresDatabase } from './database.js';

export function postgresNewsletters(database: PostgresDatabase): NewsletterStore {
  const newsletters = postgresCatalogue<Newsletter, NewsletterValues>(database, NEWSLETTERS_TABLE);

  async function getNewsletter(id: string) {
    const [row] = await database.rows(newsletterWithCountQuery(id));
    return row && toNewsletterWithCount(row);
  }

  return {
    create: newsletters.create,
    get: getNewsletter,
    list: newsletters.list,
    update: newsletters.update,
    delete: newsletters.delete,
  };
}
