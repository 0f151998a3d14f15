#!/usr/bin/env node
/**
 * Bundles the console (console/src) into dist/console, or the directory given: its script and
 * style under content-hashed names in assets/ (so the service can let browsers keep them for a
 * year), and index.html, the shell that names them, with no inline script. esbuild only strips
 * the types: `npm run typecheck` checks them.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('.', import.meta.url));

export async function buildConsole(outDir = join(root, '..', 'dist', 'console')) {
  rmSync(outDir, { recursive: true, force: true });
  const assets = join(outDir, 'assets');
  mkdirSync(assets, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [join(root, 'src', 'main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: assets,
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
  });
  const built = Object.keys(result.metafile.outputs).map((file) => basename(file));
  const script = built.find((name) => name.endsWith('.js'));
  const style = built.find((name) => name.endsWith('.css'));
  const shell = readFileSync(join(root, 'index.html'), 'utf8')
    .replace('{{script}}', `assets/${script}`)
    .replace('{{style}}', `assets/${style}`);
  writeFileSync(join(outDir, 'index.html'), shell);
  return outDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole(process.argv[2]);
