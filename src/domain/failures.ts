/**
 * What the domain refuses, in its own terms: a rule a value breaks, an email another user has,
 * a record changed since the version a write named. Each has a stable code; the HTTP layer answers
 * it with the catalogued error of that code, the import command reports it as a rejected row.
 */

/** One field-level problem found by a schema or a domain rule: where (a JSON pointer), and what. */
export interface Problem {
  pointer: string;
  detail: string;
}

export type FailureCode = 'INVALID_ATTRIBUTE' | 'EMAIL_TAKEN' | 'PRECONDITION_FAILED';

export class DomainFailure extends Error {
  constructor(
    readonly code: FailureCode,
    readonly problems: readonly Problem[] = [],
  ) {
    super(problems.length > 0 ? problems.map((p) => `${p.pointer}: ${p.detail}`).join('; ') : code);
    this.name = 'DomainFailure';
  }
}

export const failures = {
  /** Values that break a rule: one problem each. */
  invalid: (problems: readonly Problem[]) => new DomainFailure('INVALID_ATTRIBUTE', problems),
  emailTaken: () =>
    new DomainFailure('EMAIL_TAKEN', [{ pointer: '/data/attributes/email', detail: 'has already been taken' }]),
  /** The record is at another version than the write's precondition names. */
  preconditionFailed: () => new DomainFailure('PRECONDITION_FAILED'),
} as const;
