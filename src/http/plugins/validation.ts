/**
 * Request validation: the routes' schemas compiled with Ajv, and every failure turned into the
 * JSON:API error the interface prescribes. Nothing is coerced: bodies report every problem;
 * query parameters stay text (numbers in them are matched by pattern, so `1e3` is no page
 * number); an id in the path that cannot exist is simply not found.
 */
import { Ajv, type ErrorObject as AjvError, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { isIsoDateTime } from '../../domain/dates.js';
import { isEmail } from '../../domain/email.js';
import { isEndpointUrl } from '../../domain/webhooks.js';
import { ApiError, errors, type Problem } from '../../domain/errors.js';
import type { ErrorMessages } from '../../domain/schema.js';

/** Enough errors to fix a document by; more would only let a hostile body inflate the answer. */
const MAX_PROBLEMS = 50;

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
  ajv.addFormat('endpoint-url', isEndpointUrl);
  return ajv;
}

const bodyAjv = createAjv({ allErrors: true });
const queryAjv = createAjv({ allErrors: false });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  const validate = ajv.compile(schema as object);
  const toError =
    httpPart === 'body'
      ? bodyError
      : httpPart === 'querystring'
        ? queryError
        : httpPart === 'params'
          ? paramsError
          : headerError;
  return (data: unknown) => (validate(data) ? { value: data } : { error: toError(validate) });
};

/**
 * Checks a whole JSON:API document against a body schema outside HTTP (the import command),
 * answering the same errors a request with that body would get.
 */
export function documentValidator(schema: object): (document: unknown) => ApiError | undefined {
  const validate = bodyAjv.compile(schema);
  return (document) => (validate(document) ? undefined : bodyError(validate));
}

function bodyError(validate: ValidateFunction): ApiError {
  const failures = validate.errors ?? [];
  if (failures.some((e) => e.instancePath === '' && e.keyword === 'type')) return errors.bodyMustBeObject();
  const typeConflict = failures.find(
    (e) => e.instancePath === '/data/type' && e.keyword === 'const' && typeof e.data === 'string',
  );
  if (typeConflict) return errors.typeConflict(String(typeConflict.params.allowedValue));
  return errors.invalidAttributes(failures.slice(0, MAX_PROBLEMS).map(problemOf));
}

function queryError(validate: ValidateFunction): ApiError {
  const e = (validate.errors ?? [])[0] as AjvError;
  if (e.keyword === 'additionalProperties') {
    const name = String(e.params.additionalProperty);
    return errors.invalidQueryParameter(name, `${name} is not a supported query parameter here`);
  }
  const name = e.instancePath.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
  return errors.invalidQueryParameter(name, `${name} ${detailOf(e)}`);
}

function paramsError(validate: ValidateFunction): ApiError {
  const e = (validate.errors ?? [])[0] as AjvError;
  const what = e.instancePath.slice(1).replace(/_id$/, '');
  return errors.notFound(`There is no ${what} with id ${JSON.stringify(String(e.data).slice(0, 40))}.`);
}

function headerError(validate: ValidateFunction): ApiError {
  const e = (validate.errors ?? [])[0] as AjvError;
  return errors.invalidHeader(e.instancePath.slice(1), detailOf(e));
}

function problemOf(e: AjvError): Problem {
  if (e.keyword === 'required' || e.keyword === 'additionalProperties') {
    const name = String(e.params.missingProperty ?? e.params.additionalProperty);
    const pointer = `${e.instancePath}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const inAttributes = e.instancePath.startsWith('/data/attributes');
    if (e.keyword === 'required') return { pointer, detail: inAttributes ? "can't be blank" : `${name} is missing` };
    return { pointer, detail: inAttributes ? `${name} is not a known attribute` : `${name} is not allowed here` };
  }
  return { pointer: e.instancePath, detail: detailOf(e) };
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
function detailOf(e: AjvError): string {
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
