/**
 * The examples of the README and the docs pages, run by the script a reader runs
 * (`examples/readme.mjs`), in order and as written, against a fresh service: each answers what its
 * comment promises (its status, a list that shows something, the links it names), and no page with
 * examples is left out.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { issueFirstAdminCredential } from '../src/secrets/api-credentials.js';
import { startService, type Service } from './support/service.js';
import { forEachStore } from './support/stores.js';

interface Result {
  page: string;
  title: string;
  promise: string;
  status: number;
  problems: string[];
}

/** The pages, README.md and every one under docs/, that show a curl example in a `sh` block. */
function pagesWithExamples(): string[] {
  const pages = ['README.md', ...markdownUnder('docs')];
  return pages.filter((page) =>
    [...readFileSync(page, 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].some((block) => /^curl /m.test(block[1]!)),
  );
}

function markdownUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

describe('README.md', () => {
  const readme = readFileSync('README.md', 'utf8');

  it('stays what a newcomer reads in five minutes: under 15 KB', () => {
    assert.ok(Buffer.byteLength(readme) < 15 * 1024, `${Buffer.byteLength(readme)} bytes`);
  });

  it('links every page under docs/ from its map', () => {
    const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((link) => link[1]));
    assert.deepEqual(
      markdownUnder('docs').filter((page) => !linked.has(page)),
      [],
    );
  });
});

forEachStore((kind) => {
  let service: Service;
  let firstSecret: string;
  before(async () => {
    service = await startService(kind);
    // As on a first start: the README's examples use the secret printed then.
    firstSecret = (await issueFirstAdminCredential(service.store))!.secret;
  });
  after(() => service.close());

  describe('the examples of the README and the docs pages', () => {
    it('each answer what they promise, run in order by examples/readme.mjs', async (t) => {
      // Asynchronously: the service answering curl runs in this very process.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['examples/readme.mjs', '--json', '--url', service.baseUrl],
        { env: { ...process.env, CIRCULATION_KEY: firstSecret }, maxBuffer: 16 * 1024 * 1024 },
      ).catch((error: { stdout: string }) => error);
      const results = stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as Result);
      assert.ok(results.length >= 20, `the script ran ${results.length} examples`);
      assert.deepEqual(new Set(results.map((result) => result.page)), new Set(pagesWithExamples()));
      for (const [index, result] of results.entries()) {
        await t.test(`${index + 1}. ${result.page}: ${result.title} (${result.promise})`, () => {
          assert.deepEqual(result.problems, []);
        });
      }
    });
  });
});
