/**
 * Response serializers, compiled once per schema: the shared error document is declared for a
 * dozen statuses on every route, and compiling it anew each time made start-up slower for nothing.
 */
import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';

const compiled = new WeakMap<object, (data: unknown) => string>();

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  const key = schema as object;
  let serialize = compiled.get(key);
  if (!serialize) {
    serialize = fastJson(key as Parameters<typeof fastJson>[0]) as (data: unknown) => string;
    compiled.set(key, serialize);
  }
  return serialize;
};
