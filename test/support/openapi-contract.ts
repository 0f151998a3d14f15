/**
 * The service's own OpenAPI document as a contract: every response the tests receive must be
 * documented for its route and status, in a media type documented for that status, with a body
 * that matches the documented schema and no header a client reads (Location, ETag, the rate
 * limit's, Retry-After, Allow, WWW-Authenticate, Set-Cookie, X-Request-Id) that the response does not declare.
 * A method a documented path does not list must be a 405 whose Allow names those it does. An
 * operation's `default` answer stands only for the statuses its `x-statuses` names, each held to
 * the response it refers to (its headers, its body): an answer of any other status leaves the
 * document, as OpenAPI's "any other status" would not say.
 *
 * `ContractTap` holds a test service's every answer to it, however the test sent the request
 * (the client below, a bare fetch, node:http): it reads what the server writes.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Ajv, type ValidateFunction } from 'ajv';
import { isIsoDateTime } from '../../src/domain/dates.js';
import { isEmail } from '../../src/domain/email.js';
import { isPublicationDate } from '../../src/domain/publication.js';
import { captureAnswers, type WrittenAnswer } from './answer-capture.mjs';

interface MediaObject {
  schema: object;
  example?: unknown;
  examples?: Record<string, object>;
}

interface ResponseObject {
  $ref?: string;
  headers?: Record<string, object>;
  content?: Record<string, MediaObject>;
  /** Of a `default` answer: the statuses it stands for, each with the response that describes it. */
  'x-statuses'?: Record<string, ResponseObject>;
}

interface BodyObject {
  content?: Record<string, MediaObject>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject>; requestBody?: BodyObject }>>;
  components?: object;
}

/** One answer as the client received it: header names in lower case, the body as text ('' for none). */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string | undefined>;
  text: string;
}

/** What checks the answers a client receives. */
export interface ResponseCheck {
  check(exchange: Exchange): void;
}

/** The headers whose meaning a client relies on: each must be declared where it is sent. */
const DECLARED_HEADERS = [
  'location',
  'etag',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'allow',
  'www-authenticate',
  'set-cookie',
  'x-request-id',
];

const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
ajv.addFormat('email', isEmail);
ajv.addFormat('date-time', isIsoDateTime);
ajv.addFormat('date', isPublicationDate);
ajv.addFormat('uri', (text: string) => URL.canParse(text));

/** A schema's validator, compiled when an answer first needs it: a test file meets few of them. */
type Validator = () => ValidateFunction;

interface Answer {
  /** By media type, exactly as the Content-Type header must read. */
  media: Map<string, Validator | undefined>;
  headers: Set<string>;
}

interface Operation {
  template: string;
  method: string;
  answers: Map<string, Answer>;
}

interface PathItem {
  pattern: RegExp;
  template: string;
  operations: Map<string, Operation>;
}

const HTTP_METHODS = new Set(['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace']);

const contracts = new Map<string, OpenApiContract>();

export class OpenApiContract implements ResponseCheck {
  private readonly paths: PathItem[] = [];

  /** The contract of a document, compiled once however many services serve the same document. */
  static of(document: OpenApiDocument): OpenApiContract {
    const key = JSON.stringify(document);
    let contract = contracts.get(key);
    if (!contract) contracts.set(key, (contract = new OpenApiContract(document)));
    return contract;
  }

  private readonly validators = new Map<object, ValidateFunction>();

