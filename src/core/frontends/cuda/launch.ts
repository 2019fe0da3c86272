/**
 * Launch sites in the same file: `kernel<<<grid, block, smem>>>(args)` and
 * `kernel<64, 8><<<…>>>(…)`. The host code before the launch is read just
 * enough to evaluate the configuration: declarations (`dim3 block(16, 16)`,
 * `int M = 4096;`, `const int BM = 64;`) and assignments (`block.x = 256`)
 * on the path to the launch; parameters of the host function stay symbols.
 */
import type { BindingSet } from '../../bindings';
import type { FrontendContext } from '../../frontend';
import type { Region } from '../../ir';
import { mapSyms } from './indexsyms';
import { evaluate, num, ONE, sym, type Expr } from '../../sym/expr';
import { evalExpr, evalTemplateArg } from './expr';
import type { FileInfo, LaunchSite } from './file';
import { Interp, Scope } from './state';
import { execStmt } from './stmt';
import { brief, lineOf, named, type Node } from './syntax';
import { descendantsByStatement } from '../../syntax-tree';
import { answerLine, captured, noteQuery, recordInto, replay, type Deps } from '../../deps';
import { descriptorType, baseType, unwrapDeclarator } from './typesyn';
import { isIntTy, UNKNOWN, type Ty } from './types';
import type { Val } from './values';

export interface LaunchInfo {
  line: number;
  /** `blockDim` and `gridDim` components, where the launch gives them. */
  block: Expr[] | undefined;
  grid: Expr[] | undefined;
  /** Template arguments, read both as a type and as a value (the kernel's parameter kind decides). */
  targs: { ty: Ty; val: Val }[];
  args: Val[];
  /** How many launches of this kernel the file has. */
  count: number;
  /** The arguments evaluated with the host function's parameters as symbols (what the launch alone says). */
  ownArgs: Val[];
  /** Where the host function's parameter values came from (its call site), when they were followed. */
  hostDetail?: string;
}

/** Values a pipeline (or a call site) gives the host function around a launch, by parameter name. */
export type HostParams = Map<string, number>;

/** An interpreter for host code: nothing it walks is counted (its region is the host's own). */
export function hostInterp(ctx: FrontendContext, file: FileInfo, b: BindingSet): Interp {
  const root: Region = { kind: 'kernel', line: 1, trips: ONE, label: 'host', events: [], children: [] };
  return new Interp(ctx, file, b, root, ONE, true);
}

/** Launch sites read (the host code before each run): tests. */
export const launchStats = { reads: 0 };

export function readLaunch(ctx: FrontendContext, file: FileInfo, b: BindingSet, site: LaunchSite, count: number, given?: { params: HostParams; detail: string }): LaunchInfo {
  launchStats.reads++;
  const own = hostInterp(ctx, file, b);
  enterHostFunction(own, site.call);
  const ownArgs = site.args.map((a) => evalExpr(own, a));
  // The host function's parameters: given by a pipeline, else from its first call site in the file.
  const followed = given ?? callerParams(ctx, file, b, site.call);
  const host = hostInterp(ctx, file, b);
  enterHostFunction(host, site.call, followed?.params);
  const dims = (n: Node | undefined): Expr[] | undefined => {
    if (!n) return undefined;
    const v = evalExpr(host, n);
    if (v.obj?.dims) return v.obj.dims;
    return v.e ? [v.e, num(1), num(1)] : undefined;
  };
  const targs = site.targs.map((t) => ({ ty: t.type === 'type_descriptor' ? descriptorType(host, t) : UNKNOWN, val: evalTemplateArg(host, t) }));
  const args = site.args.map((a) => evalExpr(host, a));
  const alias = aliases(args, file, site);
  const rename = (e: Expr) => mapSyms(e, (name) => (alias.has(name) ? sym(alias.get(name)!) : undefined));
  const grid = dims(site.config[0]);
  const block = dims(site.config[1]);
  return { line: lineOf(site.call), block: block?.map(rename), grid: grid?.map(rename), targs, args, count, ownArgs, ...(followed ? { hostDetail: followed.detail } : {}) };
}

/**
 * The launch a kernel's analysis reads: for one launch of a pipeline
 * (`ctx.user.launch`), the site at its line with the values the pipeline
 * gives the host function around it; else the file's first launch of the
 * kernel (its host function's parameters followed to their first call site).
 */
export function launchFor(ctx: FrontendContext, file: FileInfo, b: BindingSet, name: string): LaunchInfo | undefined {
  noteQuery(`launches:${name}`);
  const sites = file.launches.filter((l) => l.name === name);
  const want = ctx.user.launch;
  if (want && want.kernel === name) {
    const site = sites.find((s) => lineOf(s.call) === want.line);
    if (site) {
      const params: HostParams = new Map();
      for (const [k, v] of Object.entries(want.frame ?? {})) if (typeof v === 'number') params.set(k, v);
      return readLaunch(ctx, file, b, site, 1, { params, detail: want.label });
    }
  }
  return sites[0] ? readLaunch(ctx, file, b, sites[0], sites.length) : undefined;
}

