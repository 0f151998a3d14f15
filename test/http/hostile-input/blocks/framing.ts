/**
 * Hostile input: malformed HTTP framing. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { userDocument } from '../../../support/fixtures.js';
import { MEDIA_TYPE } from '../../../support/service.js';
import { BEARER, type Hostile } from '../harness.js';

export function framing(hostile: Hostile): void {
  const { assertStillServing } = hostile;

  /** One HTTP/1.1 exchange over a raw socket, for framing that no HTTP client will send. */
  function exchange(requestText: string): Promise<{ status: number; headers: Map<string, string>; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(new URL(hostile.service.baseUrl).port), '127.0.0.1');
      let received = '';
      let settled = false;
      const timer = setTimeout(
        () => finish(new Error(`no complete answer within 5 s; received ${JSON.stringify(received)}`)),
        5000,
      );
      function parse() {
        const end = received.indexOf('\r\n\r\n');
        if (end === -1) return undefined;
        const [statusLine = '', ...lines] = received.slice(0, end).split('\r\n');
        const headers = new Map<string, string>();
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
        }
        const body = received.slice(end + 4);
        const length = Number(headers.get('content-length') ?? NaN);
        if (Number.isFinite(length) && Buffer.byteLength(body) < length) return undefined;
        return { status: Number(statusLine.split(' ')[1]), headers, body };
      }
      function finish(error?: Error) {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        const parsed = parse();
        if (parsed) resolve(parsed);
        else reject(error ?? new Error(`no answer; received ${JSON.stringify(received)}`));
      }
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        received += chunk;
        if (parse()) finish();
      });
      socket.on('close', () => finish());
      socket.on('error', (error) => finish(error));
      socket.end(requestText);
    });
  }

  describe('malformed HTTP framing', () => {
    const body = () => JSON.stringify(userDocument());
    const framings: [string, (b: string) => string][] = [
      ['a Content-Length that is not a number', (b) => `Content-Length: abc\r\n\r\n${b}`],
      ['a negative Content-Length', (b) => `Content-Length: -1\r\n\r\n${b}`],
      [
        'two different Content-Lengths',
        (b) => `Content-Length: ${b.length}\r\nContent-Length: ${b.length + 1}\r\n\r\n${b}`,
      ],
      ['a Content-Length larger than the body sent', (b) => `Content-Length: ${b.length + 500}\r\n\r\n${b}`],
    ];
    for (const [what, framing] of framings) {
      it(`answers ${what} with a 400 JSON:API error and stores nothing`, async () => {
        const state = await hostile.service.snapshot();
        const response = await exchange(
          `POST /users HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${BEARER}\r\nAccept: ${MEDIA_TYPE}\r\nContent-Type: ${MEDIA_TYPE}\r\n${framing(body())}`,
        );
        assert.equal(response.status, 400, response.body);
        assert.equal(
          response.headers.get('content-type'),
          MEDIA_TYPE,
          `content type of ${JSON.stringify(response.body)}`,
        );
        assert.equal(JSON.parse(response.body).errors[0].status, '400');
        assert.equal(await hostile.service.snapshot(), state);
      });
    }

    it('refuses a Content-Length over the body limit with 413 before the body arrives', async () => {
      const state = await hostile.service.snapshot();
      const response = await exchange(
        `POST /users HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${BEARER}\r\nContent-Type: ${MEDIA_TYPE}\r\nContent-Length: 99999999999\r\n\r\n{}`,
      );
      assert.equal(response.status, 413, response.body);
      assert.equal(response.headers.get('content-type'), MEDIA_TYPE);
      assert.equal(await hostile.service.snapshot(), state);
    });

    it('keeps serving after malformed framing', assertStillServing);
  });
}
