/**
 * One `__global__` kernel → its IR. The unit is one thread block: the body
 * is read once for a symbolic thread, and every event counts the threads of
 * the block that execute it.
 *
 * Threads per block and grid, highest priority first: `--set blockDim.x=…` /
 * settings (and `--grid`), a launch in the same file, `__launch_bounds__`.
 * Template arguments: `--set`/`--dtype`, the launch, an explicit
 * instantiation, the defaults.
 */
import { noteQuery, type Answers, type Deps, type RowEdit } from '../../deps';
import type { FrontendContext } from '../../frontend';
import type { KernelIR, Region } from '../../ir';
import { SuggestionLog, Suggestions } from '../../bindings';
import { inputsKey, ReadsMemo } from '../../engine/driver';
import { evaluate, mul, num, ONE, sub, sym, ZERO, type Expr } from '../../sym/expr';
import { parseDtype, seedBindings } from '../common';
import { evalExpr, evalTemplateArg } from './expr';
import type { FileInfo, FnDef, LaunchSite } from './file';
import { callersParams, launchFor, readLaunch, type LaunchInfo } from './launch';
import { Interp, Scope } from './state';
import { isUnitSize } from '../../engine/threads';
import { execStmt } from './stmt';
import { fileRow, lineOf, named, type Node } from './syntax';
import { baseType, descriptorType, unwrapDeclarator } from './typesyn';
import { isFloatTy, numTy, ptrTo, tyName, type Ty } from './types';
import type { Obj, Ptr, Val } from './values';

const AXES = ['x', 'y', 'z'] as const;

/**
 * `reads`: the file's answers to recorded reads (./deps.ts), with which the
 * values the kernel's other launch sites suggest are kept (`otherLaunches`).
 */
export function analyzeKernel(ctx: FrontendContext, file: FileInfo, def: FnDef, reads?: (d: Deps, edit?: RowEdit, lines?: RowEdit) => Answers): KernelIR {
  const b = seedBindings(ctx);
  const root: Region = { kind: 'kernel', line: lineOf(def.node), trips: ONE, label: `__global__ ${def.name}`, events: [], children: [] };
  const st = new Interp(ctx, file, b, root, ONE);
  const start = fileRow((def.template ?? def.node).startPosition.row);
  const end = fileRow(def.node.endPosition.row);
  st.kernelText = (def.template ?? def.node).text;
  st.frame = { def, scope: new Scope(null, true), typeParams: new Map(), ret: null, returned: false };
  (ctx.user.grid ?? []).slice(0, 3).forEach((g, i) => st.bind(`gridDim.${AXES[i]}`, g, 'user', '--grid'));

  noteQuery(`launches:${def.name}`);
  const sites = file.launches.filter((l) => l.name === def.name);
  const launch = launchFor(ctx, file, b, def.name);
  templateParams(st, def, launch);
  if (launch) applyLaunch(st, def, launch);
  const suggestions = new Suggestions();
  // Values the file suggests besides the ones bound (a per-launch analysis of a pipeline needs none).
  if (launch && !ctx.user.launch) otherLaunches(st, def, sites, launch, suggestions, reads);
  launchBounds(st, def);
  oneDimensional(st, file);
  declareIndices(st);
  declareParams(st, def);
  st.active = { conds: [], count: threadsPerBlock(st) };
  st.callStack.push(def);
  execStmt(st, def.body);

  const fp = st.fp.result();
  return {
    name: def.name,
    line: lineOf(def.node),
    range: { startLine: start, endLine: end },
    language: 'cuda',
    unit: 'block',
    body: root,
    units: units(st, launch),
    bindings: b.toRecord(),
    ...(suggestions.size ? { suggestions: suggestions.toRecord() } : {}),
    footprints: fp.footprints,
    ...(fp.note ? { compulsoryNote: fp.note } : {}),
    assumptions: st.notes.assumptions,
    diagnostics: st.notes.diagnostics,
    needed: [...st.notes.needed],
  };
}

function threadsPerBlock(st: Interp): Expr {
  return mul(...AXES.map((a) => st.dim(`blockDim.${a}`)));
}

/** The number of blocks: `--grid`, else the launch's grid (or `gridDim` bound by the user), else unknown. */
function units(st: Interp, launch: LaunchInfo | undefined): Expr | null {
  if (st.ctx.user.grid && st.ctx.user.grid.length > 0) return num(st.ctx.user.grid.reduce((p, g) => p * g, 1));
  const known = launch?.grid !== undefined || AXES.some((a) => st.b.has(`gridDim.${a}`));
  return known ? mul(...AXES.map((a) => st.dim(`gridDim.${a}`))) : null;
}

// ------------------------------------------------------------------ template parameters

