/**
 * The service's own OpenAPI document as a contract: every response an API test receives must be
 * documented for its route and status, and its body must match the documented schema.
 */
import assert from 'node:assert/strict';
import { Ajv, type ValidateFunction } from 'ajv';
import { isIsoDateTime } from '../../src/domain/dates.js';
import { isEmail } from '../../src/domain/email.js';

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
}

const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
ajv.addFormat('email', isEmail);
ajv.addFormat('date-time', isIsoDateTime);
ajv.addFormat('uri', (text: string) => URL.canParse(text));

interface Operation {
  pattern: RegExp;
  template: string;
  method: string;
  responses: Map<string, ValidateFunction | undefined>;
}

const contracts = new Map<string, OpenApiContract>();

export class OpenApiContract {
  private readonly operations: Operation[] = [];

  /** The contract of a document, compiled once however many services serve the same document. */
  static of(document: OpenApiDocument): OpenApiContract {
    const key = JSON.stringify(document.paths);
    let contract = contracts.get(key);
    if (!contract) contracts.set(key, (contract = new OpenApiContract(document)));
    return contract;
  }

  constructor(document: OpenApiDocument) {
    for (const [template, methods] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, operation] of Object.entries(methods)) {
        const responses = new Map<string, ValidateFunction | undefined>();
        for (const [status, response] of Object.entries(operation.responses)) {
          const schema = Object.values(response.content ?? {})[0]?.schema;
          responses.set(status, schema ? ajv.compile(schema) : undefined);
        }
        this.operations.push({ pattern, template, method: method.toUpperCase(), responses });
      }
    }
  }

  /** Asserts the response is documented and matches; routes the document does not know pass (404s). */
  check(method: string, url: string, status: number, body: unknown): void {
    const path = new URL(url, 'http://x').pathname;
    const operation = this.operations.find(
      (o) => (o.method === method || (method === 'HEAD' && o.method === 'GET')) && o.pattern.test(path),
    );
    if (!operation) return;
    const where = `${method} ${operation.template} → ${status}`;
    assert.ok(operation.responses.has(String(status)), `${where} is not in the OpenAPI document`);
    const validate = operation.responses.get(String(status));
    if (validate && body !== undefined) {
      assert.ok(validate(body), `${where} does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}`);
    }
  }
}
