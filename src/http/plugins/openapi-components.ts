/**
 * The responses, parameters and request bodies the OpenAPI document would write out again at each
 * operation that shares them (HEAD beside its GET, the 304 of every conditional read, a resource's
 * answer to its read and its writes, a path's parameter in each of its methods, the body PUT and
 * PATCH take), written once under `components.responses`, `components.parameters` and
 * `components.requestBodies` and referred to, and so are the examples they repeat. Only the
 * document is shortened: what it says of each operation is the same, by reference.
 */
import { STATUS_CODES } from 'node:http';
import { isObject, pascal, type Json, type JsonObject } from './openapi-schemas.js';

/** A response's status as a name (`NotModified`); the error answers' names are made alike. */
export function statusName(status: string): string {
  return pascal(STATUS_CODES[Number(status)] ?? `Status ${status}`);
}

/** One place an operation writes a response or a parameter. */
interface Site {
  path: string;
  /** The response's status; undefined for a parameter. */
  status?: string;
  node: JsonObject;
  replace: (reference: JsonObject) => void;
}

/** The last segment of a path that is not a parameter: `subscriptions` of `/users/{user_id}/subscriptions/{id}`. */
const resourceOf = (path: string) =>
  path
    .split('/')
    .filter((segment) => segment && !segment.startsWith('{'))
    .pop() ?? '';

const schemaName = (node: Json | undefined): string | undefined => {
  const ref = isObject(node) && typeof node.$ref === 'string' ? node.$ref : undefined;
  return ref?.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : undefined;
};

/** A response by what it holds: its document's schema, else its status and whether it gives an ETag. */
function responseName({ node, status, path }: Site): string[] {
  const content = isObject(node.content) ? Object.values(node.content)[0] : undefined;
  const schema = schemaName(isObject(content) ? content.schema : undefined);
  const etag = isObject(node.headers) && 'ETag' in node.headers ? 'WithETag' : '';
  const resource = pascal(resourceOf(path));
  if (schema) return [schema, `${schema}${statusName(status!)}`, `${resource}${schema}`];
  // Public routes give no rate-limit headers.
  const base = `${isObject(node.headers) && 'RateLimit' in node.headers ? '' : 'Public'}${statusName(status!)}${etag}`;
  return content ? [`${resource}${base}`] : [base, `${resource}${base}`];
}

/** A request body by its document's schema (`UsersReplaceDocument`), else by the resource it writes. */
function bodyName({ node, path }: Site): string[] {
  const content = isObject(node.content) ? Object.values(node.content)[0] : undefined;
  const schema = schemaName(isObject(content) ? content.schema : undefined);
  return [schema ?? `${pascal(resourceOf(path))}Body`];
}

/** A parameter by its name (`UserId`, `FieldsUsers`), then by the resource it is met at. */
function parameterName({ node, path }: Site): string[] {
  const base = pascal(String(node.name));
  return [base, `${pascal(resourceOf(path))}${base}`];
}

/**
 * Replaces every site whose object is written at two sites or more with a reference to one copy
 * in `components`, named by the first of `names` not taken (a number after the last otherwise).
 * Deterministic: the same operations give the same names.
 */
function hoist(sites: Site[], components: JsonObject, kind: string, names: (site: Site) => string[]): void {
  // A response is shared only by answers of the same status: a 204 is not named after a 200.
  const texts = sites.map((site) => `${site.status ?? ''} ${JSON.stringify(site.node)}`);
  const counts = new Map<string, number>();
  for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
  const named = new Map<string, string>();
  sites.forEach((site, i) => {
    const text = texts[i]!;
    if (counts.get(text)! < 2) return;
    let name = named.get(text);
    if (name === undefined) {
      const candidates = names(site);
      name = candidates.find((candidate) => !(candidate in components));
      for (let n = 2; name === undefined; n += 1) {
        if (!(`${candidates.at(-1)}${n}` in components)) name = `${candidates.at(-1)}${n}`;
      }
      components[name] = site.node;
      named.set(text, name);
    }
    site.replace({ $ref: `#/components/${kind}/${name}` });
  });
}

/**
 * Hoists the repeated responses, parameters and request bodies of `paths` into `responses`,
 * `parameters` and `requestBodies` (`responses` may already hold some: the error answers), then
 * the examples their media types repeat (a document's at each answer it is, a body's at each
 * operation that takes it) into `examples`.
 */
export function hoistRepeatedResponses(
  paths: JsonObject,
  components: { responses: JsonObject; parameters: JsonObject; requestBodies: JsonObject; examples: JsonObject },
): void {
  const responses: Site[] = [];
  const parameters: Site[] = [];
  const bodies: Site[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    liftCommonParameters(item);
    if (Array.isArray(item.parameters)) {
      const list = item.parameters;
      list.forEach((node, i) => {
        if (isObject(node)) parameters.push({ path, node, replace: (reference) => (list[i] = reference) });
      });
    }
    for (const operation of Object.values(item)) {
      if (!isObject(operation)) continue;
      const body = operation.requestBody;
      if (isObject(body) && body.$ref === undefined) {
        bodies.push({ path, node: body, replace: (reference) => (operation.requestBody = reference) });
      }
      const answers = operation.responses;
      if (isObject(answers)) {
        for (const [status, node] of Object.entries(answers)) {
          if (isObject(node) && node.$ref === undefined) {
            responses.push({ path, status, node, replace: (reference) => (answers[status] = reference) });
          }
        }
      }
      const list = operation.parameters;
      if (Array.isArray(list)) {
        list.forEach((node, i) => {
          if (isObject(node)) parameters.push({ path, node, replace: (reference) => (list[i] = reference) });
        });
      }
    }
  }
  hoist(responses, components.responses, 'responses', responseName);
  hoist(parameters, components.parameters, 'parameters', parameterName);
  hoist(bodies, components.requestBodies, 'requestBodies', bodyName);
  hoistExamples([paths, components.responses, components.requestBodies], components.examples);
}

/** Where a media type's `example` repeats one met elsewhere, `examples` refers to one copy of it. */
function hoistExamples(roots: Json[], examples: JsonObject): void {
  const sites: Site[] = [];
  const walk = (node: Json): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isObject(node)) return;
    if (isObject(node.content)) {
      for (const media of Object.values(node.content)) {
        if (!isObject(media) || media.example === undefined) continue;
        const value = media.example;
        sites.push({
          path: schemaName(media.schema) ?? 'Example',
          node: { value },
          replace: (reference) => {
            delete media.example;
            media.examples = { example: reference };
          },
        });
      }
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'content') walk(value);
  };
  roots.forEach(walk);
  hoist(sites, examples, 'examples', ({ path }) => [path]);
}

/**
 * The parameters every operation of a path takes (its path parameters; all of a GET's, which its
 * HEAD shares), written once on the path. A path of one operation keeps them on it.
 */
function liftCommonParameters(item: JsonObject): void {
  const operations = Object.values(item).filter(isObject);
  if (operations.length < 2) return;
  const lists = operations.map((operation) => (Array.isArray(operation.parameters) ? operation.parameters : []));
  const texts = lists.map((list) => new Set(list.map((node) => JSON.stringify(node))));
  const common = lists[0]?.filter((node) => texts.every((set) => set.has(JSON.stringify(node)))) ?? [];
  if (common.length === 0) return;
  const shared = new Set(common.map((node) => JSON.stringify(node)));
  operations.forEach((operation, i) => {
    const own = lists[i]!.filter((node) => !shared.has(JSON.stringify(node)));
    if (own.length > 0) operation.parameters = own;
    else delete operation.parameters;
  });
  item.parameters = common;
}
