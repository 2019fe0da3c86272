/**
 * Host code in the same file, read as a small interpreter over frames: a
 * frame is a host function (or the module) at a line, with the values its
 * parameters were given by a caller when one is known.
 *
 *   name at line L ──► the last assignment before L in the frame
 *                      (both arms of an if/else: taken only when they agree — N1)
 *                  ──► a parameter: the caller's value (pipelines), else the
 *                      first call site in the file that resolves it
 *                      (`matmul(a, b)` in `__main__`, a test, a benchmark),
 *                      else a `perf_report` benchmark's x_vals (the largest),
 *                      else the parameter's default
 *                  ──► a module-level name
 *
 * Every value taken from a call site or a benchmark leaves its origin in a
 * trail (shown as the binding's detail), and call sites that disagree with
 * the one taken leave a note (shown as an assumption). The call site and the
 * benchmark row taken are choices: `alternatives` evaluates an expression
 * under the others too (the values the editor suggests). Never throws.
 */
import { cover, isStatementWrapper, readUnitsAhead, type SyntaxNode as Node } from '../../syntax-tree';
import type { Budget } from '../../budget';
import type { HostLite } from '../../frontend';
import { parseDtype } from '../common';
import { evaluate, num, type Expr } from '../../sym/expr';
import { canonical, hostEval, hostTruth, type FnInfo, type HostScope, type HostValue, type ModuleInfo } from './module';
import { callArgs, dotted, field, line, named, shorten, stringValue } from './syntax';
import { asQuery, captured, noteQuery, recordInto, recording, replay, type Deps } from '../../deps';

export interface Frame {
  /** The host function, or undefined for module-level code. */
  fn: FnInfo | undefined;
  /** The function definition node, or the module root. */
  scope: Node;
  /** Values of the function's parameters given by an explicit caller (pipelines). */
  args?: Map<string, HostValue>;
  /** Identity of each parameter's tensor in the caller (for fusion). */
  ids?: Map<string, string>;
  /** Resolve unknown parameters through the call sites of the function (Task: sizes from host code). */
  callers: boolean;
}

/** A choice the host reading made: which call site of a function, which row of a benchmark. */
interface ChoicePoint {
  /** One label per alternative (`matmul(a, b) at line 434`, `benchmark x_vals[3] = 512 (line 409)`). */
  labels: string[];
  /** The alternative taken by default. */
  chosen: number;
}
type Points = Map<string, ChoicePoint>;

/** A parameter's value read from its call sites, with what it depends on (HostEnv.memo). */
interface MemoEntry {
  v: HostValue | undefined;
  trail: string[];
  points: Points;
  deps?: Deps;
  /** The choices consulted reading it, and what was picked for each (undefined: the default). */
  needs: Map<string, number | undefined>;
  /** Read while alternatives ran: taken by them only. */
  alt: boolean;
  /** The budget's steps reading it took (`Budget.measured`): taken again with the value. */
  used: number;
  peak: number;
}

/** An assignment's value read in a frame, with what it depends on (HostEnv.values). */
interface ValueEntry extends MemoEntry {
  /** The names being read (HostEnv.active) its reading went through: taken only while none of them is. */
  keys: Set<string>;
}

/** Objects told apart by identity in a key (a frame's arguments), numbered as first met. */
const identities = new WeakMap<object, number>();
let identitiesMet = 0;

function identity(o: object | undefined): number {
  if (!o) return 0;
  let n = identities.get(o);
  if (n === undefined) identities.set(o, (n = ++identitiesMet));
  return n;
}

/** A frame in a key: its function, scope, arguments and ids (by identity), and whether callers are read. */
function frameKey(f: Frame): string {
  return `${f.scope.id}:${f.fn?.name ?? ''}:${f.callers ? 'c' : ''}:${identity(f.args)}:${identity(f.ids)}`;
}

/** Whether two sets meet (the smaller one walked). */
function anyOf(a: Set<string>, b: Set<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const k of small) if (large.has(k)) return true;
  return false;
}

/** Parameter values read from call sites and assignments' values read (not taken from the memo), and host readers made: tests. */
export const hostStats = { reads: 0, readers: 0, values: 0 };

/** Values kept per parameter (under different picks) at most. */
const MAX_MEMO_VERSIONS = 8;

function mergePoints(into: Points | undefined, from: Points): void {
  if (into) for (const [k, v] of from) if (!into.has(k)) into.set(k, v);
}

/** Alternatives of one choice point that are tried (benchmark rows, call sites). */
const MAX_ALTERNATIVES = 64;

interface Assign {
  rhs: Node;
  index?: number;
  line: number;
  node: Node;
}

/** How many call sites of one function are looked at. */
const MAX_CALL_SITES = 8;
/** How deep call sites are followed (launcher ← test ← benchmark). */
const MAX_CALLER_DEPTH = 3;
/** Elements of an x_vals list comprehension that are evaluated. */
const MAX_XVALS = 4096;

export class HostEnv {
  /** Where the values of the current evaluation came from (call sites, benchmarks). */
  trail: string[] = [];
  /** Call sites that disagree with the one taken, per function. */
  readonly conflicts = new Map<string, string>();
  /** The reads each conflict came from (a kernel that shows the note records them: deps.ts). */
  private readonly conflictReads = new Map<string, Deps | undefined>();