function templateParams(st: Interp, def: FnDef, launch: LaunchInfo | undefined): void {
  const inst = st.file.instantiations.find((i) => i.name === def.name);
  def.tparams.forEach((tp, i) => {
    const fromLaunch = launch?.targs[i];
    const fromInst = inst?.targs[i];
    if (tp.kind === 'type') return typeParam(st, tp.name, fromLaunch, fromInst, tp.dflt, launch);
    st.declare(tp.name, { ty: numTy('int32', 1, 'int'), val: { ty: numTy('int32', 1, 'int'), e: sym(tp.name), konst: true, data: false } });
    if (fromLaunch) bindValue(st, tp.name, fromLaunch.val.e, 'launch', `template argument of the launch at line ${launch!.line}`);
    if (fromInst) bindValue(st, tp.name, evalTemplateArg(st, fromInst).e, 'template', `explicit instantiation (line ${inst!.line})`);
    if (tp.dflt) bindValue(st, tp.name, evalExpr(st, tp.dflt).e, 'default', `default template argument (line ${lineOf(tp.dflt)})`);
  });
}

function bindValue(st: Interp, name: string, e: Expr | undefined, source: 'launch' | 'template' | 'default', detail: string): void {
  const v = st.value(e);
  if (v !== undefined) st.bind(name, v, source, detail);
}

function typeParam(st: Interp, name: string, fromLaunch: LaunchInfo['targs'][number] | undefined, fromInst: Node | undefined, dflt: Node | null, launch: LaunchInfo | undefined): void {
  const user = st.ctx.user.dtypes[name];
  let ty: Ty | undefined = user ? numTy(user, 1, name) : undefined;
  if (!ty && fromLaunch && fromLaunch.ty.k !== 'unknown') ty = fromLaunch.ty;
  if (!ty && fromInst) ty = fromInst.type === 'type_descriptor' ? descriptorType(st, fromInst) : baseType(st, fromInst);
  if (!ty && dflt) ty = baseType(st, dflt);
  if (!ty && launch) ty = deducedFromLaunch(st, name, launch);
  if (!ty || ty.k === 'unknown') {
    ty = numTy('fp32', 1, name);
    st.assume('templateTypeFp32', name);
    st.say('unknownDtype', st.frame.def!.node, name);
  }
  st.frame.typeParams.set(name, ty);
}

/** `T` from the type of the host pointer passed where the kernel takes a `T*`. */
function deducedFromLaunch(st: Interp, name: string, launch: LaunchInfo): Ty | undefined {
  const def = st.frame.def!;
  for (let i = 0; i < def.params.length; i++) {
    const p = def.params[i];
    if (p.childForFieldName('type')?.text !== name) continue;
    const a = launch.args[i];
    if (a?.ty.k === 'ptr' && a.ty.to.k === 'num') return a.ty.to;
    if (a && a.ty.k === 'num') return a.ty;
  }
  return undefined;
}

// ------------------------------------------------------------------ launch configuration

function applyLaunch(st: Interp, def: FnDef, launch: LaunchInfo): void {
  const where = `launch at line ${launch.line}${launch.count > 1 ? ` (the first of ${launch.count})` : ''}`;
  for (const [kind, dims] of [
    ['blockDim', launch.block],
    ['gridDim', launch.grid],
  ] as const) {
    dims?.forEach((e, i) => {
      const name = `${kind}.${AXES[i]}`;
      const v = st.value(e);
      // A block of no threads or a fraction of one is no launch (it fails): said, and left to bind.
      if (v !== undefined && kind === 'blockDim' && !isUnitSize(v)) st.say('blockSizeInvalid', launch.line, name, String(v));
      else if (v !== undefined) st.bind(name, v, 'launch', where);
      else if (!st.b.has(name)) st.dimValues.set(name, e);
    });
  }
  def.params.forEach((p, i) => {
    const d = unwrapDeclarator(baseType(st, p.childForFieldName('type')), p.childForFieldName('declarator'));
    const v = st.value(launch.args[i]?.e);
    if (!d.name || v === undefined || d.ty.k !== 'num') return;
    // A value the launch's own function does not give came from its caller's host code.
    if (st.value(launch.ownArgs[i]?.e) === undefined && launch.hostDetail) st.bind(d.name, v, 'host', `${launch.hostDetail} → argument of the ${where}`);
    else st.bind(d.name, v, 'launch', `argument of the ${where}`);
  });
}

/** Further launch sites, and further call sites of the first launch's host function, whose values are suggested. */
const MAX_OTHER_LAUNCHES = 8;
/** Steps the suggestions may take (not taken from the kernel's budget). */
const SUGGEST_STEPS = 50_000;

