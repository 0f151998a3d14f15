/**
 * The port for idempotency keys: a request sent with one runs once, and its retries get the
 * response it gave, from whichever process they reach.
 */

/** A response kept for an idempotency key, to answer its retries with. */
export interface KeptResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Where a request with an idempotency key stands. */
export type IdempotencyState =
  { state: 'new' } | { state: 'replay'; response: KeptResponse } | { state: 'in-progress' } | { state: 'mismatch' };

export interface IdempotencyStore {
  /**
   * Claims an idempotency key (per scope, e.g. a credential) for a request with this fingerprint,
   * atomically across processes. A claim left unfinished for `staleAfter` seconds (its process
   * died) may be taken over; keys older than `keepFor` seconds are forgotten.
   */
  claimIdempotencyKey(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    limits: { staleAfter: number; keepFor: number },
  ): Promise<IdempotencyState>;
  /** Keeps the response of a claimed key, or (null) releases the claim so a retry runs anew. */
  finishIdempotencyKey(scope: string, key: string, response: KeptResponse | null): Promise<void>;
}
