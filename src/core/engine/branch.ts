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
 * | `bounds`   | a mask or bounds check (unit or loop index)          | `then` (interior tile), or `else` for an out-of-range test; an exit not taken |
 * | `data`     | on loaded data or a run-time scalar                  | `then` alone as taken; with `else`, the costlier arm; an exit not taken |
 *
 * An arm that only leaves (`return`, `continue`) is an exit: on the interior
 * path it is not taken, except where the condition is decided (`const`) or
 * selects threads (`thread`: the others go on).
 */
import type { Recorder, Notes } from './recorder';

export type CondClass =
  | { k: 'const'; value: boolean }
  | { k: 'compile'; names: string[] }
  | { k: 'thread' }
  /** `interior: false`: a test that is false on the interior path (`i >= n`: out of range), so its `else` runs. */
  | { k: 'bounds'; interior?: boolean }
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
      if (cls.interior === false) {
        // An out-of-range test (`if (x >= n) valid = false; else …`): false on the interior path.
        if (s.else && hooks.narrow) hooks.narrow(false, s.else);
        else s.else?.();
        return;
      }
      if (hooks.narrow) hooks.narrow(true, s.then);
      else s.then?.();
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

function arms(e: Engine, s: IfStatement, why: 'data' | 'compile', what: string): void {
  e.rec.choice(s.line, what, why, [
    { label: s.ternary ? 'the `?` value' : 'then', run: s.then ?? (() => {}) },
    { label: s.ternary ? 'the `:` value' : 'else', run: s.else ?? (() => {}) },
  ]);
}