/**
 * The values the other launch sites of the kernel give, and the first
 * launch under the other call sites of its host function (the first ones
 * bind). Only constants: a value that needs a binding is not suggested.
 */
function suggestLaunches(st: Interp, def: FnDef, sites: LaunchSite[], first: LaunchInfo, sug: Suggestions): void {
  const constant = (e: Expr | undefined): number | undefined => (e ? evaluate(e, new Map()) : undefined);
  const add = (launch: LaunchInfo, where: string, host: string | undefined): void => {
    // Under another caller only what the caller changes: the values the launch's own function does not give.
    const own = (e: Expr | undefined): boolean => host !== undefined && constant(e) !== undefined;
    for (const [kind, dims] of [
      ['blockDim', launch.block],
      ['gridDim', launch.grid],
    ] as const) {
      if (host && kind === 'blockDim') continue;
      dims?.forEach((e, i) => {
        const v = constant(e);
        // A y or z of 1 is what a one-dimensional launch says without saying it.
        if (v !== undefined && (i === 0 || v !== 1)) sug.add(`${kind}.${AXES[i]}`, v, host ? 'host' : 'launch', host ?? where);
      });
    }
    if (!host) {
      def.tparams.forEach((tp, i) => {
        const v = tp.kind === 'type' ? undefined : constant(launch.targs[i]?.val.e);
        if (v !== undefined) sug.add(tp.name, v, 'launch', `template argument of the ${where}`);
      });
    }
    def.params.forEach((p, i) => {
      const d = unwrapDeclarator(baseType(st, p.childForFieldName('type')), p.childForFieldName('declarator'));
      const v = constant(launch.args[i]?.e);
      if (d.name && v !== undefined && d.ty.k === 'num' && !own(launch.ownArgs[i]?.e)) sug.add(d.name, v, host ? 'host' : 'launch', host ?? `argument of the ${where}`);
    });
  };
  st.ctx.budget.optional(SUGGEST_STEPS, () => {
    sites.slice(1, 1 + MAX_OTHER_LAUNCHES).forEach((site, j) => {
      const other = readLaunch(st.ctx, st.file, st.b.clone(), site, sites.length);
      add(other, `launch at line ${other.line} (${j + 2} of ${sites.length})`, undefined);
    });
    if (!first.hostDetail) return;
    for (const given of callersParams(st.ctx, st.file, st.b.clone(), sites[0].call, 1 + MAX_OTHER_LAUNCHES).slice(1)) {
      const other = readLaunch(st.ctx, st.file, st.b.clone(), sites[0], sites.length, given);
      add(other, `launch at line ${other.line}`, `${given.detail} → the launch at line ${other.line}`);
    }
  });
}

/**
 * The values the kernel's other launch sites and its host function's other
 * callers suggest (`suggestLaunches`), kept per kernel with the reads that
 * made them: typing in the kernel's body does not run the host code before
 * each of its launches again (cuda-samples' `reduction_kernel.cu`: 9 launch
 * sites a kernel, ~3.5 ms a keystroke), as Triton's `ownLaunches` keeps its
 * own. Plain data, added again in order. Besides its reads it depends on the
 * kernel's parameters, the bindings before it and the user's inputs (the key).
 */
function otherLaunches(st: Interp, def: FnDef, sites: LaunchSite[], first: LaunchInfo, sug: Suggestions, reads: ((d: Deps, edit?: RowEdit, lines?: RowEdit) => Answers) | undefined): void {
  if (!reads || (sites.length < 2 && !first.hostDetail)) return suggestLaunches(st, def, sites, first, sug);
  const ctx = st.ctx;
  const key = JSON.stringify([def.params.map((p) => p.text), def.tparams.map((t) => [t.name, t.kind]), st.b.toRecord(), !!first.hostDetail, sites.length, inputsKey(ctx)]);
  const adds = suggestionMemo.get(
    ctx,
    `${ctx.path ?? '<input>'}\u0000${def.name}\u0000${ctx.gpu?.id ?? ''}`,
    key,
    st.file.root,
    reads,
    () => {
      const log = new SuggestionLog();
      suggestLaunches(st, def, sites, first, log);
      return log.adds;
    },
    () => !ctx.budget.kernelTruncated && !ctx.budget.expired,
    undefined,
    true,
  );
  SuggestionLog.replay(adds, sug);
}

const suggestionMemo = new ReadsMemo<SuggestionLog['adds']>(1024);

/** Forgets the kept suggestions (the frontend's caches cleared). */
export function clearSuggestionMemo(): void {
  suggestionMemo.clear();
}

