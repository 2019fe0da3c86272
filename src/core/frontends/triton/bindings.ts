/**
 * Where a Triton kernel's values come from besides the launch: module
 * constants (`BLOCK = 128`, `MODE_SUM: tl.constexpr = 1`), parameter defaults
 * (which may name those constants), the first `triton.Config` of
 * `@triton.autotune` (a literal list, a module constant, or a helper that
 * returns one; the others are suggested), and `@triton.heuristics` lambdas
 * evaluated on what is bound.
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import { noteQuery, recordInto } from '../../deps';
import type { BindingSet, Suggestions } from '../../bindings';
import type { Notes } from '../../engine/recorder';
import { evaluate, num, type Env } from '../../sym/expr';
import { hostEval, hostTruth, type FnInfo, type HostScope, type HostValue, type ModuleInfo } from './module';
import { callArgs, dotted, field, line, named, shorten } from './syntax';

export function valueOf(v: HostValue | undefined, env: Env): number | boolean | string | undefined {
  if (!v) return undefined;
  if (v.bool !== undefined) return v.bool;
  if (v.str !== undefined) return v.str;
  if (v.dtype && !v.expr) return v.dtype;
  if (v.expr) return evaluate(v.expr, env);
  return undefined;
}


/** Resolves names to what is bound so far (module constants first, so defaults that name them work). */
function boundNames(b: BindingSet): (x: string) => HostValue | undefined {
  return (x) => {
    const v = b.get(x);
    if (!v) return undefined;
    if (typeof v.value === 'number') return { expr: num(v.value) };
    if (typeof v.value === 'boolean') return { expr: num(v.value ? 1 : 0), bool: v.value };
    return { str: v.value };
  };
}

/** Module-level constants (`BLOCK = 128`, `N = tl.constexpr(2 * M)`) with the expression of each, kept per scan. */
const constants = new WeakMap<ModuleInfo, (readonly [string, Node, Node])[]>();

export function constGlobals(m: ModuleInfo): (readonly [string, Node, Node])[] {
  let out = constants.get(m);
  if (out) return out;
  out = recordInto(undefined, () => {
    const list: (readonly [string, Node, Node])[] = [];
    for (const [name, node] of m.globals) {
      let n: Node | null = node;
      // `BLOCK = tl.constexpr(128)`
      if (n.type === 'call' && /constexpr$/.test(dotted(field(n, 'function')) ?? '')) n = callArgs(n).pos[0] ?? null;
      if (!n || !['integer', 'float', 'true', 'false', 'binary_operator', 'unary_operator', 'parenthesized_expression'].includes(n.type)) continue;
      list.push([name, node, n]);
    }
    return list;
  });
  constants.set(m, out);
  return out;
}

export function bindGlobals(m: ModuleInfo, b: BindingSet): void {
  const env = b.env();
  // A kernel reads the constants as a list (recorded as one read, answered by their names, lines and text: triton/deps.ts),
  // not the statements around them (a `__main__` block's constants would make it depend on every line of that block).
  noteQuery('constGlobals:*');
  recordInto(undefined, () => {
    for (const [name, node, n] of constGlobals(m)) {
      const v = valueOf(hostEval(n, { name: boundNames(b), imports: m.imports, env }), env);
      if (v !== undefined && typeof v !== 'string') b.bind(name, v, 'global', `module constant (line ${line(node)})`);
    }
  });
}

export function bindDefaults(k: FnInfo, m: ModuleInfo, b: BindingSet): void {
  for (const p of k.params) {
    if (!p.default) continue;
    const env = b.env();
    const v = valueOf(hostEval(p.default, { name: boundNames(b), imports: m.imports, env }), env);
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
    case 'list_comprehension':
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

/** Config values suggested per loop variable of a comprehension (`for BM in [32, 64, …]`). */
const MAX_LOOP_VALUES = 16;

/**
 * The first `triton.Config` of `@triton.autotune(configs=[...])` binds; with
 * `sug`, every config's values are suggested too (the tile sizes autotuning
 * may pick instead).
 */
export function bindAutotune(k: FnInfo, m: ModuleInfo, b: BindingSet, notes: Notes, sug?: Suggestions): Node | undefined {
  if (!k.autotune) return undefined;
  const { pos, kw } = callArgs(k.autotune);
  const configs = resolveList(kw.get('configs') ?? pos[0], m, 0);
  if (!configs) {
    notes.say('autotune', line(k.autotune), k.name);
    return undefined;
  }
  // `[triton.Config({...}) for BM in [64, 128] for BK in [64, 128]]`: the first config takes every
  // comprehension variable's first value.
  const comprehension = configs.type === 'list_comprehension';
  const loops = new Map<string, readonly Node[]>();
  let count = 1;
  if (comprehension) {
    for (const clause of named(configs).filter((c) => c.type === 'for_in_clause')) {
      const left = field(clause, 'left');
      const right = field(clause, 'right');
      const items = right?.type === 'list' || right?.type === 'tuple' ? named(right) : [];
      if (left?.type === 'identifier' && items[0]) {
        loops.set(left.text, items);
        count *= items.length;
      }
    }
  }
  const items = comprehension ? named(configs).slice(0, 1).filter((c) => c.type === 'call') : named(configs).filter((c) => c.type === 'call');
  const first = items[0];
  if (!first) return undefined;
  const env = b.env();
  /** Each value of one config, with the comprehension variables at the values given. */
  const valuesOf = (config: Node, vars: Map<string, Node>, each: (key: string, val: number | boolean | string) => void): void => {
    const args = callArgs(config);
    const dict = args.kw.get('kwargs') ?? args.pos[0];
    const names: HostScope['name'] = (x, depth) => {
      const v = vars.get(x);
      return v && depth < 20 ? hostEval(v, { name: () => undefined, imports: m.imports, env }, depth + 1) : undefined;
    };
    if (dict?.type === 'dictionary') {
      const hv = hostEval(dict, { name: names, imports: m.imports, env });
      for (const [key, v] of hv?.dict ?? []) {
        const val = valueOf(v, env);
        if (val !== undefined) each(key, val);
      }
    }
    for (const [key, v] of args.kw) {
      if (key === 'kwargs') continue;
      const val = valueOf(hostEval(v, { name: names, imports: m.imports, env }), env);
      if (val !== undefined) each(key, val);
    }
  };
  const firstVars = new Map([...loops].map(([x, vals]) => [x, vals[0]]));
  const detail = comprehension ? `triton.Config #1 of ${count} (line ${line(first)}, first value of each loop)` : `triton.Config #1 of ${items.length} (line ${line(first)})`;
  valuesOf(first, firstVars, (key, val) => b.bind(key, val, 'autotune', detail));
  if (sug) {
    if (!comprehension) {
      items.forEach((c, i) => valuesOf(c, new Map(), (key, val) => sug.add(key, val, 'autotune', `triton.Config #${i + 1} of ${items.length} (line ${line(c)})`)));
    } else {
      // One loop variable at a time, the others at their first value: every value a key takes from one loop.
      for (const [x, vals] of loops) {
        for (const v of vals.slice(0, MAX_LOOP_VALUES)) {
          const vars = new Map(firstVars).set(x, v);
          valuesOf(first, vars, (key, val) => sug.add(key, val, 'autotune', `triton.Config with ${x} = ${shorten(v.text, 20)} (line ${line(first)}, ${count} configs)`));
        }
      }
    }
  }
  return first;
}

export /** `@triton.heuristics({'EVEN_K': lambda args: args['K'] % args['BLOCK_K'] == 0})`. */
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

