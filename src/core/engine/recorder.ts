/**
 * Where a frontend puts what it finds: the events of one unit in a region tree
 * (`Recorder`), and what the analysis says about them (`Notes`). Both are the
 * same for every language, so the shape of the IR and the wording of every
 * note come from one place.
 *
 * Counts given to the recorder are already per unit: a frontend multiplies a
 * per-thread (per-invocation) amount by the active threads (engine/threads.ts)
 * before recording it.
 */
import type { Dtype } from '../gpus/types';
import type { ChoiceWhy, Diagnostic, Event, FlopClass, MemorySpace, Region } from '../ir';
import { assumption, say, type Assumption, type AssumptionId, type ASSUMPTIONS, type MessageId, type MESSAGES } from '../messages';
import { add, exprKey, ONE, num, scale, type Expr } from '../sym/expr';

export class Notes {
  readonly assumptions: Assumption[] = [];
  readonly diagnostics: Diagnostic[] = [];
  /** Symbols a decision needed a value for (conditions, unrolls) that is not bound. */
  readonly needed = new Set<string>();
  /** While positive nothing is said (host code, a second look at an expression). */
  muted = 0;
  private readonly seen = new Set<string>();

  assume<K extends AssumptionId>(id: K, ...args: Parameters<(typeof ASSUMPTIONS)[K]>): void {
    if (this.muted > 0) return;
    const a = assumption(id, ...args);
    if (this.assumptions.some((x) => x.text === a.text)) return;
    this.assumptions.push(a);
  }

  say<K extends MessageId>(id: K, line: number, ...args: Parameters<(typeof MESSAGES)[K]['text']>): void {
    if (this.muted > 0) return;
    this.push(say(id, line, ...args));
  }

