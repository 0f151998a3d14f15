/**
 * Validation by schema on its own: each failed keyword as a problem, at its pointer, in the words
 * the interface gives (the schema's own errorMessage first); nothing coerced or filled in; rules
 * across fields reported after the schema's problems, never twice at one place; at most
 * MAX_PROBLEMS of them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type, type TSchema } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../src/domain/schema.js';
import {
  compileSchema,
  detailOf,
  everyProblemOf,
  MAX_PROBLEMS,
  problemsOf,
  rulesOf,
  withRules,
  type Rules,
} from '../../src/domain/validation.js';

/** The problems of a value by a schema, its attributes at `attributesAt`. */
function problems(schema: object, value: unknown, attributesAt = '') {
  return everyProblemOf(compileSchema(schema), schema, value, attributesAt);
}

const detail = (schema: TSchema, value: unknown) => problems(Type.Object({ x: schema }), { x: value })[0]?.detail;

describe('the detail of each failed keyword', () => {
  it('names the type expected, and an empty value as blank', () => {
    assert.equal(detail(Type.String(), 1), 'must be a string');
    assert.equal(detail(Type.Boolean(), 'yes'), 'must be true or false');
    assert.equal(detail(Type.Object({}), []), 'must be an object');
    assert.equal(detail(Type.Array(Type.String()), {}), 'must be an array');
    assert.equal(detail(Type.Integer(), 1.5), 'must be an integer');
    assert.equal(detail(Type.Number(), '1'), 'must be a number');
    assert.equal(detail(Type.String(), null), "can't be blank");
    assert.equal(detail(Nullable(Type.Integer()), 'x'), 'must be an integer');
    assert.equal(detail(Type.Unsafe({ type: ['string', 'integer'] }), true), 'must be a string or an integer');
  });

  it('gives the bound a value is past', () => {
    assert.equal(detail(Type.String({ maxLength: 3 }), 'abcd'), 'is too long (maximum is 3 characters)');
    assert.equal(detail(Type.String({ minLength: 2 }), 'a'), 'is too short (minimum is 2 characters)');
    assert.equal(detail(Type.Array(Type.Integer(), { maxItems: 1 }), [1, 2]), 'has too many items (maximum is 1)');
    assert.equal(detail(Type.Integer({ minimum: 1 }), 0), 'must be at least 1');
    assert.equal(detail(Type.Integer({ maximum: 9 }), 10), 'must be at most 9');
  });

  it('lists the values allowed, without null, and the one a constant must be', () => {
    assert.equal(detail(StringEnum(['a', 'b']), 'c'), 'must be one of: a, b');
    assert.equal(detail(Nullable(StringEnum(['a', 'b'])), 'c'), 'must be one of: a, b');
    assert.equal(detail(Type.Literal('users'), 'user'), 'must be "users"');
  });

  it('names the format, and calls a pattern not matched an invalid format', () => {
    assert.equal(detail(Type.String({ format: 'email' }), 'nobody'), 'must be a valid email');
    assert.equal(detail(Type.String({ format: 'date-time' }), '2026-13-01T00:00:00Z'), 'must be a valid date-time');
    assert.equal(detail(Type.String({ format: 'date' }), '2026-02-30'), 'must be a valid date');
    assert.equal(detail(Type.String({ format: 'endpoint-url' }), 'ftp://x/'), 'must be a valid endpoint-url');
    assert.equal(detail(Type.String({ pattern: '^a' }), 'b'), 'has an invalid format');
  });

  it("is the schema's own message where it gives one for the keyword, and only for it", () => {
    const schema = Type.String({ maxLength: 3, pattern: '^a', errorMessage: { pattern: 'must start with a' } });
    assert.equal(detail(schema, 'b'), 'must start with a');
    assert.equal(detail(schema, 'abcd'), 'is too long (maximum is 3 characters)');
  });

  it("is Ajv's own words for a keyword the interface gives none for, or that it is invalid without any", () => {
    const error = { keyword: 'custom', instancePath: '/x', schemaPath: '#/custom', params: {} };
    assert.equal(detailOf(error), 'is invalid');
    assert.equal(detailOf({ ...error, message: 'must be custom' }), 'must be custom');
    assert.equal(
      detail(Type.Array(Type.Integer(), { uniqueItems: true }), [1, 1]),
      'must NOT have duplicate items (items ## 1 and 0 are identical)',
    );
  });
});

describe('the pointer of a missing or unknown member', () => {
  const schema = Type.Object(
    { data: Type.Object({ attributes: Type.Object({ name: Type.String() }, { additionalProperties: false }) }) },
    { additionalProperties: false },
  );

  it('is the member, blank or not known, inside the attributes', () => {
    assert.deepEqual(problems(schema, { data: { attributes: { 'a/b~c': 1 } } }, '/data/attributes'), [
      { pointer: '/data/attributes/name', detail: "can't be blank" },
      { pointer: '/data/attributes/a~1b~0c', detail: 'a/b~c is not a known attribute' },
    ]);
  });

  it('is the member, missing or not allowed, outside them', () => {
    assert.deepEqual(problems(schema, { extra: 1 }, '/data/attributes'), [
      { pointer: '/data', detail: 'data is missing' },
      { pointer: '/extra', detail: 'extra is not allowed here' },
    ]);
  });

  it('is inside the attributes everywhere in a bare record, whose attributes start at the top', () => {
    const record = Type.Object({ name: Type.String() }, { additionalProperties: false });
    assert.deepEqual(problems(record, { other: 1 }), [
      { pointer: '/name', detail: "can't be blank" },
      { pointer: '/other', detail: 'other is not a known attribute' },
    ]);
  });
});

