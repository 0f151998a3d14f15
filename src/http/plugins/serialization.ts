/**
 * Response serializers, compiled once per schema: the shared error document is declared for a
 * dozen statuses on every route, and compiling it anew each time made start-up slower for nothing.
 */
import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';

// By what the schema says, not by object: each app a process builds gets fresh copies of them.
const compiled = new Map<string, (data: unknown) => string>();

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  const key = JSON.stringify(schema);
  let serialize = compiled.get(key);
  if (!serialize) {
    serialize = fastJson(schema as Parameters<typeof fastJson>[0]) as (data: unknown) => string;
    compiled.set(key, serialize);
  }
  return serialize;
};
