#!/usr/bin/env node
/**
 * `npm start`: serve from the build in dist/ (which `npm ci` makes), rebuilding first only when
 * a source file is newer than it, since a full build costs seconds on every start. In production
 * (NODE_ENV=production) the build is never checked: it is served as it was shipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = join(root, 'dist', 'main.js');

/** The newest modification time among the sources (the service's and the console's) and the build's settings. */
function newestSource() {
  const sources = ['src', 'console']
    .map((dir) => join(root, dir))
    .filter(existsSync)
    .flatMap((dir) => readdirSync(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
  const settings = ['tsconfig.json', 'tsconfig.build.json'].map((f) => join(root, f)).filter(existsSync);
  return Math.max(...[...sources, ...settings].map((f) => statSync(f).mtimeMs));
}

function buildIsCurrent() {
  const built = statSync(entry, { throwIfNoEntry: false })?.mtimeMs;
  return built !== undefined && built >= newestSource();
}

if (process.env.NODE_ENV !== 'production' && !buildIsCurrent()) {
  process.stderr.write('a source is newer than the build in dist/: building first\n');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const console = join(root, 'console', 'build.mjs');
  if (existsSync(console)) {
    const bundled = spawnSync(process.execPath, [console], { stdio: 'inherit' });
    if (bundled.status !== 0) process.exit(bundled.status ?? 1);
  }
}

await import(pathToFileURL(entry).href);
