/**
 * The check every API test's answers pass through (test/support/openapi-contract.ts): that it
 * refuses an answer that leaves its document, and lets one that keeps to it through, whether the
 * answer reaches the test client or is only seen on its way out of the server.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ContractTap, OpenApiContract, type Exchange, type OpenApiDocument } from '../support/openapi-contract.js';
import { ANSWER_RECORDER, recordedAnswers } from '../support/recorded-answers.js';

const JSONAPI = 'application/vnd.api+json';

const document: OpenApiDocument = {
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          200: {
            headers: { ETag: { schema: { type: 'string' } } },
            content: {
              [JSONAPI]: { schema: { type: 'object', required: ['data'], properties: { data: { type: 'string' } } } },
            },
          },
          404: { $ref: '#/components/responses/NotFound' },
        },
      },
      delete: { responses: { 204: {} } },
    },
    // The errors every operation shares stand behind its default answer, which names them.
    '/others': {
      get: { responses: { 204: {}, default: { $ref: '#/components/responses/CommonErrors' } } },
      // 429 listed, without the Retry-After the default's 429 gives: the operation's own word holds.
      post: { responses: { 204: {}, 429: {}, default: { $ref: '#/components/responses/CommonErrors' } } },
      // A default that names no status.
      delete: { responses: { 204: {}, default: { content: { [JSONAPI]: { schema: {} } } } } },
    },
  },
  components: {
    responses: {
      NotFound: { content: { [JSONAPI]: { schema: { $ref: '#/components/schemas/Errors' } } } },
      TooManyRequests: {
        headers: { 'Retry-After': {} },
        content: { [JSONAPI]: { schema: { $ref: '#/components/schemas/Errors' } } },
      },
      InternalServerError: { content: { [JSONAPI]: { schema: { $ref: '#/components/schemas/Errors' } } } },
      CommonErrors: {
        'x-statuses': {
          429: { $ref: '#/components/responses/TooManyRequests' },
          500: { $ref: '#/components/responses/InternalServerError' },
        },
        headers: { 'Retry-After': {} },
        content: { [JSONAPI]: { schema: { $ref: '#/components/schemas/Errors' } } },
      },
    },
    schemas: { Errors: { type: 'object', required: ['errors'], properties: { errors: { type: 'array' } } } },
  },
};
const contract = new OpenApiContract(document);

/** A GET of a thing answered as the document says, but for what `change` makes of it. */
function answer(change: Partial<Exchange> = {}): Exchange {
  return {
    method: 'GET',
    url: '/things/1?fields=x',
    status: 200,
    headers: { 'content-type': JSONAPI, etag: '"1"' },
    text: '{"data":"a thing"}',
    ...change,
  };
}

