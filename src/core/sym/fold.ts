/**
 * Constant folding, one rule for every language: arithmetic, bitwise,
 * shifts, logic and comparisons on compile-time numbers (COUNTING.md: "Arithmetic
 * on compile-time constants folds (costs 0)"; conditions such as `STAGE & 2`,
 * `#if MODE & 2`, `(MODE & 2u) != 0u` are decided with it).
 *
 * Integer semantics: `/` truncates toward zero (C, WGSL) unless `floor` is
 * asked for (Python `//`); bitwise operators work on 64-bit two's complement
 * values, so Python's and C's results agree for every value a kernel uses.
 */
export type Division = 'trunc' | 'floor' | 'real';

function big(x: number): bigint | undefined {
  return Number.isSafeInteger(x) ? BigInt(x) : undefined;
}

function bitwise(op: '&' | '|' | '^', a: number, b: number): number | undefined {
  const x = big(a);
  const y = big(b);
  if (x === undefined || y === undefined) return undefined;
  const r = op === '&' ? x & y : op === '|' ? x | y : x ^ y;
  return Number(BigInt.asIntN(64, r));
}

export function foldNumbers(op: string, a: number, b: number, division: Division = 'trunc'): number | undefined {
  let r: number | undefined;
  switch (op) {
    case '+':
      r = a + b;
      break;
    case '-':
      r = a - b;
      break;
    case '*':
      r = a * b;
      break;
    case '/':
      if (b === 0) return undefined;
      r = division === 'real' ? a / b : division === 'floor' ? Math.floor(a / b) : Math.trunc(a / b);
      break;
    case '//':
      r = b === 0 ? undefined : Math.floor(a / b);
      break;
    case '%':
      if (b === 0) return undefined;
      r = division === 'floor' ? ((a % b) + b) % b : a % b;
      break;
    case '**':
      r = Math.pow(a, b);
      break;
    case '<<':
      r = b >= 0 && b < 64 ? a * 2 ** b : undefined;
      break;
    case '>>':
      r = b >= 0 && b < 64 ? Math.floor(a / 2 ** b) : undefined;
      break;
    case '&':
    case '|':
    case '^':
      r = bitwise(op, a, b);
      break;
    case '&&':
    case 'and':
      r = a && b ? 1 : 0;
      break;
    case '||':
    case 'or':
      r = a || b ? 1 : 0;
      break;
    case '<':
      r = a < b ? 1 : 0;
      break;
    case '<=':
      r = a <= b ? 1 : 0;
      break;
    case '>':
      r = a > b ? 1 : 0;
      break;
    case '>=':
      r = a >= b ? 1 : 0;
      break;
    case '==':
      r = a === b ? 1 : 0;
      break;
    case '!=':
      r = a !== b ? 1 : 0;
      break;
    default:
      return undefined;
  }
  return r !== undefined && Number.isFinite(r) ? r : undefined;
}

/** `~a` on a 64-bit integer. */
export function foldNot(a: number): number | undefined {
  const x = big(a);
  return x === undefined ? undefined : Number(BigInt.asIntN(64, ~x));
}
