/**
 * What one kernel's analysis read of its file, recorded while it runs, so
 * that after an edit the kernel is analysed again only when something it
 * read changed (issue 17: work proportional to the edit).
 *
 *   driver: run the kernel with a `Deps` recorder current
 *     ├─ syntax-tree.ts: every node read records its top-level statement
 *     │  (reading the module root's contents records "everything")
 *     └─ frontend: every look-up in the file's scan records a query
 *        (`globals:BLOCK`, `functions:helper`, `bind:x`, …) — also a look-up
 *        that found nothing, so a name defined later is noticed
 *   after the run: the frontend's `fingerprint` answers every recorded
 *   statement and query on the file as it is, and the driver keeps the
 *   answers with the kernel; at the next analysis it answers them again on
 *   the new file: the same answers, the same analysis (it is deterministic).
 *
 * A cached value shared between kernels (a host value resolved for one and
 * reused by the next) keeps the reads that made it and adds them to each
 * reader's recorder (`replay`). Not current (no recorder), nothing records.
 */
import { hash53 } from './hash';

/** Recordings made (each `Deps` its number). */
let made = 0;

export class Deps {
  /** This recording's number, never 0 (a node records the last recording it was read in: syntax-tree.ts `touched`). */
  readonly serial = ++made;
  /** Start rows of the own file's top-level statements read. */
  readonly rows = new Set<number>();
  readonly queries = new Set<string>();
  /** Something read the module as a whole: any edit invalidates. */
  whole = false;
  /**
   * While recording: nodes of the own file whose text (and row) an answer to
   * one of `queries` holds (a scan entry's, `cover` in syntax-tree.ts), by
   * the row of the statement they are in. A read inside one is answered by
   * that query, not by its statement's row.
   */
  covered: Map<number, unknown[]> | null = null;
  /** While recording: the wrapper nodes whose statements were read whole (syntax-tree.ts `readInner`). */
  expanded: Set<unknown> | null = null;

  constructor(
    /**
     * The own file's module root while recording (nodes of other trees: other
     * modules, covered by the job's key); let go once the kernel is analysed,
     * so a cached kernel does not hold its file's syntax.
     */
    public root: object | null,
  ) {}

  /** Ends the recording: what is kept is the reads, not the file they were read from. */
  done(): this {
    this.root = null;
    this.covered = null;
    this.expanded = null;
    return this;
  }
}

let current: Deps | undefined;

/** The recorder of the analysis running, if any. */
export function recording(): Deps | undefined {
  return current;
}

/** Runs `fn` with `d` as the current recorder (undefined: nothing records). */
export function recordInto<T>(d: Deps | undefined, fn: () => T): T {
  const saved = current;
  current = d;
  try {
    return fn();
  } finally {
    current = saved;
  }
}

/** Notes a query on the file's scan (`map:key`). */
export function noteQuery(key: string): void {
  current?.queries.add(key);
}

/**
 * Records `query` and computes its value without recording: the query's
 * answer (a frontend's, on the file as it is then) stands for what the
 * computation read.
 */
export function asQuery<T>(query: string, compute: () => T): T {
  noteQuery(query);
  return recordInto(undefined, compute);
}

/** Adds reads recorded earlier (by a shared cache's computation) to the current recorder. */
export function replay(from: Deps | undefined): void {
  const to = current;
  if (!to || !from || to === from) return;
  if (from.whole) to.whole = true;
  for (const r of from.rows) to.rows.add(r);
  for (const q of from.queries) to.queries.add(q);
  // The queries come along, so do the nodes their answers cover (of the same file only).
  if (from.covered && from.root === to.root)
    for (const [row, ns] of from.covered) {
      const into = (to.covered ??= new Map()).get(row);
      if (into) into.push(...ns);
      else to.covered.set(row, [...ns]);
    }
}

/**
 * Runs `fn` recording into a fresh recorder as well as the current one; the
 * fresh one is returned with the value (for a cache shared between kernels).
 */
