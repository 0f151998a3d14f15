/**
 * Newsletters on PostgreSQL.
 */
import type { Newsletter, NewsletterValues } from '../../domain/newsletter.js';
import type { NewsletterStore } from '../port.js';
import { NEWSLETTERS_TABLE, toCatalogueRecord } from '../sql/catalogue.js';
import { newsletterWithCountQuery } from '../sql/newsletters.js';
import { postgresCatalogue } from './catalogue.js';
import type { PostgresDatabase } from './database.js';

export function postgresNewsletters(database: PostgresDatabase): NewsletterStore {
  const newsletters = postgresCatalogue<Newsletter, NewsletterValues>(database, NEWSLETTERS_TABLE);

  async function getNewsletter(id: string) {
    const [row] = await database.rows(newsletterWithCountQuery(id));
    if (!row) return undefined;
    return { newsletter: toCatalogueRecord<Newsletter>(NEWSLETTERS_TABLE, row), members: Number(row.members) };
  }

  return {
    createNewsletter: newsletters.create,
    getNewsletter,
    listNewsletters: newsletters.list,
    updateNewsletter: newsletters.update,
    deleteNewsletter: newsletters.delete,
  };
}
