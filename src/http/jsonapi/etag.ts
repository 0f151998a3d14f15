/**
 * ETags and If-Match: a resource's ETag is its row version, which goes up with every change.
 * It is strong, and given only with the whole representation (no sparse fieldset, no include).
 * A write with If-Match goes ahead only if the stored version is one the header names.
 */
import { Type } from '@sinclair/typebox';
import type { IfVersion } from '../../store/port.js';

export function etagOf(version: number): string {
  return `"${version}"`;
}

/** The versions an If-Match header names: undefined without one or with `*`; weak tags name none. */
export function ifMatchVersions(header: string | undefined): IfVersion {
  if (header === undefined || header.trim() === '*') return undefined;
  return header.split(',').flatMap((tag) => {
    const m = /^\s*"(\d{1,15})"\s*$/.exec(tag);
    return m ? [Number(m[1])] : [];
  });
}

export const IfMatchHeader = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'The ETag read before: the write goes ahead only if the resource has not changed since (else 412).',
    }),
  ),
});