  /** A schema's validator, the document's shared schemas beside it, where its references (#/components/schemas/…) point. */
  private validatorOf(schema: object): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate)
      this.validators.set(schema, (validate = ajv.compile({ ...schema, components: this.document.components })));
    return validate;
  }

  constructor(private readonly document: OpenApiDocument) {
    const validatorOf =
      (schema: object): Validator =>
      () =>
        this.validatorOf(schema);
    for (const [template, methods] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      const operations = new Map<string, Operation>();
      for (const [method, operation] of Object.entries(methods)) {
        // A path's own members (the parameters all its operations take) are no operation.
        if (!HTTP_METHODS.has(method)) continue;
        const answers = new Map<string, Answer>();
        const answerOf = (reference: ResponseObject): Answer => {
          const response = this.resolve(reference) as ResponseObject;
          const media = new Map<string, Validator | undefined>();
          for (const [type, { schema }] of Object.entries(response.content ?? {})) {
            media.set(type, schema ? validatorOf(this.resolve(schema)) : undefined);
          }
          const headers = new Set(Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()));
          return { media, headers };
        };
        const { default: common, ...listed } = operation.responses;
        for (const [status, reference] of Object.entries(listed)) answers.set(status, answerOf(reference));
        // A status the operation lists is answered as it says there, whatever its default names.
        const named = common ? ((this.resolve(common) as ResponseObject)['x-statuses'] ?? {}) : {};
        for (const [status, reference] of Object.entries(named)) {
          if (!answers.has(status)) answers.set(status, answerOf(reference));
        }
        operations.set(method.toUpperCase(), { template, method: method.toUpperCase(), answers });
      }
      this.paths.push({ pattern, template, operations });
    }
  }

  /** A node of the document, its `$ref` followed (`#/components/…`). */
  private resolve(node: object): object {
    let current = node as { $ref?: string };
    while (typeof current.$ref === 'string') {
      const pointer = current.$ref.replace(/^#\//, '').split('/');
      let target: any = this.document;
      for (const part of pointer) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      assert.ok(target, `${current.$ref} is not in the OpenAPI document`);
      current = target;
    }
    return current;
  }

  /**
   * Every example of a request body or an answer the document gives, each a problem unless it is
   * valid by its media type's schema: an example a client copies must be one the service takes.
   */
  exampleProblems(): string[] {
    const problems: string[] = [];
    const check = (where: string, content: Record<string, MediaObject> | undefined) => {
      for (const [type, media] of Object.entries(content ?? {})) {
        const examples = [
          ...(media.example === undefined ? [] : [media.example]),
          ...Object.values(media.examples ?? {}).map((example) => (this.resolve(example) as { value: unknown }).value),
        ];
        for (const example of examples) {
          const validate = this.validatorOf(this.resolve(media.schema));
          if (!validate(example)) problems.push(`${where} ${type}: ${ajv.errorsText(validate.errors)}`);
        }
      }
    };
    for (const [path, methods] of Object.entries(this.document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!HTTP_METHODS.has(method)) continue;
        const where = `${method.toUpperCase()} ${path}`;
        if (operation.requestBody) check(`${where} body`, (this.resolve(operation.requestBody) as BodyObject).content);
        for (const [status, response] of Object.entries(operation.responses)) {
          check(`${where} → ${status}`, (this.resolve(response) as ResponseObject).content);
        }
      }
    }
    return problems;
  }

  /** Asserts the answer is what the document says; routes the document does not know pass (404s). */
  check(exchange: Exchange): void {
    const problems = this.problems(exchange);
    assert.ok(problems.length === 0, problems.join('\n'));
  }

  /** What the answer does that the document does not say; none for a route the document does not know. */
  problems({ method, url, status, headers, text }: Exchange): string[] {
    const path = new URL(url, 'http://x').pathname;
    const item = this.paths.find((p) => p.pattern.test(path));
    if (!item) return [];
    const operation = item.operations.get(method);
    if (!operation) return this.problemsOfOtherMethod(item, method, status, headers);
    const where = `${method} ${item.template} → ${status}`;
    const answer = operation.answers.get(String(status));
    if (!answer) return [`${where} is not in the OpenAPI document`];
    const problems: string[] = [];
    for (const name of DECLARED_HEADERS) {
      if (headers[name] !== undefined && !answer.headers.has(name)) {
        problems.push(`${where} carries ${name}, which the OpenAPI document does not declare for it`);
      }
    }
    if (text === '') {
      // A HEAD answer says what the GET would, without the body.
      if (answer.media.size > 0 && method !== 'HEAD')
        problems.push(`${where} has no body, which the document gives one`);
      return problems;
    }
    const type = headers['content-type'] ?? '';
    if (!answer.media.has(type)) {
      const declared = [...answer.media.keys()].join(', ') || 'no body';
      return [...problems, `${where} is ${type || 'untyped'}, where the OpenAPI document declares ${declared}`];
    }
    const validate = answer.media.get(type)?.();
    if (validate) {
      let body: unknown = text;
      if (type.includes('json')) {
        try {
          body = JSON.parse(text);
        } catch {
          return [...problems, `${where} is not JSON: ${text.slice(0, 200)}`];
        }
      }
      if (!validate(body)) {
        problems.push(`${where} does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}`);
      }
    }
    return problems;
  }

  private problemsOfOtherMethod(item: PathItem, method: string, status: number, headers: Exchange['headers']) {
    const listed = [...item.operations.keys()].sort();
    const where = `${method} ${item.template} → ${status}`;
    // Refused before the router looked (a malformed request, a limit): as any route would be.
    if (status !== 405) {
      const anyRoute = [...item.operations.values()].some((o) => status >= 400 && o.answers.has(String(status)));
      return anyRoute ? [] : [`${where}: a method the path does not list must be answered 405`];
    }
    const allowed = (headers.allow ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean)
      .sort();
    return allowed.join(', ') === listed.join(', ')
      ? []
      : [`${where} allows ${allowed.join(', ') || 'nothing'}, where the OpenAPI document lists ${listed.join(', ')}`];
  }
}

/** The problems of one answer as a server wrote it, its body decoded as Content-Encoding says. */
export function answerProblems(contract: OpenApiContract, answer: WrittenAnswer): string[] {
  try {
    const coding = answer.headers['content-encoding'];
    const { body } = answer;
    const decoded = coding === 'br' ? brotliDecompressSync(body) : coding === 'gzip' ? gunzipSync(body) : body;
    const text = answer.method === 'HEAD' ? '' : decoded.toString('utf8');
    return contract.problems({ ...answer, text });
  } catch (error) {
    return [`${answer.method} ${answer.url}: the answer could not be checked: ${error}`];
  }
}

/**
 * Checks every answer a server writes against the contract as it is written: before the last
 * byte leaves, so that a client holding the whole answer finds its problems already recorded.
 * `check` (for the test client) and `assertHeld` (when the service closes) fail with every
 * problem found since they last asked, whichever request it was.
 */
export class ContractTap implements ResponseCheck {
  private problems: string[] = [];

  constructor(
    server: Server,
    readonly contract: OpenApiContract,
  ) {
    captureAnswers(server, (answer) => this.problems.push(...answerProblems(contract, answer)));
  }

  check(): void {
    this.assertHeld();
  }

  assertHeld(): void {
    const found = this.problems;
    this.problems = [];
    assert.ok(found.length === 0, found.join('\n'));
  }
}
