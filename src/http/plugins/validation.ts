/**
 * Request validation: the routes' schemas compiled by the domain's validator, and every failure
 * turned into the JSON:API error the interface prescribes. Bodies report every problem; query
 * parameters stay text (numbers in them are matched by pattern, so `1e3` is no page number); an
 * id in the path that cannot exist is simply not found.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { compileSchema, detailOf, problemsOf, type AjvError, type ValidateFunction } from '../../domain/validation.js';
import { ApiError, errors } from '../errors.js';

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = compileSchema(schema as object, httpPart === 'body' ? 'every' : 'first');
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

function bodyError(validate: ValidateFunction): ApiError {
  const failures = validate.errors ?? [];
  if (failures.some((e) => e.instancePath === '' && e.keyword === 'type')) return errors.bodyMustBeObject();
  const typeConflict = failures.find(
    (e) => e.instancePath === '/data/type' && e.keyword === 'const' && typeof e.data === 'string',
  );
  if (typeConflict) return errors.typeConflict(String(typeConflict.params.allowedValue));
  return errors.invalidAttributes(problemsOf(validate, '/data/attributes'));
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
