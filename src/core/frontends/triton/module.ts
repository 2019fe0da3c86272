/**
 * Module scan: imports and their aliases, module-level constants, `@triton.jit`
 * functions with their autotune/heuristics decorators, and launch sites
 * `kernel[grid](...)` with what the host code around them says (argument
 * values, tensor dtypes, the grid).
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import { RecordedMap, RecordedSet } from '../../recorded';
import type { Dtype } from '../../gpus/types';
import {
  add,
  cdiv,
  evaluate,
  floordiv,
  max as emax,
  min as emin,
  mod,
  mul,
  num,
  pow as epow,
  sub,
  sym,
  div,
  bitop,
  type Env,
  type Expr,
} from '../../sym/expr';
import { parseDtype } from '../common';
import { callArgs, dotted, field, line, named, stringValue } from './syntax';
import type { Budget } from '../../budget';

export interface ParamInfo {
  name: string;
  constexpr: boolean;
  annotation: Node | null;
  default: Node | null;
}

export interface FnInfo {
  name: string;
  node: Node;
  isJit: boolean;
  /** Canonical names of its decorators. */
  decorators: string[];
  /** Some `return` gives a value (a helper, never a kernel). */
  returnsValue: boolean;
  autotune: Node | null;
  heuristics: Node | null;
  params: ParamInfo[];
  line: number;
}

export interface Launch {
  kernel: string;
  node: Node;
  grid: Node | null;
  pos: Node[];
  kw: Map<string, Node>;
  /** The enclosing function body (or the module) the host values come from. */
  scope: Node;
  line: number;
}

export interface ModuleInfo {
  /** Local name → imported dotted path (`tl` → `triton.language`). */
  imports: Map<string, string>;
  /** Module-level `NAME = value` assignments. */
  globals: Map<string, Node>;
  functions: Map<string, FnInfo>;
  /** `alias = helper` / `from x import helper as alias`. */
  fnAliases: Map<string, string>;
  launches: Launch[];
  /** Names called as plain functions inside jit functions (helper calls: not kernels). */
  calledNames: Set<string>;
  /** Functions handed to `tl.reduce` / `tl.associative_scan` as combine functions. */
  combineFns: Set<string>;
  /** Plain calls `f(…)` of the module's host (non-jit) functions, in file order. */
  hostCalls: Map<string, Node[]>;
  root: Node;
  /**
   * Module-level values of other modules of the project this one imports from
   * (src/core/related.ts), read after its own: never bound as the kernels'
   * constants, only looked up by name when nothing of this module has it.
   */
  foreignGlobals?: Map<string, Node>;
}

/** A module's launch sites by kernel, grouped once per scan (every kernel of a large file asks for its own). */
const byKernel = new WeakMap<ModuleInfo, Map<string, Launch[]>>();

/** The launch sites of kernel `name` in the module, in file order. */
export function launchesOf(m: ModuleInfo, name: string): Launch[] {
  let out = byKernel.get(m);
  if (!out) {
    out = new Map();
    for (const l of m.launches) {
      const list = out.get(l.kernel);
      if (list) list.push(l);
      else out.set(l.kernel, [l]);
    }
    byKernel.set(m, out);
  }
  return out.get(name) ?? [];
}

/**
 * This module with the jit functions and module-level values of the project
 * modules it imports from (read by the host): a helper defined there
 * (`from .utils import get_dtype_min`, `triton_tanh = libdevice.tanh`) is
 * then known. This module's own names always win; the other modules'
 * kernels and launches are not this file's.
 */
export function withForeign(m: ModuleInfo, foreign: ModuleInfo[]): ModuleInfo {
  if (foreign.length === 0) return m;
  // Maps that record a kernel's look-ups (deps.ts), as the scan's are.
  const imports = new RecordedMap<string, string>('imports');
  const functions = new RecordedMap<string, FnInfo>('functions');
  const globals = new RecordedMap<string, Node>('foreignGlobals');
  for (const f of foreign) {
    for (const [k, v] of f.imports) if (!imports.has(k)) imports.set(k, v);
    // `if hasattr(tl, 'x'): x = tl.x  else: @triton.jit def x(…)` (a fallback for old Triton): the library's is the one that runs.
    for (const [k, v] of f.functions) if (v.isJit && !functions.has(k) && !f.globals.has(k)) functions.set(k, v);
    for (const [k, v] of f.globals) if (!globals.has(k)) globals.set(k, v);
    for (const [k, v] of f.foreignGlobals ?? []) if (!globals.has(k)) globals.set(k, v);
  }
  for (const [k, v] of m.imports) imports.set(k, v);
  for (const [k, v] of m.functions) functions.set(k, v);
  for (const k of m.globals.keys()) globals.delete(k);
  const out: ModuleInfo = { ...m, imports, functions, fnAliases: new RecordedMap('fnAliases', m.fnAliases), foreignGlobals: globals };
  for (const f of foreign) for (const [k, v] of f.fnAliases) if (!out.fnAliases.has(k) && functions.has(v)) out.fnAliases.set(k, v);
  // `from .utils import _silu as silu`: the alias of a helper another module defines.
  for (const [local, path] of m.imports) {
    const last = path.split('.').pop()!;
    if (local !== last && !m.functions.has(local) && functions.get(last)?.isJit) out.fnAliases.set(local, last);
  }
  return out;
}

