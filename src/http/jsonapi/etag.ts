/**
 * ETags, If-Match and If-None-Match: a resource's ETag is its row version, which goes up with
 * every change. It is strong, and given only with the whole representation (no sparse fieldset,
 * no include). A write with If-Match goes ahead only if the stored version is one the header
 * names; a read with If-None-Match naming the current version is a 304, answered before anything
 * is rendered, so a client polling a resource that has not changed costs one indexed read.
 */
import { errors } from '../errors.js';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IfVersion } from '../../store/port.js';
import { withHeaders } from './response-headers.js';

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

/**
 * Refuses with 412 when If-Match names versions and `version` is none of them: for a request that
 * reads the resource rather than writing it (an update that changes nothing), as the store does for a write.
 */
export function refuseUnlessIfMatch(header: string | undefined, version: number): void {
  const versions = ifMatchVersions(header);
  if (versions !== undefined && !versions.includes(version)) throw errors.preconditionFailed();
}

/**
 * Whether If-None-Match names `etag`: `*`, or any tag of its list by the weak comparison that
 * RFC 9110 (13.1.2) prescribes for it, where `W/"3"` and `"3"` are the same.
 */
export function ifNoneMatchNames(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return (trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === etag;
  });
}

/**
 * Gives the whole representation's ETag and, when If-None-Match names it, answers 304 with no
 * body (the ETag and every other header kept) and true: the caller renders nothing then.
 */
export function answeredNotModified(request: FastifyRequest, reply: FastifyReply, version: number): boolean {
  const etag = etagOf(version);
  reply.header('etag', etag);
  if (!ifNoneMatchNames(request.headers['if-none-match'], etag)) return false;
  reply.code(304).send();
  return true;
}

export const IfMatchHeader = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'The ETag read before: the write goes ahead only if the resource has not changed since (else 412).',
    }),
  ),
});

export const IfNoneMatchHeader = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'ETags already held (or *): when one is the current ETag, the answer is 304 with no body.',
    }),
  ),
});

/** The answer of a read whose If-None-Match names the current ETag. */
export const NotModifiedResponse = {
  304: withHeaders(Type.Null({ description: 'Not modified: the ETag in If-None-Match is current; no body.' }), 'ETag'),
};
