/**
 * Every error carries a stable `code` from the catalogue, so clients switch on codes rather than
 * English: each condition below answers its own code, through real HTTP on both stores, and the
 * error table of docs/integrating/errors.md names every code there is.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES } from '../../src/http/errors.js';
import { createUser, issueKey, uniqueEmail, userDocument } from '../support/fixtures.js';
import { startService, type Response, type Service } from '../support/service.js';
import { forEachStore } from '../support/stores.js';

function codesOf(response: Response): string[] {
  return (response.body?.errors ?? []).map((e: { code: string }) => e.code);
}

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  describe('error codes', () => {
    it('tells a missing credential from a wrong one', async () => {
      assert.deepEqual(codesOf(await service.client.as(null).get('/users')), ['CREDENTIAL_REQUIRED']);
      assert.deepEqual(codesOf(await service.client.as('circ_1_nope').get('/users')), ['CREDENTIAL_INVALID']);
    });

    it('answers SCOPE_INSUFFICIENT to a credential without the scope a request needs', async () => {
      const { secret: reader } = await issueKey(service.client, ['read']);
      assert.deepEqual(codesOf(await service.client.as(reader).post('/users', userDocument())), ['SCOPE_INSUFFICIENT']);
    });

    it('answers EMAIL_TAKEN beside INVALID_ATTRIBUTE, each at its pointer', async () => {
      const email = uniqueEmail();
      await createUser(service.client, { email });
      const duplicate = await service.client.post('/users', userDocument({ email: email.toUpperCase() }));
      assert.deepEqual(codesOf(duplicate), ['EMAIL_TAKEN']);
      const invalid = await service.client.post('/users', userDocument({ email: 'nope' }));
      assert.deepEqual(codesOf(invalid), ['INVALID_ATTRIBUTE']);
      assert.equal(invalid.body.errors[0].source.pointer, '/data/attributes/email');
    });

    it('answers PRECONDITION_FAILED to a stale If-Match', async () => {
      const id = await createUser(service.client);
      const stale = await service.client.put(
        `/users/${id}`,
        { data: { type: 'users', id, attributes: { givenName: 'B' } } },
        { headers: { 'if-match': '"99"' } },
      );
      assert.deepEqual(codesOf(stale), ['PRECONDITION_FAILED']);
    });

    it('tells an unknown route from an unknown record', async () => {
      assert.deepEqual(codesOf(await service.client.get('/nothing-here')), ['ROUTE_NOT_FOUND']);
      assert.deepEqual(codesOf(await service.client.get('/users/999999999')), ['RECORD_NOT_FOUND']);
    });

    it('answers INVALID_JSON and BODY_NOT_OBJECT to bodies that are not documents', async () => {
      assert.deepEqual(codesOf(await service.client.post('/users', '{"data":')), ['INVALID_JSON']);
      assert.deepEqual(codesOf(await service.client.post('/users', '[]')), ['BODY_NOT_OBJECT']);
    });
  });
});

describe('the error table of docs/integrating/errors.md', () => {
  const page = readFileSync(new URL('../../docs/integrating/errors.md', import.meta.url), 'utf8');
  it('names every error code there is', () => {
    const missing = ERROR_CODES.filter((code) => !page.includes(`\`${code}\``));
    assert.deepEqual(missing, []);
  });
});
