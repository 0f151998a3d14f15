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
   * died) may be taken over; a key older than `keepFor` seconds is as good as unused (the
   * retention job removes it).
   */
  claimKey(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    limits: { staleAfter: number; keepFor: number },
  ): Promise<IdempotencyState>;
  /**
   * Keeps the response of a claimed key, or (null) releases the claim so a retry runs anew. A
   * response that holds a reader's data names them (`userId`), and goes when they are erased; if
   * they are already gone, the claim is released instead, so that nothing of theirs is kept.
   */
  finishKey(scope: string, key: string, response: KeptResponse | null, userId: string | null): Promise<void>;
}