  /** The note on a launcher's call sites that disagree, if any (its reads recorded for the kernel that shows it). */
  conflictFor(fn: string): string | undefined {
    const c = this.conflicts.get(fn);
    if (c) replay(this.conflictReads.get(fn));
    return c;
  }
  /**
   * Parameter values read from call sites, kept for the evaluator's life, several per parameter: each with the
   * choices it consulted (a call site among several, a benchmark row) and what was picked for them, and taken
   * wherever the same is picked — under the default reading and under every alternative (the choices an
   * alternative changes are read again, the rest is shared). One read while alternatives run is kept for
   * them only (a call-site conflict is said by the default reading).
   */
  private readonly memo = new Map<string, MemoEntry[]>();
  /** The choices the evaluation under way consulted, with what was picked for each. */
  private consulted: Map<string, number | undefined> | undefined;
  /** Collects the choice points the current evaluation depends on. */
  private collect: Points | undefined;
  /** While `alternatives` runs: the alternative to take per choice point. */
  private picks: Map<string, number> | undefined;
  private readonly active = new Set<string>();
  private callerDepth = 0;
  /** Assignments' values read (`assignedValue`), by frame, assignment, name and depths; several under different picks. */
  private readonly values = new Map<string, ValueEntry[]>();
  /** While a value for `values` is read: the names being read its reading went through, and whether a cycle cut it. */
  private probe: { keys: Set<string>; cut: boolean } | undefined;

  constructor(
    readonly m: ModuleInfo,
    readonly root: Node,
    /** The analysis under way's (a group of per-launch analyses shares the reader, each on its own budget). */
    public budget: Budget,
  ) {
    hostStats.readers++;
  }

  /** The frame of the function (or module) that contains a node. */
  frameOf(n: Node, callers: boolean): Frame {
    for (let p = n.parent; p; p = p.parent) {
      if (p.type === 'function_definition') {
        const name = field(p, 'name')?.text;
        const fn = name ? this.m.functions.get(name) : undefined;
        return { fn: fn && fn.node.id === p.id ? fn : undefined, scope: p, callers };
      }
    }
    return { fn: undefined, scope: this.root, callers };
  }

  /** A HostScope resolving names in `frame` as they are just before `at` (a 1-based line). */
  scopeAt(frame: Frame, at: number, extra?: (x: string, depth: number) => HostValue | undefined): HostScope {
    const scope: HostScope = {
      imports: this.m.imports,
      env: new Map(),
      name: (x, depth) => this.resolve(frame, x, at, depth, extra),
      call: (f, call, depth) => this.returnOf(f, call, scope, depth),
    };
    return scope;
  }

  /** The value a host function of the module returns for a call (its last `return`, with the call's arguments). */
  returnOf(f: string, call: Node, scope: HostScope, depth: number): HostValue | undefined {
    const fn = this.m.functions.get(f);
    if (!fn || fn.isJit || depth > 40 || this.callerDepth >= MAX_CALLER_DEPTH + 2) return undefined;
    const ret = returnExpr(fn.node);
    if (!ret) return undefined;
    const args = this.argsOf(fn, call, scope, depth);
    this.callerDepth++;
    try {
      return hostEval(ret, this.scopeAt({ fn, scope: fn.node, args, callers: false }, line(ret) + 1), depth + 1);
    } finally {
      this.callerDepth--;
    }
  }

  /** A call's argument values by parameter name, evaluated in the caller's scope (defaults for the rest). */
  argsOf(fn: FnInfo, call: Node, scope: HostScope, depth: number): Map<string, HostValue> {
    const { pos, kw } = callArgs(call);
    const splat = pos.findIndex((x) => x.type === 'list_splat' || x.type === 'dictionary_splat');
    const args = new Map<string, HostValue>();
    fn.params.forEach((p, i) => {
      const node = kw.get(p.name) ?? (i < pos.length && (splat < 0 || i < splat) ? pos[i] : undefined);
      const v = node ? hostEval(node, scope, depth + 1) : undefined;
      if (v) args.set(p.name, v);
    });
    return args;
  }

  /** The right-hand side of the last plain assignment to `x` before a line (a grid lambda's name). */
  assignedNode(frame: Frame, x: string, at: number): Node | undefined {
    const before = (this.assignsFor(frame.scope, x) ?? []).filter((a) => a.line < at);
    const last = before[before.length - 1];
    return last && last.index === undefined && last.rhs.type !== 'for_statement' && last.rhs.type !== 'augmented_assignment' ? last.rhs : undefined;
  }

  /** Evaluates a host expression in a frame at a line. */
  eval(n: Node | null | undefined, frame: Frame, at: number): HostValue | undefined {
    return hostEval(n, this.scopeAt(frame, at));
  }

  private resolve(frame: Frame, x: string, at: number, depth: number, extra?: (x: string, depth: number) => HostValue | undefined): HostValue | undefined {
    if (depth > 60 || this.budget.spent()) return undefined;
    const a = this.assignment(frame, x, at, depth);
    if (a.found) {
      if (a.v) return a.v;
    } else {
      const p = frame.fn?.params.find((q) => q.name === x);
      if (p) {
        const given = frame.args?.get(x);
        if (given) return given;
        if (frame.callers && !frame.args) {
          const v = this.paramValue(frame.fn!, x);
          if (v) return v;
        }
        if (p.default) return hostEval(p.default, this.scopeAt({ fn: undefined, scope: this.root, callers: false }, p.default.startPosition.row + 1), depth + 1);
      }
    }
    const e = extra?.(x, depth);
    if (e) return e;
    if (frame.scope.id !== this.root.id && !frame.fn?.params.some((q) => q.name === x)) {
      // A module-level name, as the module has it when functions run (after every top-level statement).
      const g = this.assignment({ fn: undefined, scope: this.root, callers: frame.callers }, x, Infinity, depth);
      if (g.v) return g.v;
    }
    return undefined;
  }

