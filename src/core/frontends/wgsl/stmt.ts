/**
 * Statements of a WGSL entry point: blocks and their scopes, declarations,
 * assignments (compound ones read, combine and write the place), `++`/`--`,
 * calls whose result is unused, returns; `if`/`switch` go to branches.ts and
 * loops to loops.ts.
 */
import type { BlockElem, ExpressionElem, Statement } from 'wesl/core';
import { num } from '../../sym/expr';
import { walkIf, walkSwitch } from './branches';
import { walkFor, walkLoopStmt, walkWhile } from './loops';
import type { WgslState } from './state';
import { I32, scalarOf, U32, UNKNOWN, type WType } from './types';
import { constVal, DEP, joinDeps, mergeLoops } from './values';

/** Walks a block in its own scope; true when it ends in an unconditional exit. */
export function walkBlock(st: WgslState, b: BlockElem): boolean {
  const f = st.frames[st.frames.length - 1];
  f.scopes.push(new Map());
  const exits = walkStatements(st, b.body);
  f.scopes.pop();
  return exits;
}

export function walkStatements(st: WgslState, stmts: Statement[]): boolean {
  for (const s of stmts) {
    if (st.budget.spent()) return true;
    if (walkStatement(st, s)) return true;
  }
  return false;
}

export function walkStatement(st: WgslState, s: Statement): boolean {
  switch (s.kind) {
    case 'let':
    case 'var':
    case 'const':
      declareLocal(st, s.name.decl.ident.originalName, s.name.typeRef ? st.types.resolve(s.name.typeRef) : undefined, s.init, s.kind === 'var');
      return false;
    case 'assign':
      assign(st, s);
      return false;
    case 'increment':
    case 'decrement':
      step(st, s.target, s.kind === 'increment' ? '+' : '-');
      return false;
    case 'call':
      st.discarded = true;
      try {
        st.ops.evalExpr(s.call);
      } finally {
        st.discarded = false;
      }
      return false;
    case 'if':
      return walkIf(st, s);
    case 'for':
      walkFor(st, s);
      return false;
    case 'while':
      walkWhile(st, s);
      return false;
    case 'loop':
      walkLoopStmt(st, s);
      return false;
    case 'switch':
      walkSwitch(st, s);
      return false;
    case 'block':
      return walkBlock(st, s);
    case 'return':
      returnValue(st, s.value);
      return true;
    case 'break':
    case 'continue':
    case 'discard':
      return true;
    default:
      return false;
  }
}

function declareLocal(st: WgslState, name: string, type: WType | undefined, init: ExpressionElem | undefined, mutable: boolean): void {
  const v = init ? st.ops.evalExpr(init) : constVal(type ?? UNKNOWN, scalarOf(type ?? UNKNOWN) ? num(0) : undefined, st.env);
  const t = type && type.k !== 'unknown' ? type : v.type.k === 'scalar' && v.type.s === 'ai' ? I32 : v.type;
  // A variable declared inside a data-dependent branch holds its initial value there (it does
  // not outlive the branch): only writes to outer variables under data control become data.
  st.declare(name, { val: { ...v, type: v.type.k === 'ptr' ? v.type : t }, mutable, loopVar: false });
}

function assign(st: WgslState, s: Extract<Statement, { kind: 'assign' }>): void {
  const rhs = st.ops.evalExpr(s.rhs);
  if (s.lhs.kind === 'phony') return;
  const place = st.ops.evalPlace(s.lhs);
  if (!place) return;
  const line = st.lineOf(s.start);
  const what = st.text(s.lhs);
  if (s.op.value === '=') return st.ops.writePlace(place, rhs, line, what);
  const old = st.ops.readPlace(place, s.lhs.start, what);
  st.ops.writePlace(place, st.ops.binary(s.op.value.slice(0, -1), old, rhs, line), line, what);
}

function step(st: WgslState, target: ExpressionElem, op: '+' | '-'): void {
  const place = st.ops.evalPlace(target);
  if (!place) return;
  const what = st.text(target);
  const old = st.ops.readPlace(place, target.start, what);
  const one = constVal(old.type.k === 'scalar' ? old.type : U32, num(1), st.env);
  st.ops.writePlace(place, st.ops.binary(op, old, one, st.lineOf(target.start)), st.lineOf(target.start), what);
}

function returnValue(st: WgslState, value: ExpressionElem | undefined): void {
  if (!value) return;
  const v = st.ops.evalExpr(value);
  const f = st.frames[st.frames.length - 1];
  f.ret = f.ret ? { type: f.ret.type, deps: joinDeps(f.ret, v), loops: mergeLoops(f.ret, v) } : v;
}
