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
import type { ModuleInfo } from './module';
import { KernelWalker } from './walker';

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
  const walker = new KernelWalker({ mod, bindings, user: ctx.user, budget: ctx.budget, lineOf });
  const body = walker.walkEntry(fn);
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

function unitsOf(dims: string[]): Expr | null {
  return dims.length === 0 ? null : mul(...dims.map((d) => sym(`num_workgroups.${d}`)));
}
