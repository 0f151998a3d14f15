/**
 * The domain's exported data as a reviewed snapshot: every schema (what requests are validated by,
 * responses shaped by and the OpenAPI document says), resource type name, list, set (as its sorted
 * members) and table a domain module exports, written out as JSON in `exported-data.snapshot.json`.
 * A constraint, message, description or name changed or taken out is a changed snapshot, which a
 * review sees as a diff;
 * `UPDATE_SNAPSHOT=1` rewrites it. What each constraint does to a document is
 * `test/domain/schema-constraints.test.ts`'s to show.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const DOMAIN = new URL('../../src/domain/', import.meta.url);
const SNAPSHOT = new URL('./exported-data.snapshot.json', import.meta.url);

/** Exports that are the machine's, not the domain's: how many hashes run at once follows its cores. */
const OF_THE_MACHINE = new Set(['password.ts MAX_CONCURRENT_HASHES']);

/** Data JSON writes out whole: text, numbers, arrays and plain objects (a TypeBox schema is one). */
function isData(value: unknown): boolean {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Every exported datum of every domain module, by module and name, in a fixed order. */
async function exportedData(): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = {};
  // Compiled to .js for mutation testing (scripts/mutation-build.mjs): named as .ts either way.
  const files = readdirSync(DOMAIN)
    .filter((f) => /\.[jt]s$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.replace(/\.js$/, '.ts'))
    .sort();
  for (const file of files) {
    const module = (await import(new URL(file.replace(/\.ts$/, '.js'), DOMAIN).href)) as Record<string, unknown>;
    for (const name of Object.keys(module).sort()) {
      const key = `${file} ${name}`;
      if (OF_THE_MACHINE.has(key)) continue;
      const value = module[name];
      // A set (such as the public suffixes a licence may not name) is written as its members, sorted.
      if (value instanceof Set) data[key] = [...(value as Set<unknown>)].map(String).sort();
      else if (isData(value)) data[key] = value;
    }
  }
  return data;
}

describe("the domain's exported data", () => {
  it('is as reviewed: a change to a schema, name or table is a change to the snapshot', async () => {
    const written = `${JSON.stringify(await exportedData(), null, 2)}\n`;
    if (process.env.UPDATE_SNAPSHOT === '1') writeFileSync(SNAPSHOT, written);
    assert.equal(written, readFileSync(SNAPSHOT, 'utf8'), 'UPDATE_SNAPSHOT=1 rewrites the snapshot');
  });
});
