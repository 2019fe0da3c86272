/**
 * Symbolic sizes.
 *
 * Counts are kept as polynomials over *atoms*: a named symbol (`BLOCK_M`,
 * `blockDim.x`, `tl.num_programs(0)`) or an opaque function of expressions
 * (`cdiv(K, BLOCK_K)`, `min(BLOCK, n_cols)`). A polynomial is a sum of
 * monomials `coef · Π atomᵢ^pᵢ`, kept in a canonical form so that equal
 * formulas print equally and like terms combine (`BM·K + BM·K = 2·BM·K`).
 *
 * Everything here is pure and never throws on user input: coefficients that
 * stop being finite poison the expression into `UNKNOWN_NUMBER`, which
 * evaluates to `undefined`.
 */
import { detached } from '../detach';
import { foldNumbers } from './fold';

export type Atom =
  | { kind: 'sym'; name: string; key: string }
  | { kind: 'fn'; fn: FnName; args: Expr[]; key: string };

export type FnName = 'cdiv' | 'floordiv' | 'div' | 'mod' | 'min' | 'max' | 'log2' | 'pow' | 'and' | 'or' | 'xor' | 'opaque';

interface Factor {
  atom: Atom;
  pow: number;
}

interface Monomial {
  coef: number;
  factors: Factor[]; // sorted by atom key
  key: string; // '' for the constant term
}

/** An immutable symbolic expression (a canonical polynomial over atoms). */
export class Expr {
  /** @internal */
  readonly terms: ReadonlyMap<string, Monomial>;
  /** True once an operation produced a non-finite or unrepresentable value. */
  readonly poisoned: boolean;
  private _str?: string;

  /** @internal */
  constructor(terms: Map<string, Monomial>, poisoned = false) {
    this.terms = terms;
    this.poisoned = poisoned;
  }

  /** The constant value, if the expression has no symbols. */
  get constant(): number | undefined {
    if (this.poisoned) return undefined;
    if (this.terms.size === 0) return 0;
    if (this.terms.size === 1) {
      const m = this.terms.get('');
      if (m) return m.coef;
    }
    return undefined;
  }

  isConst(): boolean {
    return this.constant !== undefined;
  }

  isZero(): boolean {
    return !this.poisoned && this.terms.size === 0;
  }

  toString(): string {
    if (this._str === undefined) this._str = printExpr(this);
    return this._str;
  }
}

const MAX_TERMS = 64;
const MAX_DEPTH = 24;

function poison(): Expr {
  return new Expr(new Map(), true);
}

export const UNKNOWN_NUMBER = poison();

export function num(v: number): Expr {
  if (!Number.isFinite(v)) return poison();
  // Small integers are shared (expressions are immutable): sizes, strides and loop bounds are mostly these.
  const small = Number.isInteger(v) && v >= -SMALL && v <= SMALL && !Object.is(v, -0);
  const hit = small ? smallNums[v + SMALL] : undefined;
  if (hit) return hit;
  const m = new Map<string, Monomial>();
  if (v !== 0) m.set('', { coef: v, factors: [], key: '' });
  const e = new Expr(m);
  if (small) smallNums[v + SMALL] = e;
  return e;
}

/** Integers shared by `num`: -SMALL … SMALL. */
const SMALL = 1024;
const smallNums: (Expr | undefined)[] = new Array(2 * SMALL + 1);

export const ZERO = num(0);
export const ONE = num(1);

export function sym(name: string): Expr {
  // A name read from a file is a copy of its own: an expression kept by a cache does not keep the file's text.
  const own = detached(name);
  const atom: Atom = { kind: 'sym', name: own, key: 's:' + own };
  return fromAtom(atom);
}

function fromAtom(atom: Atom): Expr {
  const f: Factor = { atom, pow: 1 };
  const key = factorKey([f]);
  return new Expr(new Map([[key, { coef: 1, factors: [f], key }]]));
}

function factorKey(fs: Factor[]): string {
  return fs.map((f) => (f.pow === 1 ? f.atom.key : `${f.atom.key}^${f.pow}`)).join('*');
}