/** Canonical name of a dotted callee: `tl.exp`, `libdevice.exp`, `triton.cdiv`, or as written. */
export function canonical(name: string, imports: Map<string, string>): string {
  const dot = name.indexOf('.');
  // The look-up is made every time (a kernel's recorded reads include it); the spelling is kept per name.
  const head = imports.get(dot < 0 ? name : name.slice(0, dot));
  const full = head ? (dot < 0 ? head : head + name.slice(dot)) : name;
  let out = spelled.get(full);
  if (out === undefined) {
    out = full
      .replace(/^triton\.language(\.|$)/, 'tl$1')
      .replace(/^tl\.(extra\.([a-z]\w*\.)?)?libdevice\./, 'libdevice.')
      .replace(/^tl\.(math|core|standard|semantic)\./, 'tl.');
    if (spelled.size >= 4096) spelled.clear();
    spelled.set(full, out);
  }
  return out;
}

/** Canonical spellings of dotted names, by the name with its import resolved. */
const spelled = new Map<string, string>();

function decoratorName(d: Node, imports: Map<string, string>): { name: string; call: Node | null } {
  const expr = named(d)[0];
  if (!expr) return { name: '', call: null };
  if (expr.type === 'call') return { name: canonical(dotted(field(expr, 'function')) ?? '', imports), call: expr };
  return { name: canonical(dotted(expr) ?? '', imports), call: null };
}

function readParams(fn: Node, imports: Map<string, string>): ParamInfo[] {
  const ps = field(fn, 'parameters');
  if (!ps) return [];
  const out: ParamInfo[] = [];
  for (const p of named(ps)) {
    let name: string | undefined;
    let annotation: Node | null = null;
    let def: Node | null = null;
    if (p.type === 'identifier') name = p.text;
    else if (p.type === 'typed_parameter') {
      name = named(p).find((c) => c.type === 'identifier')?.text;
      annotation = field(p, 'type');
    } else if (p.type === 'default_parameter') {
      name = field(p, 'name')?.text;
      def = field(p, 'value');
    } else if (p.type === 'typed_default_parameter') {
      name = field(p, 'name')?.text;
      annotation = field(p, 'type');
      def = field(p, 'value');
    }
    if (!name) continue;
    const ann = annotation ? canonical(annotation.text.replace(/\s/g, ''), imports) : '';
    out.push({ name, constexpr: /(^|\.)constexpr$/.test(ann), annotation, default: def });
  }
  return out;
}

/** A function's scan, kept with its node while the imports it was read under are the same (a fresh copy each time: the module scan amends it). */
const fnMemo = new WeakMap<Node, { imports: string; f: FnInfo | undefined }>();

function scanFunction(def: Node, decorators: Node[], imports: Map<string, string>, importsKey: string): FnInfo | undefined {
  let hit = fnMemo.get(def);
  if (!hit || hit.imports !== importsKey) {
    hit = { imports: importsKey, f: scanFunctionNow(def, decorators, imports) };
    fnMemo.set(def, hit);
  }
  // Its line is where it is now (a function moved by lines added above keeps the rest of its scan).
  return hit.f ? { ...hit.f, decorators: [...hit.f.decorators], line: line(def) } : undefined;
}

function scanFunctionNow(def: Node, decorators: Node[], imports: Map<string, string>): FnInfo | undefined {
  const name = field(def, 'name')?.text;
  if (!name) return undefined;
  let isJit = false;
  let autotune: Node | null = null;
  let heuristics: Node | null = null;
  const names: string[] = [];
  for (const d of decorators) {
    const { name: dn, call } = decoratorName(d, imports);
    names.push(dn);
    if (/^triton(\.runtime)?(\.jit)?\.jit$/.test(dn) || dn === 'triton.jit' || dn === 'triton.runtime.jit') isJit = true;
    else if (/^triton(\.runtime)?(\.autotuner)?\.autotune$/.test(dn)) autotune = call;
    else if (/^triton(\.runtime)?(\.autotuner)?\.heuristics$/.test(dn)) heuristics = call;
  }
  const body = field(def, 'body');
  // A return statement's text starts with the word: a body without it is not searched.
  const returnsValue = !!body && body.text.includes('return') && body.descendantsOfType('return_statement').some((r) => r !== null && r.namedChildren.some((c) => c && c.type !== 'comment'));
  return { name, node: def, isJit, decorators: names, returnsValue, autotune, heuristics, params: readParams(def, imports), line: line(def) };
}

