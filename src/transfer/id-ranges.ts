/**
 * A set of whole numbers kept as sorted, merged ranges: small when the numbers come in runs, as
 * the ids of the people an import creates or matches do (a batch's new ids are consecutive; a
 * file exported in id order matches ids in order).
 */
export class IdRanges {
  private readonly ranges: [number, number][] = [];
  /** How many numbers it holds. */
  size = 0;

  add(n: number): void {
    const at = this.firstEndingAtOrAfter(n - 1);
    const range = this.ranges[at];
    if (range && range[0] <= n && n <= range[1]) return;
    this.size += 1;
    if (range && range[1] === n - 1) {
      range[1] = n;
      const next = this.ranges[at + 1];
      if (next && next[0] === n + 1) {
        range[1] = next[1];
        this.ranges.splice(at + 1, 1);
      }
    } else if (range && range[0] === n + 1) range[0] = n;
    else this.ranges.splice(at, 0, [n, n]);
  }

  has(n: number): boolean {
    const range = this.ranges[this.firstEndingAtOrAfter(n)];
    return range !== undefined && range[0] <= n;
  }

  /** The index of the first range whose last number is `n` or more (the count when there is none). */
  private firstEndingAtOrAfter(n: number): number {
    let low = 0;
    let high = this.ranges.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.ranges[middle] as [number, number])[1] < n) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