export function captured<T>(fn: () => T): { value: T; deps: Deps | undefined } {
  const outer = current;
  if (!outer) return { value: fn(), deps: undefined };
  const inner = new Deps(outer.root);
  const value = recordInto(inner, fn);
  replay(inner);
  return { value, deps: inner };
}

/** A read no frontend answer covers: a fresh answer each time, so the kernel is analysed again. */
let unanswerable = 0;
export function unanswered(): string {
  return `?${++unanswerable}`;
}

/** One edit, in rows: `startRow`…`oldEndRow` of the text before became `startRow`…`newEndRow`. */
export interface RowEdit {
  startRow: number;
  oldEndRow: number;
  newEndRow: number;
}

/** A row of the text before `e` where it is now (undefined: on the rows the edit touched). */
export function rowAfter(e: RowEdit, row: number): number | undefined {
  if (row < e.startRow) return row;
  if (row > e.oldEndRow) return row + e.newEndRow - e.oldEndRow;
  return undefined;
}

/** A row of the text after `e` where it was before it (undefined: on the rows the edit touched). */
export function rowBefore(e: RowEdit, row: number): number | undefined {
  if (row < e.startRow) return row;
  if (row > e.newEndRow) return row - e.newEndRow + e.oldEndRow;
  return undefined;
}

/**
 * While reads are answered for a kernel analysed on the previous version of
 * the text (`answerReads` with an edit): rows and lines in answers are given
 * as they were before the edit, so the answers of a kernel that read nothing
 * the edit touched come out the same as when it ran.
 */
let before: RowEdit | undefined;
/** The same edit in the lines reports give (differs from `before` where a file is read with text in front of it). */
let beforeLines: RowEdit | undefined;

/** A 0-based row of the file as it is now, as an answer gives it. */
export function answerRow(row: number): string {
  return lineBefore(row + 1, before, 0);
}

/** A 1-based line of the file as it is now, as an answer gives it. */
export function answerLine(line: number): string {
  return lineBefore(line, beforeLines);
}

/**
 * A 1-based line of the file as it is now, where it was before `edit` (`~N`
 * on the rows the edit touched); without one, as it is. `base` 0 gives it as
 * a 0-based row.
 */
export function lineBefore(line: number, edit: RowEdit | undefined, base = 1): string {
  if (!edit) return String(line - 1 + base);
  const r = rowBefore(edit, line - 1);
  return r === undefined ? `~${line - 1 + base}` : String(r + base);
}

/** A row a query key names (`live:12`), recorded on the version the answers are given for, on the file as it is now. */
export function keyRow(row: number): number {
  if (!before) return row;
  return rowAfter(before, row) ?? -1;
}

/** Query maps whose keys start with a row (`live:12`, `assigns:12:x`: shifted with a kept kernel's reads). */
const ROW_KEYED = new Set(['live', 'assigns', 'returns', 'units']);

/**
 * The reads of a kernel kept after `e` moved what it read: rows where the
 * edit moved them (undefined when a read is on a row the edit touched).
 */
export function shiftedDeps(d: Deps, e: RowEdit): Deps | undefined {
  const out = new Deps(null);
  out.whole = d.whole;
  for (const r of d.rows) {
    const to = rowAfter(e, r);
    if (to === undefined) return undefined;
    out.rows.add(to);
  }
  for (const q of d.queries) {
    const colon = q.indexOf(':');
    if (!ROW_KEYED.has(q.slice(0, colon))) {
      out.queries.add(q);
      continue;
    }
    const end = q.indexOf(':', colon + 1);
    const to = rowAfter(e, Number(q.slice(colon + 1, end < 0 ? undefined : end)));
    if (to === undefined) return undefined;
    out.queries.add(`${q.slice(0, colon)}:${to}${end < 0 ? '' : q.slice(end)}`);
  }
  return out;
}

/** Words a note gives a line in ("line 12", "lines 3, 9"): in the text a kernel read, they would be quoted, not moved. */
const LINE_WORDS = /\blines? \d/;