/** The enclosing host function of a node, if any. */
export function hostFunctionOf(n: Node): Node | undefined {
  for (let p: Node | null = n.parent; p; p = p.parent) if (p.type === 'function_definition') return p;
  return undefined;
}

export function functionName(fn: Node): string | undefined {
  let d = fn.childForFieldName('declarator');
  while (d && d.type !== 'function_declarator') d = d.childForFieldName('declarator');
  const n = d?.childForFieldName('declarator');
  return n ? n.text.split('::').pop() : undefined;
}

export function paramNames(fn: Node): string[] {
  let d = fn.childForFieldName('declarator');
  while (d && d.type !== 'function_declarator') d = d.childForFieldName('declarator');
  const list = d?.childForFieldName('parameters');
  return (list ? named(list) : []).map((p) => unwrapDeclarator({ k: 'void' }, p.childForFieldName('declarator')).name ?? '');
}

/** Plain calls `name(…)` of a host function in the file (not launches), in file order. */
export function callsOf(file: FileInfo, name: string): Node[] {
  // One walk per file (many launches in a large file must not each rescan the tree).
  let byName = callIndex.get(file);
  if (!byName) {
    // Built without recording: a kernel's read is the calls of one name (`calls:name`, deps.ts).
    byName = recordInto(undefined, () => {
      const index = new Map<string, Node[]>();
      for (const c of descendantsByStatement(file.root, 'call_expression')) {
        if (!c || c.childForFieldName('arguments') === null) continue;
        const f = c.childForFieldName('function');
        if (f?.type !== 'identifier') continue;
        const list = index.get(f.text) ?? [];
        if (list.length < 16) list.push(c);
        index.set(f.text, list);
      }
      return index;
    });
    callIndex.set(file, byName);
  }
  noteQuery(`calls:${name}`);
  return (byName.get(name) ?? []).filter((c) => !named(c).some((k) => k.type === 'kernel_call_syntax'));
}

/** The calls a kernel's `calls:name` read saw: each call's line and text (deps.ts). */
export function callsAnswer(file: FileInfo, name: string): string {
  return recordInto(undefined, () => callsOf(file, name).map((c) => `${answerLine(lineOf(c))}:${c.text}`).join(';'));
}

const callIndex = new WeakMap<FileInfo, Map<string, Node[]>>();

/** How many callers up a host function's parameters are followed (launcher ← forward ← main). */
const MAX_CALLER_DEPTH = 3;

/**
 * The values of a host function's integer parameters at its first call site
 * in the same file that gives any (`launch_saxpy(d_x, d_y, N)` in `main()`);
 * the caller's own parameters are followed the same way, up to
 * MAX_CALLER_DEPTH levels (`layernorm(…, B, T, C)` in `forward(B, T)`,
 * called from main()).
 */
export function callerParams(ctx: FrontendContext, file: FileInfo, b: BindingSet, call: Node, depth = 0, states?: HostStates): { params: HostParams; detail: string } | undefined {
  return callersParams(ctx, file, b, call, 1, depth, states)[0];
}

/**
 * The parameter values of the launch's host function at each of its call sites in the file that gives some (at
 * most `max`), callers followed up to MAX_CALLER_DEPTH. `states`: the host values of the caller's walk (a
 * pipeline's, made with the same bindings), where the values before a call site are read.
 */
export function callersParams(ctx: FrontendContext, file: FileInfo, b: BindingSet, call: Node, max: number, depth = 0, states?: HostStates): { params: HostParams; detail: string }[] {
  const fn = hostFunctionOf(call);
  const name = fn ? functionName(fn) : undefined;
  if (!fn || !name || name === 'main') return [];
  // Per kernel (its bindings): evaluating a caller's arguments binds the constants it meets into the
  // kernel's bindings, so a value found for one kernel is not handed to the next without them.
  let memo = callerMemo.get(b);
  if (!memo) callerMemo.set(b, (memo = new Map()));
  const key = `${fn.startIndex}:${depth}:${max}`;
  const known = memo.get(key);
  if (known) {
    // The reads that found them are the reader's too (deps.ts).
    replay(known.deps);
    return known.value;
  }
  memo.set(key, { value: [] });
  const { value, deps } = captured(() => callersParamsNow(ctx, file, b, call, max, depth, fn, name, states));
  memo.set(key, { value, deps });
  return value;
}

