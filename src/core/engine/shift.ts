/**
 * A kernel's IR moved by an edit that added or removed lines above it (an
 * Enter, a deleted line): every line it names — of its loops and events, of
 * its diagnostics, of the places its bindings and notes come from ("launch
 * at line 40") — where the edit moved it. The driver (engine/driver.ts) does
 * this only for a kernel whose recorded reads all lie outside the rows the
 * edit touched and answer the same: then every line in it is of a statement
 * that moved as a whole, and the moved IR is the one a fresh analysis gives
 * (test/incremental.test.ts compares them).
 *
 * Lines are numbers under the keys below, and "line N" / "lines N, M" in
 * text (the frontends' own wording: src/core/messages.ts and the binding
 * details). A text that quotes the user's code could say "line 5" itself: a
 * kernel that read such words is not moved (deps.ts `answerReads`), nor one
 * with a symbol named by its line (`trips_L12`, `size@61#1`).
 */
import type { RowEdit } from '../deps';
import { rowAfter } from '../deps';
import type { KernelIR } from '../ir';
import { Expr, freeSymbols } from '../sym/expr';

/** Keys whose numbers are 1-based lines (a kernel's `range` holds 0-based rows). */
const LINE_KEYS = new Set(['line', 'endLine', 'callLine', 'loopLine']);

/**
 * Records keyed by the user's names (a symbol may be called `line`): their
 * keys are not fields, and a value under one is not a line.
 */
const NAMED = new Set(['bindings', 'bindingSources', 'suggestions', 'launchSizes', 'incompleteCounts', 'frame', 'tensors', 'names']);

/**
 * Records of identities compared only with each other (a pipeline's host
 * tensors, `forward.x@12`, named by the line of their assignment): a value
 * moved whole keeps them as they are, and they still tell the same tensors
 * apart; they are never shown.
 */
const OPAQUE = new Set(['tensors']);

/** A line on a row the edit touched, or an object not known to hold no lines: the kernel is analysed again. */
class Touched extends Error {}

function touched(): never {
  throw new Touched();
}

/**
 * Symbols named by a line: an unbound loop's trip count (`trips_L12`, which
 * the user binds by that name), a Triton loop variable (`⟨k@12⟩`), a CUDA
 * loop's iteration or geometric variable (`it@12`, `size@61#1`). A kernel
 * that has one (or a text that names one) is analysed again, not moved: its
 * name would move with it.
 */
const LINE_SYMBOL = /trips_L\d|@\d/;

/** Per expression: whether a symbol is named by a line, else the numbers its symbols' names hold. */
const symbolNumbers = new WeakMap<Expr, number[] | 'line'>();

function numbersIn(e: Expr): number[] | 'line' {
  let out = symbolNumbers.get(e);
  if (out === undefined) {
    const found: number[] = [];
    for (const s of freeSymbols(e)) {
      if (LINE_SYMBOL.test(s)) {
        symbolNumbers.set(e, 'line');
        return 'line';
      }
      for (const m of s.matchAll(/\d+/g)) found.push(Number(m[0]));
    }
    symbolNumbers.set(e, (out = found));
  }
  return out;
}

/**
 * Objects (of IR and reports, never mutated) a walk found no line in, nor a
 * text or symbol that may name one: the next move shares them unwalked.
 */
const lineless = new WeakSet<object>();

/** Kernels moved by the driver: the IR each was moved from, and the edit (so its reports can be moved too). */
const origins = new WeakMap<KernelIR, { from: KernelIR; edit: RowEdit }>();

/** The IR `ir` was moved from by an edit, and the edit. */
export function movedFrom(ir: KernelIR): { from: KernelIR; edit: RowEdit } | undefined {
  return origins.get(ir);
}

/** `ir` with its lines moved by `e`; undefined when one of them is on a row the edit touched. */
export function shiftKernel(ir: KernelIR, e: RowEdit): KernelIR | undefined {
  const out = shiftLines(ir, e);
  if (out) {
    origins.set(out, { from: ir, edit: e });
    // Only the IR moved from is of use (its report is moved: analyze.ts `reportOf`), not the one it was moved from
    // in turn: kept, each IR moved held every earlier version of its kernel (~40,000 IRs after 1,000 Enters).
    origins.delete(ir);
  }
  return out;
}

/** Plain data (a kernel's IR, its report) with every line moved by `e`; undefined when one is on a row the edit touched. */
export function shiftLines<T>(ir: T, e: RowEdit): T | undefined {
  // How many lines (or texts and symbols that may name one) the walk met: an object that met none is remembered as lineless.
  let met = 0;
  const line = (n: number): number => {
    met++;
    const r = rowAfter(e, n - 1);
    return r === undefined ? touched() : r + 1;
  };
  const row = (n: number): number => {
    met++;
    const r = rowAfter(e, n);
    return r === undefined ? touched() : r;
  };
  const text = (s: string): string => {
    if (s.includes('@') || s.includes('trips_L')) {
      met++;
      if (LINE_SYMBOL.test(s)) touched();
    }
    if (!s.includes('line')) return s;
    met++;
    return s.replace(/\bline (\d+)/g, (_, n: string) => `line ${line(Number(n))}`).replace(/\blines (\d+(?:, \d+)*)/g, (_, ns: string) => `lines ${ns.split(', ').map((n) => line(Number(n))).join(', ')}`);
  };
  // What holds no line is kept as it is (shared with the IR moved: IR and reports are never mutated).
  const walk = (x: unknown, key: string | undefined): unknown => {
    switch (typeof x) {
      case 'string':
        return text(x);
      case 'number':
        return key !== undefined && LINE_KEYS.has(key) ? line(x) : x;
      case 'object':
        break;
      default:
        return x;
    }
    if (x === null) return x;
    const plain = key === undefined || !(NAMED.has(key) || OPAQUE.has(key) || key === 'range');
    if (plain && lineless.has(x)) return x;
    const before = met;
    if (Array.isArray(x)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < x.length; i++) {
        const v: unknown = x[i];
        const w = walk(v, undefined);
        if (out) out.push(w);
        else if (w !== v) {
          out = x.slice(0, i);
          out.push(w);
        }
      }
      if (plain && met === before) lineless.add(x);
      return out ?? x;
    }
    // Symbolic expressions are shared, unless a symbol may be named by a line the edit moves: one of the forms
    // above, or any number in a symbol's name that is a line at or after the edit (a form not listed is then still
    // never moved). Any other kind of object is not known to hold no lines: not moved.
    if (x instanceof Expr) {
      const ns = numbersIn(x);
      if (ns === 'line' || ns.length > 0) met++;
      return ns === 'line' || ns.some((n) => n > e.startRow) ? touched() : x;
    }
    const proto = Object.getPrototypeOf(x);
    if (proto !== Object.prototype && proto !== null) touched();
    if (key !== undefined && OPAQUE.has(key) && Object.values(x).every((v) => typeof v === 'string')) return x;
    const named = key !== undefined && NAMED.has(key);
    const rec = x as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    for (const k of Object.keys(rec)) {
      const v = rec[k];
      const w = named ? walk(v, undefined) : key === 'range' && (k === 'startLine' || k === 'endLine') && typeof v === 'number' ? row(v) : walk(v, k);
      if (w !== v) (out ??= { ...rec })[k] = w;
    }
    if (plain && met === before) lineless.add(x);
    return out ?? x;
  };
  try {
    return walk(ir, undefined) as T;
  } catch (err) {
    if (err instanceof Touched) return undefined;
    throw err;
  }
}
