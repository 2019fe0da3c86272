/**
 * Conditions over integer expressions, as every frontend hands them to the
 * engine: comparisons, and/or/not, or something opaque. Kept symbolic so a
 * condition on the thread index can be counted by thread, and evaluated with
 * bindings (and, while threads are enumerated, their indices) when it can.
 */
import { evaluate, type Expr } from '../sym/expr';

export type CmpOp = '<' | '<=' | '>' | '>=' | '==' | '!=';

export type Cond =
  | { k: 'cmp'; op: CmpOp; a: Expr; b: Expr }
  | { k: 'and' | 'or'; l: Cond; r: Cond }
  | { k: 'not'; c: Cond }
  | { k: 'opaque'; text: string };

export function not(c: Cond): Cond {
  if (c.k === 'not') return c.c;
  return { k: 'not', c };
}

export function compareNumbers(op: CmpOp, a: number, b: number): boolean {
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
    default:
      return a !== b;
  }
}

export function evalCond(c: Cond, env: ReadonlyMap<string, number>): boolean | undefined {
  switch (c.k) {
    case 'cmp': {
      const a = evaluate(c.a, env);
      const b = evaluate(c.b, env);
      if (a === undefined || b === undefined) return undefined;
      return compareNumbers(c.op, a, b);
    }
    case 'and': {
      const l = evalCond(c.l, env);
      const r = evalCond(c.r, env);
      if (l === false || r === false) return false;
      return l === undefined || r === undefined ? undefined : true;
    }
    case 'or': {
      const l = evalCond(c.l, env);
      const r = evalCond(c.r, env);
      if (l === true || r === true) return true;
      return l === undefined || r === undefined ? undefined : false;
    }
    case 'not': {
      const x = evalCond(c.c, env);
      return x === undefined ? undefined : !x;
    }
    default:
      return undefined;
  }
}

/** All expressions of a condition, or undefined when part of it is opaque. */
export function condExprs(c: Cond, out: Expr[] = []): Expr[] | undefined {
  switch (c.k) {
    case 'cmp':
      out.push(c.a, c.b);
      return out;
    case 'and':
    case 'or':
      return condExprs(c.l, out) && condExprs(c.r, out);
    case 'not':
      return condExprs(c.c, out);
    default:
      return undefined;
  }
}

export function negateOp(op: CmpOp): CmpOp {
  const m: Record<CmpOp, CmpOp> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<', '==': '!=', '!=': '==' };
  return m[op];
}

export function flipOp(op: CmpOp): CmpOp {
  const m: Record<CmpOp, CmpOp> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };
  return m[op];
}
