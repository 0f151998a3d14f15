/**
 * The hostile-input suite (suite.ts) against the service in this very process, where any
 * prototype pollution a body caused would show.
 */
import { startService } from '../../support/service.js';
import { hostileInputSuite } from './suite.js';

hostileInputSuite((kind) => startService(kind), { footprint: false });
