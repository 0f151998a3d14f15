/**
 * The layer rules of src/README.md hold, as dependency-cruiser checks them with
 * .dependency-cruiser.cjs; and the rules do bite, shown on a small tree that breaks each.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** The violations dependency-cruiser finds in `src` of the tree at `cwd`, with the project's rules. */
function violations(cwd: string): Violation[] {
  const result = spawnSync(
    process.execPath,
    [DEPCRUISE, 'src', '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  assert.ok(result.stdout, `dependency-cruiser printed nothing: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('the layers of src/', () => {
  it('break none of the rules', () => {
    assert.deepEqual(
      violations(ROOT).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`),
      [],
    );
  });

  describe('the rules themselves', () => {
    const dir = mkdtempSync(join(tmpdir(), 'circulation-layers-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const files: Record<string, string> = {
      'src/domain/rule.ts':
        "import { route } from '../http/route.js';\nimport 'node:fs';\nexport const rule = route;\n",
      'src/http/route.ts': "import { command } from '../cli/command.js';\nexport const route = command;\n",
      'src/cli/command.ts': 'export const command = 1;\n',
      'src/cli/keys.ts': "import { route } from '../http/route.js';\nexport const keys = route;\n",
      'src/cli/serving.ts': "import { route } from '../http/route.js';\nexport const serving = route;\n",
      'src/cli/index.ts': "import { serving } from './serving.js';\nexport const index = serving;\n",
      'src/cli/serve.ts': "export const serve = () => import('./serving.js');\n",
      'src/store/sqlite/users.ts': "import { route } from '../../http/route.js';\nexport const users = route;\n",
      'src/jobs/job.ts': "import { users } from '../store/sqlite/users.js';\nexport const job = users;\n",
      'src/webhooks/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'src/webhooks/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
      'src/transfer/t.ts': "import { command } from '../cli/command.js';\nexport const t = command;\n",
      'src/use-cases/u.ts': "import { route } from '../http/route.js';\nexport const u = route;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    const broken = violations(dir);
    const found = broken.map((v) => v.rule.name);

    for (const rule of [
      'domain-imports-only-the-domain',
      'domain-does-no-io',
      'store-imports-only-the-domain',
      'data-only-through-the-port',
      'http-does-not-reach-commands-jobs-or-transfer',
      'use-cases-import-only-the-domain-the-port-and-services',
      'subsystems-do-not-reach-their-callers',
      'commands-leave-the-http-application-to-serve',
      'serving-is-loaded-only-when-serving',
      'no-cycles',
    ]) {
      it(`include ${rule}, which a tree that breaks it fails`, () => {
        assert.ok(found.includes(rule), `${rule} not among ${found.join(', ')}`);
      });
    }

    it('let serve load cli/serving.ts, and the HTTP application with it, by a dynamic import', () => {
      assert.deepEqual(
        broken.filter((v) => v.from === 'src/cli/serve.ts' || v.from === 'src/cli/serving.ts'),
        [],
      );
    });
  });
});

describe('src/README.md', () => {
  const text = readFileSync(join(ROOT, 'src', 'README.md'), 'utf8');

  it('stays short: under 60 lines', () => {
    assert.ok(text.split('\n').length < 60, `${text.split('\n').length} lines`);
  });

  it('says where every folder of src/ is for', () => {
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    assert.deepEqual(
      folders.filter((folder) => !text.includes(`\`${folder}/`)),
      [],
    );
  });
});
