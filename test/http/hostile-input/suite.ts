/**
 * The hostile-input suite: every block of blocks/ against one service per store. It runs twice:
 * against the service in the test's own process (in-process.test.ts), where prototype pollution
 * would show, and against a service process of its own (test/process/hostile-input.test.ts),
 * whose resident memory and event loop are watched throughout (see harness.ts).
 */
import { forEachStore, type StoreKind } from '../../support/stores.js';
import { controlCharacters } from './blocks/control-characters.js';
import { dates } from './blocks/dates.js';
import { documents } from './blocks/documents.js';
import { enumerations } from './blocks/enumerations.js';
import { framing } from './blocks/framing.js';
import { nesting } from './blocks/nesting.js';
import { oversized } from './blocks/oversized.js';
import { paths } from './blocks/paths.js';
import { prototypePollution } from './blocks/prototype-pollution.js';
import { queryParameters } from './blocks/query-parameters.js';
import { sqlMetacharacters } from './blocks/sql-metacharacters.js';
import { wrongTypes } from './blocks/wrong-types.js';
import { hostileInput, type HostileOptions, type HostileTarget } from './harness.js';

const BLOCKS = [
  documents,
  nesting,
  controlCharacters,
  oversized,
  framing,
  paths,
  wrongTypes,
  enumerations,
  dates,
  sqlMetacharacters,
  queryParameters,
  prototypePollution,
];

export function hostileInputSuite(start: (kind: StoreKind) => Promise<HostileTarget>, options: HostileOptions): void {
  forEachStore((kind) => {
    const hostile = hostileInput(kind, start, options);
    for (const block of BLOCKS) block(hostile);
    hostile.afterwards();
  });
}