function depthOf(e: Expr): number {
  let d = 0;
  for (const m of e.terms.values())
    for (const f of m.factors)
      if (f.atom.kind === 'fn') for (const a of f.atom.args) d = Math.max(d, 1 + depthOf(a));
  return d;
}

export function add(...xs: Expr[]): Expr {
  const out = new Map<string, Monomial>();
  for (const x of xs) {
    if (x.poisoned) return poison();
    for (const m of x.terms.values()) {
      const cur = out.get(m.key);
      const coef = (cur ? cur.coef : 0) + m.coef;
      if (!Number.isFinite(coef)) return poison();
      if (coef === 0) out.delete(m.key);
      else out.set(m.key, { coef, factors: m.factors, key: m.key });
    }
  }
  if (out.size > MAX_TERMS) return poison();
  return new Expr(out);
}

export function neg(x: Expr): Expr {
  return scale(x, -1);
}

export function sub(a: Expr, b: Expr): Expr {
  return add(a, neg(b));
}

export function scale(x: Expr, c: number): Expr {
  if (x.poisoned || !Number.isFinite(c)) return poison();
  if (c === 0) return ZERO;
  const out = new Map<string, Monomial>();
  for (const m of x.terms.values()) {
    const coef = m.coef * c;
    if (!Number.isFinite(coef)) return poison();
    out.set(m.key, { coef, factors: m.factors, key: m.key });
  }
  return new Expr(out);
}

function mulMono(a: Monomial, b: Monomial): Monomial | undefined {
  const coef = a.coef * b.coef;
  if (!Number.isFinite(coef)) return undefined;
  // A constant side keeps the other's factors as they are.
  if (b.factors.length === 0) return { coef, factors: a.factors, key: a.key };
  if (a.factors.length === 0) return { coef, factors: b.factors, key: b.key };
  // Both factor lists are sorted by atom key: merged, like atoms' powers added (b's atom kept), zero powers dropped.
  const fa = a.factors;
  const fb = b.factors;
  const factors: Factor[] = [];
  let i = 0;
  let j = 0;
  while (i < fa.length || j < fb.length) {
    const x = fa[i];
    const y = fb[j];
    if (y === undefined || (x !== undefined && x.atom.key < y.atom.key)) {
      factors.push(x);
      i++;
    } else if (x === undefined || x.atom.key > y.atom.key) {
      factors.push(y);
      j++;
    } else {
      const pow = x.pow + y.pow;
      if (pow !== 0) factors.push({ atom: y.atom, pow });
      i++;
      j++;
    }
  }
  return { coef, factors, key: factorKey(factors) };
}

export function mul(...xs: Expr[]): Expr {
  let acc: Expr = ONE;
  for (const x of xs) {
    if (x.poisoned || acc.poisoned) return poison();
    if (x.isZero() || acc.isZero()) return ZERO;
    // Times 1: the other as it is (every term of it times 1 is itself).
    if (acc === ONE) {
      acc = x;
      continue;
    }
    if (x === ONE) continue;
    const out = new Map<string, Monomial>();
    for (const a of acc.terms.values()) {
      for (const b of x.terms.values()) {
        const m = mulMono(a, b);
        if (!m) return poison();
        const cur = out.get(m.key);
        const coef = (cur ? cur.coef : 0) + m.coef;
        if (!Number.isFinite(coef)) return poison();
        if (coef === 0) out.delete(m.key);
        else out.set(m.key, cur ? { coef, factors: m.factors, key: m.key } : m);
        if (out.size > MAX_TERMS) return poison();
      }
    }
    acc = new Expr(out);
  }
  return acc;
}

/** `a` divided by a single monomial `b`, when the division is exact on symbols. */
function divByMonomial(a: Expr, b: Monomial): Expr | undefined {
  const out = new Map<string, Monomial>();
  for (const m of a.terms.values()) {
    const byKey = new Map<string, Factor>();
    for (const f of m.factors) byKey.set(f.atom.key, { ...f });
    for (const f of b.factors) {
      const cur = byKey.get(f.atom.key);
      if (!cur || cur.pow < f.pow) return undefined;
      if (cur.pow === f.pow) byKey.delete(f.atom.key);
      else byKey.set(f.atom.key, { atom: f.atom, pow: cur.pow - f.pow });
    }
    const factors = [...byKey.values()].sort((x, y) => (x.atom.key < y.atom.key ? -1 : x.atom.key > y.atom.key ? 1 : 0));
    const coef = m.coef / b.coef;
    if (!Number.isFinite(coef)) return undefined;
    const key = factorKey(factors);
    out.set(key, { coef, factors, key });
  }
  return new Expr(out);
}

