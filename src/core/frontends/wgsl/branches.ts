/**
 * `if` and `switch` in a WGSL entry point. A condition is classified by what
 * it depends on and handed to the engine's branch policy (engine/branch.ts):
 * constant → the branch taken; local-id condition → only the invocations
 * that satisfy it; bounds check → its in-bounds arm (interior; the engine
 * reads which from the comparisons), narrowing the intervals of the variables
 * it tests; early exit → not taken; data → the costlier arm.
 */
import type { BlockElem, ExpressionElem, IfElem, Statement, SwitchElem } from 'wesl/core';
import { decide, decideSwitch, type BoundsShape, type Side } from '../../engine/branch';
import type { CmpOp } from '../../engine/cond';
import { add, freeSymbols, max as emax, min as emin, num, sub, type Expr } from '../../sym/expr';
import type { ActivePred } from './conditions';
import { unparen } from './loops';
import type { WgslState } from './state';
import { DEP, hasDep, isConst, type Val } from './values';

const NEGATE: Record<string, string> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<', '==': '!=', '!=': '==' };
const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };

type CondClass =
  | { kind: 'const'; value: boolean | undefined; missing: string[] }
  | { kind: 'lid'; preds: ActivePred[] }
  | { kind: 'bounds'; unknownAxes: string[] }
  | { kind: 'data'; preds: ActivePred[] }
  | { kind: 'periodic'; period: Expr; on: 'then' | 'else'; counter: string };

export function walkIf(st: WgslState, s: IfElem): boolean {
  const line = st.lineOf(s.start);
  const cls = classify(st, s.condition);
  const text = st.text(s.condition);
  let exited = false;
  const then = () => {
    exited = st.ops.walkBlock(s.body);
  };
  const otherwise = s.else
    ? () => {
        exited = walkElse(st, s.else!);
      }
    : undefined;
  switch (cls.kind) {
    case 'periodic':
      decide(st, { k: 'periodic', period: cls.period, on: cls.on, counter: cls.counter }, { line, text, then, else: otherwise });
      return false;
    case 'const':
      if (cls.value === undefined) for (const n of cls.missing) st.notes.need(n);
      decide(st, cls.value === undefined ? { k: 'compile', names: cls.missing } : { k: 'const', value: cls.value }, { line, text, then, else: otherwise, exits: !s.else && endsInExit(s.body) && cls.value === undefined });
      // A decided branch that leaves ends the walk; an undecided one does not.
      return cls.value === undefined ? false : exited;
    case 'lid': {
      const others = negatePreds(cls.preds);
      decide(
        st,
        { k: 'thread' },
        { line, text, then, else: otherwise, exits: !s.else && endsInExit(s.body) },
        {
          threads: (holds, arm, rest) => {
            const preds = holds ? cls.preds : [others];
            if (rest) {
              // The invocations that left: the rest of the block runs on the others.
              const base = st.preds.length;
              st.pushPreds(cls.preds);
              st.ops.walkBlock(s.body);
              st.restorePreds(base);
              st.pushPreds(preds);
              return;
            }
            const base = st.preds.length;
            st.pushPreds(preds);
            arm?.();
            st.restorePreds(base);
          },
        },
      );
      return false;
    }
    case 'bounds':
      decide(
        st,
        { k: 'bounds', shape: boundsShape(st, s.condition), unknownAxes: cls.unknownAxes },
        { line, text, then, else: otherwise, exits: !s.else && endsInExit(s.body) },
        {
          narrow: (holds, arm) => {
            const undo = narrow(st, s.condition, !holds || !arm);
            if (!arm) return;
            arm();
            undo();
          },
        },
      );
      return false;
    default: {
      const base = st.preds.length;
      st.pushPreds(cls.preds);
      st.dataDepth++;
      try {
        decide(st, { k: 'data' }, { line, text, then, else: otherwise, exits: !s.else && isGuard(s.body) });
      } finally {
        st.dataDepth--;
        st.restorePreds(base);
      }
      return false;
    }
  }
}