/** Scans the module's top level (and the bodies of host functions, for launches). */
/** How many statements a sliced scan of a module read before its slice ended (kept per module root). */
const scanProgress = new WeakMap<Node, number>();

/** A scan a time slice ended: how many of the module's statements were read (the next call reads them again, from their caches). */
export interface PendingScan {
  pending: number;
  of: number;
}

/**
 * Scans the module; with `sliced`, stops when the time slice is over and
 * says how far it got (the functions and call sites it read are kept per
 * statement, so the next call goes further).
 */
export function scanModule(root: Node, budget: Budget): ModuleInfo;
export function scanModule(root: Node, budget: Budget, sliced: true): ModuleInfo | PendingScan;
export function scanModule(root: Node, budget: Budget, sliced = false): ModuleInfo | PendingScan {
  // Its maps and sets record each look-up while a kernel's reads are recorded (deps.ts); none is while scanning.
  const m: ModuleInfo = {
    imports: new RecordedMap('imports'),
    globals: new RecordedMap('globals'),
    functions: new RecordedMap('functions'),
    fnAliases: new RecordedMap('fnAliases'),
    launches: [],
    calledNames: new RecordedSet('calledNames'),
    combineFns: new RecordedSet('combineFns'),
    hostCalls: new RecordedMap('hostCalls'),
    root,
  };
  const top = named(root);
  // Definitions also hide in module-level `if`/`try`/`with` blocks (`if HAS_TRITON:`).
  const statements: Node[] = [];
  const collect = (list: readonly Node[], depth: number): void => {
    for (const st of list) {
      statements.push(st);
      if (depth > 4) continue;
      if (st.type === 'if_statement' || st.type === 'try_statement' || st.type === 'with_statement') {
        for (const c of named(st)) {
          if (c.type === 'block') collect(named(c), depth + 1);
          else if (['else_clause', 'elif_clause', 'except_clause', 'finally_clause'].includes(c.type))
            for (const b of named(c)) if (b.type === 'block') collect(named(b), depth + 1);
        }
      }
    }
  };
  collect(top, 0);
  for (const st of statements) {
    if (st.type === 'import_statement') {
      for (const c of named(st)) {
        if (c.type === 'aliased_import') {
          const n = field(c, 'name')?.text;
          const a = field(c, 'alias')?.text;
          if (n && a) m.imports.set(a, n);
        } else if (c.type === 'dotted_name') m.imports.set(c.text.split('.')[0], c.text.split('.')[0]);
      }
    } else if (st.type === 'import_from_statement') {
      const mod = field(st, 'module_name')?.text ?? '';
      for (const c of named(st).slice(1)) {
        if (c.type === 'aliased_import') {
          const n = field(c, 'name')?.text;
          const a = field(c, 'alias')?.text;
          if (n && a && !m.imports.has(a)) m.imports.set(a, `${mod}.${n}`);
        } else if (c.type === 'dotted_name' && !m.imports.has(c.text)) m.imports.set(c.text, `${mod}.${c.text}`);
      }
    }
  }
  const importsKey = JSON.stringify([...m.imports]);
  let read = 0;
  // Each call reads at least one statement past where the last one stopped: every call makes progress.
  const floor = scanProgress.get(root) ?? 0;
  for (const st of statements) {
    if (sliced && read > floor && budget.over()) {
      scanProgress.set(root, read);
      return { pending: read, of: 2 * statements.length };
    }
    read++;
    if (budget.spent()) break;
    if (st.type === 'decorated_definition') {
      const def = field(st, 'definition');
      if (def?.type === 'function_definition') {
        const f = scanFunction(def, named(st).filter((c) => c.type === 'decorator'), m.imports, importsKey);
        if (f) m.functions.set(f.name, f);
      }
    } else if (st.type === 'function_definition') {
      const f = scanFunction(st, [], m.imports, importsKey);
      if (f) m.functions.set(f.name, f);
    } else if (st.type === 'expression_statement') {
      const a = named(st)[0];
      if (a?.type === 'assignment') {
        const l = field(a, 'left');
        const r = field(a, 'right');
        if (l?.type === 'identifier' && r) {
          // `f = triton.jit(f)`, `f = triton.heuristics({...})(f)`: decorators applied by hand.
          if (!wrapFunction(m, l.text, r)) m.globals.set(l.text, r);
        }
      }
    }
  }
  // Aliases of jit helpers: `silu = _silu`, or `from .kernels import _silu as silu` of a function in this file.
  for (const [n, r] of m.globals) if (r.type === 'identifier' && m.functions.get(r.text)?.isJit) m.fnAliases.set(n, r.text);
  for (const [local, path] of m.imports) {
    const last = path.split('.').pop()!;
    if (local !== last && m.functions.get(last)?.isJit) m.fnAliases.set(local, last);
  }
  scanProgress.set(root, read);
  const sites = callSites(root, sliced ? budget : undefined);
  if (typeof sites === 'number') return { pending: read + sites, of: read + root.namedChildCount };
  findLaunches(root, m, budget, sites);
  scanSizes.set(root, 2 * statements.length);
  return m;
}

