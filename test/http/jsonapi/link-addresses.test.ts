/**
 * Absolute addresses as a rule (src/http/jsonapi/links.ts): which Host a link may be built on,
 * PUBLIC_URL before it, and how a list's query is written into its links. test/http/jsonapi/
 * links.test.ts shows the same through HTTP on every store, proxies and PUBLIC_URL included.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../src/http/errors.js';
import { baseUrlOf, listLink, queryString, selfLink } from '../../../src/http/jsonapi/links.js';

const request = (fields: { host?: string; protocol?: string; url?: string; query?: object }) =>
  ({ protocol: 'http', ...fields }) as unknown as FastifyRequest;

/** The base of links for a request to `host`, or the header and detail of its refusal. */
function baseOf(host: string | undefined): string | { header?: string; detail?: string } {
  try {
    return baseUrlOf(request({ host }), undefined);
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    const [problem] = error.errors;
    return { header: problem?.source?.header, detail: problem?.detail };
  }
}

const REFUSED = { header: 'Host', detail: 'The Host header must be a host name or address.' };

describe('the base of absolute links', () => {
  it('is PUBLIC_URL when it is set, whatever the Host', () => {
    const publicUrl = 'https://api.example.com/circulation';
    assert.equal(baseUrlOf(request({ host: 'evil.com"><script>' }), publicUrl), publicUrl);
  });

  it('is the scheme and Host the request came to otherwise', () => {
    assert.equal(
      baseUrlOf(request({ host: 'circulation.internal:8080', protocol: 'https' }), undefined),
      'https://circulation.internal:8080',
    );
  });

  it('takes a Host that is a name, an IPv4 or a bracketed IPv6 address, with a port of up to five digits', () => {
    const hosts = [
      'localhost',
      'x',
      'Api-2.Example.COM',
      'example.com.',
      'a.b.c.d.e',
      '127.0.0.1',
      '0-9:1',
      'circulation.internal:8080',
      'localhost:65535',
      '[::1]',
      '[2001:DB8::ff]:443',
      '[::ffff:10.0.0.1]:8',
    ];
    for (const host of hosts) assert.equal(baseOf(host), `http://${host}`, host);
  });

  it('refuses a Host that is none of those rather than echo it into links', () => {
    const hosts = [
      undefined,
      '',
      'evil.com"><script>',
      '.example.com',
      'example..com',
      'example.com..',
      'a_b',
      'a b',
      'example.com/path',
      '@example.com',
      'localhost:',
      'localhost:123456',
      'localhost:80x',
      'localhost:8o',
      'localhost::80',
      '::1',
      '[::1',
      '[]',
      '[::g]',
      '[::1]x',
      '[::1]:',
      'x[::1]',
      'a\nb',
    ];
    for (const host of hosts) assert.deepEqual(baseOf(host), REFUSED, JSON.stringify(host));
  });
});

describe('the query of a link', () => {
  it('percent-encodes every name and value, brackets too, in the order given, leaving out what is unset', () => {
    const query = queryString([
      ['filter[email]', 'ada+x@example.com'],
      ['unset', undefined],
      ['page[size]', '1'],
      ['empty', ''],
    ]);
    assert.equal(query, 'filter%5Bemail%5D=ada%2Bx%40example.com&page%5Bsize%5D=1&empty=');
  });

  it('is empty for no parameters, and a link then has no ?', () => {
    assert.equal(queryString([]), '');
    assert.equal(listLink('https://api.example', '/users', [['unset', undefined]]), 'https://api.example/users');
  });

  it('follows the base and path after a ?', () => {
    assert.equal(
      listLink('https://api.example/circulation', '/users', [['page[number]', '2']]),
      'https://api.example/circulation/users?page%5Bnumber%5D=2',
    );
  });

  it('of self is the query parsed, on the path sent without its own query', () => {
    const sent = request({
      url: '/users?page[size]=1&filter%5Bemail%5D=a%40b',
      query: { 'filter[email]': 'a@b', 'page[size]': '1' },
    });
    assert.equal(
      selfLink('https://api.example', sent),
      'https://api.example/users?filter%5Bemail%5D=a%40b&page%5Bsize%5D=1',
    );
    assert.equal(selfLink('https://api.example', request({ url: '/users', query: {} })), 'https://api.example/users');
  });
});
