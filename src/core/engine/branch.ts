/**
 * The branch policy (COUNTING.md, "Which code counts"), once for every
 * language. A frontend classifies a condition — it knows the syntax and what
 * each value depends on — and hands the arms to `decide`, which applies the
 * rule:
 *
 * | class      | meaning                                              | counted                                   |
 * | ---------- | ---------------------------------------------------- | ----------------------------------------- |
 * | `const`    | decided at compile time (constexpr, `#if`, bitwise…) | the arm it picks                          |
 * | `compile`  | compile-time, but a value is not bound               | the costlier arm (a choice), and says so  |
 * | `thread`   | on the thread / lane / local index only              | each arm on the threads that take it      |
 * | `bounds`   | a mask or bounds check (unit or loop index)          | the in-bounds arm (interior tile); an exit not taken |
 * | `data`     | on loaded data or a run-time scalar                  | `then` alone as taken; with `else`, the costlier arm; an exit not taken |
 *
 * An arm that only leaves (`return`, `continue`) is an exit: on the interior
 * path it is not taken, except where the condition is decided (`const`) or
 * selects threads (`thread`: the others go on).
 *
 * Which arm of a bounds check is the interior one follows from the
 * comparison, which the frontend hands over as a `BoundsShape` (see
 * `interiorArm`): `i < n` → `then`, `i >= n` → `else`, `i > 0` or `i >= R`
 * (a lower bound or halo: the other side is a number ≤ 16) → `then`,
 * `pid == 0` (one edge tile) → `else`, and/or/not combine; a comparison of
 * two indices (`col > row`, a causal or triangular mask) runs both arms in
 * every tile, so the costlier arm counts.
 */
import type { CmpOp } from './cond';
import { div, ONE, printExpr, sub, type Expr } from '../sym/expr';
import type { ChoiceWhy } from '../ir';
import type { Arm, Recorder, Notes } from './recorder';

/**
 * A bounds check as the engine needs it: each comparison with what each of
 * its sides is (an index, a number, a size).
 */
export type BoundsShape =
  | { k: 'cmp'; op: CmpOp; a: Side; b: Side }
  | { k: 'and' | 'or'; l: BoundsShape; r: BoundsShape }
  | { k: 'not'; c: BoundsShape }
  | { k: 'opaque' };

/**
 * A side of a comparison: it depends on an index (unit, thread or loop
 * index), it is a known number, or it is a size (a symbol: `n`, `M`).
 */
export type Side = 'index' | 'size' | number;

export type Interior = 'then' | 'else' | 'either';

/** A constant this small on the far side of an index comparison is a lower bound or halo (`x > 0`, `i >= R`), not a size. */
export const HALO_LIMIT = 16;

/** The arm an interior tile (or thread, or iteration) takes. */
/**
 * Whether the first unit along an axis decides the condition otherwise than
 * an interior one: an index compared with a number (`i == 0`, `i < 2`), not
 * with a size.
 */
export function firstUnitDiffers(s: BoundsShape): boolean {
  switch (s.k) {
    case 'opaque':
      return false;
    case 'not':
      return firstUnitDiffers(s.c);
    case 'and':
    case 'or':
      return firstUnitDiffers(s.l) || firstUnitDiffers(s.r);
    case 'cmp': {
      if ((s.a === 'index') === (s.b === 'index')) return false;
      const op = s.a === 'index' ? s.op : flip(s.op);
      const other = s.a === 'index' ? s.b : s.a;
      return typeof other === 'number' && (op === '==' || ((op === '<' || op === '<=') && other <= HALO_LIMIT));
    }
  }
}