/** Past the most a sliced scan of the module says it read (`PendingScan.pending`), per module root scanned. */
const scanSizes = new WeakMap<Node, number>();

/** A number past every `PendingScan.pending` of the module's scan: where steps that follow it count from. */
export function scanSize(root: Node): number {
  return scanSizes.get(root) ?? 0;
}

/**
 * `name = triton.jit(name)` / `name = triton.heuristics(…)(name)` /
 * `name = triton.autotune(…)(name)`: the decorator written as a call, applied
 * to a function of this file. True when it was one (the name is then still
 * the function, not a module constant).
 */
function wrapFunction(m: ModuleInfo, name: string, r: Node): boolean {
  if (r.type !== 'call') return false;
  const args = callArgs(r).pos;
  const target = args.length === 1 && args[0].type === 'identifier' ? args[0].text : undefined;
  const fn = target ? m.functions.get(target) : undefined;
  if (!fn) return false;
  const callee = field(r, 'function');
  const dn = callee?.type === 'call' ? canonical(dotted(field(callee, 'function')) ?? '', m.imports) : canonical(dotted(callee) ?? '', m.imports);
  if (/^triton(\.runtime)?(\.jit)?\.jit$/.test(dn)) fn.isJit = true;
  else if (/^triton(\.runtime)?(\.autotuner)?\.heuristics$/.test(dn) && callee?.type === 'call') fn.heuristics = callee;
  else if (/^triton(\.runtime)?(\.autotuner)?\.autotune$/.test(dn) && callee?.type === 'call') fn.autotune = callee;
  else return false;
  fn.decorators.push(dn);
  if (target !== name) m.fnAliases.set(name, target!);
  return true;
}

/** The call sites among `nodes` (calls and keyword arguments, in file order). */
function readCallSites(nodes: Iterable<Node>): CallSites {
  const launches: Node[] = [];
  const plain: Node[] = [];
  const combine: string[] = [];
  for (const n of nodes) {
    if (n.type === 'call') {
      const f = n.childForFieldName('function');
      if (f?.type === 'subscript') launches.push(n);
      else if (f?.type === 'identifier') plain.push(f);
      else if (f?.type === 'attribute') {
        const red = f.childForFieldName('attribute');
        const args = n.childForFieldName('arguments');
        if (red?.type === 'identifier' && (red.text === 'reduce' || red.text === 'associative_scan') && args?.type === 'argument_list')
          for (const a of args.namedChildren) if (a?.type === 'identifier') combine.push(a.text);
      }
    } else if (n.type === 'keyword_argument') {
      const name = n.childForFieldName('name');
      const value = n.childForFieldName('value');
      if (name?.text === 'combine_fn' && value?.type === 'identifier') combine.push(value.text);
    }
  }
  return { launches, plain, combine };
}

/** What a call site is found among. */
const SITE_TYPES = ['call', 'keyword_argument'];

/**
 * Launches `kernel[grid](…)`, plain calls `helper(…)` and the functions
 * named as combine functions, of one statement: one tree-sitter search for
 * its calls and keyword arguments (in WebAssembly), not a JavaScript walk
 * over its every node. It was a tree-sitter query: ~40 ms to compile once per
 * process, and each statement's run of it cost more than the search.
 */
function searchCallSites(st: Node): CallSites {
  return readCallSites(st.descendantsOfType(SITE_TYPES));
}

/** The nodes of the search, by a cursor walk over every node (tests: the search finds the same, in the same order). */
function walkCallSites(root: Node): CallSites {
  const found: Node[] = [];
  const c = root.walk();
  try {
    for (;;) {
      if (SITE_TYPES.includes(c.nodeType)) found.push(root.nodeOf(c.currentNode));
      if (c.gotoFirstChild()) continue;
      while (!c.gotoNextSibling()) if (!c.gotoParent()) return readCallSites(found);
    }
  } finally {
    c.delete();
  }
}

type CallSites = { launches: Node[]; plain: Node[]; combine: string[] };

