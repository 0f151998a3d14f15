/**
 * Absolute addresses for `links` and `Location`: PUBLIC_URL when it is set, otherwise the
 * scheme and host the request came to (X-Forwarded-* only when TRUST_PROXY says a proxy sets
 * them). A Host header that is not a host name is refused rather than echoed into links.
 */
import type { FastifyRequest } from 'fastify';
import { errors } from '../errors.js';

const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function baseUrlOf(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return publicUrl;
  const host = request.host;
  if (!host || !HOST.test(host)) throw errors.invalidHeader('Host', 'The Host header must be a host name or address.');
  return `${request.protocol}://${host}`;
}

/**
 * A query string with every name and value percent-encoded: RFC 3986 allows no `[` or `]` in a
 * query, and JSON:API asks that the brackets of `page[number]` be written `%5B` and `%5D` there.
 * Parsers decode them (`new URL(link).searchParams.get('page[after]')`), and so does this service.
 */
export function queryString(parameters: Iterable<readonly [string, string | undefined]>): string {
  const parts: string[] = [];
  for (const [name, value] of parameters) {
    if (value !== undefined) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  return parts.join('&');
}

/** An address of a list: the base, the path, and its query as every link of a response writes it. */
export function listLink(
  base: string,
  path: string,
  parameters: Iterable<readonly [string, string | undefined]>,
): string {
  const query = queryString(parameters);
  return `${base}${path}${query === '' ? '' : `?${query}`}`;
}

/**
 * The `self` link of a list request: its path and its query (as parsed and validated), written
 * the way the list's other links are, so that every link of a response encodes alike.
 */
export function selfLink(base: string, request: FastifyRequest): string {
  const [path] = request.url.split('?', 1);
  // Stryker disable next-line StringLiteral: split with a limit of 1 gives one element, never none
  return listLink(base, path ?? '', Object.entries(request.query as Record<string, string | undefined>));
}
