/**
 * Tells V8 to collect its old generation before it grows far past what is live, before the rest
 * of the process is loaded. By default V8 lets it grow to several times the live size between
 * full collections: under a load of list pages on PostgreSQL a process nearly doubled its size at
 * rest, nearly all of it garbage awaiting collection. Growing by a tenth keeps it a little above
 * its size at rest, and the benchmark could not tell its throughput from the default's (2026-11-24,
 * interleaved runs). `--optimize-for-size` held it lower still but also slows compiled code, and
 * cost reads measurably in the same runs.
 *
 * Set from code rather than on the command line because `npm start`, the `circulation` command
 * and a container all start the same file, and NODE_OPTIONS does not accept this flag.
 */
import { setFlagsFromString } from 'node:v8';

const FLAG = '--heap-growing-percent';

// An operator who starts node with a growth of their own keeps it.
if (!process.execArgv.some((arg) => arg.startsWith(FLAG))) setFlagsFromString(`${FLAG}=10`);
