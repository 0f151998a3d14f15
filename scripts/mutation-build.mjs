/**
 * Stryker's build step (`npm run test:mutation`): compiles the sandbox's TypeScript, mutants and
 * all, to JavaScript in `.mutation-build/` with esbuild, each file as it is (no bundle), so that
 * each test file a mutant runs starts as plain node, without tsx compiling and loading on every
 * start: under a second saved per test process, which across a thousand mutants is most of the run.
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as esbuild from 'esbuild';

const OUT = '.mutation-build';

function filesEndingIn(dir, ending) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesEndingIn(path, ending);
    return entry.name.endsWith(ending) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}
const typeScriptFiles = (dir) => filesEndingIn(dir, '.ts');

// What the tests read beside them (a snapshot, the checked-in SQL), where they look for it.
for (const path of [...filesEndingIn('test', '.json'), ...filesEndingIn('test', '.sql')]) {
  mkdirSync(dirname(join(OUT, path)), { recursive: true });
  copyFileSync(path, join(OUT, path));
}

await esbuild.build({
  entryPoints: [...typeScriptFiles('src'), ...typeScriptFiles('test')],
  outdir: OUT,
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
