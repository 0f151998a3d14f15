/**
 * The `--format` of import and export: as given, or from the file's name.
 */
import type { Format } from '../transfer/streams.js';
import { UsageError } from './command.js';

export function formatOf(value: string | undefined, path?: string): Format {
  const chosen = value ?? (path?.toLowerCase().endsWith('.csv') ? 'csv' : 'ndjson');
  if (chosen !== 'csv' && chosen !== 'ndjson') throw new UsageError('--format is ndjson or csv');
  return chosen;
}
