/**
 * The README's curl examples run as written, in order, against a fresh service, and each
 * answers the status its comment promises. The shell holds what the README tells its reader to
 * put there: CIRCULATION_KEY (the first admin credential) and SITE_KEY (a website backend's
 * sign-in credential, issued when an example first needs it, as the README's reader would).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { issueCredential, issueFirstAdminCredential } from '../src/credentials/issue.js';
import { startService, type Service } from './support/service.js';
import { forEachStore } from './support/stores.js';

forEachStore((kind) => {
  interface Example {
    title: string;
    status: number;
    command: string;
  }

  function readmeExamples(): Example[] {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const examples: Example[] = [];
    for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
      let title = '';
      let status = 0;
      const lines = (block[1] as string).replace(/\\\n\s*/g, ' ').split('\n');
      for (const line of lines) {
        const comment = /^# (.*?)→ (\d{3})/.exec(line);
        if (comment) [title, status] = [comment[1] as string, Number(comment[2])];
        if (line.startsWith('curl ')) examples.push({ title, status, command: line });
      }
    }
    return examples;
  }

  const examples = readmeExamples();
  let service: Service;
  let firstSecret: string;
  let siteSecret: string | undefined;
  before(async () => {
    service = await startService(kind);
    // As on a first start: the README's examples use the secret printed then.
    firstSecret = (await issueFirstAdminCredential(service.store))!.secret;
  });
  after(() => service.close());

  describe('README examples', () => {
    it('include every endpoint', () => {
      assert.ok(examples.length >= 16, `found ${examples.length} examples`);
    });

    for (const [index, example] of examples.entries()) {
      it(`${index + 1}. ${example.title.trim()} (${example.status})`, async () => {
        const command = example.command.replaceAll('http://127.0.0.1:3000', service.baseUrl);
        if (command.includes('$SITE_KEY') && siteSecret === undefined) {
          const site = { name: 'website', scopes: ['sign-in'] as const, rateLimit: null };
          siteSecret = (await issueCredential(service.store, site, { actor: 'test', attributes: [] })).secret;
        }
        // Asynchronously: the service answering curl runs in this very process.
        const { stdout: output } = await promisify(execFile)('bash', ['-c', `${command} -w '\\n%{http_code}'`], {
          env: { ...process.env, CIRCULATION_KEY: firstSecret, SITE_KEY: siteSecret ?? '' },
        });
        const status = Number(output.slice(output.lastIndexOf('\n') + 1));
        assert.equal(status, example.status, output);
      });
    }
  });
});
