/**
 * Stryker over one source file against the test files named, not all of them:
 *
 *   node scripts/mutation-file.mjs src/domain/dates.ts dates schema-constraints exported-data
 *   node scripts/mutation-file.mjs src/http/jsonapi/paging.ts http/jsonapi/paging
 *
 * A bare name is a domain test, test/domain/NAME.test.ts; a name with a `/` is a path under test/
 * without `.test.ts`, for a file outside the domain.
 *
 * Every test file that imports a module covers its module-level code, so a mutant of a module many
 * others import would start each of those files; named, a file's run takes minutes, not an hour.
 * The score is then a floor: a mutant only an unnamed file kills counts as survived. The config is
 * stryker.config.json's with `mutate` and the test files replaced, written beside the report in
 * reports/mutation/<name>.config.json; the report is reports/mutation/<name>.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

const [file, ...tests] = process.argv.slice(2);
if (!file || tests.length === 0) {
  console.error(
    'usage: node scripts/mutation-file.mjs src/PATH/FILE.ts TEST_NAME...\n' +
      '  TEST_NAME: test/domain/TEST_NAME.test.ts, or with a `/` test/TEST_NAME.test.ts (http/jsonapi/paging)',
  );
  process.exit(2);
}
const name = basename(file, '.ts');
const config = JSON.parse(readFileSync('stryker.config.json', 'utf8'));
delete config.$schema;
config.mutate = [file];
const testPath = (test) => (test.includes('/') ? test : `domain/${test}`);
config.tap.testFiles = tests.map((test) => `.mutation-build/test/${testPath(test)}.test.js`);
config.jsonReporter.fileName = `reports/mutation/${name}.json`;
mkdirSync('reports/mutation', { recursive: true });
const path = `reports/mutation/${name}.config.json`;
writeFileSync(path, JSON.stringify(config, null, 2));
const run = spawnSync('npx', ['stryker', 'run', path], { stdio: 'inherit' });
process.exit(run.status ?? 1);
