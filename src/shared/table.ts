/**
 * The kernel table under the chart, as data: columns, rows of display text
 * with a sort key per cell, sorting, and the Markdown / TSV copies. Pure and
 * free of the DOM and of the core, so the page (which renders and sorts it)
 * and the extension (which builds it and copies it) share one definition.
 */

export interface TableColumn {
  key: string;
  label: string;
  /** Numbers sort numerically and align right. */
  numeric: boolean;
  /** A longer explanation, shown as the header's tooltip. */
  title?: string;
}

export interface TableCell {
  text: string;
  /** What the column sorts by; null (unknown) sorts last in either direction. */
  sort: number | string | null;
  /** A longer text shown on hover (the full advice, a formula). */
  title?: string;
}

export interface TableRow {
  /** Unique per row (a kernel may have several measured rows). */
  id: string;
  /** The chart's kernel id the row belongs to. */
  kernelId: string;
  cells: Record<string, TableCell>;
}

export interface TableModel {
  columns: TableColumn[];
  rows: TableRow[];
}

export interface SortState {
  column: string;
  descending: boolean;
}

/** The sort after clicking `column`: ascending first, then the other direction. */
export function nextSort(current: SortState | null, column: string): SortState {
  if (current && current.column === column) return { column, descending: !current.descending };
  return { column, descending: false };
}

/** The rows in sorted order (stable; the model's order when `sort` is null or names no column). */
export function sortRows(model: TableModel, sort: SortState | null): TableRow[] {
  const column = sort ? model.columns.find((c) => c.key === sort.column) : undefined;
  if (!sort || !column) return [...model.rows];
  const sign = sort.descending ? -1 : 1;
  return model.rows
    .map((row, index) => ({ row, index, key: row.cells[column.key]?.sort ?? null }))
    .sort((a, b) => {
      if (a.key === null || b.key === null) return a.key === b.key ? a.index - b.index : a.key === null ? 1 : -1;
      const order = compareKeys(a.key, b.key);
      return order !== 0 ? sign * order : a.index - b.index;
    })
    .map((x) => x.row);
}

function compareKeys(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A GitHub Markdown table of the rows in the given order. */
export function tableMarkdown(model: TableModel, rows: TableRow[]): string {
  const cell = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
  const head = `| ${model.columns.map((c) => cell(c.label)).join(' | ')} |`;
  const rule = `|${model.columns.map((c) => (c.numeric ? ' ---: ' : ' --- ')).join('|')}|`;
  const body = rows.map((r) => `| ${model.columns.map((c) => cell(r.cells[c.key]?.text ?? '')).join(' | ')} |`);
  return [head, rule, ...body].join('\n') + '\n';
}

/** Tab-separated values (a header line, then one line per row), ready to paste into a spreadsheet. */
export function tableTsv(model: TableModel, rows: TableRow[]): string {
  const cell = (s: string): string => s.replace(/[\t\r\n]+/g, ' ');
  const lines = [model.columns.map((c) => cell(c.label)), ...rows.map((r) => model.columns.map((c) => cell(r.cells[c.key]?.text ?? '')))];
  return lines.map((l) => l.join('\t')).join('\n') + '\n';
}