  /**
   * The assignments to `x` in a frame. A kernel's recorded reads (deps.ts):
   * the module's assignments to that name (`bind:x`: any statement that
   * assigns it, wherever it is, changes the answer), or the whole function.
   */
  private assignsFor(scope: Node, x: string): Assign[] | undefined {
    if (scope === this.root) {
      noteQuery(`bind:${x}`);
      return moduleAssigns(this.root).get(x);
    }
    if (isStatementWrapper(scope)) {
      // A function whose statements are read one by one: its assignments to `x`, as a query answered on the
      // function at that row (deps.ts), not the whole function. What is read inside them is that answer's.
      const list = asQuery(`assigns:${scope.startPosition.row}:${x}`, () => frameAssigns(scope).get(x));
      for (const a of list ?? []) cover(a.node);
      return list;
    }
    void scope.type; // the statement the function stands in is read (recorded even when its index is cached)
    return frameAssigns(scope).get(x);
  }

  /**
   * The value of `x` just before line `at` in the frame: the last assignment
   * before it; when that one sits in an arm of an `if` the use is not inside,
   * every arm's (and the fall-through's) value, taken only when they agree.
   */
  private assignment(frame: Frame, x: string, at: number, depth: number): { found: boolean; v?: HostValue } {
    const list = this.assignsFor(frame.scope, x);
    if (!list) return { found: false };
    const before = list.filter((a) => a.line < at);
    if (!before.length) return { found: false };
    const last = before[before.length - 1];
    const valueOf = (a: Assign): HostValue | undefined => {
      if (a.rhs.type === 'for_statement' || a.rhs.type === 'augmented_assignment') return undefined;
      const key = `${frame.scope.id}:${frame.args ? 'a' : ''}${a.line}:${a.index ?? ''}:${x}`;
      if (this.active.has(key)) return this.cycle();
      return this.assignedValue(frame, a, x, depth, key);
    };
    const cond = enclosingArm(last.node, frame.scope, at);
    if (!cond) return { found: true, v: valueOf(last) };
    // N1: the value depends on which arm ran. Decide the condition when it can be, else require agreement.
    const ifNode = cond.ifNode;
    const t = hostTruth(hostEval(field(ifNode, 'condition'), this.scopeAt(frame, line(ifNode)), depth + 1), new Map());
    const arms = armsOf(ifNode);
    if (t !== undefined && arms.length === 2 && arms[1].kind === 'else') {
      const arm = t ? arms[0] : arms[1];
      const inArm = before.filter((a) => within(a.node, arm.node));
      if (inArm.length) return { found: true, v: valueOf(inArm[inArm.length - 1]) };
    }
    const values: (HostValue | undefined)[] = [];
    let hasElse = false;
    for (const arm of arms) {
      if (arm.kind === 'else') hasElse = true;
      const inArm = before.filter((a) => within(a.node, arm.node));
      if (inArm.length) values.push(valueOf(inArm[inArm.length - 1]));
      else values.push(this.resolve(frame, x, line(ifNode), depth + 1));
    }
    if (!hasElse) values.push(this.resolve(frame, x, line(ifNode), depth + 1));
    const first = values[0];
    if (first && values.every((v) => v && sameValue(v, first))) return { found: true, v: first };
    // Tensors of one element type whose shapes differ (`x = x.view(rows, d)` on one path): the type is known, the shape is not.
    if (first?.tensor && first.dtype && values.every((v) => v?.tensor && v.dtype === first.dtype)) return { found: true, v: { tensor: true, dtype: first.dtype } };
    return { found: true, v: undefined };
  }

