/**
 * Small schema builders shared by the resources. A resource's TypeBox schema is the one source
 * of truth for a field: it validates requests, shapes responses, types the code and documents
 * the API. `errorMessage` (an annotation of ours) gives the detail text a client sees when a
 * keyword fails, where the interface prescribes one.
 */
import { Type, type Static, type TSchema, type TUnsafe, type SchemaOptions } from '@sinclair/typebox';

export type ErrorMessages = Partial<Record<string, string>>;

declare module '@sinclair/typebox' {
  interface SchemaOptions {
    errorMessage?: ErrorMessages;
  }
}

/**
 * `compile`, kept by what the schema says: Fastify hands each app its routes' schemas as fresh
 * copies, so a cache by object (Ajv's own) misses every one of them for each app a process builds.
 */
export function compiledBySchema<T>(compile: (schema: object) => T): (schema: object) => T {
  const kept = new Map<string, T>();
  return (schema) => {
    const key = JSON.stringify(schema);
    let compiled = kept.get(key);
    if (compiled === undefined) kept.set(key, (compiled = compile(schema)));
    return compiled;
  };
}

/** The same schema, also accepting null: how a client clears an optional attribute. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  if (Array.isArray(plain.enum)) plain.enum = [...plain.enum, null];
  plain.type = [plain.type, 'null'];
  return Type.Unsafe<Static<T> | null>(plain);
}

/** A filter value: text a store can compare (no NUL, which PostgreSQL cannot even receive). */
export const FilterValue = (maxLength: number, description?: string) =>
  Type.String({
    minLength: 1,
    maxLength,
    pattern: '^[^\\u0000]*$',
    errorMessage: { pattern: 'must not contain NUL characters' },
    ...(description ? { description } : {}),
  });

/** A string from a fixed list, as a plain JSON Schema `enum` (readable errors and docs). */
export function StringEnum<const V extends readonly string[]>(values: V, options: SchemaOptions = {}) {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });
}

/** Optional free text of at most `maxLength` characters; null clears it. */
export function Text(maxLength: number, options: SchemaOptions = {}) {
  return Type.Optional(Nullable(Type.String({ maxLength, ...options })));
}

/** A JSON object (not null, not an array), for code that reads values no schema has checked. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