function fnAtom(fn: FnName, args: Expr[]): Expr {
  if (args.some((a) => a.poisoned)) return poison();
  if (args.some((a) => depthOf(a) >= MAX_DEPTH)) return poison();
  const key = `f:${fn}(${args.map((a) => exprKey(a)).join(',')})`;
  return fromAtom({ kind: 'fn', fn, args, key });
}

/** A stable structural key (equal expressions give equal keys). */
export function exprKey(e: Expr): string {
  if (e.poisoned) return '?';
  return [...e.terms.values()]
    .map((m) => `${m.coef}${m.key ? '*' + m.key : ''}`)
    .sort()
    .join('+');
}

export function equals(a: Expr, b: Expr): boolean {
  return exprKey(a) === exprKey(b);
}

/** Real division (floating values). Exact where the divisor divides every term. */
export function div(a: Expr, b: Expr): Expr {
  if (a.poisoned || b.poisoned) return poison();
  const bc = b.constant;
  if (bc !== undefined) return bc === 0 ? poison() : scale(a, 1 / bc);
  if (b.terms.size === 1) {
    const q = divByMonomial(a, [...b.terms.values()][0]);
    if (q) return q;
  }
  return fnAtom('div', [a, b]);
}

/** Floor division of non-negative sizes (Python `//`, C `/` on ints). */
export function floordiv(a: Expr, b: Expr): Expr {
  if (a.poisoned || b.poisoned) return poison();
  const ac = a.constant;
  const bc = b.constant;
  if (bc !== undefined && bc === 0) return poison();
  if (ac !== undefined && bc !== undefined) return num(Math.floor(ac / bc));
  if (ac === 0) return ZERO;
  if (bc === 1) return a;
  // Exact when every coefficient and symbol divides: (2·BM·K) // BM = 2·K.
  const q = exactQuotient(a, b);
  if (q) return q;
  return fnAtom('floordiv', [a, b]);
}

/** Ceiling division `⌈a / b⌉` (`tl.cdiv`, `CEIL_DIV`). */
export function cdiv(a: Expr, b: Expr): Expr {
  if (a.poisoned || b.poisoned) return poison();
  const ac = a.constant;
  const bc = b.constant;
  if (bc !== undefined && bc === 0) return poison();
  if (ac !== undefined && bc !== undefined) return num(Math.ceil(ac / bc));
  if (ac === 0) return ZERO;
  if (bc === 1) return a;
  const q = exactQuotient(a, b);
  if (q) return q;
  return fnAtom('cdiv', [a, b]);
}

function exactQuotient(a: Expr, b: Expr): Expr | undefined {
  if (b.terms.size !== 1) return undefined;
  const mono = [...b.terms.values()][0];
  const q = divByMonomial(a, mono);
  if (!q) return undefined;
  for (const m of q.terms.values()) if (!Number.isInteger(m.coef)) return undefined;
  return q;
}

export function mod(a: Expr, b: Expr): Expr {
  const ac = a.constant;
  const bc = b.constant;
  if (bc === 0) return poison();
  if (ac !== undefined && bc !== undefined) return num(((ac % bc) + bc) % bc);
  if (ac === 0) return ZERO;
  return fnAtom('mod', [a, b]);
}

export function min(a: Expr, b: Expr): Expr {
  const ac = a.constant;
  const bc = b.constant;
  if (ac !== undefined && bc !== undefined) return num(Math.min(ac, bc));
  if (equals(a, b)) return a;
  const [x, y] = exprKey(a) < exprKey(b) ? [a, b] : [b, a];
  return fnAtom('min', [x, y]);
}

export function max(a: Expr, b: Expr): Expr {
  const ac = a.constant;
  const bc = b.constant;
  if (ac !== undefined && bc !== undefined) return num(Math.max(ac, bc));
  if (equals(a, b)) return a;
  const [x, y] = exprKey(a) < exprKey(b) ? [a, b] : [b, a];
  return fnAtom('max', [x, y]);
}

