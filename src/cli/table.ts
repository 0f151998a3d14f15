/**
 * A list for the terminal: a header and rows in columns as wide as their widest cell.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  return (
    [header, ...rows]
      .map((r) =>
        r
          .map((cell, i) => cell.padEnd(widths[i] as number))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
