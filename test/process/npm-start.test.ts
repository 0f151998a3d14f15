/**
 * `npm start` serves the build `npm ci` made, building again only when a source is newer than it
 * (never in production). Run on a small copy of the project (its package.json scripts, start
 * script and TypeScript settings, with a tiny src/main.ts), so the real build other tests use is
 * never rebuilt under them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '..', '..');
const project = mkdtempSync(join(tmpdir(), 'circulation-npm-start-'));
after(() => rmSync(project, { recursive: true, force: true }));

const built = join(project, 'dist', 'main.js');
const source = join(project, 'src', 'main.ts');

function npm(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync('npm', args, { cwd: project, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('npm start', () => {
  before(() => {
    const real = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const { start, build } = real.scripts;
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'copy', type: 'module', scripts: { start, build } }),
    );
    for (const file of ['tsconfig.json', 'tsconfig.build.json', 'scripts/start.mjs']) {
      mkdirSync(join(project, file, '..'), { recursive: true });
      copyFileSync(join(ROOT, file), join(project, file));
    }
    // The console is built beside the service (npm run build bundles it too).
    cpSync(join(ROOT, 'console'), join(project, 'console'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'));
    mkdirSync(join(project, 'src'));
    writeFileSync(source, "process.stdout.write('served\\n');\n");
    assert.equal(npm(['run', 'build']).status, 0);
  });

  it('serves a current build as it is, without building it again', () => {
    const before = statSync(built).mtimeMs;
    const run = npm(['start']);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /served/);
    assert.doesNotMatch(run.output, /building first/);
    assert.equal(statSync(built).mtimeMs, before, 'the build was written again');
  });

  it('builds first when a source is newer than the build, then serves the new build', () => {
    writeFileSync(source, "process.stdout.write('served the change\\n');\n");
    const later = new Date(statSync(built).mtimeMs + 10_000);
    utimesSync(source, later, later);
    const run = npm(['start']);
    assert.equal(run.status, 0, run.output);
    assert.match(run.output, /building first/);
    assert.match(run.output, /served the change/);
  });

  it('never builds in production, serving the build it was shipped with', () => {
    writeFileSync(source, "process.stdout.write('not shipped\\n');\n");
    const later = new Date(statSync(built).mtimeMs + 20_000);
    utimesSync(source, later, later);
    const run = npm(['start'], { NODE_ENV: 'production' });
    assert.equal(run.status, 0, run.output);
    assert.doesNotMatch(run.output, /building first|not shipped/);
    assert.match(run.output, /served the change/);
  });
});
