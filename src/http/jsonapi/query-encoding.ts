/**
 * The query string's percent-encoding. The query parser keeps a sequence it cannot decode as
 * the literal text (`%FF` stays `%FF`), so a filter would quietly look for that text, where the
 * same bytes in the path are a 400: a query parameter that is not valid UTF-8 once decoded is
 * refused too, by name.
 */

/** The name of the first query parameter of `url` whose name or value does not decode, if one does not. */
export function undecodableParameter(url: string): string | undefined {
  const start = url.indexOf('?');
  // Most requests carry no escape at all: two scans, nothing allocated.
  if (start < 0 || url.indexOf('%', start) < 0) return undefined;
  for (const pair of url.slice(start + 1).split('&')) {
    if (!pair.includes('%') || decodes(pair)) continue;
    const end = pair.indexOf('=');
    const name = end < 0 ? pair : pair.slice(0, end);
    return decodes(name) ? decodeURIComponent(name) : name;
  }
  return undefined;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