/** The module's call sites, statement by statement; when `slice` is given and over before the last statement, how many were read. */
function callSites(root: Node, slice?: Budget): CallSites | number {
  const out: CallSites = { launches: [], plain: [], combine: [] };
  let fresh = 0;
  let done = 0;
  // Per top-level statement, kept with its node: after an edit only the statements it touched are searched
  // again (the others are the same node objects, carried into the new tree's view: syntax-tree.ts).
  for (const st of root.namedChildren) {
    if (st.type === 'comment') continue;
    let sites = siteMemo.get(st);
    if (!sites) {
      // At least one statement per call: every call makes progress.
      if (fresh++ > 0 && slice?.over()) return done;
      sites = searchCallSites(st);
      siteMemo.set(st, sites);
    }
    done++;
    out.launches.push(...sites.launches);
    out.plain.push(...sites.plain);
    out.combine.push(...sites.combine);
  }
  return out;
}

const siteMemo = new WeakMap<Node, CallSites>();

/** Both ways of finding the call sites (tests check they agree). */
export const callSiteFinders = { walk: (root: Node) => walkCallSites(root), search: (root: Node) => searchCallSites(root) };

function enclosingFunction(n: Node, root: Node): Node {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'function_definition') return p;
  return root;
}

function findLaunches(root: Node, m: ModuleInfo, budget: Budget, sites: CallSites): void {
  const { launches, plain, combine } = sites;
  for (const n of plain) {
    if (m.functions.has(n.text) || m.fnAliases.has(n.text)) m.calledNames.add(n.text);
    const f = m.functions.get(n.text);
    if (f && !f.isJit && n.parent?.type === 'call') {
      const list = m.hostCalls.get(n.text) ?? [];
      if (list.length < 64) list.push(n.parent);
      m.hostCalls.set(n.text, list);
    }
  }
  for (const n of combine) if (m.functions.has(n) || m.fnAliases.has(n)) m.combineFns.add(n);
  for (const n of launches) {
    if (budget.spent()) return;
    const f = field(n, 'function');
    const target = dotted(f ? field(f, 'value') : null);
    const k = target ? (m.fnAliases.get(target) ?? target) : undefined;
    if (!f || !k || !m.functions.get(k)?.isJit) continue;
    const sub = f.childrenForFieldName('subscript').filter((x): x is Node => x !== null);
    const { pos, kw } = callArgs(n);
    m.launches.push({ kernel: k, node: n, grid: sub.length === 1 ? sub[0] : null, pos, kw, scope: enclosingFunction(n, root), line: line(n) });
  }
}

// ---------------------------------------------------------------------------
// Host-side evaluation (launch sites, autotune configs, heuristics, grid lambdas)

export interface HostValue {
  expr?: Expr;
  dtype?: Dtype;
  /** A tensor (its `dtype` is the element type), not a dtype value. */
  tensor?: boolean;
  /** A tensor descriptor made on the host, with its block shape. */
  descriptor?: { block: Expr[] | undefined };
  shape?: Expr[];
  bool?: boolean;
  str?: string;
  tuple?: HostValue[];
  dict?: Map<string, HostValue>;
}

export interface HostScope {
  /** Resolves a bare name: host variable, kernel parameter symbol, etc. */
  name(n: string, depth: number): HostValue | undefined;
  /** `meta['X']` / `args['X']` inside grid lambdas and heuristics. */
  meta?: (key: string) => HostValue | undefined;
  metaNames?: Set<string>;
  imports: Map<string, string>;
  env: Env;
  /** A call of a host function of the module: its return value, when the host reader can give it. */
  call?: (fn: string, call: Node, depth: number) => HostValue | undefined;
}

const TORCH_MAKERS = /^torch\.(empty|zeros|ones|randn|rand|full|randint|empty_strided|tensor|arange|normal)$/;
const TORCH_LIKE = /^torch\.(empty_like|zeros_like|ones_like|randn_like|rand_like|full_like)$/;

function hostDtype(n: Node | undefined, s: HostScope): Dtype | undefined {
  if (!n) return undefined;
  const d = dotted(n);
  if (d) {
    const c = canonical(d, s.imports);
    const p = parseDtype(c.replace(/^torch\./, ''));
    if (p) return p;
  }
  const sv = stringValue(n);
  if (sv) return parseDtype(sv);
  // `dtype=a.dtype`, `dtype=x.dtype if … else …`: the dtype of a host tensor.
  const v = n.type === 'string' ? undefined : hostEval(n, s, 1);
  return v?.dtype && !v.tensor ? v.dtype : undefined;
}

