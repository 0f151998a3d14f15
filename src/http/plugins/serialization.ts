/**
 * Response serializers, compiled once per schema: the shared error document is declared for a
 * dozen statuses on every route, and compiling it anew each time made start-up slower for nothing.
 */
import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import { compiledBySchema } from '../../domain/schema.js';

const compiled = compiledBySchema((schema) => fastJson(schema) as (data: unknown) => string);

export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => compiled(schema as object);
