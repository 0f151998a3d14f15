/** The API's 422 messages, placed at the fields their source pointers name. */
import type { ApiError } from '../api/client';

/** Messages by pointer (`/data/attributes/email` → `email`, `/data/attributes/address/postalCode` → `address.postalCode`); the rest under ''. */
export function messagesByField(errors: ApiError[], prefix = '/data/attributes/'): Record<string, string> {
  const byField: Record<string, string> = {};
  for (const error of errors) {
    const pointer = error.source?.pointer ?? '';
    const field = pointer.startsWith(prefix) ? pointer.slice(prefix.length).replaceAll('/', '.') : '';
    const message = error.detail ?? error.title;
    byField[field] = byField[field] ? `${byField[field]} ${message}` : message;
  }
  return byField;
}