function callersParamsNow(ctx: FrontendContext, file: FileInfo, b: BindingSet, call: Node, max: number, depth: number, fn: Node, name: string, states: HostStates | undefined): { params: HostParams; detail: string }[] {
  const out: { params: HostParams; detail: string }[] = [];
  const names = paramNames(fn);
  for (const c of callsOf(file, name).slice(0, 8)) {
    if (out.length >= max) break;
    if (c.startIndex >= fn.startIndex && c.endIndex <= fn.endIndex) continue;
    const up = depth + 1 < MAX_CALLER_DEPTH ? callerParams(ctx, file, b, c, depth + 1, states) : undefined;
    let host: Interp;
    if (states) host = states.at(c, up?.params ?? new Map());
    else enterHostFunction((host = hostInterp(ctx, file, b)), c, up?.params);
    const argList = c.childForFieldName('arguments');
    const params: HostParams = new Map();
    (argList ? named(argList) : []).forEach((a, i) => {
      const v = evalExpr(host, a);
      const x = v.e ? evaluate(v.e, b.env()) : undefined;
      if (names[i] && x !== undefined) params.set(names[i], x);
    });
    if (params.size) {
      const caller = hostFunctionOf(c);
      out.push({ params, detail: `host: ${brief(c, 40)} at line ${lineOf(c)}${caller ? ` in ${functionName(caller) ?? '?'}()` : ''}${up ? ` ← ${up.detail.replace(/^host: /, '')}` : ''}` });
    }
  }
  return out;
}

/** Caller parameters by host function and depth, per kernel analysis (its bindings), with the reads that found them. */
const callerMemo = new WeakMap<BindingSet, Map<string, { value: { params: HostParams; detail: string }[]; deps?: Deps }>>();

/**
 * Host symbols passed as kernel arguments under another name
 * (`sgemm<<<…>>>(m, n, k)` into parameters `M, N, K`): renamed to the
 * kernel's names, so the grid reads `cdiv(M, 32)`.
 */
function aliases(args: Val[], file: FileInfo, site: LaunchSite): Map<string, string> {
  const out = new Map<string, string>();
  const params = file.kernelParams(site.name);
  if (!params) return out;
  params.forEach((p, i) => {
    const e = args[i]?.e;
    const name = p.childForFieldName('declarator') ? unwrapDeclarator({ k: 'void' }, p.childForFieldName('declarator')).name : '';
    if (!e || !name || e.terms.size !== 1) return;
    const m = [...e.terms.values()][0];
    if (m.coef !== 1 || m.factors.length !== 1 || m.factors[0].atom.kind !== 'sym' || m.factors[0].pow !== 1) return;
    const hostName = m.factors[0].atom.name;
    if (hostName !== name) out.set(hostName, name);
  });
  return out;
}

/** Declares the host function's parameters and runs the declarations on the path to the launch. */
export function enterHostFunction(host: Interp, call: Node, given?: HostParams): void {
  const path = pathFromFunction(call);
  host.frame = hostFrame();
  if (path[0].type === 'function_definition') declareHostParams(host, path[0], given);
  for (let i = 0; i + 1 < path.length; i++) {
    const parent = path[i];
    const child = path[i + 1];
    if (parent.type === 'compound_statement') runBefore(host, parent, child);
    const init = forInit(parent);
    if (init) execStmt(host, init);
  }
}

/** The nodes from `node`'s function definition (or the root, outside any) down to `node`. */
function pathFromFunction(node: Node): Node[] {
  const path: Node[] = [];
  for (let n: Node | null = node; n; n = n.parent) {
    path.unshift(n);
    if (n.type === 'function_definition') break;
  }
  return path;
}

function hostFrame(): Interp['frame'] {
  return { def: null, scope: new Scope(null, true), typeParams: new Map(), ret: null, returned: false };
}

/** The declaration that starts a `for` (`for (int i = 0; …)`), which the statements in the loop see. */
function forInit(n: Node): Node | null {
  if (n.type !== 'for_statement') return null;
  const init = n.childForFieldName('initializer');
  return init?.type === 'declaration' ? init : null;
}

/** A new host interpreter holding what `from` holds: its variables (each cell copied), index symbols and constants. */
function copyHost(from: Interp, make: () => Interp): Interp {
  const to = make();
  to.frame = hostFrame();
  for (const [name, cell] of from.frame.scope.vars) to.frame.scope.vars.set(name, { ...cell });
  to.syms.adopt(from.syms);
  for (const [name, v] of from.constants) to.constants.set(name, v);
  return to;
}

interface BlockRun {
  /** What holds before the block's first statement (never changed). */
  entry: Interp;
  /** The block's statements run so far (`next` of them). */
  host: Interp;
  children: Node[];
  next: number;
  /** A copy of `host` after `next` statements, handed out (never changed). */
  kept?: { next: number; host: Interp };
}