  /**
   * A launcher's parameter from the call sites of its function in this file,
   * the first that resolves it (later ones that differ are noted), or from a
   * `perf_report` benchmark's x_vals.
   */
  paramValue(fn: FnInfo, p: string): HostValue | undefined {
    const key = `${fn.name}.${p}`;
    const hit = this.memo.get(key)?.find((e) => this.holds(e));
    // With the steps reading it took (where they would cut the budget, it is read again: a kernel that reads
    // it first and one kept from before give the same numbers).
    if (hit && this.budget.retake(hit.used, hit.peak)) return this.taken(hit);
    if (this.active.has(key)) return this.cycle();
    if (this.callerDepth >= MAX_CALLER_DEPTH) return undefined;
    this.active.add(key);
    this.probe?.keys.add(key);
    this.callerDepth++;
    const saved = this.trail;
    const savedCollect = this.collect;
    const points: Points = new Map();
    this.collect = points;
    hostStats.reads++;
    const savedConsulted = this.consulted;
    const needs = new Map<string, number | undefined>();
    this.consulted = needs;
    // The reads that resolve it are kept with it: a kernel that reuses the value records them too (deps.ts).
    const steps = this.budget.measured(() => captured(() => {
    let result: { v: HostValue | undefined; trail: string[] } = { v: undefined, trail: [] };
    try {
      const bench = this.benchmarkValue(fn, p);
      if (bench) result = { v: bench.v, trail: [bench.detail] };
      else {
        const sites = (this.m.hostCalls.get(fn.name) ?? []).filter((c) => !within(c, fn.node)).slice(0, MAX_CALL_SITES);
        const idx = fn.params.findIndex((q) => q.name === p);
        const siteKey = `${fn.name}#site`;
        const pick = this.pick(siteKey);
        const found: { v: HostValue; line: number; trail: string[]; points: Points; index: number }[] = [];
        for (const [i, c] of sites.entries()) {
          if (pick !== undefined && i !== pick) continue;
          const sitePoints: Points = new Map();
          this.collect = sitePoints;
          const { pos, kw } = callArgs(c);
          const splat = pos.findIndex((x) => x.type === 'list_splat' || x.type === 'dictionary_splat');
          const node = kw.get(p) ?? (idx >= 0 && idx < pos.length && (splat < 0 || idx < splat) ? pos[idx] : undefined);
          this.trail = [];
          let v: HostValue | undefined;
          if (node) v = hostEval(node, this.scopeAt(this.frameOf(c, true), line(c)));
          else {
            const d = fn.params[idx]?.default;
            v = d ? hostEval(d, this.scopeAt({ fn: undefined, scope: this.root, callers: false }, line(d))) : undefined;
          }
          if (v && informative(v)) found.push({ v, line: line(c), trail: [`${shorten(c.text, 40)} at line ${line(c)}`, ...this.trail], points: sitePoints, index: i });
        }
        this.collect = points;
        if (found.length) {
          result = { v: found[0].v, trail: found[0].trail };
          // The value depends on the choices made under the site taken, and on the site itself.
          mergePoints(points, found[0].points);
          if (sites.length > 1 && !points.has(siteKey)) points.set(siteKey, { labels: sites.map((c) => `${shorten(c.text, 40)} at line ${line(c)}`), chosen: found[0].index });
          const differ = found.slice(1).filter((f) => !sameValue(f.v, found[0].v));
          if (differ.length && pick === undefined) this.conflictReads.set(fn.name, recording());
          if (differ.length && pick === undefined)
            this.conflicts.set(
              fn.name,
              `\`${fn.name}\` is called ${found.length} times with values the analysis can read; the first (line ${found[0].line}) is taken, line${differ.length > 1 ? 's' : ''} ${differ.map((f) => f.line).join(', ')} differ${differ.length > 1 ? '' : 's'}`,
            );
        }
      }
    } finally {
      this.trail = saved;
      this.collect = savedCollect;
      this.consulted = savedConsulted;
      this.active.delete(key);
      this.callerDepth--;
    }
    return result;
    }));
    const cap = steps.value;
    const result = cap.value;
    for (const [k, v] of needs) this.consulted?.set(k, v);
    // Not kept when the budget cut it short (read again, it could read further).
    if (steps.fits) {
      const kept = this.memo.get(key) ?? [];
      kept.push({ ...result, points, deps: cap.deps, needs, alt: this.picks !== undefined, used: steps.used, peak: steps.peak });
      // The default reading's value stays (as read then: a later reading could stand elsewhere in the call chain).
      if (kept.length > MAX_MEMO_VERSIONS) kept.splice(kept.findIndex((e) => e.alt), 1);
      this.memo.set(key, kept);
    }
    this.trail.push(...result.trail);
    mergePoints(this.collect, points);
    return result.v;
  }

  /**
   * A kept value taken (its steps already retaken): what reading it
   * consulted, recorded, left in the trail and met as choices is the
   * current reading's, as if read here.
   */
  private taken(e: MemoEntry): HostValue | undefined {
    for (const [k, v] of e.needs) this.consulted?.set(k, v);
    replay(e.deps);
    this.trail.push(...e.trail);
    mergePoints(this.collect, e.points);
    return e.v;
  }

  /** A name read again while it is being read (a cycle): unknown, and the value being kept depends on where it is read. */
  private cycle(): undefined {
    if (this.probe) this.probe.cut = true;
    return undefined;
  }

  /**
   * The value of assignment `a` to `x` in a frame, read at expression depth
   * `depth` (under the name `key` while it is read), kept with what it
   * depends on and taken again wherever reading it would give the same: the
   * same frame (its arguments, by identity), depth and caller depth (the
   * limits cut at the same places), the same choices consulted, none of the
   * names its reading went through being read at the time (a cycle would cut
   * it there), a reading no cycle cut and no budget limit ended; taken with
   * its reads (deps.ts), trail, choice points and steps. A launcher's sizes
   * are read for every kernel it launches and under every alternative: the
   * same chain of assignments, each link read again for each name that uses it.
   */
  private assignedValue(frame: Frame, a: Assign, x: string, depth: number, key: string): HostValue | undefined {
    const memoKey = `${frameKey(frame)}|${a.line}:${a.index ?? ''}:${x}|${depth}:${this.callerDepth}`;
    const recorded = recording() !== undefined;
    const hit = this.values.get(memoKey)?.find((e) => this.holds(e) && (e.deps !== undefined || !recorded) && !anyOf(e.keys, this.active));
    if (hit && this.budget.retake(hit.used, hit.peak)) {
      if (this.probe) for (const k of hit.keys) this.probe.keys.add(k);
      return this.taken(hit);
    }
    hostStats.values++;
    const outer = { trail: this.trail, collect: this.collect, consulted: this.consulted, probe: this.probe };
    const points: Points = new Map();
    const needs = new Map<string, number | undefined>();
    const probe = { keys: new Set([key]), cut: false };
    this.trail = [];
    this.collect = points;
    this.consulted = needs;
    this.probe = probe;
    this.active.add(key);
    let trail: string[];
    let steps: { value: { value: HostValue | undefined; deps: Deps | undefined }; used: number; peak: number; fits: boolean };
    try {
      steps = this.budget.measured(() =>
        captured(() => {
          const v = hostEval(a.rhs, this.scopeAt(frame, a.line), depth + 1);
          return a.index !== undefined ? v?.tuple?.[a.index] : v;
        }),
      );
    } finally {
      this.active.delete(key);
      trail = this.trail;
      this.trail = outer.trail;
      this.collect = outer.collect;
      this.consulted = outer.consulted;
      this.probe = outer.probe;
    }
    // What the reading added is the enclosing reading's, as if read in it.
    for (const [k, v] of needs) this.consulted?.set(k, v);
    mergePoints(this.collect, points);
    this.trail.push(...trail);
    if (this.probe) {
      for (const k of probe.keys) this.probe.keys.add(k);
      if (probe.cut) this.probe.cut = true;
    }
    const { value: v, deps } = steps.value;
    if (steps.fits && !probe.cut) {
      const kept = this.values.get(memoKey) ?? [];
      kept.push({ v, trail, points, deps, needs, alt: this.picks !== undefined, used: steps.used, peak: steps.peak, keys: probe.keys });
      if (kept.length > MAX_MEMO_VERSIONS) kept.splice(Math.max(0, kept.findIndex((e) => e.alt)), 1);
      this.values.set(memoKey, kept);
    }
    return v;
  }

