/**
 * The schemas the OpenAPI document would write out again at each route that shares them (a
 * resource, its attributes, a document of it), written once under `components.schemas` and
 * referred to. The route schemas stay whole (they validate and serialize); only the document is
 * shortened, which is what a reader of /docs and a client generator meet.
 */

/** What a reference to a shared schema costs, about: `{"$ref":"#/components/schemas/"}` and a name. */
const REFERENCE_LENGTH = 50;

/**
 * Whether a schema written `count` times costs more than one copy under a name and a reference at
 * each place (a schema no longer than a reference never does).
 */
const worthSharing = (length: number, count: number) => count * length > length + count * REFERENCE_LENGTH;

/** Where JSON Schema holds a schema: a member's value, each value of a map, each item of a list. */
const SCHEMA_MEMBERS = new Set([
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
]);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);

/** The schemas a schema holds, wherever JSON Schema puts them. */
function subschemasOf(node: JsonObject): Json[] {
  return Object.entries(node).flatMap(([key, value]) => {
    if (SCHEMA_MEMBERS.has(key)) return [value];
    if (SCHEMA_MAPS.has(key) && isObject(value)) return Object.values(value);
    if (SCHEMA_LISTS.has(key) && Array.isArray(value)) return value;
    return [];
  });
}

/** A node of the OpenAPI document as JSON, which the document's rewriting here and in openapi-components.ts walk. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Replaces, in every `schema` of `paths`, each subschema that comes more than once with a
 * reference to one copy in `schemas`, named after what it is (`UsersResource`,
 * `SubscriptionsAttributes`…). Deterministic: the same routes give the same document.
 */
export function hoistRepeatedSchemas(paths: JsonObject, schemas: JsonObject): void {
  const texts = new Map<JsonObject, string>();
  const counts = new Map<string, number>();
  // Each object's JSON, built from its members' (so the whole walk costs one pass per depth).
  const textOf = (node: Json, inSchema: boolean): string => {
    if (Array.isArray(node)) return `[${node.map((item) => textOf(item, inSchema)).join(',')}]`;
    if (!isObject(node)) return JSON.stringify(node);
    const members = Object.entries(node).map(
      ([key, value]) => `${JSON.stringify(key)}:${textOf(value, inSchema || key === 'schema')}`,
    );
    const text = `{${members.join(',')}}`;
    if (inSchema && text.length > REFERENCE_LENGTH) texts.set(node, text);
    return text;
  };
  textOf(paths, false);
  // How many places write each schema: within a second copy of a schema nothing is counted again,
  // so a part is shared only when it is met in two different schemas (or alone twice).
  const countSchema = (node: Json): void => {
    if (!isObject(node)) return;
    const text = texts.get(node);
    if (text !== undefined) {
      const seen = counts.get(text) ?? 0;
      counts.set(text, seen + 1);
      if (seen > 0) return;
    }
    subschemasOf(node).forEach(countSchema);
  };
  const countWithin = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(countWithin);
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) (key === 'schema' ? countSchema : countWithin)(value);
  };
  countWithin(paths);

  // A schema already under components (the error document) is referred to by its name, not copied.
  const names = new Map(Object.entries(schemas).map(([name, schema]) => [JSON.stringify(schema), name]));
  const taken = new Set(Object.keys(schemas));
  const nameFor = (text: string, node: JsonObject, context: Context): string => {
    let name = names.get(text);
    if (name) return name;
    const base = baseName(node, context);
    name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}${n}`;
    taken.add(name);
    names.set(text, name);
    // Written before its members are hoisted in turn, so that a schema in itself is named first.
    schemas[name] = node;
    schemas[name] = hoistWithin(node, context, true);
    return name;
  };
  // Only a schema may become a reference: never a map of properties, nor an enum's values.
  const hoistWithin = (node: Json, context: Context, isRoot = false): Json => {
    if (!isObject(node)) return node;
    const text = texts.get(node);
    if (!isRoot && text !== undefined && worthSharing(text.length, counts.get(text) ?? 0)) {
      return { $ref: `#/components/schemas/${nameFor(text, node, context)}` };
    }
    const type = resourceType(node) ?? context.type;
    return Object.fromEntries(
      Object.entries(node).map(([key, value]): [string, Json] => {
        if (SCHEMA_MEMBERS.has(key)) return [key, hoistWithin(value, { ...context, type, key })];
        if (SCHEMA_MAPS.has(key) && isObject(value)) {
          const map = Object.entries(value).map(([name, member]) => [
            name,
            hoistWithin(member, { ...context, type, key: name }),
          ]);
          return [key, Object.fromEntries(map)];
        }
        if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
          return [key, value.map((member) => hoistWithin(member, { ...context, type }))];
        }
        return [key, value];
      }),
    );
  };
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation)) continue;
      const context: Context = { method, key: '' };
      item[method] = walkOperation(operation, context, hoistWithin);
    }
  }
}