describe('compileSchema', () => {
  const schema = Type.Object({ a: Type.Integer(), b: Type.Integer() });

  it('reports every problem by default, or only the first', () => {
    const every = compileSchema(schema);
    assert.equal(every({ a: 'x', b: 'y' }), false);
    assert.equal(problemsOf(every, '').length, 2);
    const first = compileSchema(schema, 'first');
    assert.equal(first({ a: 'x', b: 'y' }), false);
    assert.equal(problemsOf(first, '').length, 1);
  });

  it('coerces nothing and fills nothing in', () => {
    const validate = compileSchema(
      Type.Object(
        { n: Type.Integer(), d: Type.Optional(Type.String({ default: 'x' })) },
        { additionalProperties: true },
      ),
    );
    const value: Record<string, unknown> = { n: '1', extra: true };
    assert.equal(validate(value), false);
    assert.deepEqual(value, { n: '1', extra: true });
    const valid: Record<string, unknown> = { n: 1 };
    assert.equal(validate(valid), true);
    assert.deepEqual(valid, { n: 1 });
  });

  it('takes a member typed as a union of types, without a warning', (t) => {
    const warn = t.mock.method(console, 'warn', () => {});
    // A schema of its own: a validator compiled before is kept, and would not be compiled again.
    const validate = compileSchema(Type.Unsafe({ type: ['string', 'integer'], description: 'union, once' }));
    assert.equal(warn.mock.callCount(), 0);
    assert.equal(validate('a'), true);
    assert.equal(validate(1), true);
    assert.equal(validate(true), false);
  });

  it("refuses a schema whose errorMessage is not an object of the keywords' messages", () => {
    assert.throws(
      () => compileSchema({ type: 'string', errorMessage: 'is wrong' }),
      /errorMessage value must be \["object"\]/,
    );
  });

  it('finds no problem in what it took', () => {
    const validate = compileSchema(Type.Integer());
    assert.equal(validate(1), true);
    assert.deepEqual(problemsOf(validate, ''), []);
  });
});

describe('rules across fields', () => {
  const rules: Rules = (value) =>
    (value as { a?: number }).a === 1
      ? [
          { pointer: '/a', detail: 'by the rule' },
          { pointer: '/b', detail: 'by the rule' },
        ]
      : [];
  const schema = withRules(Type.Object({ a: Type.Integer(), b: Type.Integer({ maximum: 5 }) }), rules);

  it('are attached to their schema, and to no other', () => {
    assert.equal(rulesOf(schema), rules);
    assert.equal(rulesOf(Type.Object({})), undefined);
  });

  it("come after the schema's problems, and never where the schema has one", () => {
    assert.deepEqual(problems(schema, { a: 1, b: 9 }), [
      { pointer: '/b', detail: 'must be at most 5' },
      { pointer: '/a', detail: 'by the rule' },
    ]);
    assert.deepEqual(problems(schema, { a: 1, b: 2 }), [
      { pointer: '/a', detail: 'by the rule' },
      { pointer: '/b', detail: 'by the rule' },
    ]);
    assert.deepEqual(problems(schema, { a: 2, b: 2 }), []);
  });
});

describe(`at most ${MAX_PROBLEMS} problems`, () => {
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, Type.Integer()]));

  it("are the schema's", () => {
    const schema = Type.Object(many(MAX_PROBLEMS + 1));
    const value = Object.fromEntries(Object.keys(schema.properties).map((k) => [k, 'x']));
    assert.equal(problems(schema, value).length, MAX_PROBLEMS);
    const fewer = Object.fromEntries(Object.keys(schema.properties).map((k, i) => [k, i === 0 ? 0 : 'x']));
    assert.equal(problems(schema, fewer).length, MAX_PROBLEMS);
  });

  it("are the schema's and the rules' together", () => {
    const ruled = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ pointer: `/rule${i}`, detail: 'by the rule' }));
    const schema = withRules(Type.Object(many(MAX_PROBLEMS - 1)), () => ruled(3));
    const value = Object.fromEntries(Object.keys(schema.properties).map((k) => [k, 'x']));
    const found = problems(schema, value);
    assert.equal(found.length, MAX_PROBLEMS);
    assert.deepEqual(found.at(-1), { pointer: '/rule0', detail: 'by the rule' });
    const exactly = withRules(Type.Object({}), () => ruled(MAX_PROBLEMS));
    assert.equal(problems(exactly, {}).length, MAX_PROBLEMS);
  });
});