export function interiorArm(s: BoundsShape): Interior {
  switch (s.k) {
    case 'opaque':
      return 'then';
    case 'not': {
      const x = interiorArm(s.c);
      return x === 'then' ? 'else' : x === 'else' ? 'then' : x;
    }
    case 'and':
    case 'or': {
      const l = interiorArm(s.l);
      const r = interiorArm(s.r);
      // Each comparison has its truth value on the interior path; `&&` and
      // `||` combine them (`i < n && j >= m` fails inside, `i < n || j >= m`
      // holds); an undecided side (`either`) leaves the result undecided
      // unless the other side settles it.
      const settles = s.k === 'and' ? 'else' : 'then';
      if (l === settles || r === settles) return settles;
      return l === r ? l : 'either';
    }
    case 'cmp': {
      if (s.a === 'index' && s.b === 'index') return 'either';
      if (s.a !== 'index' && s.b !== 'index') return 'then';
      // The index on the left: `i OP other`.
      const op = s.a === 'index' ? s.op : flip(s.op);
      const other = s.a === 'index' ? s.b : s.a;
      const halo = typeof other === 'number' && other <= HALO_LIMIT;
      switch (op) {
        case '<':
        case '<=':
          // Below a size holds inside; below a halo (`i < R`) is the edge.
          return halo ? 'else' : 'then';
        case '>':
        case '>=':
          // Above a lower bound (`i > 0`, `i >= R`) holds inside; above a size is outside.
          return halo ? 'then' : 'else';
        case '==':
          return 'else';
        case '!=':
          return 'then';
      }
    }
  }
}

function flip(op: CmpOp): CmpOp {
  const m: Record<CmpOp, CmpOp> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };
  return m[op];
}

export type CondClass =
  | { k: 'const'; value: boolean }
  /**
   * On a counter the loop steps by 1 and wraps at `period` (`ki = ki == P - 1 ? 0 : ki + 1`):
   * `ki == c` holds on 1 trip in `period` (`on: 'then'`), `ki != c` on the others (`on: 'else'`).
   */
  | { k: 'periodic'; period: Expr; on: 'then' | 'else'; counter: string }
  | { k: 'compile'; names: string[] }
  | { k: 'thread' }
  /**
   * `unknownAxes`: the grid sizes (`num_workgroups.x`, `gridDim.x`, `tl.num_programs(0)`) of the unit
   * axes whose index the condition compares, when they are not known — the launch may have one unit
   * along them, and then the first unit is every unit.
   */
  | { k: 'bounds'; shape?: BoundsShape; unknownAxes?: string[] }
  | { k: 'data' };

export interface IfStatement {
  line: number;
  /** The condition as written, shortened, for notes. */
  text: string;
  then?: () => void;
  else?: () => void;
  /** The `then` arm only leaves: an early-exit guard. */
  exits?: boolean;
  /** `?:` / `select` rather than a statement (labels read `c ? a : b`). */
  ternary?: boolean;
}

export interface BranchHooks {
  /**
   * Runs `arm` on the threads that take it (`holds`: the condition is true for
   * them, else false). With `rest`, restricts the threads for the rest of the
   * enclosing block instead (the others left through an exit).
   */
  threads?: (holds: boolean, arm: (() => void) | undefined, rest: boolean) => void;
  /** Narrows the variables a bounds check tests (for footprints) while `arm` runs, or for the rest of the block. */
  narrow?: (holds: boolean, arm: (() => void) | undefined) => void;
}

export interface Engine {
  rec: Recorder;
  notes: Notes;
}

