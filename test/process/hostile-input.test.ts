/**
 * The whole hostile-input suite (test/http/hostile-input/suite.ts) against a service process of
 * its own, with its resident memory sampled throughout and its event loop timed on every refused
 * request: no request, of any size, may raise the memory by more than 20 MB or block the loop for
 * more than 50 ms.
 */
import { startServiceProcess } from '../support/process.js';
import { hostileInputSuite } from '../http/hostile-input/suite.js';

hostileInputSuite((kind) => startServiceProcess(kind), { footprint: true });