  /** What is picked for a choice (undefined: its default), noted as consulted by the evaluation under way. */
  private pick(key: string): number | undefined {
    const v = this.picks?.get(key);
    this.consulted?.set(key, v);
    return v;
  }

  /** Whether a kept value holds under the current picks: each choice it consulted is picked as it was then. */
  private holds(e: MemoEntry): boolean {
    if (e.alt && !this.picks) return false;
    for (const [k, v] of e.needs) if (this.picks?.get(k) !== v) return false;
    return true;
  }

  /**
   * What an expression evaluates to under the other choices the host reading
   * made for it: another call site of a launcher, another row of a
   * benchmark's x_vals — breadth first, so the choices met only under an
   * alternative (the rows of a benchmark that calls the launcher from its
   * third call site) are tried too; at most `max` evaluations. Each value
   * comes with its trail. The default evaluation's value is not repeated.
   */
  alternatives<T>(run: () => T | undefined, max: number): { value: T; trail: string[] }[] {
    if (this.picks) return [];
    const conflicts = [...this.conflicts];
    const saved = { trail: this.trail, collect: this.collect };
    const out: { value: T; trail: string[] }[] = [];
    const queue: Map<string, number>[] = [new Map()];
    try {
      for (let runs = 0; runs < max && queue.length > 0 && !this.budget.spent(); runs++) {
        const picks = queue.shift()!;
        const points: Points = new Map();
        this.picks = picks;
        this.collect = points;
        this.trail = [];
        const v = run();
        if (picks.size > 0 && v !== undefined) out.push({ value: v, trail: [...new Set(this.trail)] });
        for (const [key, pt] of points) {
          if (picks.has(key)) continue;
          pt.labels.slice(0, MAX_ALTERNATIVES).forEach((_, i) => {
            if (i !== pt.chosen && queue.length < 4 * max) queue.push(new Map(picks).set(key, i));
          });
        }
      }
    } finally {
      this.conflicts.clear();
      for (const [k, v] of conflicts) this.conflicts.set(k, v);
      this.picks = undefined;
      this.trail = saved.trail;
      this.collect = saved.collect;
    }
    return out;
  }

  /** `@triton.testing.perf_report(configs)`: the parameter's value in the largest x_vals entry of the first Benchmark. */
  private benchmarkValue(fn: FnInfo, p: string): { v: HostValue; detail: string } | undefined {
    const dec = fn.node.parent?.type === 'decorated_definition' ? named(fn.node.parent).filter((c) => c.type === 'decorator') : [];
    for (const d of dec) {
      const call = named(d)[0];
      if (call?.type !== 'call') continue;
      const name = canonical(dotted(field(call, 'function')) ?? '', this.m.imports);
      if (!/(^|\.)perf_report$/.test(name)) continue;
      const bench = this.benchmarks(callArgs(call).pos[0]);
      if (!bench) return undefined;
      const { kw } = callArgs(bench);
      const module: Frame = { fn: undefined, scope: this.root, callers: false };
      const at = line(bench);
      const names = hostEval(kw.get('x_names'), this.scopeAt(module, at))?.tuple?.map((t) => t.str);
      const j = names ? names.indexOf(p) : -1;
      if (j >= 0) {
        const vals = this.xvals(kw.get('x_vals'), module, at);
        if (!vals?.length) return undefined;
        const size = (v: HostValue): number => {
          const xs = v.tuple ? v.tuple.map((t) => (t.expr ? evaluate(t.expr, new Map()) : undefined)) : [v.expr ? evaluate(v.expr, new Map()) : undefined];
          return xs.every((x) => x !== undefined) ? xs.reduce((a, b) => a! * b!, 1)! : -Infinity;
        };
        let best = 0;
        vals.forEach((v, i) => {
          if (size(v) > size(vals[best])) best = i;
        });
        const valueAt = (i: number): HostValue | undefined => (vals[i].tuple ? vals[i].tuple![j] : vals[i]);
        const shownAt = (i: number): string => {
          const e = valueAt(i)?.expr;
          const x = e ? evaluate(e, new Map()) : undefined;
          return x !== undefined ? ` = ${x}` : '';
        };
        // Every row is a choice (one key per benchmarked function: its parameters take the same row).
        const key = `${fn.name}#bench`;
        const pick = this.pick(key);
        if (vals.length > 1) this.collect?.set(key, { labels: vals.map((_, i) => `benchmark x_vals[${i}]${shownAt(i)} (line ${at})`), chosen: best });
        const row = pick !== undefined && pick < vals.length ? pick : best;
        const v = valueAt(row);
        if (!v?.expr) return undefined;
        const why = row === best ? `the largest of ${vals.length}` : `row ${row + 1} of ${vals.length}`;
        return { v, detail: `benchmark x_vals[${row}]${shownAt(row)} (${why}, line ${at})` };
      }
      const args = hostEval(kw.get('args'), this.scopeAt(module, at))?.dict?.get(p);
      if (args && informative(args)) return { v: args, detail: `benchmark args (line ${at})` };
      return undefined;
    }
    return undefined;
  }

