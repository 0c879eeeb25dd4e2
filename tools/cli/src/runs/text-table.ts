/** Rows under a header, each column as wide as its widest cell; the last column is never padded (no trailing blanks). */
export function table(header: readonly string[], rows: readonly (readonly string[])[], indent = ''): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    indent + cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)];
}
