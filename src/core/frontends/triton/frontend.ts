/**
 * Triton frontend: Python source → tree-sitter tree → module scan → one
 * interpreted kernel IR per `@triton.jit` kernel.
 *
 * Bindings, highest first: --set / settings, pragmas, the launch site in the
 * same file (arguments, meta-parameters, grid), the first autotune config,
 * heuristics, parameter defaults, module-level constants.
 */
import { hash53 } from '../../hash';
import type { Node, Tree } from 'web-tree-sitter';
import type { Frontend, FrontendContext } from '../../analyze';
import type { BindingSet } from '../../bindings';
import type { Dtype } from '../../gpus/types';
import type { Diagnostic, FileIR, KernelIR } from '../../ir';
import { diag, MSG } from '../../messages';
import { parseCached } from '../../parsers';
import { evaluate, mul, num, sym, type Env, type Expr } from '../../sym/expr';
import { seedBindings } from '../common';
import { footprintsOf, TritonInterp } from './interp';
import {
  assignmentsIn,
  hostEval,
  hostTruth,
  scanModule,
  type FnInfo,
  type HostScope,
  type HostValue,
  type Launch,
  type ModuleInfo,
} from './module';
import { callArgs, dotted, field, line, named, shorten } from './syntax';

/** Kernels: jit functions that are launched, autotuned, or not called by another jit function. */
function findKernels(m: ModuleInfo): FnInfo[] {
  const called = new Set<string>();
  for (const n of m.calledNames) called.add(m.fnAliases.get(n) ?? n);
  const launched = new Set(m.launches.map((l) => l.kernel));
  return [...m.functions.values()].filter((f) => f.isJit && (launched.has(f.name) || f.autotune || f.heuristics || !called.has(f.name)));
}

function valueOf(v: HostValue | undefined, env: Env): number | boolean | string | undefined {
  if (!v) return undefined;
  if (v.bool !== undefined) return v.bool;
  if (v.str !== undefined) return v.str;
  if (v.dtype && !v.expr) return v.dtype;
  if (v.expr) return evaluate(v.expr, env);
  return undefined;
}

function bindGlobals(m: ModuleInfo, b: BindingSet): void {
  const env = b.env();
  for (const [name, node] of m.globals) {
    let n: Node | null = node;
    // `BLOCK = tl.constexpr(128)`
    if (n.type === 'call' && /constexpr$/.test(dotted(field(n, 'function')) ?? '')) n = callArgs(n).pos[0] ?? null;
    if (!n || !['integer', 'float', 'true', 'false', 'binary_operator', 'unary_operator', 'parenthesized_expression'].includes(n.type)) continue;
    const v = valueOf(hostEval(n, { name: (x) => (b.num(x) !== undefined ? { expr: num(b.num(x)!) } : undefined), imports: m.imports, env }), env);
    if (v !== undefined && typeof v !== 'string') b.bind(name, v, 'global', `module constant (line ${line(node)})`);
  }
}

function bindDefaults(k: FnInfo, m: ModuleInfo, b: BindingSet): void {
  for (const p of k.params) {
    if (!p.default) continue;
    const env = b.env();
    const v = valueOf(hostEval(p.default, { name: (x) => (b.num(x) !== undefined ? { expr: num(b.num(x)!) } : undefined), imports: m.imports, env }), env);
    if (v !== undefined && !(typeof v === 'string' && !p.constexpr)) b.bind(p.name, v, 'default', `default of parameter \`${p.name}\``);
  }
}

/**
 * A list literal behind a config expression: the literal itself, a module
 * constant, `a + b` (its first list), or a module function whose return
 * statement yields one (`configs=get_autotune_config()`).
 */