export function pow(a: Expr, b: Expr): Expr {
  const bc = b.constant;
  if (bc !== undefined && Number.isInteger(bc) && bc >= 0 && bc <= 8) {
    let acc = ONE;
    for (let i = 0; i < bc; i++) acc = mul(acc, a);
    return acc;
  }
  const ac = a.constant;
  if (ac !== undefined && bc !== undefined) return num(Math.pow(ac, bc));
  return fnAtom('pow', [a, b]);
}

/** Bitwise `&`, `|`, `^` of integers: folded when both are numbers, else kept until bound (`STAGE & 2`). */
export function bitop(op: '&' | '|' | '^', a: Expr, b: Expr): Expr {
  const ac = a.constant;
  const bc = b.constant;
  if (ac !== undefined && bc !== undefined) {
    const r = foldNumbers(op, ac, bc);
    return r === undefined ? poison() : num(r);
  }
  if (op === '&' && (ac === 0 || bc === 0)) return ZERO;
  const [x, y] = exprKey(a) < exprKey(b) ? [a, b] : [b, a];
  return fnAtom(op === '&' ? 'and' : op === '|' ? 'or' : 'xor', [x, y]);
}

export function log2(a: Expr): Expr {
  const ac = a.constant;
  if (ac !== undefined) return ac > 0 ? num(Math.log2(ac)) : poison();
  return fnAtom('log2', [a]);
}

/** An opaque, named quantity (e.g. an unknown call) that must be bound as a whole. */
export function opaque(name: string): Expr {
  return sym(name);
}

export function sum(xs: Expr[]): Expr {
  return add(...xs);
}

// ---------------------------------------------------------------------------
// Evaluation

export type Env = ReadonlyMap<string, number>;

/** Evaluates with the given bindings; `undefined` when a symbol is free or the value is not finite. */
export function evaluate(e: Expr, env: Env): number | undefined {
  if (e.poisoned) return undefined;
  let total = 0;
  for (const m of e.terms.values()) {
    let v = m.coef;
    for (const f of m.factors) {
      const a = evalAtom(f.atom, env);
      if (a === undefined) return undefined;
      v *= Math.pow(a, f.pow);
    }
    total += v;
  }
  return Number.isFinite(total) ? total : undefined;
}

function evalAtom(a: Atom, env: Env): number | undefined {
  if (a.kind === 'sym') return env.get(a.name);
  const vs: number[] = [];
  for (const x of a.args) {
    const v = evaluate(x, env);
    if (v === undefined) return undefined;
    vs.push(v);
  }
  let r: number;
  switch (a.fn) {
    case 'cdiv':
      if (vs[1] === 0) return undefined;
      r = Math.ceil(vs[0] / vs[1]);
      break;
    case 'floordiv':
      if (vs[1] === 0) return undefined;
      r = Math.floor(vs[0] / vs[1]);
      break;
    case 'div':
      if (vs[1] === 0) return undefined;
      r = vs[0] / vs[1];
      break;
    case 'mod':
      if (vs[1] === 0) return undefined;
      r = ((vs[0] % vs[1]) + vs[1]) % vs[1];
      break;
    case 'min':
      r = Math.min(vs[0], vs[1]);
      break;
    case 'max':
      r = Math.max(vs[0], vs[1]);
      break;
    case 'log2':
      if (vs[0] <= 0) return undefined;
      r = Math.log2(vs[0]);
      break;
    case 'pow':
      r = Math.pow(vs[0], vs[1]);
      break;
    case 'and':
    case 'or':
    case 'xor': {
      const x = foldNumbers(a.fn === 'and' ? '&' : a.fn === 'or' ? '|' : '^', vs[0], vs[1]);
      if (x === undefined) return undefined;
      r = x;
      break;
    }
    default:
      return undefined;
  }
  return Number.isFinite(r) ? r : undefined;
}