  /** The first `triton.testing.Benchmark(…)` behind a perf_report argument: a call, a list, or a module name built with `.append`. */
  private benchmarks(n: Node | undefined): Node | undefined {
    if (!n) return undefined;
    const isBench = (c: Node) => c.type === 'call' && /(^|\.)Benchmark$/.test(canonical(dotted(field(c, 'function')) ?? '', this.m.imports));
    if (isBench(n)) return n;
    if (n.type === 'list') return named(n).find(isBench);
    if (n.type === 'identifier') {
      // `configs = [...]` or `configs.append(triton.testing.Benchmark(…))` at module level.
      for (const c of this.root.descendantsOfType('call')) if (c && isBench(c)) return c;
    }
    return undefined;
  }

  /** x_vals: a list (or tuple) literal, or a comprehension over `range` with constant bounds. */
  private xvals(n: Node | undefined, frame: Frame, at: number): HostValue[] | undefined {
    if (!n) return undefined;
    if (n.type === 'list' || n.type === 'tuple') return hostEval(n, this.scopeAt(frame, at))?.tuple;
    if (n.type !== 'list_comprehension') return undefined;
    const body = field(n, 'body');
    const clauses = named(n).filter((c) => c.type === 'for_in_clause');
    if (!body || clauses.length !== 1 || named(n).some((c) => c.type === 'if_clause')) return undefined;
    const v = field(clauses[0], 'left');
    const r = field(clauses[0], 'right');
    if (v?.type !== 'identifier' || r?.type !== 'call' || dotted(field(r, 'function')) !== 'range') return undefined;
    const bounds = callArgs(r).pos.map((x) => {
      const e = hostEval(x, this.scopeAt(frame, at))?.expr;
      return e ? evaluate(e, new Map()) : undefined;
    });
    if (bounds.some((b) => b === undefined) || !bounds.length) return undefined;
    const [lo, hi, step] = bounds.length === 1 ? [0, bounds[0]!, 1] : [bounds[0]!, bounds[1]!, bounds[2] ?? 1];
    if (!(step > 0) || (hi - lo) / step > MAX_XVALS) return undefined;
    const out: HostValue[] = [];
    for (let i = lo; i < hi; i += step) {
      const s = this.scopeAt(frame, at, (x) => (x === v.text ? { expr: num(i) } : undefined));
      // The comprehension variable shadows module names.
      const scope: HostScope = { ...s, name: (x, d) => (x === v.text ? { expr: num(i) } : s.name(x, d)) };
      out.push(hostEval(body, scope) ?? {});
    }
    return out;
  }
}

/** The module-level assignments by name, kept per module root; built without recording (each look-up records its name). */
const moduleIndex = new WeakMap<Node, Map<string, Assign[]>>();

/**
 * The last index built, with the per-statement indexes it merged: the next
 * module (the same file after an edit) takes it over, recomputing only the
 * names of the statements that differ (by object: a statement carried over
 * keeps its index while it stays on its row).
 */
let lastIndex: { parts: Map<string, Assign[]>[]; all: Map<string, Assign[]> } | undefined;

/** Past this many names touched by the statements an edit changed, the index is merged anew. */
const MAX_PATCHED_NAMES = 64;

export function moduleAssigns(root: Node): Map<string, Assign[]> {
  let out = moduleIndex.get(root);
  if (!out) {
    out = recordInto(undefined, () => {
      // Per top-level statement, kept with it while it stays on its row (a statement carried over after an
      // edit elsewhere is not walked again): an edit re-indexes only the statements it touched.
      const parts: Map<string, Assign[]>[] = [];
      for (const st of root.namedChildren) if (st) parts.push(statementAssigns(root, st));
      const all = patched(parts) ?? merged(parts);
      lastIndex = { parts, all };
      return all;
    });
    moduleIndex.set(root, out);
  }
  return out;
}

/** How many top-level statements `indexInSlices` indexed, per module root. */
const indexProgress = new WeakMap<Node, number>();

/**
 * The module-level assignments of the top-level statements indexed ahead,
 * and their statements as read units (`readUnitsAhead`), while the time slice
 * lasts (at least one statement a call): true once all are, else how many.
 * Their first use would otherwise index a large file's statements in one go,
 * inside the first kernel that reads a module name or answers its reads —
 * one block of the host's thread too long for a slice. The indexes
 * themselves are the same either way.
 */
export function indexInSlices(root: Node, budget: Budget): true | { done: number; of: number } {
  if (moduleIndex.has(root)) return true;
  const statements = recordInto(undefined, () => root.namedChildren);
  let done = indexProgress.get(root) ?? 0;
  const start = done;
  for (; done < statements.length; done++) {
    if (done > start && budget.over()) {
      indexProgress.set(root, done);
      return { done, of: statements.length };
    }
    const st = statements[done];
    if (st)
      recordInto(undefined, () => {
        statementAssigns(root, st);
        readUnitsAhead(st);
      });
  }
  indexProgress.set(root, done);
  return true;
}

function merged(parts: readonly Map<string, Assign[]>[]): Map<string, Assign[]> {
  const all = new Map<string, Assign[]>();
  for (const part of parts)
    for (const [name, list] of part) {
      const have = all.get(name);
      if (have) have.push(...list);
      else all.set(name, [...list]);
    }
  return all;
}

