/**
 * Compression: a large answer goes out in the coding the client prefers and decompresses to the
 * very bytes it would have had without one; small answers, and clients that refuse a coding, get
 * the body as it is. Every answer with a body says it varies by Accept-Encoding.
 */
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { preferredCoding } from '../../../src/http/plugins/compression.js';
import { createUser, fullUserAttributes } from '../../support/fixtures.js';
import { MEDIA_TYPE, startService, TEST_ADMIN_KEY, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

/** A GET through node:http, which (unlike fetch) leaves the body as it came. */
function get(baseUrl: string, path: string, acceptEncoding?: string) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const headers: Record<string, string> = { accept: MEDIA_TYPE, authorization: `Bearer ${TEST_ADMIN_KEY}` };
    if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding;
    httpRequest(`${baseUrl}${path}`, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    })
      .on('error', reject)
      .end();
  });
}

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
    for (let n = 0; n < 5; n += 1) await createUser(service.client, fullUserAttributes());
  });
  after(() => service.close());

  describe('compression', () => {
    it('answers gzip and brotli that decompress to the uncompressed bytes', async () => {
      const plain = await get(service.baseUrl, '/users');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(plain.body.length > 1024, `a list of five full users is ${plain.body.length} bytes`);
      const gzip = await get(service.baseUrl, '/users', 'gzip');
      assert.equal(gzip.headers['content-encoding'], 'gzip');
      assert.ok(gzip.body.length < plain.body.length);
      assert.deepEqual(gunzipSync(gzip.body), plain.body);
      const br = await get(service.baseUrl, '/users', 'gzip;q=0.5, br');
      assert.equal(br.headers['content-encoding'], 'br');
      assert.deepEqual(brotliDecompressSync(br.body), plain.body);
      assert.equal(br.headers['content-type'], MEDIA_TYPE);
    });

    it('leaves a response under 1 KiB uncompressed', async () => {
      const small = await get(service.baseUrl, '/users?page[size]=1&fields[users]=email', 'gzip, br');
      assert.ok(small.body.length < 1024, `${small.body.length} bytes`);
      assert.equal(small.headers['content-encoding'], undefined);
      assert.equal(JSON.parse(small.body.toString()).data.length, 1);
    });

    it('honours q=0: a refused coding is never used', async () => {
      const none = await get(service.baseUrl, '/users', 'gzip;q=0, br;q=0');
      assert.equal(none.headers['content-encoding'], undefined);
      assert.equal(JSON.parse(none.body.toString()).data.length, 5);
      const gzipOnly = await get(service.baseUrl, '/users', '*, br;q=0');
      assert.equal(gzipOnly.headers['content-encoding'], 'gzip');
    });

    it('says Vary: Accept-Encoding on every answer with a body, compressed or not', async () => {
      for (const encoding of [undefined, 'gzip']) {
        const response = await get(service.baseUrl, '/users', encoding);
        assert.match(String(response.headers.vary), /accept-encoding/i);
      }
    });
  });
});

describe('preferredCoding', () => {
  it('takes the highest q among br and gzip, br when they tie, none for q=0 or unknown codings', () => {
    assert.equal(preferredCoding(undefined), undefined);
    assert.equal(preferredCoding('identity'), undefined);
    assert.equal(preferredCoding('deflate, compress'), undefined);
    assert.equal(preferredCoding('gzip, br'), 'br');
    assert.equal(preferredCoding('br;q=0.2, gzip;q=0.8'), 'gzip');
    assert.equal(preferredCoding('x-gzip'), 'gzip');
    assert.equal(preferredCoding('*;q=0'), undefined);
    assert.equal(preferredCoding('*;q=0.5, gzip;q=0'), 'br');
    assert.equal(preferredCoding('GZIP;Q=1'), 'gzip');
  });
});