/**
 * Host interpreters standing just before nodes of host functions, asked for
 * many nodes in document order (a pipeline's walk asks before each `if`,
 * `for` and call on its way): each block's declarations run once for all the
 * nodes asked about in it, not again for each, which made a walk quadratic in
 * the length of a host function (and each declaration can inline a large host
 * function). `at` gives what `enterHostFunction` gives: a fresh interpreter
 * the caller may change.
 */
export class HostStates {
  private readonly heads = new Map<string, Interp>();
  private readonly blocks = new Map<string, BlockRun>();
  private readonly loops = new Map<string, { entry: Interp; host: Interp }>();

  constructor(private readonly make: () => Interp) {}

  at(node: Node, params: HostParams): Interp {
    const path = pathFromFunction(node);
    const fn = path[0];
    if (fn.type !== 'function_definition') {
      const host = this.make();
      enterHostFunction(host, node, params);
      return host;
    }
    const given = [...params].map(([k, v]) => `${k}=${v}`).join(',');
    const headKey = `${given}@${fn.startIndex}`;
    let state = this.heads.get(headKey);
    if (!state) {
      state = this.make();
      state.frame = hostFrame();
      declareHostParams(state, fn, params);
      this.heads.set(headKey, state);
    }
    for (let i = 0; i + 1 < path.length; i++) {
      const parent = path[i];
      const child = path[i + 1];
      if (parent.type === 'compound_statement') state = this.before(`${given}#${parent.startIndex}:${parent.endIndex}`, state, parent, child);
      const init = forInit(parent);
      if (init) {
        const key = `${given}for${parent.startIndex}`;
        let loop = this.loops.get(key);
        if (loop?.entry !== state) {
          const host = copyHost(state, this.make);
          execStmt(host, init);
          loop = { entry: state, host };
          this.loops.set(key, loop);
        }
        state = loop.host;
      }
    }
    return copyHost(state, this.make);
  }

  /** What holds in `block` (entered with `entry`) just before its statement holding `child`. */
  private before(key: string, entry: Interp, block: Node, child: Node): Interp {
    let run = this.blocks.get(key);
    if (run?.entry !== entry) {
      run = { entry, host: copyHost(entry, this.make), children: named(block), next: 0 };
      this.blocks.set(key, run);
    }
    const stop = child.startIndex;
    if (run.next > 0 && run.children[run.next - 1].startIndex >= stop) {
      run.host = copyHost(entry, this.make);
      run.next = 0;
    }
    while (run.next < run.children.length && run.children[run.next].startIndex < stop) runOne(run.host, run.children[run.next++]);
    if (run.kept?.next !== run.next) run.kept = { next: run.next, host: copyHost(run.host, this.make) };
    return run.kept.host;
  }
}

function declareHostParams(host: Interp, fn: Node, given?: HostParams): void {
  let d = fn.childForFieldName('declarator');
  while (d && d.type !== 'function_declarator') d = d.childForFieldName('declarator');
  const list = d?.childForFieldName('parameters');
  for (const p of list ? named(list) : []) {
    const decl = unwrapDeclarator(baseType(host, p.childForFieldName('type')), p.childForFieldName('declarator'));
    if (!decl.name) continue;
    const g = given?.get(decl.name);
    const val: Val = isIntTy(decl.ty) ? { ty: decl.ty, e: g !== undefined ? num(g) : sym(decl.name), konst: false, data: false } : { ty: decl.ty, konst: false, data: false };
    host.declare(decl.name, { ty: decl.ty, val });
  }
}

/** Runs the declarations and simple assignments of a block that come before `stop`. */
function runBefore(host: Interp, block: Node, stop: Node): void {
  for (const s of named(block)) {
    if (s.startIndex >= stop.startIndex) return;
    runOne(host, s);
  }
}

/** One statement of a block on the way to a node: a declaration or a simple assignment runs; a call may write what it is given the address of. */
function runOne(host: Interp, s: Node): void {
  if (s.type === 'declaration') execStmt(host, s);
  else if (s.type === 'expression_statement' && named(s)[0]?.type === 'assignment_expression') execStmt(host, s);
  else forgetWrittenThrough(host, s);
}

/**
 * A call that is given a variable's address may write it
 * (`cudaOccupancyMaxPotentialBlockSize(&numBlocks, &blockSize, k)`,
 * `cudaDeviceGetAttribute(&numSms, …)`): the integer's value before the call
 * (often a placeholder 0) is no longer known. Pointers keep their identity.
 */
function forgetWrittenThrough(host: Interp, s: Node): void {
  for (const p of s.descendantsOfType('pointer_expression')) {
    const arg = p.childForFieldName('argument');
    if (p.childForFieldName('operator')?.text !== '&' || arg?.type !== 'identifier') continue;
    const cell = host.frame.scope.lookup(arg.text);
    if (cell && isIntTy(cell.ty)) host.frame.scope.vars.set(arg.text, { ...cell, val: { ty: cell.ty, konst: false, data: false } });
  }
}
