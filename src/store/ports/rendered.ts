/**
 * A record as the JSON text of its JSON:API resource object, written by the database, without
 * `links`, which depend on the request. A list read this way is spliced into its document, never
 * parsed again.
 */
export interface RenderedResource {
  id: string;
  /** `type`, `id` and `attributes`, as a JSON object. */
  json: string;
  /**
   * Its `relationships` object, where it has one: apart, because a document writes it after
   * `links` (the response serializer writes a resource's optional members after its required ones).
   */
  relationships?: string;
}
