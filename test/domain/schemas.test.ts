/**
 * The domain's schemas as a reviewed snapshot: every TypeBox schema a domain module exports (what
 * requests are validated by, responses shaped by and the OpenAPI document says), written out as JSON
 * in `schemas.snapshot.json`. A constraint, message or description changed or taken out is a changed
 * snapshot, which a review sees as a diff; `UPDATE_SCHEMA_SNAPSHOT=1` rewrites it. What each
 * constraint does to a request is `test/http/schema-constraints.test.ts`'s to show.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Kind } from '@sinclair/typebox';

const DOMAIN = new URL('../../src/domain/', import.meta.url);
const SNAPSHOT = new URL('./schemas.snapshot.json', import.meta.url);

/** Every exported schema of every domain module, by module and name, in a fixed order. */
async function domainSchemas(): Promise<Record<string, unknown>> {
  const schemas: Record<string, unknown> = {};
  // Compiled to .js for mutation testing (scripts/mutation-build.mjs): named as .ts either way.
  const files = readdirSync(DOMAIN)
    .filter((f) => /\.[jt]s$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.replace(/\.js$/, '.ts'))
    .sort();
  for (const file of files) {
    const module = (await import(new URL(file.replace(/\.ts$/, '.js'), DOMAIN).href)) as Record<string, unknown>;
    for (const name of Object.keys(module).sort()) {
      const value = module[name];
      if (typeof value === 'object' && value !== null && Kind in value) schemas[`${file} ${name}`] = value;
    }
  }
  return schemas;
}

describe('the domain schemas', () => {
  it('are as reviewed: a change to one is a change to the snapshot', async () => {
    const written = `${JSON.stringify(await domainSchemas(), null, 2)}\n`;
    if (process.env.UPDATE_SCHEMA_SNAPSHOT === '1') writeFileSync(SNAPSHOT, written);
    assert.equal(written, readFileSync(SNAPSHOT, 'utf8'), 'UPDATE_SCHEMA_SNAPSHOT=1 rewrites the snapshot');
  });
});
