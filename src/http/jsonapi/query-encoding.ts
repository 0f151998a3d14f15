/**
 * The query string's percent-encoding. The query parser keeps a sequence it cannot decode as the
 * literal text (`%FF` stays `%FF`), so a filter would quietly look for that text, where the same
 * bytes in the path are a 400: a query parameter that is not valid UTF-8 once decoded is refused
 * too, by name.
 */

/** The name of the first query parameter of `url` whose name or value does not decode, if one does not. */
export function undecodableParameter(url: string): string | undefined {
  const query = url.indexOf('?');
  // Most requests carry no escape at all: two scans, nothing allocated.
  if (query < 0 || url.indexOf('%', query) < 0) return undefined;
  for (let start = query + 1; start < url.length;) {
    const ampersand = url.indexOf('&', start);
    const end = ampersand < 0 ? url.length : ampersand;
    const pair = url.slice(start, end);
    if (pair.includes('%') && decoded(pair) === undefined) {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      return decoded(name) ?? name;
    }
    start = end + 1;
  }
  return undefined;
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
