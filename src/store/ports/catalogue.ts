/**
 * What the ports of the catalogue's records (products, newsletters) share: how a page of them is
 * asked for.
 */

export interface CatalogueQuery {
  /** Only records after this id, in id order (byte order on every store): an index seek. */
  afterId?: string;
  limit: number;
  /** Only active records, or only inactive ones. */
  active?: boolean;
}
