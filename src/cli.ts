#!/usr/bin/env node
/**
 * The `circulation` command (the package's bin).
 */
import { runCli } from './commands.js';

await runCli(process.argv.slice(2));
