import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../../src/domain/password.js';
import {
  createSubscription,
  createUser,
  fullUserAttributes,
  issueKey,
  onlyError,
  uniqueEmail,
  userDocument,
} from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStoreAndCitus } from '../../support/citus.js';

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  async function passwordHashOf(id: string): Promise<string> {
    const [row] = await service.sql('SELECT password_hash FROM users WHERE id = ?', [id]);
    return row?.password_hash as string;
  }

  const fullAttributes = () => fullUserAttributes();

  describe('POST /users', () => {
    it('creates a user with every attribute and answers 201, Location and links.self', async () => {
      const attributes = fullAttributes();
      const response = await service.client.post('/users', { data: { type: 'users', attributes } });
      assert.equal(response.status, 201, response.text);
      const { data } = response.body;
      assert.equal(data.type, 'users');
      assert.match(data.id, /^[1-9][0-9]*$/);
      assert.equal(data.links.self, `${service.baseUrl}/users/${data.id}`);
      assert.equal(response.headers.get('location'), data.links.self);
      const { password: _password, newsletters: _newsletters, ...expected } = attributes;
      assert.deepEqual(data.attributes, { ...expected, newsletters: ['daily', 'weekly'], lastSignInAt: null });
    });

    it('stores the password only as an argon2id hash that verifies', async () => {
      const id = await createUser(service.client, { password: 'a password to hash' });
      const hash = await passwordHashOf(id);
      assert.match(hash, /^\$argon2id\$/);
      assert.ok(await verifyPassword(hash, 'a password to hash'));
    });

    it('needs only email and familyName; the rest reads back as null', async () => {
      const email = uniqueEmail();
      const response = await service.client.post('/users', {
        data: { type: 'users', attributes: { email, familyName: 'Minimal' } },
      });
      assert.equal(response.status, 201, response.text);
      const attributes = response.body.data.attributes;
      assert.equal(attributes.email, email);
      assert.equal(attributes.givenName, null);
      assert.deepEqual([attributes.address, attributes.worksFor, attributes.demographics], [null, null, null]);
      assert.deepEqual(attributes.newsletters, []);
    });

    it("refuses an invalid email with the interface's detail", async () => {
      const error = onlyError(await service.client.post('/users', userDocument({ email: 'not-an-address' })), 422);
      assert.deepEqual(error.source, { pointer: '/data/attributes/email' });
      assert.equal(error.detail, 'must be a valid email address');
      assert.equal(error.status, '422');
    });

    for (const familyName of ['', '   ', '\t\n', null]) {
      it(`refuses familyName ${JSON.stringify(familyName)} as blank`, async () => {
        const error = onlyError(await service.client.post('/users', userDocument({ familyName })), 422);
        assert.deepEqual(error.source, { pointer: '/data/attributes/familyName' });
        assert.equal(error.detail, "can't be blank");
      });
    }

    it('refuses a missing familyName as blank', async () => {
      const error = onlyError(
        await service.client.post('/users', { data: { type: 'users', attributes: { email: uniqueEmail() } } }),
        422,
      );
      assert.deepEqual(error.source, { pointer: '/data/attributes/familyName' });
      assert.equal(error.detail, "can't be blank");
    });

    it('answers one error per problem', async () => {
      const response = await service.client.post('/users', {
        data: { type: 'users', attributes: { email: 'nope', familyName: ' ', telephone: 7, shoeSize: 44 } },
      });
      assert.equal(response.status, 422);
      const pointers = response.body.errors.map((e: any) => e.source.pointer).sort();
      assert.deepEqual(pointers, [
        '/data/attributes/email',
        '/data/attributes/familyName',
        '/data/attributes/shoeSize',
        '/data/attributes/telephone',
      ]);
      for (const e of response.body.errors) {
        assert.equal(e.status, '422');
        assert.equal(e.title, 'Invalid Attribute');
      }
    });

    it('reports the rules across fields with every other problem, in one answer', async () => {
      const response = await service.client.post(
        '/users',
        userDocument({ familyName: ' ', address: { addressCountry: 'US', addressRegion: 'Texas' } }),
      );
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(
        response.body.errors.map((e: any) => [e.source.pointer, e.detail]),
        [
          ['/data/attributes/familyName', "can't be blank"],
          ['/data/attributes/address/addressRegion', 'must be at most two characters when addressCountry is US or CA'],
        ],
      );
    });

    it('applies the rules across fields only to values of the right type, never failing on the others', async () => {
      const response = await service.client.post(
        '/users',
        userDocument({
          address: { addressCountry: 5, addressRegion: ['Texas'] },
          newsletters: { add: 'a', remove: 7 },
        }),
      );
      assert.equal(response.status, 422, response.text);
      assert.deepEqual(response.body.errors.map((e: any) => e.source.pointer).sort(), [
        '/data/attributes/address/addressCountry',
        '/data/attributes/address/addressRegion',
        '/data/attributes/newsletters/add',
        '/data/attributes/newsletters/remove',
      ]);
    });

    it('limits addressRegion to two characters for US and CA only', async () => {
      for (const country of ['US', 'ca', 'USA']) {
        const error = onlyError(
          await service.client.post(
            '/users',
            userDocument({ address: { addressCountry: country, addressRegion: 'New York' } }),
          ),
          422,
        );
        assert.equal(error.source.pointer, '/data/attributes/address/addressRegion');
      }
      await createUser(service.client, { address: { addressCountry: 'US', addressRegion: 'NY' } });
      await createUser(service.client, { address: { addressCountry: 'FR', addressRegion: 'Île-de-France' } });
    });

    it('refuses a duplicate email in any letter case', async () => {
      const email = uniqueEmail();
      await createUser(service.client, { email });
      const error = onlyError(await service.client.post('/users', userDocument({ email: email.toUpperCase() })), 422);
      assert.equal(error.source.pointer, '/data/attributes/email');
      assert.equal(error.detail, 'has already been taken');
    });

    it('refuses a string longer than the field allows', async () => {
      const error = onlyError(await service.client.post('/users', userDocument({ givenName: 'x'.repeat(101) })), 422);
      assert.equal(error.source.pointer, '/data/attributes/givenName');
      assert.equal(error.detail, 'is too long (maximum is 100 characters)');
    });

    it('refuses a client-generated id with 403', async () => {
      const document = userDocument();
      const error = onlyError(await service.client.post('/users', { data: { ...document.data, id: '99' } }), 403);
      assert.equal(error.source.pointer, '/data/id');
    });

    it('refuses another resource type with 409', async () => {
      const document = userDocument();
      const error = onlyError(await service.client.post('/users', { data: { ...document.data, type: 'people' } }), 409);
      assert.equal(error.source.pointer, '/data/type');
    });

    it('says "type is missing" at /data/type when there is no type', async () => {
      const { attributes } = userDocument().data;
      const error = onlyError(await service.client.post('/users', { data: { attributes } }), 422);
      assert.equal(error.source.pointer, '/data/type');
      assert.equal(error.detail, 'type is missing');
    });
  });

  describe('GET /users/{id}', () => {
    it('returns the user as created', async () => {
      const created = await service.client.post('/users', { data: { type: 'users', attributes: fullAttributes() } });
      const response = await service.client.get(`/users/${created.body.data.id}`);
      assert.equal(response.status, 200);
      assert.deepEqual(response.body, created.body);
    });

    it('answers 404 for an unknown or impossible id', async () => {
      for (const id of ['999999', 'abc', '0', '1e3', '99999999999999999999']) {
        const error = onlyError(await service.client.get(`/users/${id}`), 404);
        assert.equal(error.title, 'Not Found');
      }
    });
  });

  describe('PUT /users/{id}', () => {
    it('answers 204 with no body and changes only the attributes sent', async () => {
      const created = await service.client.post('/users', { data: { type: 'users', attributes: fullAttributes() } });
      const id = created.body.data.id;
      const response = await service.client.put(`/users/${id}`, {
        data: { type: 'users', id, attributes: { givenName: 'Augusta', jobTitle: null } },
      });
      assert.equal(response.status, 204);
      assert.equal(response.text, '');
      const after = (await service.client.get(`/users/${id}`)).body.data.attributes;
      assert.deepEqual(after, { ...created.body.data.attributes, givenName: 'Augusta', jobTitle: null });
    });

    it('replaces a nested object as a whole', async () => {
      const id = await createUser(service.client, { address: { streetAddress: '1 Main St', postalCode: '12345' } });
      await service.client.put(`/users/${id}`, {
        data: { type: 'users', id, attributes: { address: { postalCode: '54321' } } },
      });
      const { address } = (await service.client.get(`/users/${id}`)).body.data.attributes;
      assert.equal(address.postalCode, '54321');
      assert.equal(address.streetAddress, null);
    });

    it('adds and removes newsletters', async () => {
      const id = await createUser(service.client, { newsletters: { add: ['a', 'b', 'c'] } });
      const response = await service.client.put(`/users/${id}`, {
        data: { type: 'users', id, attributes: { newsletters: { add: ['d', 'a'], remove: ['b', 'zzz'] } } },
      });
      assert.equal(response.status, 204, response.text);
      const { newsletters } = (await service.client.get(`/users/${id}`)).body.data.attributes;
      assert.deepEqual(newsletters, ['a', 'c', 'd']);
    });

    it('refuses to add and remove the same newsletter at once', async () => {
      const id = await createUser(service.client);
      const error = onlyError(
        await service.client.put(`/users/${id}`, {
          data: { type: 'users', id, attributes: { newsletters: { add: ['x'], remove: ['x'] } } },
        }),
        422,
      );
      assert.equal(error.source.pointer, '/data/attributes/newsletters');
    });

    it('gives the same validation errors as create and changes nothing', async () => {
      const created = await service.client.post('/users', { data: { type: 'users', attributes: fullAttributes() } });
      const id = created.body.data.id;
      const response = await service.client.put(`/users/${id}`, {
        data: { type: 'users', id, attributes: { email: 'broken', familyName: '', givenName: 'Changed' } },
      });
      assert.equal(response.status, 422);
      assert.deepEqual(response.body.errors.map((e: any) => [e.source.pointer, e.detail]).sort(), [
        ['/data/attributes/email', 'must be a valid email address'],
        ['/data/attributes/familyName', "can't be blank"],
      ]);
      assert.deepEqual((await service.client.get(`/users/${id}`)).body, created.body);
    });

    it('refuses an email another user has', async () => {
      const taken = uniqueEmail();
      await createUser(service.client, { email: taken });
      const id = await createUser(service.client);
      const error = onlyError(
        await service.client.put(`/users/${id}`, { data: { type: 'users', id, attributes: { email: taken } } }),
        422,
      );
      assert.equal(error.detail, 'has already been taken');
    });

    it('refuses an id that differs from the address with 409', async () => {
      const id = await createUser(service.client);
      const error = onlyError(
        await service.client.put(`/users/${id}`, { data: { type: 'users', id: '1234567', attributes: {} } }),
        409,
      );
      assert.equal(error.source.pointer, '/data/id');
    });

    it('answers 404 for an unknown user', async () => {
      onlyError(
        await service.client.put('/users/987654', {
          data: { type: 'users', id: '987654', attributes: { givenName: 'X' } },
        }),
        404,
      );
    });

    it('re-hashes a changed password', async () => {
      const id = await createUser(service.client, { password: 'first password' });
      await service.client.put(`/users/${id}`, {
        data: { type: 'users', id, attributes: { password: 'second password' } },
      });
      assert.ok(await verifyPassword(await passwordHashOf(id), 'second password'));
    });
  });

  describe('PATCH /users/{id}', () => {
    it('updates like PUT and answers 200 with the resource, as JSON:API clients expect', async () => {
      const id = await createUser(service.client);
      const response = await service.client.patch(`/users/${id}`, {
        data: { type: 'users', id, attributes: { jobTitle: 'Editor' } },
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.attributes.jobTitle, 'Editor');
    });

    const eventsOf = async (id: string) => (await service.client.get(`/events?filter[user]=${id}`)).body.data.length;

    for (const [what, attributes] of [
      ['no attributes', undefined],
      ['empty attributes', {}],
      ['newsletters with nothing to add or remove', { newsletters: { add: [], remove: [] } }],
    ] as const) {
      it(`changes nothing for ${what}: the same ETag, no event`, async () => {
        const id = await createUser(service.client);
        const before = await service.client.get(`/users/${id}`);
        const events = await eventsOf(id);
        const response = await service.client.patch(`/users/${id}`, {
          data: { type: 'users', id, ...(attributes === undefined ? {} : { attributes }) },
        });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.headers.get('etag'), before.headers.get('etag'));
        assert.deepEqual(response.body.data, before.body.data);
        assert.equal((await service.client.put(`/users/${id}`, { data: { type: 'users', id } })).status, 204);
        assert.equal((await service.client.get(`/users/${id}`)).headers.get('etag'), before.headers.get('etag'));
        assert.equal(await eventsOf(id), events);
      });
    }

    it('refuses an update that changes nothing with 412 when If-Match names another version, and 404 for nobody', async () => {
      const id = await createUser(service.client);
      const stale = await service.client.patch(
        `/users/${id}`,
        { data: { type: 'users', id } },
        { headers: { 'if-match': '"999"' } },
      );
      assert.equal(onlyError(stale, 412).code, 'PRECONDITION_FAILED');
      onlyError(await service.client.patch('/users/999999999', { data: { type: 'users', id: '999999999' } }), 404);
    });
  });

  describe('DELETE /users/{id}', () => {
    it('erases the user with their subscriptions and newsletter links', async () => {
      const id = await createUser(service.client, { newsletters: { add: ['daily'] } });
      const subscriptionId = await createSubscription(service.client, id);
      const response = await service.client.delete(`/users/${id}`);
      assert.equal(response.status, 204);
      assert.equal(response.text, '');
      onlyError(await service.client.get(`/users/${id}`), 404);
      onlyError(await service.client.get(`/users/${id}/subscriptions/${subscriptionId}`), 404);
      const left = [
        ...(await service.sql('SELECT user_id FROM subscriptions WHERE user_id = ?', [id])),
        ...(await service.sql('SELECT user_id FROM user_newsletters WHERE user_id = ?', [id])),
      ];
      assert.deepEqual(left, []);
    });

    it("leaves none of the reader's values anywhere in the database, its files and kept responses included", async () => {
      const marker = `m${Date.now().toString(36)}x`;
      const attributes = {
        email: `erase-${marker}@example.com`,
        givenName: `Given${marker}`,
        internalNotes: `notes ${marker}`,
        telephone: `+1 555 ${marker}`,
        // A newsletter is the catalogue's, not the reader's: it stays, so its id carries no marker.
        newsletters: { add: ['daily'] },
      };
      const created = await service.client.post('/users', userDocument(attributes), {
        headers: { 'idempotency-key': `erase-${marker}` },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.id;
      await createSubscription(service.client, id, { externalIdentifier: `ext-${marker}` });
      await service.client.patch(`/users/${id}`, {
        data: { type: 'users', id, attributes: { jobTitle: `title ${marker}` } },
      });
      assert.ok((await service.rawDump()).includes(marker));
      assert.equal((await service.client.delete(`/users/${id}`)).status, 204);
      assert.ok(!(await service.rawDump()).includes(marker), 'a value of the erased reader is still in the database');
    });

    it('answers 404 for an unknown user', async () => {
      onlyError(await service.client.delete('/users/7777777'), 404);
    });
  });

  describe('passwords and password hashes', () => {
    const BCRYPT = '$2b$04$xYzSrNLPJVuVzn04fU0v0ufM/0j5fSP.71a9yMp.ONEqY66xo2Gai';

    it('refuses one of the most common passwords as too common, on create and on update', async () => {
      const created = onlyError(await service.client.post('/users', userDocument({ password: 'password1' })), 422);
      assert.deepEqual([created.source, created.detail], [{ pointer: '/data/attributes/password' }, 'is too common']);
      const id = await createUser(service.client);
      const updated = onlyError(
        await service.client.put(`/users/${id}`, {
          data: { type: 'users', id, attributes: { password: 'Sunshine1' } },
        }),
        422,
      );
      assert.equal(updated.detail, 'is too common');
    });

    it('takes a bcrypt or argon2 hash from an admin as it is, and never shows it', async () => {
      const created = await service.client.post('/users', userDocument({ passwordHash: BCRYPT }));
      assert.equal(created.status, 201, created.text);
      assert.equal(await passwordHashOf(created.body.data.id), BCRYPT);
      const read = await service.client.get(`/users/${created.body.data.id}`);
      assert.equal(read.body.data.attributes.passwordHash, undefined);
    });

    it('takes a hash on update too, in place of the password', async () => {
      const id = await createUser(service.client, { password: 'a password to replace' });
      const response = await service.client.put(`/users/${id}`, {
        data: { type: 'users', id, attributes: { passwordHash: BCRYPT } },
      });
      assert.equal(response.status, 204, response.text);
      assert.equal(await passwordHashOf(id), BCRYPT);
    });

    it('refuses a hash from a write credential with 403 at the attribute, storing nothing', async () => {
      const write = (await issueKey(service.client, ['write'])).secret;
      const email = uniqueEmail();
      const error = onlyError(
        await service.client.as(write).post('/users', userDocument({ email, passwordHash: BCRYPT })),
        403,
      );
      assert.deepEqual(
        [error.code, error.source, error.detail],
        [
          'ADMIN_ONLY_ATTRIBUTE',
          { pointer: '/data/attributes/passwordHash' },
          'passwordHash is accepted only from an admin credential.',
        ],
      );
      assert.deepEqual((await service.client.get(`/users?filter[email]=${encodeURIComponent(email)}`)).body.data, []);
    });

    it('refuses a malformed hash with 422 at /data/attributes/passwordHash', async () => {
      for (const passwordHash of [
        '5f4dcc3b5aa765d61d8327deb882cf99',
        '$2x$04$' + BCRYPT.slice(7),
        '$argon2id$v=19$nonsense',
      ]) {
        const error = onlyError(await service.client.post('/users', userDocument({ passwordHash })), 422);
        assert.deepEqual(error.source, { pointer: '/data/attributes/passwordHash' }, passwordHash);
        assert.match(error.detail, /^must be a bcrypt \(\$2a\$, \$2b\$, \$2y\$\) or argon2/);
      }
    });

    it('refuses a password and a hash sent together', async () => {
      const error = onlyError(
        await service.client.post('/users', userDocument({ password: 'correct horse battery', passwordHash: BCRYPT })),
        422,
      );
      assert.deepEqual(error.source, { pointer: '/data/attributes/passwordHash' });
    });
  });
});
