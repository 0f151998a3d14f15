/**
 * `circulation serve` (what `npm start` runs). The HTTP application and all that runs beside it
 * (serving.ts) are loaded only by this command: every other command then starts without them,
 * in about three quarters of the time.
 */
import type { Command } from './command.js';

export const serveCommand: Command = {
  summary: 'serve the API (what `npm start` runs)',
  run: async (config) => (await import('./serving.js')).serve(config),
};
