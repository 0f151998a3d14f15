/**
 * Every constraint the write schemas declare, tested as data against the validator the routes
 * compile (see test/support/schema-cases.ts for how the cases are derived from the schemas): each
 * value at and just inside a bound is taken, each just outside it refused at its field's pointer
 * with the detail the schema gives. So a constraint that stops being enforced fails here, without
 * a service; test/http/schema-constraints.test.ts shows that each route validates by its schema.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RESOURCES, resourceCases, validatorOf } from '../support/schema-cases.js';

for (const resource of RESOURCES) {
  describe(`${resource.type}: every constraint of its create schemas`, () => {
    it('takes each value at and inside the bounds, and refuses each outside at its pointer', () => {
      const problemsOf = validatorOf(resource);
      const failures: string[] = [];
      const cases = resourceCases(resource);
      for (const { name, document, expected } of cases) {
        const problems = problemsOf(document());
        if (expected.taken) {
          if (problems.length > 0) failures.push(`${name}: refused ${JSON.stringify(problems)}`);
          continue;
        }
        const here = problems.filter((p) => p.pointer === expected.pointer);
        if (here.length === 0) failures.push(`${name}: not refused there but ${JSON.stringify(problems)}`);
        else if (expected.detail !== undefined && !here.some((p) => p.detail === expected.detail))
          failures.push(`${name}: not "${expected.detail}" but ${JSON.stringify(here.map((p) => p.detail))}`);
      }
      assert.deepEqual(failures, []);
      assert.ok(cases.length > 10, `${cases.length} cases`);
    });
  });
}