/** The last index with the names of the statements that differ from its own recomputed (undefined: merge anew). */
function patched(parts: readonly Map<string, Assign[]>[]): Map<string, Assign[]> | undefined {
  const last = lastIndex;
  if (!last) return undefined;
  const before = last.parts;
  let head = 0;
  while (head < parts.length && head < before.length && parts[head] === before[head]) head++;
  let tail = 0;
  while (tail < parts.length - head && tail < before.length - head && parts[parts.length - 1 - tail] === before[before.length - 1 - tail]) tail++;
  // Most of the statements must be the same ones: another file, or most of this one moved, is merged anew.
  if (head + tail < parts.length / 2) return undefined;
  const names = new Set<string>();
  for (let i = head; i < before.length - tail; i++) for (const name of before[i].keys()) names.add(name);
  for (let i = head; i < parts.length - tail; i++) for (const name of parts[i].keys()) names.add(name);
  if (names.size > MAX_PATCHED_NAMES) return undefined;
  if (names.size === 0) return last.all;
  const all = new Map(last.all);
  for (const name of names) {
    const list: Assign[] = [];
    for (const part of parts) {
      const l = part.get(name);
      if (l) list.push(...l);
    }
    if (list.length) all.set(name, list);
    else all.delete(name);
  }
  return all;
}

/** The module-level assignments of one top-level statement, with the row they were read at. */
const statementIndex = new WeakMap<Node, { row: number; index: Map<string, Assign[]> }>();

function statementAssigns(root: Node, st: Node): Map<string, Assign[]> {
  const row = st.startPosition.row;
  const hit = statementIndex.get(st);
  if (hit && hit.row === row) return hit.index;
  // The same statement moved by lines added or removed above it (carried over whole): its assignments moved with it.
  const index = hit ? movedAssigns(hit.index, row - hit.row) : assignIndex(root, st);
  statementIndex.set(st, { row, index });
  return index;
}

function movedAssigns(index: Map<string, Assign[]>, rows: number): Map<string, Assign[]> {
  const out = new Map<string, Assign[]>();
  for (const [name, list] of index) out.set(name, list.map((a) => ({ ...a, line: a.line + rows })));
  return out;
}

/**
 * Assignments `name = …` (and tuple unpacking) in a frame's own code, by name,
 * in line order; with `from`, only those of that part of the frame (one
 * top-level statement of a module).
 */
function assignIndex(scope: Node, from?: Node): Map<string, Assign[]> {
  const out = new Map<string, Assign[]>();
  const put = (name: string, a: Assign) => {
    const list = out.get(name);
    if (list) list.push(a);
    else out.set(name, [a]);
  };
  // A function or class of the module is a frame of its own, whole: not searched (most of a module's nodes are in them).
  if (from && NESTED_FRAMES.has(from.type)) return out;
  for (const n of ownDescendants(from ?? scope, scope, ASSIGN_TYPES)) {
    switch (n.type) {
      case 'assignment': {
        const l = field(n, 'left');
        const r = field(n, 'right');
        if (!l) break;
        if (!r) {
          if (l.type === 'identifier') put(l.text, { rhs: n, line: line(n), node: n }); // `x: int` with no value: unknown
        } else if (l.type === 'identifier') put(l.text, { rhs: r, line: line(n), node: n });
        else if (l.type === 'pattern_list' || l.type === 'tuple_pattern')
          named(l).forEach((c, i) => {
            if (c.type === 'identifier') put(c.text, { rhs: r, index: i, line: line(n), node: n });
          });
        break;
      }
      case 'augmented_assignment': {
        const l = field(n, 'left');
        if (l?.type === 'identifier') put(l.text, { rhs: n, line: line(n), node: n }); // x += …: unknown value
        break;
      }
      case 'for_statement': {
        const l = field(n, 'left');
        // A loop variable has many values: unknown.
        for (const id of l ? (l.type === 'identifier' ? [l] : l.descendantsOfType('identifier')) : []) if (id) put(id.text, { rhs: n, line: line(n), node: n });
        break;
      }
    }
  }
  return out;
}

/** `assignIndex` of a function, kept with its node and the row it was read at (read without recording). */
const frameIndex = new WeakMap<Node, { row: number; index: Map<string, Assign[]> }>();

export function frameAssigns(fn: Node): Map<string, Assign[]> {
  const row = fn.startPosition.row;
  const hit = frameIndex.get(fn);
  if (hit && hit.row === row) return hit.index;
  // The same function moved by lines added or removed above it (carried over whole): its assignments' lines moved too.
  const index = hit ? movedAssigns(hit.index, row - hit.row) : recordInto(undefined, () => assignIndex(fn));
  frameIndex.set(fn, { row, index });
  return index;
}

/** `lastReturn`, recorded as a `returns:` query when the function's statements are read one by one (deps.ts). */
function returnExpr(fn: Node): Node | undefined {
  if (!isStatementWrapper(fn)) return lastReturn(fn);
  const ret = asQuery(`returns:${fn.startPosition.row}`, () => lastReturn(fn));
  if (ret) cover(ret);
  return ret;
}

/** Frames nested in a frame: what stands in them is theirs. */
const FRAME_TYPES = new Set(['function_definition', 'class_definition', 'lambda']);

/**
 * The nodes of `types` under `under` that belong to the frame `scope` (one
 * tree-sitter search, kept with the node, in document order; not a walk of
 * every node): none inside a nested function, class or lambda. Places as
 * parsed: every node found stands in the same top-level statement, moved
 * alike by an edit before it.
 */
function ownDescendants(under: Node, scope: Node, types: readonly string[]): Node[] {
  const out: Node[] = [];
  let nestedEnd = -1;
  for (const n of under.descendantsOfType(types)) {
    if (n.rawStart < nestedEnd) continue;
    if (!FRAME_TYPES.has(n.type)) out.push(n);
    else if (n.id !== scope.id) nestedEnd = n.rawEnd();
  }
  return out;
}