/** Evaluates a host expression into kernel-symbol space. Never throws; undefined when unknown. */
export function hostEval(n: Node | null | undefined, s: HostScope, depth = 0): HostValue | undefined {
  if (!n || depth > 40) return undefined;
  switch (n.type) {
    case 'integer': {
      const v = Number(n.text.replace(/_/g, '').replace(/[lL]$/, ''));
      return Number.isFinite(v) ? { expr: num(v) } : undefined;
    }
    case 'float': {
      const v = Number(n.text.replace(/_/g, ''));
      return Number.isFinite(v) ? { expr: num(v) } : undefined;
    }
    case 'true':
      return { expr: num(1), bool: true };
    case 'false':
      return { expr: num(0), bool: false };
    case 'string': {
      const v = stringValue(n);
      return v === undefined ? undefined : { str: v };
    }
    case 'parenthesized_expression':
      return hostEval(named(n)[0], s, depth + 1);
    case 'identifier':
      return s.name(n.text, depth + 1);
    case 'tuple':
    case 'list':
    case 'expression_list':
      return { tuple: named(n).map((c) => hostEval(c, s, depth + 1) ?? {}) };
    case 'dictionary': {
      const dict = new Map<string, HostValue>();
      for (const p of named(n)) {
        if (p.type !== 'pair') continue;
        const k = field(p, 'key');
        const key = k ? (stringValue(k) ?? undefined) : undefined;
        const v = hostEval(field(p, 'value'), s, depth + 1);
        if (key !== undefined && v) dict.set(key, v);
      }
      return { dict };
    }
    case 'subscript': {
      const base = field(n, 'value');
      const idx = field(n, 'subscript');
      const bname = dotted(base);
      if (bname && s.metaNames?.has(bname) && idx) {
        const key = stringValue(idx);
        if (key !== undefined) return s.meta?.(key) ?? { expr: sym(key) };
      }
      // x.shape[i]
      if (base?.type === 'attribute' && field(base, 'attribute')?.text === 'shape') {
        const t = hostEval(field(base, 'object'), s, depth + 1);
        const i = idx ? hostEval(idx, s, depth + 1)?.expr?.constant : undefined;
        if (t?.shape && i !== undefined) return { expr: t.shape[i < 0 ? t.shape.length + i : i] };
        return undefined;
      }
      const b = hostEval(base, s, depth + 1);
      const i = idx ? hostEval(idx, s, depth + 1) : undefined;
      if (b?.tuple && i?.expr?.constant !== undefined) return b.tuple[i.expr.constant];
      if (b?.dict && i?.str !== undefined) return b.dict.get(i.str);
      return undefined;
    }
    case 'unary_operator': {
      const v = hostEval(field(n, 'argument'), s, depth + 1);
      const op = n.child(0)?.text;
      if (!v?.expr) return undefined;
      return op === '-' ? { expr: mul(num(-1), v.expr) } : v;
    }
    case 'not_operator': {
      const v = hostTruth(hostEval(field(n, 'argument'), s, depth + 1), s.env);
      return v === undefined ? undefined : { expr: num(v ? 0 : 1), bool: !v };
    }
    case 'boolean_operator': {
      const a = hostTruth(hostEval(field(n, 'left'), s, depth + 1), s.env);
      const b = hostTruth(hostEval(field(n, 'right'), s, depth + 1), s.env);
      const op = field(n, 'operator')?.text ?? n.child(1)?.text;
      const r = op === 'and' ? (a === false || b === false ? false : a && b) : a === true || b === true ? true : a === undefined || b === undefined ? undefined : a || b;
      return r === undefined ? undefined : { expr: num(r ? 1 : 0), bool: r };
    }
    case 'comparison_operator': {
      const parts = named(n);
      const ops = n.children.filter((c) => c && !c.isNamed).map((c) => c!.text);
      if (parts.length !== 2 || ops.length !== 1) return undefined;
      const a = hostEval(parts[0], s, depth + 1)?.expr;
      const b = hostEval(parts[1], s, depth + 1)?.expr;
      const av = a ? evaluate(a, s.env) : undefined;
      const bv = b ? evaluate(b, s.env) : undefined;
      if (av === undefined || bv === undefined) return undefined;
      const r = compare(ops[0], av, bv);
      return r === undefined ? undefined : { expr: num(r ? 1 : 0), bool: r };
    }
    case 'conditional_expression': {
      const [a, c, b] = named(n);
      const t = hostTruth(hostEval(c, s, depth + 1), s.env);
      if (t === undefined) return undefined;
      return hostEval(t ? a : b, s, depth + 1);
    }
    case 'binary_operator': {
      const a = hostEval(field(n, 'left'), s, depth + 1)?.expr;
      const b = hostEval(field(n, 'right'), s, depth + 1)?.expr;
      if (!a || !b) return undefined;
      const op = field(n, 'operator')?.text;
      const r = binop(op ?? '', a, b);
      return r ? { expr: r } : undefined;
    }
    case 'attribute': {
      const d = dotted(n);
      const dt = d ? parseDtype(canonical(d, s.imports).replace(/^torch\./, '')) : undefined;
      if (dt) return { dtype: dt };
      // Attributes of host tensors: `.shape` (a tuple of sizes), `.dtype`, `.T`.
      const attr = field(n, 'attribute')?.text;
      const objNode = field(n, 'object');
      if (attr === 'shape' || attr === 'dtype' || attr === 'T' || attr === 'mT') {
        const head = dotted(objNode)?.split('.')[0];
        const lib = head ? /^(torch|tl|triton)(\.|$)/.test(canonical(head, s.imports)) : false;
        const obj = lib ? undefined : hostEval(objNode, s, depth + 1);
        if (obj?.tensor) {
          if (attr === 'shape') return obj.shape ? { tuple: obj.shape.map((e) => ({ expr: e })) } : undefined;
          if (attr === 'dtype') return obj.dtype ? { dtype: obj.dtype } : undefined;
          return { ...obj, shape: obj.shape && obj.shape.length >= 2 ? [...obj.shape.slice(0, -2), obj.shape[obj.shape.length - 1], obj.shape[obj.shape.length - 2]] : obj.shape };
        }
      }
      if (d) {
        const c = canonical(d, s.imports);
        if (c.startsWith('torch.') || c.startsWith('tl.')) return undefined;
      }
      return undefined;
    }
    case 'call':
      return hostCall(n, s, depth);
    case 'lambda':
      return hostEval(field(n, 'body'), s, depth + 1);
    default:
      return undefined;
  }
}

