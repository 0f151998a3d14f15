import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Client } from './support/service.js';
import { userDocument } from './support/fixtures.js';

const MAIN = ['--import', 'tsx', 'src/main.ts'];
const dir = mkdtempSync(join(tmpdir(), 'circulation-process-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the service as `npm start` does, on a free port, and answers its address. */
async function startProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, MAIN, {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    client: new Client(baseUrl),
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('the service process', () => {
  it('creates its SQLite file on first start, keeps the data across a restart, and exits 0 on SIGTERM', async () => {
    const databaseUrl = `sqlite:${join(dir, 'nested', 'circulation.db')}`;
    const first = await startProcess({ DATABASE_URL: databaseUrl });
    assert.ok(existsSync(join(dir, 'nested', 'circulation.db')));
    const created = await first.client.post('/users', userDocument());
    assert.equal(created.status, 201);
    assert.equal(await first.stop(), 0);

    const second = await startProcess({ DATABASE_URL: databaseUrl });
    const read = await second.client.get(`/users/${created.body.data.id}`);
    assert.deepEqual(read.body.data.attributes, created.body.data.attributes);
    assert.equal(await second.stop(), 0);
  });

  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['PUBLIC_URL', 'not a url'],
    ['TRUST_PROXY', 'perhaps'],
  ]) {
    it(`refuses to start on an invalid ${name}, with one line naming it`, () => {
      const result = spawnSync(process.execPath, MAIN, {
        env: { ...process.env, DATABASE_URL: join(dir, 'never.db'), [name as string]: value as string },
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.notEqual(result.status, 0);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0] as string, new RegExp(`invalid setting ${name}`));
    });
  }
});
