/**
 * A write's precondition (If-Match): the versions it may change. Undefined: any. A write whose
 * record exists at another version throws the `PRECONDITION_FAILED` failure and changes nothing.
 */
export type IfVersion = readonly number[] | undefined;
