/**
 * How every command writes lists and tables for an operator (the keys and restore commands):
 * `a, b or c` in a message, rows as aligned columns.
 */

/** `a`, `a or b`, `a, b or c`, for messages. */
export function oneOf(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : items.join('');
}

/**
 * Rows as lines of left-aligned columns, each column as wide as its widest cell, two spaces
 * apart, without trailing spaces.
 *
 * @param rows Cells of text without line breaks; rows may differ in length.
 * @returns One line per row.
 */
export function columns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}
