/**
 * What the domain refuses, in its own terms: a rule a value breaks, an email another user has,
 * a record changed since the version a write named, an id that is taken, a record still referred
 * to, a reference to a record that does not exist or is inactive. Each has a stable code; the HTTP
 * layer answers it with the catalogued error of that code, the import command reports it as a
 * rejected row.
 */

/** One field-level problem found by a schema or a domain rule: where (a JSON pointer), and what. */
export interface Problem {
  pointer: string;
  detail: string;
}

export type FailureCode =
  | 'INVALID_ATTRIBUTE'
  | 'EMAIL_TAKEN'
  | 'PRECONDITION_FAILED'
  | 'ID_TAKEN'
  | 'STILL_REFERENCED'
  | 'UNKNOWN_REFERENCE'
  | 'INACTIVE_REFERENCE';

export class DomainFailure extends Error {
  constructor(
    readonly code: FailureCode,
    readonly problems: readonly Problem[] = [],
    /** What went wrong, for a failure about the record as a whole rather than one field. */
    readonly detail?: string,
  ) {
    super(problems.length > 0 ? problems.map((p) => `${p.pointer}: ${p.detail}`).join('; ') : (detail ?? code));
    this.name = 'DomainFailure';
  }
}

export const failures = {
  /** Values that break a rule: one problem each. */
  invalid: (problems: readonly Problem[]) => new DomainFailure('INVALID_ATTRIBUTE', problems),
  /** A password given to prove who changes it that is not (or, since it was verified, no longer) the account's. */
  currentPasswordIncorrect: () =>
    new DomainFailure('INVALID_ATTRIBUTE', [{ pointer: '/data/attributes/currentPassword', detail: 'is incorrect' }]),
  emailTaken: () =>
    new DomainFailure('EMAIL_TAKEN', [{ pointer: '/data/attributes/email', detail: 'has already been taken' }]),
  /** The record is at another version than the write's precondition names. */
  preconditionFailed: () => new DomainFailure('PRECONDITION_FAILED'),
  /** A client-chosen id that another record has. */
  idTaken: (what: string, id: string) =>
    new DomainFailure('ID_TAKEN', [{ pointer: '/data/id', detail: `${what} ${id} already exists` }]),
  /** A record others still name, which cannot go before they stop. */
  stillReferenced: (what: string, id: string, count: number, referrers: string) =>
    new DomainFailure('STILL_REFERENCED', [], `${what} ${id} is still referred to by ${count} ${referrers}`),
  /** References to records that do not exist (with strict references). */
  unknownReference: (problems: readonly Problem[]) => new DomainFailure('UNKNOWN_REFERENCE', problems),
  /** References that would newly attach inactive records. */
  inactiveReference: (problems: readonly Problem[]) => new DomainFailure('INACTIVE_REFERENCE', problems),
} as const;
