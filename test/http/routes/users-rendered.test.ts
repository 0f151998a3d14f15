/**
 * GET /users without include or fields[users] is written by the database (store/sql/user-json.ts)
 * and spliced into the document; with fields[users] naming every attribute it takes the general
 * path, field by field through the response schema. Both must write the same bytes, for every
 * attribute, every awkward string and every way a list is filtered, paged and sorted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UserAttributes } from '../../../src/domain/user.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { createSubscription, fullUserAttributes, uniqueEmail } from '../../support/fixtures.js';
import { signIn } from '../../support/readers.js';
import { startService, type Service } from '../../support/service.js';

const EVERY_FIELD = Object.keys(UserAttributes.properties).join(',');

/** Every character JSON escapes or a database might: quotes, backslashes, controls, separators, emoji, accents. */
const AWKWARD = 'She said "hi" \\ back\nline\ttab\u0001\u001f\u007f \u2028\u2029 😀 é Ünïcödé ß 漢字 </script>';

forEachStoreAndCitus((kind) => {
  let service: Service;
  const tag = `${process.pid}${kind.length}`;
  const domain = `rendered-${tag}.example`;
  const newsletter = `rendered-${tag}`;
  const paper = `rendered-paper-${tag}`;
  const full = { ...fullUserAttributes(uniqueEmail(domain)), circulationNumber: `R-${tag}` };
  const minimal = { email: uniqueEmail(domain), familyName: 'Minimal' };
  const awkward = {
    email: uniqueEmail(domain),
    familyName: `Müller ${AWKWARD}`,
    givenName: AWKWARD,
    internalNotes: `${AWKWARD}\r\n\b\f${'long '.repeat(20)}`,
    // Text that reads as a number or a JSON literal stays a string.
    telephone: '0123',
    jobTitle: 'true',
    faxNumber: 'null',
    address: { streetAddress: AWKWARD, postalCode: '' },
    demographics: { recommendations: [AWKWARD, '', 'x'] },
  };
  const ids: Record<'full' | 'minimal' | 'awkward', string> = { full: '', minimal: '', awkward: '' };

  before(async () => {
    service = await startService(kind);
    const { client } = service;
    const product = await client.post('/products', {
      data: { type: 'products', id: paper, attributes: { name: 'Paper', resource: 'print' } },
    });
    assert.equal(product.status, 201, product.text);
    const created = async (attributes: object) => {
      const response = await client.post('/users', { data: { type: 'users', attributes } });
      assert.equal(response.status, 201, response.text);
      return response.body.data.id as string;
    };
    ids.full = await created({ ...full, newsletters: { add: ['weekly', newsletter, 'daily', 'Zeta', 'alpha'] } });
    ids.minimal = await created(minimal);
    ids.awkward = await created({ ...awkward, newsletters: { add: [newsletter] } });
    const signedIn = await signIn(client, full.email, full.password);
    assert.equal(signedIn.status, 201, signedIn.text);
    const now = Date.now();
    const day = 86_400_000;
    const active = { dateStarted: new Date(now - day).toISOString(), dateEnded: new Date(now + day).toISOString() };
    await createSubscription(client, ids.full, { ...active, resource: 'print' });
    const ofProduct = await client.post(`/users/${ids.awkward}/subscriptions`, {
      data: {
        type: 'subscriptions',
        attributes: { ...active, license: 'individual', trial: false },
        relationships: { product: { data: { type: 'products', id: paper } } },
      },
    });
    assert.equal(ofProduct.status, 201, ofProduct.text);
  });
  after(() => service.close());

  /** The `data` of a response, as the bytes it was sent in. */
  function dataBytes(text: string): string {
    return text.slice(text.indexOf(',"data":['));
  }

  /** GETs the list as it is and with every field named; asserts equal bytes and answers the ids listed. */
  async function bothPaths(query: string): Promise<string[]> {
    const rendered = await service.client.get(`/users?${query}`);
    const general = await service.client.get(`/users?${query}&fields[users]=${EVERY_FIELD}`);
    assert.equal(rendered.status, 200, rendered.text);
    assert.equal(general.status, 200, general.text);
    assert.equal(dataBytes(rendered.text), dataBytes(general.text));
    assert.deepEqual(rendered.body, JSON.parse(rendered.text));
    return rendered.body.data.map((user: { id: string }) => user.id);
  }

  describe('GET /users written by the database', () => {
    it('writes a user with every attribute set as the general path does', async () => {
      assert.deepEqual(await bothPaths(`filter[email]=${full.email}`), [ids.full]);
      const user = (await service.client.get(`/users?filter[email]=${full.email}`)).body.data[0];
      assert.notEqual(user.attributes.lastSignInAt, null);
      assert.deepEqual(user.attributes.newsletters, ['Zeta', 'alpha', 'daily', newsletter, 'weekly'].sort());
      assert.deepEqual(user.attributes.demographics, full.demographics);
    });

    it('writes a user with only the required attributes as the general path does', async () => {
      assert.deepEqual(await bothPaths(`filter[email]=${minimal.email}`), [ids.minimal]);
      const user = (await service.client.get(`/users?filter[email]=${minimal.email}`)).body.data[0];
      assert.equal(user.attributes.address, null);
      assert.equal(user.attributes.demographics, null);
      assert.deepEqual(user.attributes.newsletters, []);
    });

    it('escapes quotes, backslashes, control characters and non-ASCII text as the general path does', async () => {
      assert.deepEqual(await bothPaths(`filter[email]=${awkward.email}`), [ids.awkward]);
      const user = (await service.client.get(`/users?filter[email]=${awkward.email}`)).body.data[0];
      assert.equal(user.attributes.givenName, AWKWARD);
      assert.equal(user.attributes.address.streetAddress, AWKWARD);
      assert.equal(user.attributes.address.postalCode, '');
      assert.equal(user.attributes.address.unitNumber, null);
      assert.deepEqual([user.attributes.telephone, user.attributes.jobTitle], ['0123', 'true']);
    });

    it('writes the self link of each user under the base URL of the request', async () => {
      const response = await service.client.get(`/users?filter[email]=${minimal.email}`);
      assert.equal(response.body.data[0].links.self, `${service.baseUrl}/users/${ids.minimal}`);
    });
  });

  describe('GET /users written by the database, however it is filtered, paged or sorted', () => {
    const variants: [string, () => string, () => string[]][] = [
      ['the first page', () => '', () => [ids.full, ids.minimal, ids.awkward]],
      ['newest first', () => 'sort=-id', () => [ids.awkward, ids.minimal, ids.full]],
      ['a page by number', () => 'page[size]=1&page[number]=2', () => [ids.minimal]],
      [
        'a page after an id (links.next)',
        () => `page[size]=2&page[number]=2&page[after]=${ids.full}`,
        () => [ids.minimal, ids.awkward],
      ],
      ['filter[email] by domain', () => `filter[email]=${domain}`, () => [ids.full, ids.minimal, ids.awkward]],
      ['filter[circulationNumber]', () => `filter[circulationNumber]=${full.circulationNumber}`, () => [ids.full]],
      ['filter[newsletter]', () => `filter[newsletter]=${newsletter}`, () => [ids.full, ids.awkward]],
      [
        'filter[status]=active with filter[resource]',
        () => 'filter[status]=active&filter[resource]=print',
        () => [ids.full, ids.awkward],
      ],
      [
        'filter[status]=active with filter[product]',
        () => `filter[status]=active&filter[product]=${paper}`,
        () => [ids.awkward],
      ],
      ['filter[q]', () => 'filter[q]=muller', () => [ids.awkward]],
    ];
    for (const [name, query, expected] of variants) {
      it(`writes ${name} as the general path does`, async () => {
        assert.deepEqual(await bothPaths(query()), expected());
      });
    }
  });

  describe('GET /users written from the text kept on each row, after each kind of write', () => {
    /** Creates a user with `attributes` and answers its id. */
    async function created(attributes: object): Promise<string> {
      const response = await service.client.post('/users', { data: { type: 'users', attributes } });
      assert.equal(response.status, 201, response.text);
      return response.body.data.id as string;
    }

    async function patched(id: string, attributes: object): Promise<void> {
      const response = await service.client.patch(`/users/${id}`, { data: { type: 'users', id, attributes } });
      assert.equal(response.status, 200, response.text);
    }

    it('writes a user as a change of every attribute leaves it', async () => {
      const id = await created({ email: uniqueEmail(domain), familyName: 'Before' });
      const { password: _password, ...attributes } = fullUserAttributes(uniqueEmail(`patched-${domain}`));
      await patched(id, { ...attributes, familyName: `Patched ${AWKWARD}` });
      assert.deepEqual(await bothPaths(`filter[email]=${attributes.email}`), [id]);
      const user = (await service.client.get(`/users?filter[email]=${attributes.email}`)).body.data[0];
      assert.equal(user.attributes.familyName, `Patched ${AWKWARD}`);
      assert.deepEqual(user.attributes.address, attributes.address);
    });

    it('writes a user as a change that clears attributes leaves it', async () => {
      const { password: _password, ...attributes } = fullUserAttributes(uniqueEmail(domain));
      const id = await created(attributes);
      await patched(id, { address: null, telephone: null, demographics: null });
      assert.deepEqual(await bothPaths(`filter[email]=${attributes.email}`), [id]);
      const user = (await service.client.get(`/users?filter[email]=${attributes.email}`)).body.data[0];
      assert.deepEqual(
        [user.attributes.address, user.attributes.telephone, user.attributes.demographics],
        [null, null, null],
      );
    });

    it('writes users imported in one batch as the general path does', async () => {
      const emails = [uniqueEmail(`imported-${domain}`), uniqueEmail(`imported-${domain}`)];
      const imported = await service.store.users.import(
        emails.map((email, i) => ({
          user: {
            email,
            passwordHash: null,
            fields: { familyName: `Imported ${i} ${AWKWARD}`, address: { streetAddress: AWKWARD, postalCode: '1' } },
            newsletters: [newsletter],
          },
          subscriptions: [],
        })),
        null,
      );
      assert.deepEqual(await bothPaths(`filter[email]=imported-${domain}`), imported);
      const user = (await service.client.get(`/users/${imported[1]}`)).body.data;
      assert.equal(user.attributes.familyName, `Imported 1 ${AWKWARD}`);
    });
  });
});
