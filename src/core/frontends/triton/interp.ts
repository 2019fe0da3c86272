/**
 * The Triton interpreter's entry: walks one `@triton.jit` kernel (inlining jit
 * helpers) over abstract values and records, for ONE program, every load,
 * store and FLOP into the IR's region tree (engine/recorder.ts). Loops are
 * walked once and multiplied by their trip count; conditions are decided by
 * the engine's branch policy; masks are true except where COUNTING.md's
 * `min(BLOCK, bound)` rule applies.
 *
 *   state.ts  the run's state; stmt.ts statements; expr.ts expressions;
 *   calls.ts  calls and builtins; memory.ts loads, stores, descriptors;
 *   dot.ts    tl.dot and reductions
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import type { Diagnostic, Region, TensorFootprint } from '../../ir';
import type { Assumption } from '../../messages';
import { add, max as emax, min as emin, mul, type Expr } from '../../sym/expr';
import { call, conditional } from './calls';
import { dot } from './dot';
import { evalNode } from './expr';
import { footprint, offUnion, type Offsets } from './offsets';
import { TritonState, type Access, type TritonInput } from './state';
import { execBlock } from './stmt';
import { field, line } from './syntax';
import { nested } from '../../budget';
import { unknown, type Val } from './values';

export type { Access, TritonInput } from './state';

export interface InterpResult {
  body: Region;
  accesses: Access[];
  assumptions: Assumption[];
  diagnostics: Diagnostic[];
  needed: string[];
  /** Tensors of assumed element type whose loaded values were used as indices. */
  indexUses: Set<string>;
}

/** An expression's value; nested too deeply, unknown, and said (`nested`). */
function evalNested(st: TritonState, n: Node): Val {
  return nested(st, n, evalNode, tooDeep);
}

function tooDeep(st: TritonState, n: Node): Val {
  st.notes.say('depthLimit', line(n), 'an expression');
  return unknown('depth');
}

export function interpret(inp: TritonInput): InterpResult {
  const st = new TritonState(inp);
  st.ops = {
    eval: (n: Node) => evalNested(st, n),
    execBlock: (b: Node) => execBlock(st, b),
    call: (n: Node) => call(st, n),
    conditional: (n: Node) => conditional(st, n),
    dot: (a, b, acc, n, opts) => dot(st, a, b, acc, n, opts),
  };
  const k = inp.kernel;
  const vars = new Map();
  for (const p of k.params) vars.set(p.name, st.paramValue(p.name, p.constexpr, p.annotation));
  st.frames.push({ vars, fn: k.name, returned: undefined, done: false });
  const block = field(k.node, 'body');
  if (block) execBlock(st, block);
  st.notes.assume('interiorTile');
  return {
    body: st.rec.root,
    accesses: st.accesses,
    assumptions: st.notes.assumptions,
    diagnostics: st.notes.diagnostics,
    needed: [...st.notes.needed],
    indexUses: st.indexUses,
  };
}

/**
 * Per-tensor footprints from the recorded accesses. Accesses of one tensor that
 * run along the same strides are merged into the hull of their intervals;
 * otherwise the largest is kept. Each is capped by "no reuse across units"
 * (units × what one unit requests), which is also the fallback when the
 * index intervals are unknown.
 */
export function footprintsOf(accesses: Access[], units: Expr | null): { footprints: TensorFootprint[]; missing: string[] } {
  const groups = new Map<string, Access[]>();
  for (const a of accesses) {
    const key = `${a.kind}|${a.target}`;
    groups.set(key, [...(groups.get(key) ?? []), a]);
  }
  const byTarget = new Map<string, TensorFootprint>();
  const missing = new Set<string>();
  for (const list of groups.values()) {
    const { kind, target, elemBytes } = list[0];
    // Merge offsets along identical strides.
    const merged: { off?: Offsets; fp: Expr | null; perUnit: Expr }[] = [];
    for (const a of list) {
      const same = a.off ? merged.find((m) => m.off && offUnion(m.off, a.off!)) : undefined;
      if (same && same.off && a.off) {
        same.off = offUnion(same.off, a.off)!;
        same.fp = footprint(same.off);
        same.perUnit = add(same.perUnit, a.perUnit);
      } else merged.push({ off: a.off, fp: a.footprint, perUnit: a.perUnit });
    }
    let total: Expr | null = null;
    let known = true;
    for (const m of merged) {
      const noReuse = units ? mul(units, m.perUnit) : null;
      const fp = m.fp && noReuse ? emin(m.fp, noReuse) : (m.fp ?? noReuse);
      if (!fp) known = false;
      else total = total ? emax(total, fp) : fp;
    }
    if (!known) missing.add(target);
    const cur = byTarget.get(target) ?? { target, elemBytes, read: null, written: null };
    if (kind === 'load') cur.read = known ? total : null;
    else cur.written = known ? total : null;
    byTarget.set(target, cur);
  }
  return { footprints: [...byTarget.values()], missing: [...missing] };
}