export function hostTruth(v: HostValue | undefined, env: Env): boolean | undefined {
  if (!v) return undefined;
  if (v.bool !== undefined) return v.bool;
  if (v.expr) {
    const x = evaluate(v.expr, env);
    return x === undefined ? undefined : x !== 0;
  }
  return undefined;
}

export function compare(op: string, a: number, b: number): boolean | undefined {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    default:
      return undefined;
  }
}

export function binop(op: string, a: Expr, b: Expr): Expr | undefined {
  switch (op) {
    case '+':
      return add(a, b);
    case '-':
      return sub(a, b);
    case '*':
      return mul(a, b);
    case '/':
      return div(a, b);
    case '//':
      return floordiv(a, b);
    case '%':
      return mod(a, b);
    case '**':
      return epow(a, b);
    case '<<': {
      const c = b.constant;
      return c !== undefined && c >= 0 && c < 63 ? mul(a, num(2 ** c)) : undefined;
    }
    case '>>': {
      const c = b.constant;
      return c !== undefined && c >= 0 && c < 63 ? floordiv(a, num(2 ** c)) : undefined;
    }
    case '&':
    case '|':
    case '^':
      return bitop(op, a, b);
    default:
      return undefined;
  }
}

export function nextPow2(v: number): number {
  if (!(v > 0)) return 1;
  return 2 ** Math.ceil(Math.log2(v));
}

