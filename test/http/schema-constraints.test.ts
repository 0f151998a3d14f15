/**
 * That each create route validates by its resource's schemas, on both stores. Every constraint of
 * them is tested as data against the compiled validator in test/domain/schema-constraints.test.ts;
 * here, per resource, two requests show the route is that validator and the store keeps what it
 * takes: a document with a value outside a bound at every attribute, whose 422 lists the very
 * problems the validator finds, and one with every string attribute at its longest, read back as sent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { shapeProblems } from '../../src/domain/bounds.js';
import { createUser } from '../support/fixtures.js';
import { RESOURCES, at, readsBackAt, resourceCases, sampleDocument, validatorOf } from '../support/schema-cases.js';
import { startService, type Service } from '../support/service.js';
import { forEachStore } from '../support/stores.js';

/** Where each resource the table covers is created. */
const PATHS: Record<string, (service: Service) => Promise<string>> = {
  users: async () => '/users',
  subscriptions: async (service) => `/users/${await createUser(service.client)}/subscriptions`,
  products: async () => '/products',
  newsletters: async () => '/newsletters',
  webhooks: async () => '/webhooks',
  'api-keys': async () => '/api-keys',
  staff: async () => '/staff',
};

/** The attribute a case is about, when it is one of the top level: its name. */
const attributeOf = (pointer: string) => /^\/data\/attributes\/([^/]+)$/.exec(pointer)?.[1];

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  for (const resource of RESOURCES.filter((r) => r.type in PATHS)) {
    describe(`POST ${resource.type} validates by its schemas`, () => {
      const problemsOf = validatorOf(resource);
      const cases = resourceCases(resource);

      it("refuses a value outside a bound at every attribute with the validator's problems", async () => {
        const document = sampleDocument(resource);
        const changed = new Set<string>();
        for (const { document: refused, expected } of cases) {
          const name = attributeOf(expected.pointer);
          if (expected.taken || name === undefined || changed.has(name)) continue;
          const sent = refused() as ReturnType<typeof sampleDocument>;
          // What the body's bounds refuse before any schema (101 items) is not the schema's to say.
          if (shapeProblems(sent).length > 0) continue;
          const attributes = sent.data.attributes;
          if (name in attributes) document.data.attributes[name] = attributes[name];
          else delete document.data.attributes[name];
          changed.add(name);
        }
        const problems = problemsOf(document);
        assert.ok(problems.length >= changed.size, JSON.stringify(problems));
        const response = await service.client.post(await PATHS[resource.type]!(service), document);
        assert.equal(response.status, 422, response.text);
        const errors = (response.body.errors as { source: { pointer: string }; detail: string }[]).map((e) => ({
          pointer: e.source.pointer,
          detail: e.detail,
        }));
        assert.deepEqual(errors, problems);
      });

      it('takes every string attribute at its longest and reads it back as sent', async () => {
        const longest = cases.filter(
          (c) => c.expected.taken && c.expected.readBack !== undefined && attributeOf(c.expected.pointer),
        );
        const document = sampleDocument(resource);
        // Each, unless a rule across attributes refuses it beside those already there.
        const kept = longest.filter(({ expected }) => {
          const name = attributeOf(expected.pointer)!;
          const before = document.data.attributes[name];
          document.data.attributes[name] = expected.readBack;
          if (problemsOf(document).length === 0) return true;
          document.data.attributes[name] = before;
          return false;
        });
        assert.ok(kept.length > 0);
        const response = await service.client.post(await PATHS[resource.type]!(service), document);
        assert.equal(response.status, 201, response.text);
        for (const { expected } of kept) {
          if (readsBackAt(response.body, expected.pointer))
            assert.equal(at(response.body, expected.pointer), expected.readBack, expected.pointer);
        }
      });
    });
  }
});