function walkElse(st: WgslState, e: IfElem | BlockElem): boolean {
  return e.kind === 'if' ? walkIf(st, e) : st.ops.walkBlock(e);
}

/** Classifies a condition by what it depends on; conjunctions are split. */
function classify(st: WgslState, cond: ExpressionElem): CondClass {
  // `v == c` / `v != c` on a wrapping counter of an enclosing loop (loops.ts `wrappingCounters`).
  const u = unparen(cond);
  if (u.kind === 'binary-expression' && (u.operator.value === '==' || u.operator.value === '!=') && st.counters.size) {
    const side = [u.left, u.right].map(unparen).find((x) => x.kind === 'ref' && st.counters.has(x.ident.originalName));
    if (side?.kind === 'ref') return { kind: 'periodic', period: st.counters.get(side.ident.originalName)!, on: u.operator.value === '==' ? 'then' : 'else', counter: side.ident.originalName };
  }
  const parts = conjuncts(cond);
  const vals = parts.map((p) => st.ops.evalExpr(p));
  const consts = vals.filter(isConst);
  for (const v of consts) {
    const x = v.fn?.(st.env);
    if (x === 0) return { kind: 'const', value: false, missing: [] };
  }
  const rest = vals.filter((v) => !isConst(v));
  if (rest.length === 0) {
    const missing = consts.filter((v) => v.fn?.(st.env) === undefined);
    return { kind: 'const', value: missing.length ? undefined : true, missing: missing.flatMap((v) => st.missingNames(v)) };
  }
  const lids = rest.filter(isLocal);
  if (rest.some((v) => hasDep(v, DEP.DATA) || hasDep(v, DEP.MUT))) return { kind: 'data', preds: lids.map(toPred) };
  if (lids.length > 0) return { kind: 'lid', preds: lids.map(toPred) };
  const uniforms = rest.filter((v) => !hasDep(v, DEP.GID) && !hasDep(v, DEP.WID));
  if (uniforms.length === rest.length) {
    const values = uniforms.map((v) => v.fn?.(st.env));
    if (values.every((x) => x !== undefined)) return { kind: 'const', value: values.every((x) => x !== 0), missing: [] };
    // A uniform (or `arrayLength`) not bound is a run-time value: either arm may run.
    for (const n of uniforms.flatMap((v) => st.missingNames(v))) st.notes.need(n);
    return { kind: 'data', preds: [] };
  }
  return { kind: 'bounds', unknownAxes: unknownAxes(st, cond) };
}

/**
 * The workgroup axes along which an id the condition compares with a number
 * runs, when the dispatch's size along them is unknown (the dispatch may have
 * one workgroup there). The sides are looked at a second time, quietly.
 */
function unknownAxes(st: WgslState, cond: ExpressionElem): string[] {
  const axes = new Set<string>();
  const visit = (e: ExpressionElem): void => {
    const u = unparen(e);
    if (u.kind === 'unary-expression') return visit(u.expression);
    if (u.kind !== 'binary-expression') return;
    if (u.operator.value === '&&' || u.operator.value === '||') {
      visit(u.left);
      visit(u.right);
      return;
    }
    // An id compared with a number (`gid.x == 0u`): decided by the first workgroup along the id's axes.
    const sides = [u.left, u.right].map((side) => {
      st.notes.muted++;
      try {
        return st.quietly(() => st.ops.evalExpr(side));
      } finally {
        st.notes.muted--;
      }
    });
    for (const [v, other] of [[sides[0], sides[1]], [sides[1], sides[0]]] as const) {
      if (!isConst(other) || other.fn?.(new Map()) === undefined) continue;
      for (const n of v.sym ? freeSymbols(v.sym) : []) if (n.startsWith('@wid.') && !st.env.has(`num_workgroups.${n.slice(5)}`)) axes.add(`num_workgroups.${n.slice(5)}`);
    }
  };
  visit(cond);
  return [...axes].sort();
}

