/**
 * "Did you mean …?" for a mistyped command, action or column: the known word nearest to what was
 * typed, when it is near enough to be a slip of the fingers rather than another word.
 */

/**
 * Edits between `a` and `b`: a letter added, dropped, changed, or two neighbours swapped (the
 * optimal string alignment distance), so that `exprot` is one edit from `export`.
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    // The first row is j edits from nothing, the first column i; the loop fills in the rest.
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : i)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      // Two neighbours swapped; before the first letter a[-1] and b[-1] are undefined, equal to no letter.
      if (a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The candidate nearest to `typed` (regardless of letter case), first in `candidates` on a tie,
 * when it is at most one edit away for a word of up to four letters and two for a longer one;
 * otherwise undefined.
 */
export function nearest(typed: string, candidates: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  const allowed = word.length <= 4 ? 1 : 2;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate.toLowerCase());
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** ` (did you mean export?)` when a candidate is near `typed`, else nothing. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const near = nearest(typed, candidates);
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}
