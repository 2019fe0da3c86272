/**
 * The kernel table's pure parts: sorting (stable, unknowns last in either
 * direction, numbers as numbers), the header click cycle, and the Markdown
 * and TSV copies (escaped so a kernel name cannot break a row).
 */
import { strict as assert } from 'node:assert';
import { nextSort, sortRows, tableMarkdown, tableTsv, type TableModel, type TableRow } from '../src/shared/table';

function row(id: string, name: string, ai: number | null, bound: string): TableRow {
  return {
    id,
    kernelId: id,
    cells: {
      kernel: { text: name, sort: name },
      ai: { text: ai === null ? '?' : String(ai), sort: ai },
      bound: { text: bound, sort: bound },
    },
  };
}

const MODEL: TableModel = {
  columns: [
    { key: 'kernel', label: 'kernel', numeric: false },
    { key: 'ai', label: 'AI (FLOP/B)', numeric: true },
    { key: 'bound', label: 'bound', numeric: false },
  ],
  rows: [row('a', 'add', 0.0833, 'memory-bound (DRAM)'), row('b', 'mm', null, 'bound unknown'), row('c', 'poly', 0.75, 'memory-bound (DRAM)'), row('d', 'gemm', 85, 'compute-bound'), row('e', 'sum', 10, 'memory-bound (DRAM)')],
};

const ids = (rows: TableRow[]): string => rows.map((r) => r.id).join('');

describe('webview table: sorting', () => {
  it('keeps the model order without a sort, or with an unknown column', () => {
    assert.equal(ids(sortRows(MODEL, null)), 'abcde');
    assert.equal(ids(sortRows(MODEL, { column: 'nope', descending: false })), 'abcde');
  });

  it('sorts numbers numerically (10 after 0.75, before 85), unknowns last in both directions', () => {
    assert.equal(ids(sortRows(MODEL, { column: 'ai', descending: false })), 'acedb');
    assert.equal(ids(sortRows(MODEL, { column: 'ai', descending: true })), 'decab');
  });

  it('sorts text, keeping equal keys in model order (stable)', () => {
    assert.equal(ids(sortRows(MODEL, { column: 'bound', descending: false })), 'bdace');
    assert.equal(ids(sortRows(MODEL, { column: 'bound', descending: true })), 'acedb');
  });

  it('does not reorder the model itself', () => {
    sortRows(MODEL, { column: 'ai', descending: true });
    assert.equal(ids(MODEL.rows), 'abcde');
  });

  it('a header click sorts ascending, a second click on it descending, another column ascending', () => {
    assert.deepEqual(nextSort(null, 'ai'), { column: 'ai', descending: false });
    assert.deepEqual(nextSort({ column: 'ai', descending: false }, 'ai'), { column: 'ai', descending: true });
    assert.deepEqual(nextSort({ column: 'ai', descending: true }, 'ai'), { column: 'ai', descending: false });
    assert.deepEqual(nextSort({ column: 'ai', descending: true }, 'bound'), { column: 'bound', descending: false });
  });
});

describe('webview table: copies', () => {
  it('Markdown: a header, right-aligned numbers, the rows in the order shown', () => {
    const md = tableMarkdown(MODEL, sortRows(MODEL, { column: 'ai', descending: true }).slice(0, 2));
    assert.equal(md, ['| kernel | AI (FLOP/B) | bound |', '| --- | ---: | --- |', '| gemm | 85 | compute-bound |', '| sum | 10 | memory-bound (DRAM) |', ''].join('\n'));
  });

  it('Markdown: pipes, backslashes and line breaks in a cell cannot break the table', () => {
    const odd: TableModel = { columns: MODEL.columns, rows: [row('x', 'a|b\\c', 1, 'two\nlines')] };
    assert.equal(tableMarkdown(odd, odd.rows).split('\n')[2], '| a\\|b\\\\c | 1 | two lines |');
  });

  it('TSV: tabs and line breaks inside cells become spaces', () => {
    const odd: TableModel = { columns: MODEL.columns, rows: [row('x', 'a\tb', null, 'two\r\nlines')] };
    assert.equal(tableTsv(odd, odd.rows), 'kernel\tAI (FLOP/B)\tbound\na b\t?\ttwo lines\n');
  });

  it('a missing cell is empty', () => {
    const sparse: TableModel = { columns: MODEL.columns, rows: [{ id: 'x', kernelId: 'x', cells: { kernel: { text: 'k', sort: 'k' } } }] };
    assert.equal(tableTsv(sparse, sparse.rows).split('\n')[1], 'k\t\t');
  });
});
