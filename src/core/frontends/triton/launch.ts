/**
 * A Triton kernel's launch site in the same file, read as host code: the
 * arguments (values of scalars, element types of tensors, block shapes of
 * descriptors), meta-parameters, and the grid in kernel-symbol space; and the
 * block shapes an autotune pre-hook gives descriptors
 * (`nargs["a_desc"].block_shape = [BLOCK_M, BLOCK_K]`).
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import type { BindingSet, Suggestions } from '../../bindings';
import type { Budget } from '../../budget';
import type { Dtype } from '../../gpus/types';
import { evaluate, sym, type Expr } from '../../sym/expr';
import { hostEval, type FnInfo, type HostScope, type HostValue, type Launch, type ModuleInfo } from './module';
import { HostEnv, type Frame } from './host';
import type { HostDescriptor } from './state';
import { callArgs, dotted, field, named, shorten, stringValue } from './syntax';

export interface LaunchFacts {
  grid: Expr[] | null;
  /** How many axes the launch's grid has, even when their sizes are not known (`(n // 256,)`: 1). */
  gridRank?: number;
  gridDetail: string;
  dtypes: Map<string, Dtype>;
  descriptors: Map<string, HostDescriptor>;
  /** What the host code beyond the launch's own function said (for the hover's assumptions). */
  hostNotes: string[];
}

function rootOf(n: Node): Node {
  let r = n;
  while (r.parent) r = r.parent;
  return r;
}

/** How a launch's frame is read: its own code only, through the call sites of its function, or with given values. */
export interface LaunchFrame {
  host: HostEnv;
  /** Values of the enclosing function's parameters (a pipeline's launch), by name. */
  args?: Map<string, HostValue>;
  /** Shown in the bindings' detail (`pipeline \`forward\``). */
  label?: string;
  /** Collects the values the host code gives an argument under its other call sites and benchmark rows. */
  suggest?: Suggestions;
}

/** Evaluations of one argument under the host code's other choices (call sites, benchmark rows). */
const MAX_HOST_ALTERNATIVES = 40;
/** Steps the suggestions of one argument may take (not taken from the kernel's budget). */
const SUGGEST_STEPS = 20_000;

/** Reads a launch: argument values and dtypes, meta-parameters, and the grid in kernel-symbol space. */
export function bindLaunch(k: FnInfo, l: Launch, m: ModuleInfo, b: BindingSet, budget: Budget, lf?: LaunchFrame): LaunchFacts {
  const facts: LaunchFacts = { grid: null, gridDetail: '', dtypes: new Map(), descriptors: new Map(), hostNotes: [] };
  const host = lf?.host ?? new HostEnv(m, rootOf(l.node), budget);
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
  const own = host.frameOf(l.node, false);
  const frame: Frame = lf?.args ? { ...own, args: lf.args } : own;
  const symbolic = (x: string): HostValue | undefined => {
    const p = passedAs.get(x);
    return p ? { expr: sym(p) } : undefined;
  };
  const scope = host.scopeAt(frame, l.line, symbolic);
  // The same frame, following the enclosing function's parameters to its call sites in the file.
  const viaCallers = !lf?.args && frame.fn && (m.hostCalls.get(frame.fn.name)?.length || frame.fn.decorators.some((d) => /perf_report$/.test(d)));
  const callerScope = viaCallers ? host.scopeAt({ ...frame, callers: true }, l.line, symbolic) : undefined;
  const detail = `launch at line ${l.line}${lf?.label ? ` (${lf.label})` : ''}`;
  const fromHost = (node: Node): { hv: HostValue; detail: string } | undefined => {
    if (!callerScope) return undefined;
    host.trail = [];
    const hv = hostEval(node, callerScope);
    const trail = [...new Set(host.trail)];
    host.trail = [];
    return hv && trail.length ? { hv, detail: `host: ${trail.join(' ← ')}` } : undefined;
  };
  for (const [pname, node] of argFor) {
    let hv = hostEval(node, scope);
    let source: 'launch' | 'host' = 'launch';
    let d = detail;
    const known = hv && (hv.tensor ? !!hv.dtype : hv.expr ? evaluate(hv.expr, b.env()) !== undefined : hv.bool !== undefined || hv.str !== undefined || !!hv.dtype);
    if (!known) {
      const h = fromHost(node);
      if (h) {
        hv = h.hv;
        source = 'host';
        d = h.detail;
      }
    }
    if (!hv) continue;
    if (source === 'host' && lf?.suggest && callerScope && !hv.tensor) suggestHost(pname, node, callerScope, host, b, budget, lf.suggest);
    if (hv.tensor) {
      // A tensor argument: its dtype is the pointer's element type — never a value of the parameter.
      if (hv.dtype) {
        facts.dtypes.set(pname, hv.dtype);
        if (source === 'host') facts.hostNotes.push(`element type of \`${pname}\` ${hv.dtype} (${d})`);
      }
      if (hv.descriptor?.block) facts.descriptors.set(pname, { block: hv.descriptor.block, detail: `block shape of the descriptor passed at line ${l.line}` });
      continue;
    }
    if (hv.expr) {
      const v = evaluate(hv.expr, b.env());
      if (v !== undefined && !hv.dtype) b.bind(pname, v, source, d);
    } else if (hv.bool !== undefined) b.bind(pname, hv.bool, source, d);
    else if (hv.str !== undefined) b.bind(pname, hv.str, source, d);
    else if (hv.dtype) b.bind(pname, hv.dtype, source, d);
  }
  const conflict = frame.fn ? host.conflictFor(frame.fn.name) : undefined;
  if (conflict) facts.hostNotes.push(conflict);
  // Keywords that are not parameters are launch options (num_warps, num_stages, …): no bindings.
  // The grid: a tuple, a lambda over meta, or a name bound to either.
  let g: Node | null | undefined = l.grid;
  for (let i = 0; i < 5 && g?.type === 'identifier'; i++) g = host.assignedNode(frame, g.text, l.line) ?? m.globals.get(g.text);
  if (g) {
    const metaName = g.type === 'lambda' ? named(field(g, 'parameters') ?? g)[0]?.text : undefined;
    const gridOf = (base: HostScope): (Expr | undefined)[] | undefined => {
      const gscope: HostScope = { ...base, metaNames: new Set(metaName ? [metaName] : []), meta: (key) => ({ expr: sym(key) }) };
      const hv = hostEval(g!.type === 'lambda' ? field(g!, 'body') : g, gscope);
      return hv?.tuple ? hv.tuple.map((x) => x.expr) : hv?.expr ? [hv.expr] : undefined;
    };
    let dims = gridOf(scope);
    let gridFrom = detail;
    // A grid in host sizes the kernel is not given (`(n_rows,)`): through the call sites.
    if ((!dims || !dims.every((x) => x)) && callerScope) {
      host.trail = [];
      dims = gridOf(callerScope);
      if (host.trail.length) gridFrom = `${detail}, sizes from host: ${[...new Set(host.trail)].join(' ← ')}`;
      host.trail = [];
    }
    if (dims && dims.length > 0) facts.gridRank = dims.length;
    if (dims && dims.length > 0 && dims.every((x) => x)) {
      facts.grid = dims as Expr[];
      facts.gridDetail = `grid of the ${gridFrom}: (${shorten((g.type === 'lambda' ? field(g, 'body') : g)?.text ?? '', 60)})`;
    }
  }
  return facts;
}

