/**
 * Launch sequences in the host code of a Triton file (issue 18): a host
 * function that launches kernels one after another, directly
 * (`k[grid](…)`) or through launcher functions of the same file, with host
 * loops multiplying what they contain. Each launch carries what its
 * per-launch analysis needs (the launch site and the values of the
 * launcher's parameters in this pipeline) and the identity of every tensor it
 * is passed, so that a tensor written by one launch and read by the next can
 * be found (fusion what-if).
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import type { Budget } from '../../budget';
import type { HostLite } from '../../frontend';
import type { HostLaunchFact, HostPipelineFact } from '../../ir';
import { pipelineText } from '../../messages';
import { noteQuery } from '../../deps';
import { evaluate } from '../../sym/expr';
import { hostTruth, type FnInfo, type HostValue, type ModuleInfo } from './module';
import { toLite, type Frame, type HostEnv } from './host';
import { callArgs, dotted, field, line, named } from './syntax';

interface Walk {
  frame: Frame;
  ids: Map<string, string>;
  prefix: string;
  repeat: number | null;
  repeatNote?: string;
  depth: number;
  via?: string;
  callLine?: number;
  ret?: string;
}

const MAX_DEPTH = 4;
const MAX_LAUNCHES = 200;

export function tritonPipelines(m: ModuleInfo, host: HostEnv, budget: Budget): HostPipelineFact[] {
  const out: HostPipelineFact[] = [];
  // What the pipelines read of the file's scan (src/core/deps.ts): every launch site, the functions' names,
  // kinds and extents (not the kernels' bodies: of a launched kernel only its parameters), the host calls.
  noteQuery('launches:*');
  noteQuery('fnIndex:*');
  const fnGet = (name: string): FnInfo | undefined => Map.prototype.get.call(m.functions, name) as FnInfo | undefined;
  const fnAll = [...(Map.prototype.values.call(m.functions) as Iterable<FnInfo>)];
  const launchesBy = new Map<number, (typeof m.launches)[number]>();
  for (const l of m.launches) launchesBy.set(l.node.id, l);
  // Launch sites and host calls by where they start, so a function finds those inside it by two binary searches.
  const launchStarts = m.launches.map((l) => [l.node.startIndex, l.node.endIndex, l] as const).sort((a, b) => a[0] - b[0]);
  const callStarts: (readonly [number, number, string])[] = [];
  for (const [name, calls] of m.hostCalls) for (const c of calls) callStarts.push([c.startIndex, c.endIndex, name]);
  callStarts.sort((a, b) => a[0] - b[0]);
  const inside = <T extends readonly [number, number, ...unknown[]]>(sorted: readonly T[], fn: FnInfo): T[] => {
    const lo = firstFrom(sorted, fn.node.startIndex);
    const out: T[] = [];
    for (let i = lo; i < sorted.length && sorted[i][0] < fn.node.endIndex; i++) if (sorted[i][1] <= fn.node.endIndex) out.push(sorted[i]);
    return out;
  };
  const reaches = new Map<string, boolean>();
  const launchesIn = (fn: FnInfo, depth: number): boolean => {
    const hit = reaches.get(fn.name);
    if (hit !== undefined) return hit;
    if (depth > MAX_DEPTH) return false;
    reaches.set(fn.name, false);
    let r = inside(launchStarts, fn).length > 0;
    if (!r)
      for (const [, , name] of inside(callStarts, fn)) {
        const g = fnGet(name);
        if (g && g !== fn && launchesIn(g, depth + 1)) {
          r = true;
          break;
        }
      }
    reaches.set(fn.name, r);
    return r;
  };
  const names: Record<string, string> = {};
  const fresh = (w: Walk, x: string, at: number): string => {
    const id = `${w.prefix}.${x}@${at}`;
    names[id] ??= x;
    return id;
  };
  const idOf = (w: Walk, n: Node | null | undefined, returns: Map<number, string>): string | undefined => {
    if (!n) return undefined;
    if (n.type === 'identifier') {
      const id = w.ids.get(n.text);
      if (id) return id;
      const made = fresh(w, n.text, 0);
      w.ids.set(n.text, made);
      return made;
    }
    if (n.type === 'call') {
      const r = returns.get(n.id);
      if (r) return r;
      // Methods that keep the tensor: x.contiguous(), x.view(…), x.to(…), x.reshape(…).
      const f = field(n, 'function');
      if (f?.type === 'attribute' && /^(contiguous|view|reshape|to|float|half|bfloat16|flatten|squeeze|unsqueeze|t|transpose|permute|expand|view_as)$/.test(field(f, 'attribute')?.text ?? ''))
        return idOf(w, field(f, 'object'), returns);
      return undefined;
    }
    if (n.type === 'attribute' && /^(T|mT|data)$/.test(field(n, 'attribute')?.text ?? '')) return idOf(w, field(n, 'object'), returns);
    if (n.type === 'parenthesized_expression') return idOf(w, named(n)[0], returns);
    return undefined;
  };

  const walkFn = (fn: FnInfo, w: Walk, launches: HostLaunchFact[]): void => {
    const body = field(fn.node, 'body');
    if (body) walkBlock(body, w, launches);
  };

  const walkBlock = (block: Node, w: Walk, launches: HostLaunchFact[]): void => {
    for (const st of named(block)) {
      if (budget.spent() || launches.length >= MAX_LAUNCHES) return;
      walkStatement(st, w, launches);
    }
  };

  const trips = (st: Node, w: Walk): { n: number | null; note: string } => {
    const r = field(st, 'right');
    if (r?.type === 'call' && dotted(field(r, 'function')) === 'range') {
      const xs = callArgs(r).pos.map((a) => {
        const e = host.eval(a, w.frame, line(st))?.expr;
        return e ? evaluate(e, new Map()) : undefined;
      });
      if (xs.length && xs.every((x) => x !== undefined)) {
        const [lo, hi, step] = xs.length === 1 ? [0, xs[0]!, 1] : [xs[0]!, xs[1]!, xs[2] ?? 1];
        const n = step > 0 ? Math.max(0, Math.ceil((hi - lo) / step)) : null;
        return n === null ? { n, note: pipelineText('loopUnknown', r.text, line(st)) } : { n, note: pipelineText('loopRuns', r.text, line(st), n) };
      }
      return { n: null, note: pipelineText('loopUnknown', r.text, line(st)) };
    }
    const v = r ? host.eval(r, w.frame, line(st)) : undefined;
    if (v?.tuple) return { n: v.tuple.length, note: pipelineText('loopRuns', `for … in ${r!.text}`, line(st), v.tuple.length) };
    return { n: null, note: pipelineText('loopUnknownAt', line(st)) };
  };

  const walkStatement = (st: Node, w: Walk, launches: HostLaunchFact[]): void => {
    switch (st.type) {
      case 'for_statement':
      case 'while_statement': {
        const t = st.type === 'for_statement' ? trips(st, w) : { n: null, note: pipelineText('whileUnknown', 'while', line(st)) };
        const inner: Walk = { ...w, repeat: w.repeat === null || t.n === null ? null : w.repeat * t.n, repeatNote: [w.repeatNote, t.note].filter(Boolean).join('; ') };
        const body = field(st, 'body');
        if (body) walkBlock(body, inner, launches);
        return;
      }
      case 'if_statement': {
        const c = host.eval(field(st, 'condition'), w.frame, line(st));
        const t = hostTruth(c, new Map());
        const cons = field(st, 'consequence');
        const alts = named(st).filter((x) => x.type === 'elif_clause' || x.type === 'else_clause');
        if (t === true) {
          if (cons) walkBlock(cons, w, launches);
          return;
        }
        if (t === false && alts.length === 1 && alts[0].type === 'else_clause') {
          const b = named(alts[0]).find((x) => x.type === 'block');
          if (b) walkBlock(b, w, launches);
          return;
        }
        if (t === false && !alts.length) return;
        // Undecided: the first arm counts (the one a reader sees first), and the launches say so.
        if (cons) walkBlock(cons, { ...w, repeatNote: [w.repeatNote, pipelineText('ifUndecided', shortText(field(st, 'condition')), line(st))].filter(Boolean).join('; ') }, launches);
        return;
      }
      case 'with_statement':
      case 'try_statement': {
        // Its own blocks (a `with`'s body, a `try`'s body), each once: an `except` handler is not the path run.
        for (const b of st.descendantsOfType('block')) if (b && b.parent?.id === st.id) walkBlock(b, w, launches);
        return;
      }
      case 'function_definition':
      case 'class_definition':
      case 'decorated_definition':
        return;
      default:
        break;
    }
    // Calls, innermost first (arguments run before the call they are passed to).
    const returns = new Map<number, string>();
    const visit = (n: Node, depth: number): void => {
      if (depth > 40 || n.type === 'lambda' || n.type === 'function_definition') return;
      for (const c of n.namedChildren) if (c) visit(c, depth + 1);
      if (n.type === 'call') call(n, w, launches, returns);
    };
    visit(st, 0);
    const expr = st.type === 'expression_statement' ? named(st)[0] : st;
    if (st.type === 'return_statement') {
      w.ret = idOf(w, named(st)[0], returns);
      return;
    }
    if (expr?.type === 'assignment') {
      const l = field(expr, 'left');
      const r = field(expr, 'right');
      if (l?.type === 'identifier' && r) {
        const id = idOf(w, r, returns) ?? fresh(w, l.text, line(expr));
        w.ids.set(l.text, id);
        // The pipeline function's own name for a tensor a launcher made (`h = rmsnorm(x)`).
        if (w.depth === 0) names[id] = l.text;
      }
      else if (l) for (const id of l.descendantsOfType('identifier')) if (id) w.ids.set(id.text, fresh(w, id.text, line(expr)));
    }
  };

  const call = (n: Node, w: Walk, launches: HostLaunchFact[], returns: Map<number, string>): void => {
    const l = launchesBy.get(n.id);
    if (l) {
      const k = fnGet(l.kernel)!;
      noteQuery(`params:${l.kernel}`);
      const tensors: Record<string, string> = {};
      const splat = l.pos.findIndex((x) => x.type === 'list_splat' || x.type === 'dictionary_splat');
      k.params.forEach((p, i) => {
        const a = i < l.pos.length && (splat < 0 || i < splat) ? l.pos[i] : l.kw.get(p.name);
        const id = idOf(w, a, returns);
        if (id) tensors[p.name] = id;
      });
      let frame: Record<string, HostLite> | undefined;
      if (w.frame.args) {
        frame = {};
        for (const [name, v] of w.frame.args) {
          const lite = toLite(v);
          if (lite !== undefined) frame[name] = lite;
        }
      }
      launches.push({
        kernel: l.kernel,
        line: l.line,
        callLine: w.callLine ?? line(n),
        ...(w.via ? { via: w.via } : {}),
        inputs: { kernel: l.kernel, line: l.line, ...(frame ? { frame } : {}), label: pipelineText('launchLabel', w.callLine ?? line(n)) },
        repeat: w.repeat,
        ...(w.repeatNote ? { repeatNote: w.repeatNote } : {}),
        tensors,
        names,
      });
      return;
    }
    const fname = field(n, 'function');
    const g = fname?.type === 'identifier' ? fnGet(fname.text) : undefined;
    if (!g || g.isJit || w.depth >= MAX_DEPTH || !launchesIn(g, 0)) return;
    const scope = host.scopeAt(w.frame, line(n));
    const args: Map<string, HostValue> = host.argsOf(g, n, scope, 0);
    const ids = new Map<string, string>();
    const { pos, kw } = callArgs(n);
    g.params.forEach((p, i) => {
      const a = kw.get(p.name) ?? pos[i];
      const id = idOf(w, a, returns);
      if (id) ids.set(p.name, id);
    });
    const inner: Walk = {
      frame: { fn: g, scope: g.node, args, callers: false },
      ids,
      prefix: `${g.name}#${line(n)}`,
      repeat: w.repeat,
      repeatNote: w.repeatNote,
      depth: w.depth + 1,
      via: w.via ?? g.name,
      callLine: w.callLine ?? line(n),
    };
    walkFn(g, inner, launches);
    if (inner.ret) returns.set(n.id, inner.ret);
  };

  /**
   * Whether a host function's walk cannot make a pipeline (it needs two
   * launches, or one run twice): one launch site, no call of another function
   * that launches, and no loop around it. Such a function (a launcher around
   * one kernel, the most common kind) is not walked.
   */
  const oneRunAtMost = (fn: FnInfo): boolean => {
    const sites = inside(launchStarts, fn);
    if (sites.length !== 1) return false;
    for (const [, , name] of inside(callStarts, fn)) {
      const g = fnGet(name);
      if (g && g !== fn && launchesIn(g, 1)) return false;
    }
    for (let p = sites[0][2].node.parent; p && p !== fn.node; p = p.parent) if (p.type === 'for_statement' || p.type === 'while_statement') return false;
    return true;
  };

  for (const fn of fnAll) {
    if (budget.spent()) break;
    if (fn.isJit || !launchesIn(fn, 0) || oneRunAtMost(fn)) continue;
    const launches: HostLaunchFact[] = [];
    const w: Walk = { frame: { fn, scope: fn.node, callers: true }, ids: new Map(), prefix: fn.name, repeat: 1, depth: 0 };
    walkFn(fn, w, launches);
    const runs = launches.reduce((s, l) => s + (l.repeat ?? 1), 0);
    if (launches.length < 2 && runs < 2) continue;
    // A function whose launches all come from one call of another pipeline function repeats it.
    const calls = new Set(launches.map((l) => l.callLine));
    if (calls.size === 1 && launches.every((l) => l.via) && launches.some((l) => l.callLine !== l.line)) {
      const via = launches[0].via!;
      const g = fnGet(via);
      if (g && launches.every((l) => l.via === via)) continue;
    }
    out.push({ name: fn.name, line: fn.line, endLine: fn.node.endPosition.row + 1, launches, ...(launches.length >= MAX_LAUNCHES ? { notes: [pipelineText('truncatedNote', MAX_LAUNCHES)] } : {}) });
  }
  return out;
}

function shortText(n: Node | null): string {
  const t = (n?.text ?? '').replace(/\s+/g, ' ');
  return t.length > 40 ? t.slice(0, 39) + '…' : t;
}

/** The index of the first of `sorted` (by start) that starts at or after `x`. */
function firstFrom(sorted: readonly (readonly [number, ...unknown[]])[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid][0] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
