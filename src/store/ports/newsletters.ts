/**
 * The port for newsletters. An id is the client's, or one the service draws when none is given; a
 * newsletter with members cannot be deleted (the STILL_REFERENCED failure says how many).
 */
import type { AuditContext } from '../../domain/audit.js';
import type { Newsletter, NewsletterValues } from '../../domain/newsletter.js';
import type { CatalogueQuery } from './catalogue.js';
import type { IfVersion } from './versions.js';

export interface NewsletterStore {
  /** Creates it under `id` (ID_TAKEN when another newsletter has it), or under a new id when none is given. */
  create(id: string | undefined, values: NewsletterValues, audit: AuditContext): Promise<Newsletter>;
  /** The newsletter, with how many users are on it: one indexed read. */
  get(id: string): Promise<{ newsletter: Newsletter; members: number } | undefined>;
  list(query: CatalogueQuery): Promise<Newsletter[]>;
  update(
    id: string,
    changes: Partial<NewsletterValues>,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<Newsletter | undefined>;
  delete(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean>;
}
