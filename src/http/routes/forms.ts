/**
 * Form bodies, for the pages readers post from (reader-pages.ts) and the one-click unsubscribe
 * POST of a mailbox provider (RFC 8058 asks for multipart/form-data and allows
 * application/x-www-form-urlencoded). A body is bounded by BODY_LIMIT_BYTES before it comes here;
 * each field keeps its first value, and a multipart body's parts are read as text, files included.
 */
export const FORM_MEDIA_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

/** The most fields kept of one body: a reader's form has one. */
const MAX_FIELDS = 20;

export function formFields(contentType: string, body: string): Record<string, string> {
  const fields: Record<string, string> = Object.create(null);
  const keep = (name: string, value: string) => {
    if (!(name in fields) && Object.keys(fields).length < MAX_FIELDS) fields[name] = value;
  };
  if (!contentType.trim().toLowerCase().startsWith('multipart/')) {
    for (const [name, value] of new URLSearchParams(body)) keep(name, value);
    return fields;
  }
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType);
  if (!boundary) return fields;
  for (const part of body.split(`--${boundary[1] ?? boundary[2]}`)) {
    const end = part.indexOf('\r\n\r\n');
    if (end === -1) continue;
    const name = /\bname="([^"]*)"/i.exec(part.slice(0, end));
    // The part's content runs to the CRLF before the next delimiter.
    if (name) keep(name[1] as string, part.slice(end + 4).replace(/\r\n$/, ''));
  }
  return fields;
}