/** Top-level statements that are frames of their own. */
const NESTED_FRAMES = new Set(['function_definition', 'class_definition', 'decorated_definition']);

/** What assignIndex searches a frame for: assignments, loops, and the frames nested in it. */
const ASSIGN_TYPES = ['assignment', 'augmented_assignment', 'for_statement', 'function_definition', 'class_definition', 'lambda'];

/** The expression of the last `return` of a function's own body. */
export function lastReturn(fnNode: Node): Node | undefined {
  const body = field(fnNode, 'body');
  if (!body) return undefined;
  let out: Node | undefined;
  for (const n of ownDescendants(body, fnNode, RETURN_TYPES)) out = named(n)[0] ?? out;
  return out;
}

const RETURN_TYPES = ['return_statement', 'function_definition', 'lambda', 'class_definition'];

export function within(n: Node, outer: Node): boolean {
  return n.startIndex >= outer.startIndex && n.endIndex <= outer.endIndex;
}

interface Arm {
  kind: 'if' | 'elif' | 'else';
  node: Node;
}

function armsOf(ifNode: Node): Arm[] {
  const out: Arm[] = [];
  const cons = field(ifNode, 'consequence');
  if (cons) out.push({ kind: 'if', node: cons });
  for (const c of named(ifNode)) {
    if (c.type === 'elif_clause') {
      const b = field(c, 'consequence');
      if (b) out.push({ kind: 'elif', node: b });
    } else if (c.type === 'else_clause') {
      const b = field(c, 'body') ?? named(c).find((x) => x.type === 'block');
      if (b) out.push({ kind: 'else', node: b });
    }
  }
  return out;
}

/** The innermost `if` (within the frame) one of whose arms holds `n` while the use at line `at` is outside that arm. */
function enclosingArm(n: Node, scope: Node, at: number): { ifNode: Node } | undefined {
  for (let p = n.parent; p && p.id !== scope.id; p = p.parent) {
    if (p.type !== 'if_statement') continue;
    const arm = armsOf(p).find((a) => within(n, a.node));
    if (!arm) continue;
    const end = arm.node.endPosition.row + 1;
    const start = arm.node.startPosition.row + 1;
    if (at > end || at < start) return { ifNode: p };
  }
  return undefined;
}

/** A value worth taking from a call site: a number, a flag, a string, a tensor with a dtype or a shape. */
function informative(v: HostValue): boolean {
  if (v.tensor) return !!(v.dtype || v.shape);
  if (v.expr) return evaluate(v.expr, new Map()) !== undefined;
  return v.bool !== undefined || v.str !== undefined || v.dtype !== undefined || !!v.tuple;
}

export function sameValue(a: HostValue, b: HostValue): boolean {
  if (!!a.tensor !== !!b.tensor) return false;
  if (a.dtype !== b.dtype || a.bool !== b.bool || a.str !== b.str) return false;
  const n = (e: Expr | undefined) => (e ? evaluate(e, new Map()) : undefined);
  if (n(a.expr) !== n(b.expr)) return false;
  const sa = a.shape?.map(n).join(',');
  const sb = b.shape?.map(n).join(',');
  if (sa !== sb) return false;
  if (a.tuple || b.tuple) {
    if (!a.tuple || !b.tuple || a.tuple.length !== b.tuple.length) return false;
    return a.tuple.every((x, i) => sameValue(x, b.tuple![i]));
  }
  return true;
}

/** A one-line description of a host value (for details and notes). */
export function describe(v: HostValue): string {
  if (v.tensor) {
    const shape = v.shape?.map((e) => evaluate(e, new Map()) ?? '?').join(', ');
    return `tensor${v.dtype ? ` ${v.dtype}` : ''}${shape ? ` (${shape})` : ''}`;
  }
  if (v.expr) return String(evaluate(v.expr, new Map()) ?? '?');
  if (v.bool !== undefined) return String(v.bool);
  if (v.str !== undefined) return JSON.stringify(v.str);
  return v.dtype ?? '?';
}

export { shorten, stringValue };

/** Host values as they cross into a per-launch analysis, and back. */
export function toLite(v: HostValue | undefined): HostLite | undefined {
  if (!v) return undefined;
  if (v.tensor) {
    const shape = v.shape?.map((e) => evaluate(e, new Map()));
    return { ...(v.dtype ? { dtype: v.dtype } : {}), ...(shape && shape.every((x) => x !== undefined) ? { shape: shape as number[] } : {}) };
  }
  if (v.bool !== undefined) return v.bool;
  if (v.str !== undefined) return v.str;
  if (v.expr) return evaluate(v.expr, new Map());
  if (v.dtype) return { dtype: v.dtype };
  return undefined;
}

export function fromLite(frame: Record<string, HostLite>): Map<string, HostValue> {
  const out = new Map<string, HostValue>();
  for (const [k, v] of Object.entries(frame)) {
    if (typeof v === 'number') out.set(k, { expr: num(v) });
    else if (typeof v === 'boolean') out.set(k, { expr: num(v ? 1 : 0), bool: v });
    else if (typeof v === 'string') out.set(k, { str: v });
    else if (v && typeof v === 'object') {
      const dtype = v.dtype ? parseDtype(v.dtype) : undefined;
      out.set(k, { tensor: true, ...(dtype ? { dtype } : {}), ...(v.shape ? { shape: v.shape.map((x) => num(x)) } : {}) });
    }
  }
  return out;
}