/** The values an argument takes under the host code's other call sites and benchmark rows. */
function suggestHost(pname: string, node: Node, scope: HostScope, host: HostEnv, b: BindingSet, budget: Budget, sug: Suggestions): void {
  const scalar = (hv: HostValue | undefined): number | boolean | string | undefined => {
    if (!hv || hv.tensor || hv.dtype) return undefined;
    if (hv.expr) return evaluate(hv.expr, b.env());
    return hv.bool ?? hv.str;
  };
  const alts = budget.optional(SUGGEST_STEPS, () => host.alternatives(() => scalar(hostEval(node, scope)), MAX_HOST_ALTERNATIVES)).value;
  for (const a of alts) if (a.trail.length) sug.add(pname, a.value, 'host', `host: ${a.trail.join(' ← ')}`);
}

/**
 * Descriptor block shapes set by an autotune pre-hook of the first config:
 * `nargs["a_desc"].block_shape = [BLOCK_M, BLOCK_K]`, where `BLOCK_M` may be
 * a local read from `nargs["BLOCK_SIZE_M"]` (a meta-parameter of the kernel).
 */
export function preHookDescriptors(config: Node | undefined, m: ModuleInfo): Map<string, HostDescriptor> {
  const out = new Map<string, HostDescriptor>();
  if (!config) return out;
  const hookNode = callArgs(config).kw.get('pre_hook');
  const hook = hookNode ? m.functions.get(dotted(hookNode) ?? '') : undefined;
  if (!hook) return out;
  const params = named(field(hook.node, 'parameters') ?? hook.node);
  const nargs = params[0]?.text;
  if (!nargs) return out;
  const locals = new Map<string, Node>();
  const scope: HostScope = {
    imports: m.imports,
    env: new Map(),
    metaNames: new Set([nargs]),
    meta: (key) => ({ expr: sym(key) }),
    name: (x, depth) => {
      const a = locals.get(x);
      return a && depth < 20 ? hostEval(a, scope, depth + 1) : undefined;
    },
  };
  const visit = (n: Node, depth: number): void => {
    if (depth > 40) return;
    if (n.type === 'assignment') {
      const l = field(n, 'left');
      const r = field(n, 'right');
      if (l?.type === 'identifier' && r) locals.set(l.text, r);
      // nargs["a_desc"].block_shape = [...]
      if (l?.type === 'attribute' && field(l, 'attribute')?.text === 'block_shape' && r) {
        const obj = field(l, 'object');
        const base = obj?.type === 'subscript' ? dotted(field(obj, 'value')) : undefined;
        const key = obj?.type === 'subscript' ? field(obj, 'subscript') : null;
        const name = base === nargs && key ? stringValue(key) : undefined;
        const v = hostEval(r, scope);
        const block = v?.tuple && v.tuple.every((x) => x.expr) ? v.tuple.map((x) => x.expr!) : undefined;
        if (name && block) out.set(name, { block, detail: `block shape set by the autotune pre-hook \`${hook.name}\`` });
      }
    }
    for (const c of n.namedChildren) if (c && c.type !== 'function_definition') visit(c, depth + 1);
  };
  const body = field(hook.node, 'body');
  if (body) visit(body, 0);
  return out;
}
