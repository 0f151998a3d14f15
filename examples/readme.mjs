#!/usr/bin/env node
/**
 * Runs the curl examples of the README and of the docs pages, in the order of EXAMPLE_PAGES and
 * each page's in order, exactly as written, against a service on a fresh database, and shows each
 * answer beside what its page promises for it: the status, that a list shows something (unless its
 * title says it is empty here), and the links it names.
 *
 *   npm start                                   # in one terminal, on a fresh ./data
 *   CIRCULATION_KEY=circ_1_… node examples/readme.mjs [--url http://127.0.0.1:3000] [--json]
 *
 * It exits 1 when an example does not answer what it promises, or when a page under docs/ has
 * examples and is not in EXAMPLE_PAGES (they would go unrun). With --json it prints one JSON line
 * per example instead (the README test runs it so).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const README_URL = 'http://127.0.0.1:3000';

/**
 * The pages whose examples run, in the order they run: later examples use what earlier ones made
 * (user 5 is the catalogue page's reader, SITE_KEY the sign-in page's credential). The README's
 * map of the docs lists them in this order.
 */
const EXAMPLE_PAGES = [
  'README.md',
  'docs/integrating/requests.md',
  'docs/integrating/credentials.md',
  'docs/integrating/users-and-subscriptions.md',
  'docs/integrating/finding-readers.md',
  'docs/integrating/signing-in.md',
  'docs/integrating/catalogue.md',
  'docs/integrating/access-check.md',
  'docs/integrating/fulfilment.md',
  'docs/integrating/privacy.md',
  'docs/integrating/webhooks-and-events.md',
  'docs/integrating/idempotency-and-etags.md',
  'docs/integrating/errors.md',
  'docs/operating/monitoring.md',
];

const ROOT = new URL('../', import.meta.url);

/** Every Markdown page under docs/, as a path from the root of the repository. */
function docsPages(folder = 'docs') {
  return readdirSync(new URL(folder, ROOT), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return docsPages(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/**
 * The steps of one page, in order: each curl example, with the title and the promise of the
 * comment above it; and each `export NAME=…  # meta.<field> of the answer above` (or `data.<field>`), which sets NAME
 * from the answer before it, as the page tells its reader to.
 */
function readmeSteps(readme, page) {
  const steps = [];
  for (const block of readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    if (block[1] !== '' && block[1] !== 'sh') continue;
    let title = '';
    let promise = '';
    for (const line of block[2].replace(/\\\n\s*/g, ' ').split('\n')) {
      const comment = /^# (.*?)→ (.*)$/.exec(line);
      if (comment) [title, promise] = [comment[1].trim(), comment[2].trim()];
      if (block[1] === 'sh' && line.startsWith('curl ')) steps.push({ page, title, promise, command: line });
      const exported = /^export (\w+)=\S*\s+# (meta|data)\.(\w+) of the answer above/.exec(line);
      if (exported) steps.push({ name: exported[1], member: exported[2], field: exported[3] });
    }
  }
  return steps;
}

/** What an answer falls short of its promise in: an empty list is none. */
function shortfalls(example, status, body) {
  const problems = [];
  const promised = Number(/^\d{3}/.exec(example.promise)?.[0]);
  if (status !== promised) problems.push(`answered ${status}, not ${promised}`);
  if (status === 200 && Array.isArray(body?.data) && body.data.length === 0 && !/empty here/.test(example.title)) {
    problems.push('the list is empty, so it shows nothing');
  }
  const links = /with links ([\w, ]+?)(?:$|[;(])/.exec(example.promise)?.[1];
  for (const name of links?.split(/,\s*|\s+and\s+/).filter(Boolean) ?? []) {
    if (body?.links?.[name] === undefined) problems.push(`has no links.${name}`);
  }
  return problems;
}

function run(example, url, env) {
  const command = example.command.replaceAll(README_URL, url);
  const output = execFileSync('bash', ['-c', `${command} -w '\\n%{http_code}'`], { encoding: 'utf8', env });
  const split = output.lastIndexOf('\n');
  const text = output.slice(0, split);
  let body;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  const status = Number(output.slice(split + 1));
  return {
    page: example.page,
    title: example.title,
    promise: example.promise,
    status,
    body,
    problems: shortfalls(example, status, body),
  };
}

function show(index, result) {
  const mark = result.problems.length === 0 ? '✔' : '✘';
  process.stdout.write(`\n${mark} ${index + 1}. ${result.page}: ${result.title} → ${result.promise}\n`);
  for (const problem of result.problems) process.stdout.write(`    ${problem}\n`);
  if (result.body !== undefined) {
    const lines = JSON.stringify(result.body, null, 2).split('\n');
    const shown = lines.length > 30 ? [...lines.slice(0, 30), `  … ${lines.length - 30} more lines`] : lines;
    process.stdout.write(`${shown.map((line) => `    ${line}`).join('\n')}\n`);
  }
}

{
  const { values } = parseArgs({ options: { url: { type: 'string' }, json: { type: 'boolean' } } });
  if (!process.env.CIRCULATION_KEY) {
    process.stderr.write('Set CIRCULATION_KEY to the admin secret the service printed at its first start.\n');
    process.exit(2);
  }
  const unrun = docsPages().filter(
    (page) => !EXAMPLE_PAGES.includes(page) && readmeSteps(readFileSync(new URL(page, ROOT), 'utf8'), page).length > 0,
  );
  if (unrun.length > 0) {
    process.stderr.write(`${unrun.join(', ')} ha${unrun.length === 1 ? 's' : 've'} examples; add to EXAMPLE_PAGES\n`);
    process.exit(1);
  }
  const steps = EXAMPLE_PAGES.flatMap((page) => readmeSteps(readFileSync(new URL(page, ROOT), 'utf8'), page));
  const env = { ...process.env };
  let failed = 0;
  let index = 0;
  let last;
  for (const step of steps) {
    if (step.name) {
      env[step.name] = last?.body?.[step.member]?.[step.field] ?? '';
      continue;
    }
    last = run(step, values.url ?? README_URL, env);
    if (last.problems.length > 0) failed += 1;
    if (values.json) process.stdout.write(`${JSON.stringify(last)}\n`);
    else show(index, last);
    index += 1;
  }
  if (!values.json)
    process.stdout.write(`\n${failed === 0 ? 'every example answered what it promises' : `${failed} did not`}\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}