const linesSaid = new WeakMap<object, boolean>();

/** Whether a text a kernel read says "line N" (it would be quoted in a note, not moved: engine/shift.ts). */
export function saysLineWords(text: string): boolean {
  return text.includes('line') && LINE_WORDS.test(text);
}

function saysLine(st: { text: string }): boolean {
  let b = linesSaid.get(st);
  if (b === undefined) linesSaid.set(st, (b = saysLineWords(st.text)));
  return b;
}

/** The answers of one scan (a frontend's file scan), and the same given on the version before its text's edit. */
const answersNow = new WeakMap<object, Map<string, string>>();
const answersBeforeEdit = new WeakMap<object, Map<string, string>>();

/** The answers known for `scan` (answered on the version before `edit` when there is one): shared by a file's kernels. */
export function answersOf(scan: object, edit: RowEdit | undefined): Map<string, string> {
  const memo = edit ? answersBeforeEdit : answersNow;
  let known = memo.get(scan);
  if (!known) memo.set(scan, (known = new Map()));
  return known;
}

/** Hashes of top-level statements' texts, kept with the statement (a statement carried over after an edit keeps it). */
const statementHashes = new WeakMap<object, string>();

/** The hash of a node's text, kept with the node (a statement carried over after an edit keeps it). */
export function statementHash(st: { text: string }): string {
  let h = statementHashes.get(st);
  if (h === undefined) statementHashes.set(st, (h = hash53(st.text)));
  return h;
}

/**
 * Every read of `d` answered on the file as it is, in the order of
 * `sortedReads(d)` (rows, then queries): equal (`sameAnswers`) for two
 * versions of a file when the kernel would read the same there. `statement`
 * gives the own file's top-level statement starting at a row (its text's
 * hash is kept with it); `answer` a frontend's answer to a query
 * (`map:key`), kept hashed in `known` (one map per scan: a scan never
 * changes, and a file's kernels share most reads).
 */
export function answerReads(
  d: Deps,
  source: string,
  statement: (row: number) => { text: string } | undefined,
  known: Map<string, string>,
  answer: (map: string, key: string) => string,
  edit?: RowEdit,
  lines: RowEdit | undefined = edit,
): Answers {
  const expect = expected;
  answerStats.asked++;
  let onScan = answered.get(known);
  if (!onScan) answered.set(known, (onScan = new WeakMap()));
  let kept = onScan.get(d);
  if (kept && !(kept.reads === readCount(d) && sameEdit(kept.edit, edit) && sameEdit(kept.lines, lines))) kept = undefined;
  if (kept?.answers) return expect === undefined || agrees(kept.answers, expect) ? kept.answers : [unanswered()];
  if (expect && kept?.differ?.has(expect)) return [unanswered()];
  answerStats.answered++;
  const saved = [before, beforeLines, expected] as const;
  before = edit;
  beforeLines = lines;
  expected = undefined;
  let answers: string[] | undefined;
  try {
    answers = recordInto(undefined, () => answerAll(d, source, statement, known, answer, edit, expect));
  } finally {
    [before, beforeLines, expected] = saved;
  }
  kept ??= { reads: readCount(d), edit, lines };
  // All answered (an unanswerable read is answered afresh at each asking: not kept), or differing from `expect`.
  if (answers && !answers.some((a) => a.startsWith('?'))) kept.answers = answers;
  else if (!answers && expect) (kept.differ ??= new WeakSet()).add(expect);
  else return answers ?? [unanswered()];
  onScan.set(d, kept);
  return answers ?? [unanswered()];
}

/**
 * What the reads of a recorder were last found to answer on a text, by the
 * answers of its scan (`answersOf`: one scan per version of a file's text)
 * and then by recorder: all of them, or which kept answers they differ
 * from, with the edit they were answered across. Asked again there, they
 * answer the same. A file's kernels are checked against every value kept
 * for them, by each launch of each pipeline: typing in a CUDA file with
 * eleven pipeline launches answered the same reads ~400 times a keystroke,
 * of them ~60 distinct. Held through the scan's answers, not the text: a
 * version's entries go with its scan.
 */