function resolveList(n: Node | null | undefined, m: ModuleInfo, depth: number): Node | undefined {
  if (!n || depth > 6) return undefined;
  switch (n.type) {
    case 'list':
      return n;
    case 'parenthesized_expression':
      return resolveList(named(n)[0], m, depth + 1);
    case 'identifier':
      return resolveList(m.globals.get(n.text), m, depth + 1);
    case 'binary_operator':
      return resolveList(field(n, 'left'), m, depth + 1) ?? resolveList(field(n, 'right'), m, depth + 1);
    case 'call': {
      const fn = m.functions.get(dotted(field(n, 'function')) ?? '');
      if (!fn || fn.isJit) return undefined;
      const rets: Node[] = [];
      const visit = (x: Node, d: number): void => {
        if (d > 30 || rets.length > 8) return;
        if (x.type === 'return_statement') {
          const v = named(x)[0];
          if (v) rets.push(v);
          return;
        }
        for (const c of x.namedChildren) if (c && c.type !== 'function_definition') visit(c, d + 1);
      };
      const body = field(fn.node, 'body');
      if (body) visit(body, 0);
      for (const r of rets) {
        const l = resolveList(r, m, depth + 1);
        if (l) return l;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The first `triton.Config` of `@triton.autotune(configs=[...])`. */
function bindAutotune(k: FnInfo, m: ModuleInfo, b: BindingSet, diags: Diagnostic[]): void {
  if (!k.autotune) return;
  const { pos, kw } = callArgs(k.autotune);
  const configs = resolveList(kw.get('configs') ?? pos[0], m, 0);
  if (!configs) {
    diags.push(
      diag('autotune', line(k.autotune), 'info', MSG.autotune(k.name)),
    );
    return;
  }
  const items = named(configs).filter((c) => c.type === 'call');
  const first = items[0];
  if (!first) return;
  const args = callArgs(first);
  const dict = args.kw.get('kwargs') ?? args.pos[0];
  const env = b.env();
  const detail = `triton.Config #1 of ${items.length} (line ${line(first)})`;
  if (dict?.type === 'dictionary') {
    const hv = hostEval(dict, { name: () => undefined, imports: m.imports, env });
    for (const [key, v] of hv?.dict ?? []) {
      const val = valueOf(v, env);
      if (val !== undefined) b.bind(key, val, 'autotune', detail);
    }
  }
  for (const [key, v] of args.kw) {
    if (key === 'kwargs') continue;
    const val = valueOf(hostEval(v, { name: () => undefined, imports: m.imports, env }), env);
    if (val !== undefined) b.bind(key, val, 'autotune', detail);
  }
}

/** `@triton.heuristics({'EVEN_K': lambda args: args['K'] % args['BLOCK_K'] == 0})`. */
function bindHeuristics(k: FnInfo, m: ModuleInfo, b: BindingSet): void {
  if (!k.heuristics) return;
  const { pos, kw } = callArgs(k.heuristics);
  const dict = kw.get('values') ?? pos[0];
  if (!dict || dict.type !== 'dictionary') return;
  for (const p of named(dict)) {
    if (p.type !== 'pair') continue;
    const key = field(p, 'key');
    const lam = field(p, 'value');
    const name = key ? hostEval(key, { name: () => undefined, imports: m.imports, env: new Map() })?.str : undefined;
    if (!name || !lam) continue;
    const params = lam.type === 'lambda' ? field(lam, 'parameters') : null;
    const argName = params ? named(params)[0]?.text : undefined;
    const env = b.env();
    const scope: HostScope = {
      name: (x) => (b.num(x) !== undefined ? { expr: num(b.num(x)!) } : undefined),
      meta: (key2) => {
        const v = b.get(key2);
        if (!v) return undefined;
        if (typeof v.value === 'number') return { expr: num(v.value) };
        if (typeof v.value === 'boolean') return { expr: num(v.value ? 1 : 0), bool: v.value };
        return { str: v.value };
      },
      metaNames: new Set(argName ? [argName] : []),
      imports: m.imports,
      env,
    };
    const hv = hostEval(lam.type === 'lambda' ? field(lam, 'body') : lam, scope);
    const t = hv?.bool !== undefined ? hv.bool : undefined;
    const val = t !== undefined ? t : valueOf(hv, env);
    if (val !== undefined) b.bind(name, val, 'heuristics', `@triton.heuristics (line ${line(p)})`);
    else if (hv?.expr && hostTruth(hv, env) === undefined) continue;
  }
}

interface LaunchFacts {
  grid: Expr[] | null;
  gridDetail: string;
  dtypes: Map<string, Dtype>;
}

/** Reads a launch: argument values and dtypes, meta-parameters, and the grid in kernel-symbol space. */
function bindLaunch(k: FnInfo, l: Launch, m: ModuleInfo, b: BindingSet, budget: FrontendContext['budget']): LaunchFacts {
  const facts: LaunchFacts = { grid: null, gridDetail: '', dtypes: new Map() };
  const assigns = assignmentsIn(l.scope, l.line, budget);
  // Host variable → kernel parameter it is passed to (so the grid can be written in kernel symbols).
  const passedAs = new Map<string, string>();
  const argFor = new Map<string, Node>();
  const splat = l.pos.findIndex((x) => x.type === 'list_splat' || x.type === 'dictionary_splat');
  const positional = splat < 0 ? l.pos : l.pos.slice(0, splat);
  k.params.forEach((p, i) => {
    const node = i < positional.length ? positional[i] : l.kw.get(p.name);
    if (!node) return;
    argFor.set(p.name, node);
    if (node.type === 'identifier') passedAs.set(node.text, p.name);
  });
  const env0 = b.env();
  const resolving = new Set<string>();
  // Defaults of the launching function's own parameters (`def matmul(a, b, activation=""):`).
  const hostDefaults = new Map<string, Node>();
  if (l.scope.type === 'function_definition') {
    const ps = field(l.scope, 'parameters');
    for (const p of ps ? named(ps) : []) {
      const name = field(p, 'name')?.text;
      const v = field(p, 'value');
      if (name && v && (p.type === 'default_parameter' || p.type === 'typed_default_parameter')) hostDefaults.set(name, v);
    }
  }
  const scope: HostScope = {
    imports: m.imports,
    env: env0,
    name: (x, depth) => {
      const a = assigns.get(x);
      if (a && !resolving.has(x) && depth < 30) {
        resolving.add(x);
        try {
          const v = hostEval(a.node, scope, depth + 1);
          const picked = a.index !== undefined ? v?.tuple?.[a.index] : v;
          if (picked) return picked;
        } finally {
          resolving.delete(x);
        }
      }
      const d = hostDefaults.get(x);
      if (d && !resolving.has(x)) {
        resolving.add(x);
        try {
          const v = hostEval(d, scope, depth + 1);
          if (v) return v;
        } finally {
          resolving.delete(x);
        }
      }
      const p = passedAs.get(x);
      if (p) return { expr: sym(p) };
      const g = m.globals.get(x);
      if (g && !resolving.has(x)) {
        resolving.add(x);
        try {
          return hostEval(g, scope, depth + 1);
        } finally {
          resolving.delete(x);
        }
      }
      return undefined;
    },
  };
  const detail = `launch at line ${l.line}`;
  for (const [pname, node] of argFor) {
    const hv = hostEval(node, scope);
    if (!hv) continue;
    if (hv.dtype && (hv.shape || !hv.expr)) facts.dtypes.set(pname, hv.dtype);
    if (hv.expr) {
      const v = evaluate(hv.expr, b.env());
      if (v !== undefined && !hv.dtype) b.bind(pname, v, 'launch', detail);
    } else if (hv.bool !== undefined) b.bind(pname, hv.bool, 'launch', detail);
    else if (hv.str !== undefined) b.bind(pname, hv.str, 'launch', detail);
    else if (hv.dtype && !hv.shape) b.bind(pname, hv.dtype, 'launch', detail);
  }
  // Keywords that are not parameters are launch options (num_warps, num_stages, …): no bindings.
  // The grid: a tuple, a lambda over meta, or a name bound to either.
  let g: Node | null | undefined = l.grid;
  for (let i = 0; i < 5 && g?.type === 'identifier'; i++) g = assigns.get(g.text)?.node ?? m.globals.get(g.text);
  if (g) {
    const metaName = g.type === 'lambda' ? named(field(g, 'parameters') ?? g)[0]?.text : undefined;
    const gscope: HostScope = {
      ...scope,
      metaNames: new Set(metaName ? [metaName] : []),
      meta: (key) => ({ expr: sym(key) }),
    };
    const hv = hostEval(g.type === 'lambda' ? field(g, 'body') : g, gscope);
    const dims = hv?.tuple ? hv.tuple.map((x) => x.expr) : hv?.expr ? [hv.expr] : undefined;
    if (dims && dims.length > 0 && dims.every((x) => x)) {
      facts.grid = dims as Expr[];
      facts.gridDetail = `grid of the launch at line ${l.line}: (${shorten((g.type === 'lambda' ? field(g, 'body') : g)?.text ?? '', 60)})`;
    }
  }
  return facts;
}

function kernelIR(ctx: FrontendContext, m: ModuleInfo, k: FnInfo): KernelIR {
  const b = seedBindings(ctx);
  const diagnostics: Diagnostic[] = [];
  const launches = m.launches.filter((l) => l.kernel === k.name);
  let facts: LaunchFacts = { grid: null, gridDetail: '', dtypes: new Map() };
  if (launches.length) {
    facts = bindLaunch(k, launches[0], m, b, ctx.budget);
    if (launches.length > 1) facts.gridDetail += ` (first of ${launches.length} launches)`;
  }
  bindAutotune(k, m, b, diagnostics);
  bindDefaults(k, m, b);
  bindGlobals(m, b);
  bindHeuristics(k, m, b);
  // Heuristics can depend on defaults and vice versa: one more pass settles simple chains.
  bindHeuristics(k, m, b);

  // The grid: --grid beats the launch site.
  let grid: Expr[] | null = facts.grid;
  if (ctx.user.grid && ctx.user.grid.length) {
    grid = ctx.user.grid.map((g) => num(g));
    facts.gridDetail = '--grid';
  }
  const env = b.env();
  if (grid) {
    grid.forEach((g, i) => {
      const v = evaluate(g, env);
      if (v !== undefined) b.bind(`tl.num_programs(${i})`, v, ctx.user.grid ? 'user' : 'launch', facts.gridDetail);
    });
  }
  // A user binding of tl.num_programs(i) wins over the grid's expression.
  if (grid) grid = grid.map((g, i) => (ctx.user.set[`tl.num_programs(${i})`] !== undefined ? sym(`tl.num_programs(${i})`) : g));
  const finalEnv = b.env();
  const interp = new TritonInterp({
    mod: m,
    kernel: k,
    bindings: b,
    env: finalEnv,
    grid,
    userDtypes: ctx.user.dtypes,
    launchDtypes: facts.dtypes,
    budget: ctx.budget,
  });
  const r = interp.run();
  const units = grid ? mul(...grid) : null;
  const { footprints, missing } = footprintsOf(r.accesses, units);
  const assumptions = [...r.assumptions];
  if (k.autotune && [...Object.values(b.toRecord())].some((x) => x.source === 'autotune')) assumptions.unshift('tile sizes from the first autotune config (autotuning may pick another)');
  let compulsoryNote: string | undefined;
  if (missing.length) compulsoryNote = `compulsory traffic unknown: the footprint of ${missing.map((x) => '`' + x + '`').join(', ')} cannot be derived (no launch grid or bounds)`;
  else if (!units) compulsoryNote = 'number of programs unknown: give the grid with --grid or a launch in the same file';
  const end = k.node.endPosition.row;
  return {
    name: k.name,
    line: k.line,
    range: { startLine: k.node.startPosition.row, endLine: end },
    language: 'triton',
    unit: 'program',
    body: r.body,
    units,
    bindings: b.toRecord(),
    footprints: missing.length ? [] : footprints,
    compulsoryNote,
    assumptions,
    diagnostics: [...diagnostics, ...r.diagnostics],
    needed: r.needed,
  };
}

function syntaxErrors(tree: Tree): Diagnostic[] {
  const out: Diagnostic[] = [];
  const visit = (n: Node, depth: number): void => {
    if (out.length >= 5 || depth > 200) return;
    if (n.type === 'ERROR' || n.isMissing) {
      out.push(diag('parseError', line(n), 'warning', MSG.parseError(n.isMissing ? `missing \`${n.type}\`` : `unexpected \`${shorten(n.text, 30)}\``)));
      return;
    }
    if (!n.hasError) return;
    for (const c of n.children) if (c) visit(c, depth + 1);
  };
  visit(tree.rootNode, 0);
  return out;
}

/**
 * Kernel IRs by everything they depend on: the kernel's text, its launches,
 * the module context (imports, constants, jit helpers) and the user's inputs.
 * Re-analysing after an edit re-interprets only the kernels the edit touched.
 */
const MAX_CACHED_KERNELS = 4096;
const kernelCache = new Map<string, KernelIR>();

export function clearTritonCache(): void {
  kernelCache.clear();
}

function moduleContext(m: ModuleInfo, kernels: Set<string>): string {
  const parts: string[] = [];
  for (const [a, p] of m.imports) parts.push(`${a}=${p}`);
  // Lines matter: binding details name the line a constant or a helper sits on.
  for (const [n, node] of m.globals) parts.push(`${n}@${line(node)}=${node.text}`);
  for (const f of m.functions.values()) if (f.isJit && !kernels.has(f.name)) parts.push(`${f.line}:${f.node.text}`);
  return parts.join('\n');
}

function cachedKernelIR(ctx: FrontendContext, m: ModuleInfo, k: FnInfo, context: string, onlyCached: boolean): { ir: KernelIR; fresh: boolean } | undefined {
  const launches = m.launches.filter((l) => l.kernel === k.name).map((l) => `${l.line}:${l.scope.text}`);
  const key = [k.node.parent?.type === 'decorated_definition' ? k.node.parent.text : k.node.text, k.line, launches.join('\n'), context, JSON.stringify(ctx.user), JSON.stringify(ctx.pragmas.map((p) => [p.name, p.value, p.line]))].join('\0');
  const hit = kernelCache.get(key);
  if (hit) {
    kernelCache.delete(key);
    kernelCache.set(key, hit);
    return { ir: hit, fresh: false };
  }
  if (onlyCached) return undefined;
  const ir = kernelIR(ctx, m, k);
  if (!ctx.budget.expired) {
    kernelCache.set(key, ir);
    while (kernelCache.size > MAX_CACHED_KERNELS) kernelCache.delete(kernelCache.keys().next().value as string);
  }
  return { ir, fresh: true };
}

interface Scan {
  m: ModuleInfo;
  kernels: FnInfo[];
  context: string;
  errors: Diagnostic[];
}

/** The module scan of a tree, kept while the tree is (a re-analysis of unchanged text reuses it). */
const scans = new WeakMap<Tree, Scan>();

function scanned(tree: Tree, ctx: FrontendContext): Scan {
  const hit = scans.get(tree);
  if (hit) return hit;
  const errors = tree.rootNode.hasError ? syntaxErrors(tree) : [];
  const m = scanModule(tree.rootNode, ctx.budget);
  const kernels = findKernels(m);
  const scan = { m, kernels, context: hash53(moduleContext(m, new Set(kernels.map((k) => k.name)))), errors };
  if (!ctx.budget.expired) scans.set(tree, scan);
  return scan;
}

export const tritonFrontend: Frontend = (ctx) => {
  const file: FileIR = { language: 'triton', kernels: [], diagnostics: [] };
  const tree = parseCached(ctx.parsers.python, ctx.path ?? '<input>', ctx.source, 1000);
  if (!tree) {
    file.diagnostics.push(diag('budget', 1, 'warning', 'the Python parser gave up on this file (too large or too slow): not analysed'));
    return file;
  }
  const { m, kernels, context, errors } = scanned(tree, ctx);
  file.diagnostics.push(...errors);
  let fresh = 0;
  for (const k of kernels) {
    if (ctx.budget.spent()) break;
    // Past the time slice only cached kernels are taken; at least one new kernel per call: every call progresses.
    const got = cachedKernelIR(ctx, m, k, context, fresh > 0 && ctx.budget.over());
    if (!got) continue;
    file.kernels.push(got.ir);
    if (got.fresh) fresh++;
  }
  if (file.kernels.length < kernels.length) file.incomplete = { analysed: file.kernels.length, total: kernels.length };
  return file;
};
