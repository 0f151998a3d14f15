/**
 * The schema builders on their own: what each adds to a schema, checked against the validator the
 * routes compile, and compiled validators kept by what a schema says rather than by the object.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { compiledBySchema, FilterValue, isRecord, Nullable, StringEnum, Text } from '../../src/domain/schema.js';
import { compileSchema } from '../../src/domain/validation.js';

const accepts = (schema: object, value: unknown) => compileSchema(schema)(value);

describe('compiledBySchema', () => {
  it('compiles each schema once, however many copies of it are asked for', () => {
    const compiled: object[] = [];
    const compile = compiledBySchema((schema) => {
      compiled.push(schema);
      return { of: JSON.stringify(schema) };
    });
    const first = compile({ type: 'string', maxLength: 3 });
    assert.equal(compile({ type: 'string', maxLength: 3 }), first);
    assert.equal(compiled.length, 1);
    assert.notEqual(compile({ type: 'string', maxLength: 4 }), first);
    assert.equal(compiled.length, 2);
  });
});

describe('Nullable', () => {
  it('takes null besides what the schema takes, and nothing else besides', () => {
    const schema = Nullable(Type.String({ maxLength: 3 }));
    assert.deepEqual(schema.type, ['string', 'null']);
    assert.equal(accepts(schema, null), true);
    assert.equal(accepts(schema, 'abc'), true);
    assert.equal(accepts(schema, 'abcd'), false);
    assert.equal(accepts(schema, 1), false);
  });

  it('adds null to an enumeration too', () => {
    const schema = Nullable(StringEnum(['a', 'b'] as const));
    assert.deepEqual(schema.enum, ['a', 'b', null]);
    assert.equal(accepts(schema, null), true);
    assert.equal(accepts(schema, 'b'), true);
    assert.equal(accepts(schema, 'c'), false);
  });

  it('leaves the schema it was made of as it was', () => {
    const plain = StringEnum(['a'] as const);
    Nullable(plain);
    assert.deepEqual(plain.enum, ['a']);
    assert.equal(plain.type, 'string');
  });
});

describe('FilterValue', () => {
  it('is text of one character up to its maximum, without NUL', () => {
    const schema = FilterValue(3);
    assert.equal(accepts(schema, 'a'), true);
    assert.equal(accepts(schema, 'abc'), true);
    assert.equal(accepts(schema, ''), false);
    assert.equal(accepts(schema, 'abcd'), false);
    assert.equal(accepts(schema, 'a\u0000'), false);
    assert.equal(accepts(schema, '\u0000'), false);
    assert.deepEqual(schema.errorMessage, { pattern: 'must not contain NUL characters' });
  });

  it('is described only when a description is given', () => {
    assert.equal(FilterValue(3, 'A name.').description, 'A name.');
    assert.equal('description' in FilterValue(3), false);
    assert.equal('description' in FilterValue(3, ''), false);
  });
});

describe('StringEnum', () => {
  it('is a string from the list, with the options given', () => {
    const schema = StringEnum(['x', 'y'] as const, { description: 'Which.' });
    assert.deepEqual(JSON.parse(JSON.stringify(schema)), { type: 'string', enum: ['x', 'y'], description: 'Which.' });
    assert.equal(accepts(schema, 'y'), true);
    assert.equal(accepts(schema, 'z'), false);
  });
});

describe('Text', () => {
  it('is optional text up to its maximum, or null', () => {
    const schema = Type.Object({ notes: Text(3, { description: 'Notes.' }) });
    assert.equal(accepts(schema, {}), true);
    assert.equal(accepts(schema, { notes: null }), true);
    assert.equal(accepts(schema, { notes: 'abc' }), true);
    assert.equal(accepts(schema, { notes: 'abcd' }), false);
    assert.equal(schema.properties.notes.description, 'Notes.');
  });
});

describe('isRecord', () => {
  it('is a JSON object: not null, an array or a scalar', () => {
    assert.equal(isRecord({}), true);
    assert.equal(isRecord({ a: 1 }), true);
    for (const value of [null, undefined, [], [1], 'a', 1, true]) {
      assert.equal(isRecord(value), false, JSON.stringify(value));
    }
  });
});
