/**
 * Validation by schema: a resource's TypeBox schema compiled with Ajv, and each failed keyword
 * turned into a problem with the detail text the interface prescribes (the schema's own
 * `errorMessage` where it gives one). Nothing is coerced and no default is filled in: what was
 * sent is what is checked. The HTTP layer validates whole documents with it, the import command
 * each record's attributes.
 */
import { Ajv, type ErrorObject as AjvError, type ValidateFunction } from 'ajv';
import { isIsoDateTime } from './dates.js';
import { isEmail } from './email.js';
import { isPublicationDate } from './publication.js';
import type { Problem } from './failures.js';
import { compiledBySchema, type ErrorMessages } from './schema.js';
import { isEndpointUrl } from './webhooks.js';

export type { AjvError, ValidateFunction };

/** Enough problems to fix a record by; more would only let a hostile body inflate the answer. */
export const MAX_PROBLEMS = 50;

function createAjv(options: { allErrors: boolean }): Ajv {
  const ajv = new Ajv({
    ...options,
    coerceTypes: false,
    verbose: true,
    allowUnionTypes: true,
    useDefaults: false,
    removeAdditional: false,
  });
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'object' });
  ajv.addFormat('email', isEmail);
  ajv.addFormat('date-time', isIsoDateTime);
  ajv.addFormat('date', isPublicationDate);
  ajv.addFormat('endpoint-url', isEndpointUrl);
  return ajv;
}

const everyProblem = createAjv({ allErrors: true });
// Stryker disable next-line ObjectLiteral: allErrors left out is Ajv's default, false
const firstProblem = createAjv({ allErrors: false });

const compiled = {
  every: compiledBySchema((schema) => everyProblem.compile(schema)),
  first: compiledBySchema((schema) => firstProblem.compile(schema)),
};

/** A validator that reports every problem (records, bodies), or only the first (parameters). */
export function compileSchema(schema: object, report: 'every' | 'first' = 'every'): ValidateFunction {
  return compiled[report](schema);
}

/**
 * Rules across fields, which a schema cannot state (a region's length by its country, the order
 * of two dates). They read a value the schema may have refused, so they look only at what is
 * well typed, and report their problems together with the schema's, all in one answer.
 */
export type Rules = (value: unknown) => Problem[];

const RULES = new WeakMap<object, Rules>();

/** The schema, with its rules attached: whoever validates by it applies them too. */
export function withRules<T extends object>(schema: T, rules: Rules): T {
  RULES.set(schema, rules);
  return schema;
}

export function rulesOf(schema: object): Rules | undefined {
  return RULES.get(schema);
}

/**
 * Every problem of a value: the schema's and its rules', at most `MAX_PROBLEMS`. The rules' come
 * after the schema's and, where both name the same place, the schema's is the one reported.
 */
export function everyProblemOf(validate: ValidateFunction, schema: object, value: unknown, attributesAt: string) {
  const problems = validate(value) ? [] : problemsOf(validate, attributesAt);
  const seen = new Set(problems.map((p) => p.pointer));
  for (const problem of rulesOf(schema)?.(value) ?? []) {
    if (problems.length >= MAX_PROBLEMS) break;
    if (!seen.has(problem.pointer)) problems.push(problem);
  }
  return problems;
}

/**
 * The problem of one failed keyword. A missing or unknown member reads as the interface words it
 * inside the attributes (`can't be blank`, `x is not a known attribute`), which start at
 * `attributesAt` (`/data/attributes` in a document, `` in a bare record).
 */
export function problemOf(e: AjvError, attributesAt: string): Problem {
  if (e.keyword === 'required' || e.keyword === 'additionalProperties') {
    const name = String(e.params.missingProperty ?? e.params.additionalProperty);
    const pointer = `${e.instancePath}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const inAttributes = e.instancePath.startsWith(attributesAt);
    if (e.keyword === 'required') return { pointer, detail: inAttributes ? "can't be blank" : `${name} is missing` };
    return { pointer, detail: inAttributes ? `${name} is not a known attribute` : `${name} is not allowed here` };
  }
  return { pointer: e.instancePath, detail: detailOf(e) };
}

/** The problems of a failed validation, at most `MAX_PROBLEMS`. */
export function problemsOf(validate: ValidateFunction, attributesAt: string): Problem[] {
  return (validate.errors ?? []).slice(0, MAX_PROBLEMS).map((e) => problemOf(e, attributesAt));
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  integer: 'an integer',
  number: 'a number',
};

/** The detail text of one failed keyword: the schema's own message when it gives one. */
export function detailOf(e: AjvError): string {
  const custom = (e.parentSchema?.errorMessage as ErrorMessages | undefined)?.[e.keyword];
  if (custom) return custom;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type': {
      if (e.data === null) return "can't be blank";
      const types = ([] as string[]).concat(p.type as string | string[]).filter((t) => t !== 'null');
      return `must be ${types.map((t) => TYPE_NAMES[t] ?? t).join(' or ')}`;
    }
    case 'maxLength':
      return `is too long (maximum is ${p.limit} characters)`;
    case 'minLength':
      return `is too short (minimum is ${p.limit} characters)`;
    case 'maxItems':
      return `has too many items (maximum is ${p.limit})`;
    case 'minimum':
      return `must be at least ${p.limit}`;
    case 'maximum':
      return `must be at most ${p.limit}`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'format':
      return `must be a valid ${p.format}`;
    case 'pattern':
      return 'has an invalid format';
    default:
      return e.message ?? 'is invalid';
  }
}