/** Where a schema was met first: the operation's method, the member it is, the resource around it. */
interface Context {
  method: string;
  key: string;
  type?: string;
  request?: boolean;
}

/** The operation with each `schema` in it shortened; a request body's schemas are named as such. */
function walkOperation(
  operation: JsonObject,
  context: Context,
  hoist: (node: Json, context: Context) => Json,
): JsonObject {
  const walk = (node: Json, request: boolean): Json => {
    if (Array.isArray(node)) return node.map((item) => walk(item, request));
    if (!isObject(node)) return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [
        key,
        key === 'schema' ? hoist(value, { ...context, key, request }) : walk(value, request || key === 'requestBody'),
      ]),
    );
  };
  return walk(operation, false) as JsonObject;
}

/** The JSON:API type a resource object's schema names (`type` as a constant or a one-value enum). */
function resourceType(node: JsonObject): string | undefined {
  const properties = node.properties;
  if (!isObject(properties) || !isObject(properties.type)) return undefined;
  const { const: constant, enum: values } = properties.type;
  if (typeof constant === 'string') return constant;
  return Array.isArray(values) && values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
}

/** `print-run page` → `PrintRunPage`: a component's name from words. */
export const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

const WRITES: Record<string, string> = { post: 'Create', patch: 'Update', put: 'Replace' };

/**
 * A name that says what the schema is: a document, a resource or one of their members, of the
 * resource type it is met in; a request's by the write it makes.
 */
function baseName(node: JsonObject, context: Context): string {
  const properties = isObject(node.properties) ? node.properties : undefined;
  const write = context.request ? (WRITES[context.method] ?? pascal(context.method)) : '';
  if (properties && 'data' in properties) {
    const data = properties.data;
    const list = isObject(data) && data.type === 'array';
    const item = list && isObject(data) && isObject(data.items) ? data.items : data;
    const type = isObject(item) ? resourceType(item) : undefined;
    // A relationship's `data` names resources (type and id) and holds no more of them.
    const linkage = isObject(item) && isObject(item.properties) && !('attributes' in item.properties);
    return `${pascal(type ?? context.type ?? 'Other')}${list ? 'List' : ''}${write}${linkage ? 'Relationship' : 'Document'}`;
  }
  const type = resourceType(node);
  if (type) return `${pascal(type)}${write}Resource`;
  const member = context.key === 'items' || context.key === 'schema' ? 'Item' : pascal(context.key);
  return `${pascal(context.type ?? '')}${write}${member || 'Schema'}`;
}

/** Whether a node of the document is a schema: it has a type, or says what a value must be. */
const isSchema = (node: JsonObject) => 'type' in node || 'pattern' in node || 'format' in node || 'anyOf' in node;

/**
 * `paths` without the messages the validator gives for each broken constraint (ajv-errors'
 * `errorMessage`): they are no part of JSON Schema, neither /docs nor a client generator reads
 * them, and the error answers carry them to whoever needs them. A copy: the route schemas, which
 * validate with them, are left whole.
 */
export function withoutValidatorMessages(paths: JsonObject): JsonObject {
  return JSON.parse(
    JSON.stringify(paths, function (this: JsonObject, key: string, value: Json) {
      return key === 'errorMessage' && isSchema(this) ? undefined : value;
    }),
  ) as JsonObject;
}

/** Each document's shortened paths and schemas, by the document as generated. */
const shortened = new Map<string, string>();

/**
 * hoistRepeatedSchemas, worked out once a process for each document: it is dear, and the tests
 * build an app for every service they start, of the same routes. The answer is a copy of its own.
 */
export function withSharedSchemas(paths: JsonObject, schemas: JsonObject): { paths: JsonObject; schemas: JsonObject } {
  const key = JSON.stringify([paths, schemas]);
  const known = shortened.get(key);
  if (known !== undefined) return JSON.parse(known) as { paths: JsonObject; schemas: JsonObject };
  hoistRepeatedSchemas(paths, schemas);
  shortened.set(key, JSON.stringify({ paths, schemas }));
  return { paths, schemas };
}