const answered = new WeakMap<Map<string, string>, WeakMap<Deps, { reads: number; edit: RowEdit | undefined; lines: RowEdit | undefined; answers?: Answers; differ?: WeakSet<Answers> }>>();

/** Whether `answers` are those `expect` begins with (a caller's kept answers may have more after them: driver.ts). */
function agrees(answers: Answers, expect: Answers): boolean {
  for (let i = 0; i < answers.length; i++) if (answers[i] !== expect[i]) return false;
  return true;
}

/** How often reads were asked for their answers, and how often they were answered (not found kept: `answered`); tests. */
export const answerStats = { asked: 0, answered: 0 };

function readCount(d: Deps): number {
  return d.whole ? -1 : d.rows.size + d.queries.size;
}

function sameEdit(a: RowEdit | undefined, b: RowEdit | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.startRow === b.startRow && a.oldEndRow === b.oldEndRow && a.newEndRow === b.newEndRow);
}

/** The answers the ones being computed are compared to (`comparedTo`), if any. */
let expected: Answers | undefined;

/**
 * Runs `fn`, which computes a kept value's answers only to compare them with
 * `answers`: answering stops at the first that differs (a launch's reads
 * checked against every launch kept under its key).
 */
export function comparedTo<T>(answers: Answers, fn: () => T): T {
  const saved = expected;
  expected = answers;
  try {
    return fn();
  } finally {
    expected = saved;
  }
}

/** The answers to a kernel's reads, one per read (compared, not hashed together: most checks find them equal). */
export type Answers = readonly string[];

/** Whether two lists of answers are the same. */
export function sameAnswers(a: Answers | undefined, b: Answers | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

/** A recorder's reads in a fixed order (sorted once, when the recording is done: answered at every edit). */
const sorted = new WeakMap<Deps, { rows: number[]; queries: string[] }>();

function sortedReads(d: Deps): { rows: number[]; queries: string[] } {
  let s = sorted.get(d);
  if (!s || s.rows.length !== d.rows.size || s.queries.length !== d.queries.size) {
    s = { rows: [...d.rows].sort((a, b) => a - b), queries: [...d.queries].sort() };
    sorted.set(d, s);
  }
  return s;
}

function answerAll(
  d: Deps,
  source: string,
  statement: (row: number) => { text: string } | undefined,
  known: Map<string, string>,
  answer: (map: string, key: string) => string,
  edit: RowEdit | undefined,
  expect: Answers | undefined,
): string[] | undefined {
  if (d.whole) return [`whole:${hash53(source)}`];
  const { rows, queries } = sortedReads(d);
  const out: string[] = new Array(rows.length + queries.length);
  let i = 0;
  for (const row of rows) {
    // With an edit, `d` was recorded on the text before it: the statement is looked for where the edit moved it.
    const now = edit ? rowAfter(edit, row) : row;
    const st = now === undefined ? undefined : statement(now);
    // A kernel moved by an edit has "line N" in its notes moved too (engine/shift.ts): not one that read such words.
    if (edit && st && saysLine(st)) return undefined;
    out[i] = st ? statementHash(st) : '\u2205';
    if (expect && out[i] !== expect[i]) return undefined;
    i++;
  }
  for (const q of queries) {
    let a = known.get(q);
    if (a === undefined) {
      const colon = q.indexOf(':');
      const raw = answer(q.slice(0, colon), q.slice(colon + 1));
      if (edit && saysLineWords(raw)) return undefined;
      // A short answer is kept as it is (hashing costs more than comparing it); a long one by its hash.
      a = raw.startsWith('?') ? raw : raw.length <= 48 ? `\u0002${raw}` : hash53(raw);
      if (!raw.startsWith('?')) known.set(q, a);
    }
    if (expect && a !== expect[i]) return undefined;
    out[i++] = a;
  }
  return out;
}
