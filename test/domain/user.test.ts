import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  toUserAttributes,
  toUserFields,
  USER_FIELDS,
  userRuleProblems,
  type UserCreate,
} from '../../src/domain/user.js';
import { fullUserAttributes } from '../support/fixtures.js';

const REGION_POINTER = '/data/attributes/address/addressRegion';

function fullAttributes(): UserCreate {
  return fullUserAttributes('ada@example.com');
}

describe('userRuleProblems', () => {
  it('finds no problem in a user without an address', () => {
    assert.deepEqual(userRuleProblems({ familyName: 'Reader' }), []);
  });

  it('allows a two-letter region in the US and Canada', () => {
    for (const addressCountry of ['US', 'CA', 'USA', 'CAN']) {
      assert.deepEqual(userRuleProblems({ address: { addressCountry, addressRegion: 'NY' } }), [], addressCountry);
    }
  });

  it('refuses a longer region in US, CA, USA and CAN, at the region pointer', () => {
    for (const addressCountry of ['US', 'CA', 'USA', 'CAN']) {
      const problems = userRuleProblems({ address: { addressCountry, addressRegion: 'New York' } });
      assert.equal(problems.length, 1, addressCountry);
      assert.equal(problems[0]?.pointer, REGION_POINTER);
    }
  });

  it('applies the region rule whatever the letter case of the country', () => {
    for (const addressCountry of ['us', 'Ca', 'usa', 'cAn']) {
      const problems = userRuleProblems({ address: { addressCountry, addressRegion: 'Ontario' } });
      assert.deepEqual(
        problems.map((p) => p.pointer),
        [REGION_POINTER],
        addressCountry,
      );
    }
  });

  it('leaves the region free in other countries', () => {
    for (const addressCountry of ['GB', 'DE', 'MEX', 'AU']) {
      assert.deepEqual(
        userRuleProblems({ address: { addressCountry, addressRegion: 'Greater London' } }),
        [],
        addressCountry,
      );
    }
  });

  it('leaves the region free when no country is given', () => {
    assert.deepEqual(userRuleProblems({ address: { addressRegion: 'Greater London' } }), []);
    assert.deepEqual(userRuleProblems({ address: { addressRegion: 'Greater London', addressCountry: null } }), []);
  });

  it('refuses a newsletter both added and removed, naming it', () => {
    const problems = userRuleProblems({ newsletters: { add: ['daily', 'weekly'], remove: ['weekly'] } });
    assert.equal(problems.length, 1);
    assert.equal(problems[0]?.pointer, '/data/attributes/newsletters');
    assert.match(problems[0]?.detail ?? '', /\bweekly\b/);
  });

  it('allows adding some newsletters while removing others', () => {
    assert.deepEqual(userRuleProblems({ newsletters: { add: ['daily'], remove: ['weekly'] } }), []);
  });

  it('refuses a common password as too common, in any letter case', () => {
    for (const password of ['password1', 'PASSWORD1', 'iloveyou']) {
      assert.deepEqual(userRuleProblems({ password }), [
        { pointer: '/data/attributes/password', detail: 'is too common' },
      ]);
    }
    assert.deepEqual(userRuleProblems({ password: 'correct horse battery' }), []);
  });

  it('refuses a password and a password hash sent together', () => {
    const problems = userRuleProblems({ password: 'correct horse battery', passwordHash: '$2b$10$x' });
    assert.deepEqual(
      problems.map((p) => p.pointer),
      ['/data/attributes/passwordHash'],
    );
  });

  it('refuses a password hash that is neither bcrypt nor argon2, at its pointer', () => {
    const [problem, ...rest] = userRuleProblems({ passwordHash: 'md5:5f4dcc3b5aa765d61d8327deb882cf99' });
    assert.deepEqual(rest, []);
    assert.equal(problem?.pointer, '/data/attributes/passwordHash');
    assert.match(problem?.detail ?? '', /^must be a bcrypt/);
  });
});

describe('toUserFields', () => {
  it('gives every profile field for a user with every attribute', () => {
    assert.deepEqual(Object.keys(toUserFields(fullAttributes())).sort(), [...USER_FIELDS].sort());
  });

  it('leaves out email, password, passwordHash and newsletters', () => {
    const fields = toUserFields({
      email: 'a@example.com',
      password: 'secret-password',
      passwordHash: '$2b$10$x',
      newsletters: { add: ['x'] },
    });
    assert.deepEqual(fields, {});
  });

  it('flattens a nested object into dotted fields', () => {
    assert.deepEqual(toUserFields({ worksFor: { legalName: 'Acme', telephone: '555' } }), {
      'worksFor.legalName': 'Acme',
      'worksFor.telephone': '555',
    });
  });

  it('sets to null the fields a nested object leaves out, so the object replaces them all', () => {
    assert.deepEqual(toUserFields({ address: { postalCode: 'EC1A 1BB' } }), {
      'address.streetAddress': null,
      'address.unitNumber': null,
      'address.addressLocality': null,
      'address.addressRegion': null,
      'address.addressCountry': null,
      'address.postalCode': 'EC1A 1BB',
    });
  });

  it('clears every field of a nested object sent as null', () => {
    assert.deepEqual(toUserFields({ worksFor: null }), { 'worksFor.legalName': null, 'worksFor.telephone': null });
  });

  it('gives only the attributes sent, null included', () => {
    assert.deepEqual(toUserFields({ givenName: 'Ada', jobTitle: null }), { givenName: 'Ada', jobTitle: null });
  });

  it('keeps the demographics document whole', () => {
    assert.deepEqual(toUserFields({ demographics: { recommendations: ['a', 'b'] } }), {
      demographics: { recommendations: ['a', 'b'] },
    });
  });
});

describe('toUserAttributes', () => {
  it('rebuilds from the fields the attributes they came from', () => {
    const { password: _password, newsletters: _newsletters, ...attributes } = fullAttributes();
    const read = toUserAttributes(attributes.email, toUserFields(attributes), ['daily', 'weekly'], null);
    assert.deepEqual(read, { ...attributes, newsletters: ['daily', 'weekly'], lastSignInAt: null });
  });

  it('writes the last sign-in as an ISO-8601 instant in UTC', () => {
    const read = toUserAttributes('a@example.com', { familyName: 'Reader' }, [], Date.UTC(2025, 5, 1, 12) / 1000);
    assert.equal(read.lastSignInAt, '2025-06-01T12:00:00+00:00');
  });

  it('reads every nested object none of whose fields is set as null, alike', () => {
    const nulls = Object.fromEntries(USER_FIELDS.map((f) => [f, null]));
    const read = toUserAttributes('a@example.com', { ...nulls, familyName: 'Reader' }, [], null);
    assert.deepEqual([read.address, read.worksFor, read.demographics], [null, null, null]);
  });

  it('reads a nested object with some fields set as the whole object, the others null', () => {
    const nulls = Object.fromEntries(USER_FIELDS.map((f) => [f, null]));
    const read = toUserAttributes(
      'a@example.com',
      { ...nulls, familyName: 'Reader', 'address.postalCode': 'N1' },
      [],
      null,
    );
    assert.deepEqual(read.address, {
      streetAddress: null,
      unitNumber: null,
      addressLocality: null,
      addressRegion: null,
      addressCountry: null,
      postalCode: 'N1',
    });
    assert.equal(read.worksFor, null);
  });
});