/**
 * What each side of a bounds check's comparisons is (an index, a number, a
 * size), for the engine's choice of the interior arm. The sides are looked at
 * a second time, quietly.
 */
function boundsShape(st: WgslState, cond: ExpressionElem): BoundsShape {
  const u = unparen(cond);
  if (u.kind === 'unary-expression' && u.operator.value === '!') return { k: 'not', c: boundsShape(st, u.expression) };
  if (u.kind !== 'binary-expression') return { k: 'opaque' };
  const op = u.operator.value;
  if (op === '&&' || op === '||') return { k: op === '&&' ? 'and' : 'or', l: boundsShape(st, u.left), r: boundsShape(st, u.right) };
  if (!(op in NEGATE)) return { k: 'opaque' };
  return { k: 'cmp', op: op as CmpOp, a: sideOf(st, u.left), b: sideOf(st, u.right) };
}

function sideOf(st: WgslState, e: ExpressionElem): Side {
  st.notes.muted++;
  try {
    const v = st.quietly(() => st.ops.evalExpr(e));
    if (v.deps & (DEP.GID | DEP.WID | DEP.LID | DEP.LOOP)) return 'index';
    return (isConst(v) ? v.fn?.(new Map()) : undefined) ?? 'size';
  } finally {
    st.notes.muted--;
  }
}

/**
 * Narrows the intervals of the variables a bounds check compares (`i < n`
 * → `i ≤ n − 1`), for footprints. `negated` reads the condition of an early
 * exit (what holds after it). Returns a function that undoes the narrowing.
 */
function narrow(st: WgslState, cond: ExpressionElem, negated: boolean): () => void {
  const undo: (() => void)[] = [];
  for (const c of negated ? disjuncts(cond) : conjuncts(cond)) {
    const u = unparen(c);
    if (u.kind !== 'binary-expression' || !(u.operator.value in NEGATE)) continue;
    const op = negated ? NEGATE[u.operator.value] : u.operator.value;
    const r = narrowOne(st, u.left, op, u.right) ?? narrowOne(st, u.right, FLIP[op], u.left);
    if (r) undo.push(r);
  }
  return () => undo.reverse().forEach((f) => f());
}

function narrowOne(st: WgslState, target: ExpressionElem, op: string, boundExpr: ExpressionElem): (() => void) | undefined {
  const t = unparen(target);
  const member = t.kind === 'component-member-expression' ? unparen(t.base) : undefined;
  const name = t.kind === 'ref' ? t.ident.originalName : member?.kind === 'ref' ? member.ident.originalName : undefined;
  const slot = name ? st.lookup(name) : undefined;
  if (!slot || slot.loopVar) return undefined;
  const bound = st.quietly(() => st.ops.evalExpr(boundExpr));
  if (!bound.sym || hasDep(bound, DEP.DATA)) return undefined;
  const before = slot.val;
  const comp = t.kind === 'component-member-expression' ? 'xyz'.indexOf(t.access.name) : -1;
  const cur = comp >= 0 ? before.comps?.[comp] : before;
  if (!cur?.range || (member && comp < 0)) return undefined;
  const range = narrowRange(cur.range, op, bound.sym);
  if (!range) return undefined;
  const next = { ...cur, range };
  slot.val = comp >= 0 ? { ...before, comps: before.comps!.map((c, i) => (i === comp ? next : c)) } : next;
  const after = slot.val;
  return () => {
    if (slot.val === after) slot.val = before;
  };
}

