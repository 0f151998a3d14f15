import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  toUserAttributes,
  toUserFields,
  updatesNothing,
  USER_FIELDS,
  UserCreateAttributes,
  userRuleProblems,
  type UserCreate,
} from '../../src/domain/user.js';
import { compileSchema, everyProblemOf } from '../../src/domain/validation.js';
import { fullUserAttributes } from '../support/fixtures.js';

const REGION_POINTER = '/data/attributes/address/addressRegion';
const REGION_PROBLEM = {
  pointer: REGION_POINTER,
  detail: 'must be at most two characters when addressCountry is US or CA',
};

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
      assert.deepEqual(userRuleProblems({ address: { addressCountry, addressRegion: 'NYC' } }), [REGION_PROBLEM]);
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

  it('refuses a newsletter both added and removed, naming it once however often it is sent', () => {
    const problems = userRuleProblems({ newsletters: { add: ['daily', 'weekly', 'weekly'], remove: ['weekly'] } });
    assert.deepEqual(problems, [
      { pointer: '/data/attributes/newsletters', detail: 'newsletter weekly cannot be both added and removed' },
    ]);
  });

  it('leaves newsletters of the wrong type to the schema', () => {
    for (const newsletters of [
      { add: ['daily'], remove: 'daily' },
      { add: 'daily', remove: ['daily'] },
    ]) {
      assert.deepEqual(userRuleProblems({ newsletters }), [], JSON.stringify(newsletters));
    }
    assert.deepEqual(userRuleProblems({ newsletters: { add: [1], remove: [1] } }), []);
  });

  it('reads no attributes from what is not an object, nor from an address that is not one', () => {
    for (const attributes of [null, 'text', ['password1'], { address: ['US', 'New York'] }]) {
      assert.deepEqual(userRuleProblems(attributes), [], JSON.stringify(attributes));
    }
  });

  it('leaves a region or country that is not text to the schema', () => {
    // A list of more than two items has a length over two, as a long region has.
    assert.deepEqual(
      userRuleProblems({ address: { addressCountry: 'US', addressRegion: ['New', 'York', 'State'] } }),
      [],
    );
    assert.deepEqual(userRuleProblems({ address: { addressCountry: ['US'], addressRegion: 'New York' } }), []);
  });

  it('leaves a password or hash that is not text, or longer than the schema takes, to the schema, never failing on it', () => {
    for (const attributes of [
      { password: ['password1'] },
      { password: 12345678 },
      { passwordHash: ['$2b$10$x'] },
      { password: ['correct horse battery'], passwordHash: '$2b$04$' + 'a'.repeat(53) },
      { password: 'password1'.repeat(29) },
      { passwordHash: '$'.repeat(513) },
    ]) {
      assert.deepEqual(userRuleProblems(attributes), [], JSON.stringify(attributes).slice(0, 60));
    }
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
    assert.deepEqual(problems, [
      { pointer: '/data/attributes/passwordHash', detail: 'cannot be sent with password; send one of them' },
    ]);
  });

  it('checks a password and a hash at the longest the schema takes', () => {
    assert.deepEqual(userRuleProblems({ password: 'p'.repeat(256), passwordHash: '$2b$10$x' }), [
      { pointer: '/data/attributes/passwordHash', detail: 'cannot be sent with password; send one of them' },
    ]);
    assert.deepEqual(userRuleProblems({ passwordHash: '$'.repeat(512) }), [
      {
        pointer: '/data/attributes/passwordHash',
        detail: 'must be a bcrypt ($2a$, $2b$, $2y$) or argon2 (PHC string) hash',
      },
    ]);
  });

  it('refuses a password hash that is neither bcrypt nor argon2, at its pointer', () => {
    const [problem, ...rest] = userRuleProblems({ passwordHash: 'md5:5f4dcc3b5aa765d61d8327deb882cf99' });
    assert.deepEqual(rest, []);
    assert.equal(problem?.pointer, '/data/attributes/passwordHash');
    assert.match(problem?.detail ?? '', /^must be a bcrypt/);
  });
});

describe('the user schema', () => {
  const validate = compileSchema(UserCreateAttributes);
  const passwordProblems = (password: string) =>
    everyProblemOf(validate, UserCreateAttributes, { email: 'ada@example.com', familyName: 'L', password }, '');

  it('takes a password of 8 to 256 characters, however uncommon, and refuses one of 7 or 257', () => {
    // Of no common password's letters, so that only the length can refuse them.
    const uncommon = (length: number) => 'Zq7#vB2!'.repeat(33).slice(0, length);
    assert.deepEqual(passwordProblems(uncommon(8)), []);
    assert.deepEqual(passwordProblems(uncommon(256)), []);
    assert.deepEqual(passwordProblems(uncommon(7)), [
      { pointer: '/password', detail: 'is too short (minimum is 8 characters)' },
    ]);
    assert.deepEqual(passwordProblems(uncommon(6)), [
      { pointer: '/password', detail: 'is too short (minimum is 8 characters)' },
    ]);
    assert.deepEqual(passwordProblems(uncommon(257)), [
      { pointer: '/password', detail: 'is too long (maximum is 256 characters)' },
    ]);
  });
});

describe('updatesNothing', () => {
  it('is true with no attribute, or newsletters with nothing to add or remove', () => {
    assert.equal(updatesNothing({}), true);
    assert.equal(updatesNothing({ newsletters: {} }), true);
    assert.equal(updatesNothing({ newsletters: { add: [], remove: [] } }), true);
  });

  it('is false with any attribute, null included, or a newsletter to add or remove', () => {
    assert.equal(updatesNothing({ givenName: null }), false);
    assert.equal(updatesNothing({ newsletters: { add: ['daily'] } }), false);
    assert.equal(updatesNothing({ newsletters: { remove: ['daily'] } }), false);
    assert.equal(updatesNothing({ givenName: 'Ada', newsletters: {} }), false);
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

  it('reads no field the schema does not name', () => {
    const read = toUserAttributes('a@example.com', { familyName: 'Reader', legacyColumn: 'x' }, [], null);
    assert.equal('legacyColumn' in read, false);
  });

  it('writes the last sign-in as an ISO-8601 instant in UTC', () => {
    const read = toUserAttributes('a@example.com', { familyName: 'Reader' }, [], Date.UTC(2025, 5, 1, 12) / 1000);
    assert.equal(read.lastSignInAt, '2025-06-01T12:00:00+00:00');
  });

  it('reads every nested object none of whose fields is set as null, alike', () => {
    const nulls = Object.fromEntries(USER_FIELDS.map((f) => [f, null]));
    const read = toUserAttributes('a@example.com', { ...nulls, familyName: 'Reader' }, [], null);
    assert.deepEqual([read.address, read.worksFor, read.demographics], [null, null, null]);
    const unset = toUserAttributes(
      'a@example.com',
      { familyName: 'Reader', 'address.postalCode': undefined },
      [],
      null,
    );
    assert.equal(unset.address, null);
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