export function decide(e: Engine, cls: CondClass, s: IfStatement, hooks: BranchHooks = {}): void {
  const what = s.ternary ? `${s.text} ? … : …` : `if ${s.text}`;
  switch (cls.k) {
    case 'const':
      (cls.value ? s.then : s.else)?.();
      return;
    case 'periodic': {
      // The arm the counter's one value selects runs on 1 trip in `period`, the other on the rest.
      e.notes.assume('periodicBranch', what, s.line, cls.counter, printExpr(cls.period));
      const once = div(ONE, cls.period);
      const [rare, common] = cls.on === 'then' ? [s.then, s.else] : [s.else, s.then];
      if (rare) e.rec.fraction(s.line, `${what} (1 trip in ${printExpr(cls.period)})`, once, rare);
      if (common) e.rec.fraction(s.line, `${what} (the other trips)`, sub(ONE, once), common);
      return;
    }
    case 'compile': {
      for (const n of cls.names) e.notes.need(n);
      e.notes.say('unknownCondition', s.line, s.text);
      if (s.exits) {
        // The costlier choice is to go on.
        e.notes.assume('costlierChoice', what, s.line, cls.names.map((n) => '`' + n + '`').join(', ') || 'a compile-time value');
        s.else?.();
        return;
      }
      e.notes.assume('costlierChoice', what, s.line, cls.names.map((n) => '`' + n + '`').join(', ') || 'a compile-time value');
      arms(e, s, 'compile', what);
      return;
    }
    case 'thread':
      if (!hooks.threads) {
        // A frontend without thread state counts a thread condition like data.
        return decide(e, { k: 'data' }, s, hooks);
      }
      if (s.exits) {
        hooks.threads(false, undefined, true);
        s.else?.();
        return;
      }
      if (s.then) hooks.threads(true, s.then, false);
      if (s.else) hooks.threads(false, s.else, false);
      return;
    case 'bounds':
      e.notes.assume('interiorTile');
      if (s.exits) {
        e.notes.assume('earlyExit', what, s.line);
        if (hooks.narrow) hooks.narrow(false, undefined);
        s.else?.();
        return;
      }
      {
        const inside = cls.shape ? interiorArm(cls.shape) : 'then';
        if (inside === 'either') {
          e.notes.assume('costlierArm', what, s.line);
          if (!s.else) {
            if (s.then) e.rec.taken(s.line, what, s.then);
            return;
          }
          arms(e, s, 'index', what);
          return;
        }
        const holds = inside === 'then';
        if (!holds) e.notes.assume('interiorElse', what, s.line);
        // `if (gid == 0)` skipped inside the tile, while the launch may have one unit along that axis
        // (then every unit is the first and runs it): the work not counted is said, with the fix.
        if (!holds && s.then && cls.unknownAxes?.length && cls.shape && firstUnitDiffers(cls.shape)) e.notes.say('firstUnitOnly', s.line, s.text, cls.unknownAxes);
        const arm = holds ? s.then : s.else;
        if (hooks.narrow) hooks.narrow(holds, arm);
        else arm?.();
      }
      return;
    case 'data':
      if (s.exits) {
        e.notes.assume('earlyExit', what, s.line);
        s.else?.();
        return;
      }
      if (!s.else) {
        e.notes.assume('branchTaken', what, s.line);
        if (s.then) e.rec.taken(s.line, what, s.then);
        return;
      }
      e.notes.say('dataBranch', s.line, s.text);
      e.notes.assume('costlierArm', what, s.line);
      arms(e, s, 'data', what);
      return;
  }
}

function arms(e: Engine, s: IfStatement, why: ChoiceWhy, what: string): void {
  e.rec.choice(s.line, what, why, [
    { label: s.ternary ? 'the `?` value' : 'then', run: s.then ?? (() => {}) },
    { label: s.ternary ? 'the `:` value' : 'else', run: s.else ?? (() => {}) },
  ]);
}

/**
 * A `switch` on a run-time value (data, a uniform, a scalar argument): one
 * case runs, so the costlier case counts (upper bound), like the costlier arm
 * of an `if`/`else`. Each arm is what runs from its label (a C case falls
 * through to the next until a `break`: the frontend hands that over as one
 * arm). A switch with no cases counts nothing. `onData: false`: the
 * selector is not data (a thread index): each thread runs one case, so the
 * costlier case is still an upper bound, but not a data-dependent branch.
 */
export function decideSwitch(e: Engine, line: number, text: string, cases: Arm[], onData = true): void {
  const what = `switch ${text}`;
  if (cases.length === 0) return;
  if (onData) e.notes.say('dataBranch', line, text);
  e.notes.assume('costlierArm', what, line);
  e.rec.choice(line, what, 'data', cases);
}