export function walkSwitch(st: WgslState, s: SwitchElem): void {
  const sel = st.ops.evalExpr(s.selector);
  const line = st.lineOf(s.start);
  const labels = s.clauses.map((c) => c.selectors.map((x) => (x === 'default' ? undefined : st.ops.evalExpr(x).fn?.(st.env))));
  const known = labels.flat().filter((v): v is number => v !== undefined);
  const matches = (i: number, v: number) => labels[i].some((x, j) => x === v || (s.clauses[i].selectors[j] === 'default' && !known.includes(v)));
  const value = isConst(sel) ? sel.fn?.(st.env) : undefined;
  if (value !== undefined) {
    const i = s.clauses.findIndex((_, k) => matches(k, value));
    if (i >= 0) st.ops.walkBlock(s.clauses[i].body);
    return;
  }
  if (isLocal(sel) && sel.fn) {
    s.clauses.forEach((c, i) => {
      const base = st.preds.length;
      st.pushPreds([{ fn: (env) => lift(sel.fn!(env), (v) => (matches(i, v) ? 1 : 0)), sym: undefined, loops: sel.loops ?? [] }]);
      st.ops.walkBlock(c.body);
      st.restorePreds(base);
    });
    return;
  }
  st.dataDepth++;
  try {
    decideSwitch(
      st,
      line,
      st.text(s.selector),
      s.clauses.map((c) => ({ label: c.selectors.includes('default') ? 'default' : `case ${c.selectors.map((x) => (x === 'default' ? 'default' : st.text(x))).join(', ')}`, run: () => void st.ops.walkBlock(c.body) })),
    );
  } finally {
    st.dataDepth--;
  }
}

// ---------------------------------------------------------------------------
// Helpers (pure)

function conjuncts(e: ExpressionElem): ExpressionElem[] {
  const u = unparen(e);
  return u.kind === 'binary-expression' && u.operator.value === '&&' ? [...conjuncts(u.left), ...conjuncts(u.right)] : [u];
}

function disjuncts(e: ExpressionElem): ExpressionElem[] {
  const u = unparen(e);
  return u.kind === 'binary-expression' && u.operator.value === '||' ? [...disjuncts(u.left), ...disjuncts(u.right)] : [u];
}

function isExit(s: Statement | undefined): boolean {
  return !!s && (s.kind === 'return' || s.kind === 'continue' || s.kind === 'break');
}

function endsInExit(b: BlockElem): boolean {
  return isExit(b.body[b.body.length - 1]);
}

/** An early-exit guard: a body that only leaves (`{ return; }`, `{ continue; }`). */
function isGuard(b: BlockElem): boolean {
  const only = b.body.length === 1 ? b.body[0] : undefined;
  return isExit(only) && !(only!.kind === 'return' && only!.value);
}

/** Depends only on the local invocation id and loop counters (and constants, uniforms): countable per invocation. */
function isLocal(v: Val): boolean {
  const other = DEP.GID | DEP.WID | DEP.DATA | DEP.MUT;
  return (v.deps & other) === 0 && (hasDep(v, DEP.LID) || hasDep(v, DEP.LOOP));
}

function lift(v: number | undefined, f: (v: number) => number): number | undefined {
  return v === undefined ? undefined : f(v);
}

function toPred(v: Val): ActivePred {
  return { fn: v.fn, sym: v.pred, loops: v.loops ?? [] };
}

/** The invocations that satisfy none of `preds` (the ones an exit leaves running). */
function negatePreds(preds: ActivePred[]): ActivePred {
  const fns = preds.map((p) => p.fn);
  const fn = fns.every((f) => f)
    ? (env: Parameters<NonNullable<ActivePred['fn']>>[0]) => {
        for (const f of fns) {
          const v = f!(env);
          if (v === undefined) return undefined;
          if (!v) return 1;
        }
        return 0;
      }
    : undefined;
  const sym = preds.length === 1 && preds[0].sym ? { ...preds[0].sym, op: NEGATE[preds[0].sym.op] } : undefined;
  return { fn, sym, loops: [...new Set(preds.flatMap((p) => p.loops))] };
}

function narrowRange(r: readonly [Expr, Expr], op: string, b: Expr): [Expr, Expr] | undefined {
  switch (op) {
    case '<':
      return [r[0], emin(r[1], sub(b, num(1)))];
    case '<=':
      return [r[0], emin(r[1], b)];
    case '>':
      return [emax(r[0], add(b, num(1))), r[1]];
    case '>=':
      return [emax(r[0], b), r[1]];
    default:
      return undefined;
  }
}
