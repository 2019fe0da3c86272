/**
 * A CSV reader for profiler exports: RFC 4180 quoting (embedded commas,
 * newlines and doubled quotes), CRLF or LF line ends, and the profiler's own
 * notices (`==PROF==`, `==WARNING==`, `==ERROR==` lines) set apart from the
 * records wherever they appear between rows.
 */

export interface CsvRecord {
  fields: string[];
  /** 1-based line the record starts on. */
  line: number;
}

export interface CsvNotice {
  text: string;
  line: number;
}

export interface CsvResult {
  records: CsvRecord[];
  notices: CsvNotice[];
  /** True when the text ends inside a quoted field (a truncated file). */
  unterminated: boolean;
}

const NOTICE_PREFIX = '==';

/** Reads every record of `text`, starting at character `start` (line `startLine`). */
export function readCsv(text: string, start = 0, startLine = 1): CsvResult {
  const out: CsvResult = { records: [], notices: [], unterminated: false };
  const cur = { pos: start, line: startLine };
  while (cur.pos < text.length) {
    if (text.startsWith(NOTICE_PREFIX, cur.pos)) {
      out.notices.push({ text: readLine(text, cur).trim(), line: cur.line - 1 });
      continue;
    }
    const line = cur.line;
    const fields = readRecord(text, cur);
    if (fields === null) {
      out.unterminated = true;
      break;
    }
    if (!(fields.length === 1 && fields[0] === '')) out.records.push({ fields, line });
  }
  return out;
}

/** Reads one line (without its end) and advances past the line end. */
function readLine(text: string, cur: { pos: number; line: number }): string {
  const end = text.indexOf('\n', cur.pos);
  const stop = end < 0 ? text.length : end;
  const s = text.slice(cur.pos, stop).replace(/\r$/, '');
  cur.pos = end < 0 ? text.length : end + 1;
  cur.line++;
  return s;
}

/** Reads one record; null when the text ends inside a quoted field. */
function readRecord(text: string, cur: { pos: number; line: number }): string[] | null {
  const fields: string[] = [];
  for (;;) {
    const field = text[cur.pos] === '"' ? readQuoted(text, cur) : readBare(text, cur);
    if (field === null) return null;
    fields.push(field);
    const c = text[cur.pos];
    if (c === ',') {
      cur.pos++;
      continue;
    }
    skipLineEnd(text, cur);
    return fields;
  }
}

function readQuoted(text: string, cur: { pos: number; line: number }): string | null {
  let s = '';
  let i = cur.pos + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return null;
    s += text.slice(i, q);
    cur.line += countNewlines(text, i, q);
    if (text[q + 1] === '"') {
      s += '"';
      i = q + 2;
      continue;
    }
    // Characters between the closing quote and the next separator are kept, as lenient readers do.
    let j = q + 1;
    while (j < text.length && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++;
    s += text.slice(q + 1, j);
    cur.pos = j;
    return s;
  }
}

function readBare(text: string, cur: { pos: number; line: number }): string {
  let j = cur.pos;
  while (j < text.length && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++;
  const s = text.slice(cur.pos, j).trim();
  cur.pos = j;
  return s;
}

function skipLineEnd(text: string, cur: { pos: number; line: number }): void {
  if (text[cur.pos] === '\r') cur.pos++;
  if (text[cur.pos] === '\n') cur.pos++;
  cur.line++;
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** Splits the text into lines with their start offsets, for scanning a preamble. */
export function* lines(text: string): Generator<{ text: string; start: number; line: number }> {
  let start = 0;
  let line = 1;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const stop = end < 0 ? text.length : end;
    yield { text: text.slice(start, stop).replace(/\r$/, ''), start, line };
    start = stop + 1;
    line++;
  }
}