/** `__launch_bounds__(N)`: N threads per block when nothing better is known. */
function launchBounds(st: Interp, def: FnDef): void {
  const lb = named(def.node).find((c) => c.type === 'launch_bounds');
  const first = lb ? named(lb)[0] : undefined;
  if (!first) return;
  const v = st.value(evalExpr(st, first).e);
  if (v === undefined) return;
  const detail = `__launch_bounds__ (line ${lineOf(lb!)})`;
  if (st.bind('blockDim.x', v, 'launch_bounds', detail)) {
    st.bind('blockDim.y', 1, 'launch_bounds', detail);
    st.bind('blockDim.z', 1, 'launch_bounds', detail);
  }
}

/** A block with no `.y`/`.z` anywhere in the device code is one-dimensional. */
function oneDimensional(st: Interp, file: FileInfo): void {
  const mentions = (word: string): boolean => st.kernelText.includes(word) || file.helperMentions(word);
  for (const axis of ['y', 'z']) {
    for (const kind of ['blockDim', 'gridDim']) {
      const name = `${kind}.${axis}`;
      if (st.b.has(name) || st.dimValues.has(name)) continue;
      const idx = kind === 'blockDim' ? `threadIdx.${axis}` : `blockIdx.${axis}`;
      if (mentions(name) || mentions(idx)) continue;
      if (kind === 'gridDim' && !st.b.has('gridDim.x') && !st.dimValues.has('gridDim.x')) continue;
      st.bind(name, 1, 'derived', `the kernel uses only the x dimension`);
    }
  }
}

function declareIndices(st: Interp): void {
  for (const a of AXES) {
    st.syms.declare(`threadIdx.${a}`, { kind: 'thread', lo: ZERO, hi: sub(st.dim(`blockDim.${a}`), ONE) });
    st.syms.declare(`blockIdx.${a}`, { kind: 'block', lo: ZERO, hi: sub(st.dim(`gridDim.${a}`), ONE) });
  }
}

// ------------------------------------------------------------------ parameters

function declareParams(st: Interp, def: FnDef): void {
  for (const p of def.params) {
    const d = unwrapDeclarator(baseType(st, p.childForFieldName('type')), p.childForFieldName('declarator'));
    if (!d.name) continue;
    st.declare(d.name, { ty: d.ty, val: paramValue(st, d.name, d.ty, p) });
  }
}

function paramValue(st: Interp, name: string, ty: Ty, p: Node): Val {
  if (ty.k === 'ptr') {
    const elem = pointee(st, name, ty.to, p);
    const ptr: Ptr = { base: name, space: 'global', baseTy: elem, off: ZERO, exact: true, rows: [] };
    return { ty: ptrTo(elem), konst: false, data: false, ptr };
  }
  st.runtimeParams.add(name);
  if (ty.k === 'struct') return { ty, konst: false, data: false, obj: structParam(st, name, ty.name) };
  if (isFloatTy(ty)) return { ty, konst: false, data: false };
  return { ty, e: sym(name), konst: false, data: false };
}

/** The element type of a pointer parameter: `--dtype NAME=…` first, then the declaration, else fp32 (said so). */
function pointee(st: Interp, name: string, declared: Ty, p: Node): Ty {
  const user = st.ctx.user.dtypes[name];
  if (user) return numTy(user, 1, user);
  if (declared.k === 'num' || declared.k === 'ptr') return declared;
  const guess = declared.k === 'unknown' ? parseDtype(declared.name) : undefined;
  if (guess) return numTy(guess, 1, declared.k === 'unknown' ? declared.name : tyName(declared));
  if (declared.k === 'struct') return declared;
  st.assume('elemAssumedFp32', name);
  st.say('unknownDtype', p, name);
  // Named as declared (`Vertex`), so a member access on it can say which type is missing.
  return numTy('fp32', 1, declared.k === 'unknown' && declared.name !== '?' ? declared.name : 'float');
}

/** A struct passed by value: its pointer members point to global memory (`p.A`), its scalars are symbols (`p.n`). */
function structParam(st: Interp, name: string, structName: string): Obj {
  const s = st.file.structs.get(structName);
  const fields = new Map<string, Val>();
  for (const [f, { type, declarator }] of s?.fields ?? []) {
    const d = unwrapDeclarator(baseType(st, type), declarator);
    const path = `${name}.${f}`;
    if (d.ty.k === 'ptr') {
      const elem = pointee(st, path, d.ty.to, declarator);
      fields.set(f, { ty: ptrTo(elem), konst: false, data: false, ptr: { base: path, space: 'global', baseTy: elem, off: ZERO, exact: true, rows: [] } });
    } else {
      st.runtimeParams.add(path);
      fields.set(f, isFloatTy(d.ty) ? { ty: d.ty, konst: false, data: false } : { ty: d.ty, e: sym(path), konst: false, data: false });
    }
  }
  return { kind: 'struct', fields };
}