describe('the OpenAPI contract check', () => {
  it('lets an answer through that keeps to the document: status, media type, body and headers', () => {
    assert.deepEqual(contract.problems(answer()), []);
    assert.deepEqual(contract.problems(answer({ method: 'DELETE', status: 204, headers: {}, text: '' })), []);
  });

  it('refuses a status the operation does not declare', () => {
    assert.match(
      contract.problems(answer({ status: 500 })).join(),
      /GET \/things\/\{id\} → 500 is not in the OpenAPI document/,
    );
  });

  describe('through an operation’s default answer', () => {
    const error = (status: number, change: Partial<Exchange> = {}) =>
      answer({ url: '/others', status, headers: { 'content-type': JSONAPI }, text: '{"errors":[]}', ...change });

    it('lets through a status its x-statuses names, as the response named for it says', () => {
      assert.deepEqual(contract.problems(error(500)), []);
      assert.deepEqual(contract.problems(error(429, { headers: { 'content-type': JSONAPI, 'retry-after': '1' } })), []);
      assert.match(contract.problems(error(500, { text: '{"error":"none"}' })).join(), /500 does not match/);
    });

    it('refuses a status the operation neither lists nor its default names', () => {
      // 404 is another operation's; 503 no one's.
      for (const status of [404, 503]) {
        assert.match(
          contract.problems(error(status)).join(),
          new RegExp(`GET /others → ${status} is not in the OpenAPI document`),
        );
      }
    });

    it('refuses a header the named response does not declare, though the default declares it', () => {
      const problems = contract.problems(error(500, { headers: { 'content-type': JSONAPI, 'retry-after': '1' } }));
      assert.match(problems.join(), /GET \/others → 500 carries retry-after/);
    });

    it('holds a status the operation lists to what it lists there, not to its default', () => {
      const listed = error(429, { method: 'POST', headers: { 'retry-after': '1' }, text: '' });
      assert.match(contract.problems(listed).join(), /POST \/others → 429 carries retry-after/);
      assert.deepEqual(contract.problems({ ...listed, headers: {} }), []);
    });

    it('lets no status through a default that names none', () => {
      assert.match(contract.problems(error(500, { method: 'DELETE' })).join(), /500 is not in the OpenAPI document/);
    });
  });

  it('refuses a body that leaves its schema, through a shared response and schema too', () => {
    assert.match(contract.problems(answer({ text: '{"data":1}' })).join(), /does not match the OpenAPI document/);
    const notFound = answer({ status: 404, headers: { 'content-type': JSONAPI }, text: '{"error":"none"}' });
    assert.match(contract.problems(notFound).join(), /404 does not match/);
  });

  it('refuses a media type the status does not declare, a charset added included', () => {
    for (const type of ['application/json', `${JSONAPI}; charset=utf-8`, 'text/html']) {
      assert.match(
        contract.problems(answer({ headers: { 'content-type': type } })).join(),
        /where the OpenAPI document declares/,
      );
    }
    assert.match(
      contract.problems(answer({ method: 'DELETE', status: 204, headers: {}, text: '{}' })).join(),
      /declares no body/,
    );
  });

  it('refuses a header a client reads that the answer does not declare', () => {
    const problems = contract.problems(answer({ headers: { 'content-type': JSONAPI, location: 'http://x/things/1' } }));
    assert.match(problems.join(), /carries location/);
  });

  it('holds a method the path does not list to a 405 whose Allow names those it does', () => {
    const refused = { method: 'PUT', status: 405, headers: { 'content-type': JSONAPI }, text: '{"errors":[]}' };
    assert.deepEqual(
      contract.problems(answer({ ...refused, headers: { ...refused.headers, allow: 'DELETE, GET' } })),
      [],
    );
    assert.match(contract.problems(answer({ ...refused, headers: { allow: 'GET' } })).join(), /allows GET/);
    assert.match(contract.problems(answer({ ...refused, status: 200 })).join(), /must be answered 405/);
  });

  it('leaves a path the document does not know to the not-found answer', () => {
    assert.deepEqual(contract.problems(answer({ url: '/elsewhere', status: 404 })), []);
  });

  describe('on the server', () => {
    let server: Server;
    let tap: ContractTap;
    let base: string;
    before(async () => {
      server = createServer((request, response) => {
        const body = request.url === '/things/1' ? '{"data":"a thing"}' : '{"data":2}';
        // Compressed, and its headers given to writeHead only, as Fastify writes them.
        response.writeHead(200, { 'content-type': JSONAPI, 'content-encoding': 'gzip', etag: '"1"' });
        response.end(gzipSync(body));
      });
      tap = new ContractTap(server, contract);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      assert.ok(address && typeof address === 'object');
      base = `http://127.0.0.1:${address.port}`;
    });
    after(() => new Promise((resolve) => server.close(resolve)));

    it('sees every answer the server writes, however the request was sent, and fails on the first that leaves the document', async () => {
      await (await fetch(`${base}/things/1`)).text();
      tap.assertHeld();
      await (await fetch(`${base}/things/2`)).text();
      assert.throws(() => tap.assertHeld(), /GET \/things\/\{id\} → 200 does not match the OpenAPI document/);
      // Each problem fails once.
      tap.assertHeld();
    });
  });

  describe('in a process of its own', () => {
    it('sees every answer the process gave, killed or not, and fails on one that left the document', async () => {
      const directory = mkdtempSync(join(tmpdir(), 'circulation-answers-'));
      const server = `
        const { createServer } = await import('node:http');
        const { gzipSync } = await import('node:zlib');
        const server = createServer((request, response) => {
          const body = request.url === '/things/1' ? '{"data":"a thing"}' : '{"data":2}';
          response.writeHead(200, { 'content-type': '${JSONAPI}', 'content-encoding': 'gzip', etag: '"1"' });
          response.end(gzipSync(body));
        });
        server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
      const child = spawn(process.execPath, ['--import', ANSWER_RECORDER, '--input-type=module', '-e', server], {
        env: { ...process.env, ANSWERS_DIR: directory },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const ended = new Promise((resolve) => child.on('exit', resolve));
      const answers = recordedAnswers(directory, async () => contract, ended);
      const port = await new Promise<string>((resolve) =>
        child.stdout.once('data', (chunk) => resolve(String(chunk).trim())),
      );
      await (await fetch(`http://127.0.0.1:${port}/things/1`)).text();
      await (await fetch(`http://127.0.0.1:${port}/things/2`)).text();
      child.kill('SIGKILL');
      await assert.rejects(answers.assertHeld(), /GET \/things\/\{id\} → 200 does not match the OpenAPI document/);
      assert.equal(await answers.checked(), 2);
    });
  });
});
