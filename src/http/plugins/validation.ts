/**
 * Request validation: the routes' schemas compiled by the domain's validator, and every failure
 * turned into the JSON:API error the interface prescribes. Bodies report every problem; query
 * parameters stay text (numbers in them are matched by pattern, so `1e3` is no page number); an
 * id in the path that cannot exist is simply not found.
 */
import type { FastifySchemaCompiler } from 'fastify';
import {
  compileSchema,
  detailOf,
  everyProblemOf,
  type AjvError,
  type ValidateFunction,
} from '../../domain/validation.js';
import { isRecord } from '../../domain/schema.js';
import { ApiError, errors } from '../errors.js';
import { isOptionalBody } from '../jsonapi/documents.js';

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return bodyValidator(schema as object);
  const validate = compileSchema(schema as object, 'first');
  const toError = httpPart === 'querystring' ? queryError : httpPart === 'params' ? paramsError : headerError;
  return (data: unknown) => (validate(data) ? { value: data } : { error: toError(validate) });
};

/**
 * A body: every problem of the schema and of the rules of its attributes, in one answer; but a
 * document that is not one at all (not an object, or without `data`) is said to be so, once.
 */
function bodyValidator(schema: object) {
  const validate = compileSchema(schema, 'every');
  const type = typeOf(schema);
  const mayBeAbsent = isOptionalBody(schema);
  return (data: unknown) => {
    // Fastify hands a request without a body on as null.
    if ((data === undefined || data === null) && mayBeAbsent) return { value: data };
    const problems = everyProblemOf(validate, schema, data, '/data/attributes');
    if (problems.length === 0) return { value: data };
    const failures = validate.errors ?? [];
    if (failures.some((e) => e.instancePath === '' && e.keyword === 'type'))
      return { error: errors.bodyMustBeObject() };
    if (type !== undefined && isRecord(data) && !('data' in data)) return { error: errors.documentWithoutData(type) };
    const typeConflict = failures.find(
      (e) => e.instancePath === '/data/type' && e.keyword === 'const' && typeof e.data === 'string',
    );
    if (typeConflict) return { error: errors.typeConflict(String(typeConflict.params.allowedValue)) };
    return { error: errors.invalidAttributes(problems) };
  };
}

/** The resource type a document schema's `data.type` must be, if it names one. */
function typeOf(schema: object): string | undefined {
  const type = (schema as { properties?: { data?: { properties?: { type?: { const?: unknown } } } } }).properties?.data
    ?.properties?.type?.const;
  return typeof type === 'string' ? type : undefined;
}

function firstError(validate: ValidateFunction): AjvError {
  return (validate.errors ?? [])[0] as AjvError;
}

function queryError(validate: ValidateFunction): ApiError {
  const e = firstError(validate);
  if (e.keyword === 'additionalProperties') {
    const name = String(e.params.additionalProperty);
    return errors.invalidQueryParameter(name, `${name} is not a supported query parameter here`);
  }
  if (e.keyword === 'required') {
    const name = String(e.params.missingProperty);
    return errors.invalidQueryParameter(name, `${name} is required here`);
  }
  const name = e.instancePath.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
  return errors.invalidQueryParameter(name, `${name} ${detailOf(e)}`);
}

function paramsError(validate: ValidateFunction): ApiError {
  const e = firstError(validate);
  const what = e.instancePath.slice(1).replace(/_id$/, '');
  return errors.notFound(`There is no ${what} with id ${JSON.stringify(String(e.data).slice(0, 40))}.`);
}

function headerError(validate: ValidateFunction): ApiError {
  const e = firstError(validate);
  return errors.invalidHeader(e.instancePath.slice(1), detailOf(e));
}