function hostCall(n: Node, s: HostScope, depth: number): HostValue | undefined {
  const fname = dotted(field(n, 'function'));
  const { pos, kw } = callArgs(n);
  const arg = (i: number): HostValue | undefined => hostEval(pos[i], s, depth + 1);
  if (fname && s.call && !fname.includes('.')) {
    const r = s.call(fname, n, depth + 1);
    if (r) return r;
  }
  if (fname) {
    const c = canonical(fname, s.imports);
    if (c === 'triton.cdiv' || c === 'tl.cdiv' || c === 'cdiv') {
      const a = arg(0)?.expr;
      const b = arg(1)?.expr;
      return a && b ? { expr: cdiv(a, b) } : undefined;
    }
    if (c === 'triton.next_power_of_2' || c === 'next_power_of_2') {
      const a = arg(0)?.expr;
      const v = a ? evaluate(a, s.env) : undefined;
      return v === undefined ? undefined : { expr: num(nextPow2(v)) };
    }
    if (c === 'min' || c === 'max') {
      const xs = pos.map((p) => hostEval(p, s, depth + 1)?.expr);
      if (xs.length < 2 || xs.some((x) => !x)) return undefined;
      return { expr: (xs as Expr[]).reduce((a, b) => (c === 'min' ? emin(a, b) : emax(a, b))) };
    }
    if (c === 'int' || c === 'float') return arg(0);
    if (c === 'len') {
      const t = arg(0);
      return t?.tuple ? { expr: num(t.tuple.length) } : undefined;
    }
    if (TORCH_MAKERS.test(c)) {
      // No dtype: torch's default fp32; a dtype the host reader cannot resolve (`dtype=x.dtype` of an unknown x): unknown.
      const dtype = kw.get('dtype') ? hostDtype(kw.get('dtype'), s) : c === 'torch.randint' || c === 'torch.arange' ? undefined : 'fp32';
      const shapeArg = kw.get('size') ?? (c === 'torch.randint' ? pos[pos.length - 1] : pos[0]);
      const sv = pos.length > 1 && c !== 'torch.randint' && c !== 'torch.full' ? { tuple: pos.map((p) => hostEval(p, s, depth + 1) ?? {}) } : hostEval(shapeArg, s, depth + 1);
      const shape = sv?.tuple ? sv.tuple.map((x) => x.expr) : sv?.expr ? [sv.expr] : undefined;
      return { tensor: true, dtype, shape: shape && shape.every((x) => x) ? (shape as Expr[]) : undefined };
    }
    if (TORCH_LIKE.test(c)) {
      const t = arg(0);
      return { tensor: true, dtype: hostDtype(kw.get('dtype'), s) ?? t?.dtype, shape: t?.shape };
    }
    // TensorDescriptor.from_tensor(x, [BM, BK]) / TensorDescriptor(x, shape, strides, [BM, BK]).
    if (/(^|\.)TensorDescriptor(\.from_tensor)?$/.test(c) || /(^|\.)create_(1d|2d)_tma_descriptor$/.test(c)) {
      const t = arg(0);
      const blockNode = kw.get('block_shape') ?? (c.endsWith('from_tensor') ? pos[1] : pos[3]);
      const bv = blockNode ? hostEval(blockNode, s, depth + 1) : undefined;
      const block = bv?.tuple && bv.tuple.every((x) => x.expr) ? bv.tuple.map((x) => x.expr!) : undefined;
      return { tensor: true, dtype: t?.dtype, descriptor: { block } };
    }
  }
  // Method calls on host tensors: .to(dtype), .half(), .float(), .contiguous(), .numel(), .stride(i), .view(...)
  const f = field(n, 'function');
  if (f?.type === 'attribute') {
    const meth = field(f, 'attribute')?.text;
    const obj = hostEval(field(f, 'object'), s, depth + 1);
    switch (meth) {
      case 'to':
      case 'type': {
        const d = hostDtype(kw.get('dtype') ?? pos.find((p) => hostDtype(p, s)), s);
        if (!obj) return d ? { tensor: true, dtype: d } : undefined;
        return { ...obj, dtype: d ?? obj.dtype };
      }
      case 'view':
      case 'reshape':
      case 'new_empty':
      case 'new_zeros':
      case 'new_ones': {
        const sv = pos.length > 1 ? { tuple: pos.map((p) => hostEval(p, s, depth + 1) ?? {}) } : hostEval(pos[0], s, depth + 1);
        const shape = sv?.tuple ? sv.tuple.map((x) => x.expr) : sv?.expr ? [sv.expr] : undefined;
        const known = shape && shape.every((x) => x) ? (shape as Expr[]) : undefined;
        const dtype = hostDtype(kw.get('dtype'), s) ?? obj?.dtype;
        if (!obj?.tensor && !meth.startsWith('new_')) return undefined;
        // view(-1) and friends: the shape is not a literal size.
        const neg = known?.some((e) => (e.constant ?? 0) < 0);
        return { tensor: true, dtype, shape: neg ? (known!.length === 1 && obj?.shape ? [mul(...obj.shape)] : undefined) : known };
      }
      case 'size':
        if (obj?.shape && !pos[0]) return { tuple: obj.shape.map((e) => ({ expr: e })) };
        if (obj?.shape && pos[0]) {
          const i = hostEval(pos[0], s, depth + 1)?.expr?.constant;
          if (i !== undefined) return { expr: obj.shape[i < 0 ? obj.shape.length + i : i] };
        }
        return undefined;
      case 'half':
        return { ...obj, dtype: 'fp16' };
      case 'bfloat16':
        return { ...obj, dtype: 'bf16' };
      case 'float':
        return { ...obj, dtype: 'fp32' };
      case 'double':
        return { ...obj, dtype: 'fp64' };
      case 'contiguous':
      case 'cuda':
      case 'clone':
      case 'detach':
      case 't':
      case 'T':
        return obj;
      case 'numel':
        return obj?.shape ? { expr: mul(...obj.shape) } : undefined;
      default:
        return undefined;
    }
  }
  return undefined;
}

/** Assignments `name = expr` in a scope before a line (the last one wins), including tuple unpacking. */
export function assignmentsIn(scope: Node, beforeLine: number, budget: Budget): Map<string, { node: Node; index?: number }> {
  const out = new Map<string, { node: Node; index?: number }>();
  const visit = (n: Node, depth: number): void => {
    if (depth > 60 || budget.spent()) return;
    if (line(n) > beforeLine) return;
    if (n.type === 'assignment') {
      const l = field(n, 'left');
      const r = field(n, 'right');
      if (l && r) {
        if (l.type === 'identifier') out.set(l.text, { node: r });
        else if (l.type === 'pattern_list' || l.type === 'tuple_pattern') {
          named(l).forEach((c, i) => {
            if (c.type === 'identifier') out.set(c.text, { node: r, index: i });
          });
        }
      }
    }
    if (n.type === 'function_definition' && n !== scope) return;
    for (const c of n.namedChildren) if (c) visit(c, depth + 1);
  };
  visit(scope, 0);
  return out;
}
