/**
 * Newsletters on SQLite.
 */
import type { Newsletter, NewsletterValues } from '../../domain/newsletter.js';
import type { NewsletterStore } from '../port.js';
import { NEWSLETTERS_TABLE } from '../sql/catalogue.js';
import { newsletterWithCountQuery, toNewsletterWithCount } from '../sql/newsletters.js';
import { sqliteCatalogue } from './catalogue.js';
import type { SqliteDatabase } from './database.js';

export function sqliteNewsletters(database: SqliteDatabase): NewsletterStore {
  const newsletters = sqliteCatalogue<Newsletter, NewsletterValues>(database, NEWSLETTERS_TABLE);

  async function getNewsletter(id: string) {
    const [[row] = []] = await database.longReads.read([newsletterWithCountQuery(id)]);
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
