/**
 * A write's precondition (If-Match): the versions it may change. Undefined: any. A write whose
 * record exists at another version throws the `PRECONDITION_FAILED` failure and changes nothing.
 */
import { failures } from '../../domain/failures.js';

export type IfVersion = readonly number[] | undefined;

/** Refuses a write whose precondition names other versions than the one stored. */
export function requireVersion(current: number, ifVersion: IfVersion): void {
  if (ifVersion !== undefined && !ifVersion.includes(current)) throw failures.preconditionFailed();
}
