/**
 * Counts a report answers from while they are younger than a maximum age: counting again reads an
 * index as long as the table, and whoever reads a report (the dashboard, a printer's draw) needs
 * no fresher figures than that age. The requests that come while a count runs share it; a count
 * that failed is forgotten at once. At most `keys` reports are kept, the one counted first going
 * first.
 */
export type KeptCounts<T> = (key: string, now: number, count: () => Promise<T>) => Promise<T>;

export function keptCounts<T>(maxAgeSeconds: number, keys: number): KeptCounts<T> {
  const kept = new Map<string, { at: number; counts: Promise<T> }>();
  return (key, now, count) => {
    const last = kept.get(key);
    if (last !== undefined && now - last.at < maxAgeSeconds) return last.counts;
    const counts = count();
    kept.delete(key);
    kept.set(key, { at: now, counts });
    if (kept.size > keys) kept.delete(kept.keys().next().value as string);
    counts.catch(() => {
      if (kept.get(key)?.counts === counts) kept.delete(key);
    });
    return counts;
  };
}
