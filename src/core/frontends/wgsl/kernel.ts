/**
 * One compute entry point → one `KernelIR`: bindings (user values first, then
 * the dispatch found in the host file, then const / override defaults met on
 * the way), the walked region tree, the number of workgroups, and the
 * footprints for compulsory traffic.
 */
import type { FnElem } from 'wesl/core';
import type { FrontendContext } from '../../frontend';
import type { KernelIR } from '../../ir';
import { mul, sym, type Expr } from '../../sym/expr';
import { seedBindings } from '../common';
import { footprintsOf } from './footprint';
import { binary, evalExpr, globalValue } from './expr';
import { call, callUser } from './calls';
import { walkEntry } from './entry';
import { evalPlace, globalPlace, readPlace, writePlace } from './memory';
import type { ModuleInfo } from './module';
import { WgslState, type WalkInputs } from './state';
import { walkBlock, walkStatement, walkStatements } from './stmt';

export interface EntryInputs {
  ctx: FrontendContext;
  mod: ModuleInfo;
  fn: FnElem;
  lineOf: (offset: number) => number;
  /** `dispatchWorkgroups(…)` of the host file, when one matches this kernel. */
  dispatch?: { grid: number[]; detail: string };
}

const DIMS = ['x', 'y', 'z'];

export function analyzeEntry(inp: EntryInputs): KernelIR {
  const { ctx, mod, fn, lineOf } = inp;
  const bindings = seedBindings(ctx);
  const grid = ctx.user.grid ?? inp.dispatch?.grid;
  if (grid) {
    const source = ctx.user.grid ? 'user' : 'launch';
    const detail = ctx.user.grid ? '--grid' : inp.dispatch!.detail;
    DIMS.forEach((d, i) => bindings.bind(`num_workgroups.${d}`, grid[i] ?? 1, source, detail));
  }
  const walker = walkState({ mod, bindings, user: ctx.user, budget: ctx.budget, lineOf });
  const body = walkEntry(walker, fn);
  const env = bindings.env();
  const units = unitsOf(DIMS.filter((d, i) => (grid ? i < Math.max(1, grid.length) : bindings.has(`num_workgroups.${d}`))));
  const fp = footprintsOf(walker.log.accesses, env);
  const assumptions = [...walker.notes.assumptions, ...fp.assumptions];
  let compulsoryNote = fp.note;
  if (walker.log.accesses.length === 0) compulsoryNote = 'no storage buffer or texture traffic';
  return {
    name: fn.name.ident.originalName,
    line: lineOf(fn.name.start),
    range: { startLine: lineOf(fn.start) - 1, endLine: lineOf(fn.end) - 1 },
    language: 'wgsl',
    unit: 'workgroup',
    body,
    units,
    bindings: bindings.toRecord(),
    footprints: fp.footprints,
    ...(compulsoryNote ? { compulsoryNote } : {}),
    assumptions: assumptions.filter((a, i) => assumptions.findIndex((b) => b.text === a.text) === i),
    diagnostics: walker.notes.diagnostics,
    needed: [...walker.notes.needed],
  };
}

/** The state of one walk, with the functions of the other files wired in (state.ts). */
function walkState(inp: WalkInputs): WgslState {
  const st = new WgslState(inp);
  st.ops = {
    evalExpr: (e) => evalExpr(st, e),
    evalPlace: (e) => evalPlace(st, e),
    globalPlace: (name) => globalPlace(st, name),
    globalValue: (name) => globalValue(st, name),
    readPlace: (p, at, what) => readPlace(st, p, at, what),
    writePlace: (p, v, line, what) => writePlace(st, p, v, line, what),
    binary: (op, l, r, line) => binary(st, op, l, r, line),
    call: (e) => call(st, e),
    callUser: (fn, args, line) => callUser(st, fn, args, line),
    walkBlock: (b) => walkBlock(st, b),
    walkStatements: (s) => walkStatements(st, s),
    walkStatement: (s) => walkStatement(st, s),
  };
  return st;
}

function unitsOf(dims: string[]): Expr | null {
  return dims.length === 0 ? null : mul(...dims.map((d) => sym(`num_workgroups.${d}`)));
}
