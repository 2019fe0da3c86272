/**
 * A Triton kernel's launch site in the same file, read as host code: the
 * arguments (values of scalars, element types of tensors, block shapes of
 * descriptors), meta-parameters, and the grid in kernel-symbol space; and the
 * block shapes an autotune pre-hook gives descriptors
 * (`nargs["a_desc"].block_shape = [BLOCK_M, BLOCK_K]`).
 */
import type { Node } from 'web-tree-sitter';
import type { BindingSet } from '../../bindings';
import type { Budget } from '../../budget';
import type { Dtype } from '../../gpus/types';
import { evaluate, sym, type Expr } from '../../sym/expr';
import { assignmentsIn, hostEval, type FnInfo, type HostScope, type Launch, type ModuleInfo } from './module';
import type { HostDescriptor } from './state';
import { callArgs, dotted, field, named, shorten, stringValue } from './syntax';

export interface LaunchFacts {
  grid: Expr[] | null;
  gridDetail: string;
  dtypes: Map<string, Dtype>;
  descriptors: Map<string, HostDescriptor>;
}

/** Reads a launch: argument values and dtypes, meta-parameters, and the grid in kernel-symbol space. */
export function bindLaunch(k: FnInfo, l: Launch, m: ModuleInfo, b: BindingSet, budget: Budget): LaunchFacts {
  const facts: LaunchFacts = { grid: null, gridDetail: '', dtypes: new Map(), descriptors: new Map() };
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
    if (hv.tensor) {
      // A tensor argument: its dtype is the pointer's element type — never a value of the parameter.
      if (hv.dtype) facts.dtypes.set(pname, hv.dtype);
      if (hv.descriptor?.block) facts.descriptors.set(pname, { block: hv.descriptor.block, detail: `block shape of the descriptor passed at line ${l.line}` });
      continue;
    }
    if (hv.expr) {
      const v = evaluate(hv.expr, b.env());
      if (v !== undefined && !hv.dtype) b.bind(pname, v, 'launch', detail);
    } else if (hv.bool !== undefined) b.bind(pname, hv.bool, 'launch', detail);
    else if (hv.str !== undefined) b.bind(pname, hv.str, 'launch', detail);
    else if (hv.dtype) b.bind(pname, hv.dtype, 'launch', detail);
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
