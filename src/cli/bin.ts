#!/usr/bin/env node
/**
 * The `circulation` command (the package's bin).
 */
import { runCli } from './index.js';

await runCli(process.argv.slice(2));