/** Rebuilds an expression with each symbol replaced by `f(name)` (kept when `f` returns undefined), re-simplified. */
export function mapSyms(e: Expr, f: (name: string) => Expr | undefined): Expr {
  if (e.poisoned) return e;
  const parts: Expr[] = [];
  for (const m of e.terms.values()) {
    const fs: Expr[] = [num(m.coef)];
    for (const factor of m.factors) fs.push(pow(mapAtom(factor.atom, f), num(factor.pow)));
    parts.push(mul(...fs));
  }
  return add(...parts);
}

/** One atom rebuilt with its symbols replaced (an atom as an expression when `f` replaces nothing). */
export function mapAtom(a: Atom, f: (name: string) => Expr | undefined): Expr {
  if (a.kind === 'sym') return f(a.name) ?? fromAtom(a);
  const args = a.args.map((x) => mapSyms(x, f));
  switch (a.fn) {
    case 'cdiv':
      return cdiv(args[0], args[1]);
    case 'floordiv':
      return floordiv(args[0], args[1]);
    case 'div':
      return div(args[0], args[1]);
    case 'mod':
      return mod(args[0], args[1]);
    case 'min':
      return min(args[0], args[1]);
    case 'max':
      return max(args[0], args[1]);
    case 'log2':
      return log2(args[0]);
    case 'pow':
      return pow(args[0], args[1]);
    case 'and':
      return bitop('&', args[0], args[1]);
    case 'or':
      return bitop('|', args[0], args[1]);
    case 'xor':
      return bitop('^', args[0], args[1]);
    default:
      return fromAtom(a);
  }
}

/** Substitutes known values and re-simplifies (keeps free symbols symbolic). */
export function substitute(e: Expr, env: Env): Expr {
  return mapSyms(e, (name) => {
    const v = env.get(name);
    return v === undefined ? undefined : num(v);
  });
}

/** Names of the symbols an expression depends on. */
export function freeSymbols(e: Expr, out: Set<string> = new Set()): Set<string> {
  for (const m of e.terms.values())
    for (const f of m.factors) {
      if (f.atom.kind === 'sym') out.add(f.atom.name);
      else for (const a of f.atom.args) freeSymbols(a, out);
    }
  return out;
}

export function dependsOn(e: Expr, name: string): boolean {
  return freeSymbols(e).has(name);
}

// ---------------------------------------------------------------------------
// Printing

function fmtCoef(c: number): string {
  if (Number.isInteger(c)) return String(c);
  const r = Math.round(c * 1e6) / 1e6;
  return String(r);
}

function printAtom(a: Atom): string {
  if (a.kind === 'sym') return a.name;
  const args = a.args.map((x) => printExpr(x));
  if (a.fn === 'div') return `(${args[0]})/(${args[1]})`;
  if (a.fn === 'floordiv') return `⌊${args[0]} / ${args[1]}⌋`;
  if (a.fn === 'mod') return `(${args[0]} mod ${args[1]})`;
  if (a.fn === 'and' || a.fn === 'or' || a.fn === 'xor') return `(${args[0]} ${a.fn === 'and' ? '&' : a.fn === 'or' ? '|' : '^'} ${args[1]})`;
  return `${a.fn}(${args.join(', ')})`;
}

function printMono(m: Monomial, first: boolean): string {
  const neg = m.coef < 0;
  const c = Math.abs(m.coef);
  const parts: string[] = [];
  if (c !== 1 || m.factors.length === 0) parts.push(fmtCoef(c));
  for (const f of m.factors) {
    const s = printAtom(f.atom);
    parts.push(f.pow === 1 ? s : `${s}^${f.pow}`);
  }
  const body = parts.join('·');
  if (first) return (neg ? '−' : '') + body;
  return (neg ? ' − ' : ' + ') + body;
}

/** Human-readable form: `2·BLOCK_M·BLOCK_N·K + BLOCK_M·BLOCK_N`. */
export function printExpr(e: Expr): string {
  if (e.poisoned) return '?';
  if (e.terms.size === 0) return '0';
  // Highest-degree terms first, constant last.
  const monos = [...e.terms.values()].sort((a, b) => {
    const da = a.factors.reduce((s, f) => s + f.pow, 0);
    const db = b.factors.reduce((s, f) => s + f.pow, 0);
    if (da !== db) return db - da;
    return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  });
  return monos.map((m, i) => printMono(m, i === 0)).join('');
}