  /** A diagnostic made elsewhere (parse errors), deduplicated like the others. */
  push(dg: Diagnostic): void {
    const key = `${dg.code}|${dg.line}|${dg.message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.diagnostics.push(dg);
  }

  need(name: string): void {
    if (this.muted === 0) this.needed.add(name);
  }

  /** A point to roll back to (a loop walked again, unrolled). */
  mark(): [number, number] {
    return [this.assumptions.length, this.diagnostics.length];
  }

  reset([a, dg]: [number, number]): void {
    this.assumptions.length = a;
    for (const x of this.diagnostics.splice(dg)) this.seen.delete(`${x.code}|${x.line}|${x.message}`);
  }
}

export interface FlopOptions {
  tensorCore?: boolean;
  special?: boolean;
}

export interface Arm {
  label: string;
  run: () => void;
}

export class Recorder {
  readonly root: Region;
  private cur: Region;
  /** While positive, no event is recorded (evaluating for a value only). */
  quiet = 0;

  constructor(root: Region) {
    this.root = root;
    this.cur = root;
  }

  get region(): Region {
    return this.cur;
  }

  // ---------------------------------------------------------------- events

  event(e: Event): void {
    if (this.quiet === 0) this.cur.events.push(e);
  }

  flop(cls: FlopClass, op: string, count: Expr, dtype: Dtype, line: number, opts: FlopOptions = {}): void {
    this.event({ kind: 'flop', class: cls, op, count, dtype, tensorCore: opts.tensorCore ?? false, special: opts.special ?? false, line });
  }

  int(op: string, count: Expr, line: number): void {
    this.event({ kind: 'int', op, count, line });
  }

  mem(kind: 'load' | 'store', space: MemorySpace, target: string, elems: Expr, elemBytes: number, dtype: Dtype, line: number, what: string): void {
    this.event({ kind, space, target, elems, elemBytes, dtype, line, what });
  }

  /** Evaluates for a value only: nothing `run` does is recorded. */
  quietly<T>(run: () => T): T {
    this.quiet++;
    try {
      return run();
    } finally {
      this.quiet--;
    }
  }

  // ---------------------------------------------------------------- regions

  /** Runs `body` inside `r`, a new child of the current region. */
  within<T>(r: Region, body: () => T): T {
    const outer = this.cur;
    if (this.quiet === 0) outer.children.push(r);
    this.cur = r;
    try {
      return body();
    } finally {
      this.cur = outer;
    }
  }

  /** Runs `body` recording into `r`, which is not attached anywhere (to measure a piece of code). */
  detached<T>(r: Region, body: () => T): T {
    const outer = this.cur;
    const quiet = this.quiet;
    this.cur = r;
    this.quiet = 0;
    try {
      return body();
    } finally {
      this.cur = outer;
      this.quiet = quiet;
    }
  }

  loop<T>(line: number, label: string, trips: Expr, body: () => T): T {
    return this.within({ kind: 'loop', line, trips, label, events: [], children: [] }, body);
  }

  /** A branch that runs on a fraction of the enclosing loop's trips (a periodic condition). */
  fraction<T>(line: number, label: string, share: Expr, body: () => T): T {
    return this.within({ kind: 'branch', line, trips: share, label, events: [], children: [] }, body);
  }

  /** A branch counted as taken (a data-dependent `if` with no `else`). */
  taken<T>(line: number, label: string, body: () => T): T {
    return this.within({ kind: 'branch', line, trips: ONE, label, events: [], children: [] }, body);
  }

  /**
   * Arms of which only the costlier counts (COUNTING.md: a data-dependent
   * `if`/`else` or `?:`, an unbound compile-time choice). Each arm is walked
   * into its own region; the model picks with the bindings (engine/choice.ts).
   */
  choice(line: number, label: string, why: ChoiceWhy, arms: Arm[]): void {
    const present = arms.filter((a) => a);
    if (present.length === 0) return;
    const r: Region = { kind: 'choice', line, trips: ONE, label, events: [], children: [], why };
    this.within(r, () => {
      for (const a of present) this.within({ kind: 'branch', line, trips: ONE, label: a.label, events: [], children: [] }, a.run);
    });
  }

  /**
   * A loop whose body is walked once per iteration (its conditions depend on
   * the loop variable's value): the iterations are summed into one region of
   * `n` trips that holds their mean, so the region reads like any loop.
   */
  unrolled(line: number, label: string, n: number, each: (i: number, stop: () => boolean) => void): Region {
    const merged: Region = { kind: 'loop', line, trips: num(n), label, events: [], children: [] };
    this.within(merged, () => {
      let stopped = false;
      for (let i = 0; i < n && !stopped; i++) {
        const part: Region = { kind: 'kernel', line, trips: ONE, label, events: [], children: [] };
        const outer = this.cur;
        this.cur = part;
        try {
          each(i, () => (stopped = true));
        } finally {
          this.cur = outer;
        }
        accumulate(merged, part);
      }
    });
    scaleRegion(merged, 1 / Math.max(1, n));
    return merged;
  }
}

// ---------------------------------------------------------------- region arithmetic

function eventKey(e: Event): string {
  const { count: _c, elems: _e, ...rest } = e as Event & { count?: unknown; elems?: unknown };
  return JSON.stringify(rest);
}

/** Adds `from`'s events and children into `into`, merging equal events (same op, line, target…). */
export function accumulate(into: Region, from: Region): void {
  const index = new Map<string, number>();
  into.events.forEach((e, i) => index.set(eventKey(e), i));
  for (const e of from.events) {
    const k = eventKey(e);
    const i = index.get(k);
    if (i === undefined) {
      index.set(k, into.events.length);
      into.events.push({ ...e });
    } else into.events[i] = addEvents(into.events[i], e);
  }
  for (const c of from.children) {
    const match = into.children.find((x) => x.kind === c.kind && x.line === c.line && x.label === c.label && exprKey(x.trips) === exprKey(c.trips));
    if (match) accumulate(match, c);
    else {
      const copy: Region = { ...c, events: [], children: [] };
      accumulate(copy, c);
      into.children.push(copy);
    }
  }
}

function addEvents(a: Event, b: Event): Event {
  if (a.kind === 'flop' && b.kind === 'flop') return { ...a, count: add(a.count, b.count) };
  if (a.kind === 'int' && b.kind === 'int') return { ...a, count: add(a.count, b.count) };
  if ((a.kind === 'load' || a.kind === 'store') && (b.kind === 'load' || b.kind === 'store')) return { ...a, elems: add(a.elems, b.elems) };
  return a;
}

/** Multiplies every count in a region tree by `k`. */
export function scaleRegion(r: Region, k: number): void {
  r.events = r.events.map((e): Event => (e.kind === 'flop' || e.kind === 'int' ? { ...e, count: scale(e.count, k) } : { ...e, elems: scale(e.elems, k) }));
  for (const c of r.children) scaleRegion(c, k);
}
