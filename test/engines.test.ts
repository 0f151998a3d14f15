/**
 * The Node versions we support: `engines` in package.json names them, and every package the lock
 * file installs accepts the Node that runs this suite, so `npm ci` prints no EBADENGINE warning
 * from our tree (npm checks each package's `engines` against the running Node, as this does).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import semver from 'semver';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));
const project = read('package.json') as { engines: { node: string } };
const lock = read('package-lock.json') as { packages: Record<string, { engines?: { node?: string } }> };

describe('the supported Node versions', () => {
  it('include the Node running this suite', () => {
    assert.ok(semver.satisfies(process.version, project.engines.node), `${process.version} vs ${project.engines.node}`);
  });

  it('are accepted by every package the lock file installs', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && typeof entry.engines?.node === 'string')
      .filter(([, entry]) => !semver.satisfies(process.version, entry.engines!.node!))
      .map(([path, entry]) => `${path} wants node ${entry.engines!.node}`);
    assert.deepEqual(refusing, []);
  });
});
