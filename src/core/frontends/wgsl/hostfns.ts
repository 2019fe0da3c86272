/**
 * Shaders a JS/TS host builds in functions: the functions of the host (named
 * functions, methods, arrow functions) with their parameters, the template
 * literals holding a `@compute` shader that a function returns
 * (`return \`…\``, `(n) => \`…\``) or that a class field, variable or property
 * holds (`GELUShader = \`…\``) — they reach `createShaderModule` through a
 * parameter the analysis cannot follow — and the translation of an
 * interpolation over the builder's parameters (`${wg_size}`,
 * `${workgroupSize * 2}`) into a WGSL expression over an `override` of that
 * name, which the user can bind with `--set`.
 *
 * Works on the host's tokens without comments (jsLexer); never throws.
 */
import type { JsToken } from './jsLexer';

/** A function of the host and the host offsets its body spans. */
export interface FnScope {
  /** The function's name, the method's, or the variable / field an anonymous function is assigned to. */
  name: string | undefined;
  /** Parameters, with the tokens of their default values. */
  params: Map<string, JsToken[] | undefined>;
  start: number;
  end: number;
}

/** A template literal holding a compute shader, found by how the host holds it. */
export interface HeldShader {
  lit: JsToken;
  /** `function`: returned by a function; `name`: the value of a field, variable or property. */
  how: 'function' | 'name';
  name: string | undefined;
}

const CONTROL = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'function', 'return', 'typeof', 'await', 'new']);
const COMPUTE = /@compute\b/;

/** The index of the bracket matching each bracket (both ways); -1 when unmatched. */
function matchBrackets(t: JsToken[]): Int32Array {
  const match = new Int32Array(t.length).fill(-1);
  const stack: number[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (let i = 0; i < t.length; i++) {
    const x = t[i].text;
    if (t[i].kind !== 'punct') continue;
    if (x === '(' || x === '[' || x === '{') stack.push(i);
    else if (x in pairs) {
      // Unbalanced input: drop openers until the matching kind (or give up on this closer).
      let k = stack.length - 1;
      while (k >= 0 && t[stack[k]].text !== pairs[x]) k--;
      if (k < 0) continue;
      const open = stack[k];
      stack.length = k;
      match[open] = i;
      match[i] = open;
    }
  }
  return match;
}

/** Parameters between the parentheses at `open` and `close`: names and default-value tokens. */
function paramsOf(t: JsToken[], open: number, close: number): Map<string, JsToken[] | undefined> {
  const out = new Map<string, JsToken[] | undefined>();
  let depth = 0;
  let cur: JsToken[] = [];
  const flush = () => {
    const toks = cur[0]?.text === '...' ? cur.slice(1) : cur;
    if (toks[0]?.kind === 'ident') {
      let eq = -1;
      let d = 0;
      for (let k = 1; k < toks.length; k++) {
        const x = toks[k].text;
        if (x === '(' || x === '[' || x === '{' || x === '<') d++;
        if (x === ')' || x === ']' || x === '}' || x === '>') d--;
        if (d === 0 && x === '=') {
          eq = k;
          break;
        }
      }
      out.set(toks[0].text, eq > 0 ? toks.slice(eq + 1) : undefined);
    }
    cur = [];
  };
  for (let k = open + 1; k < close; k++) {
    const x = t[k].text;
    if (x === '(' || x === '[' || x === '{') depth++;
    if (x === ')' || x === ']' || x === '}') depth--;
    if (depth === 0 && x === ',') flush();
    else cur.push(t[k]);
  }
  flush();
  return out;
}

/** The name a value at `i` is assigned to: `name = …`, `name: …`, `const name = …`. */
function assignedTo(t: JsToken[], i: number): string | undefined {
  const prev = t[i - 1];
  if (!prev || (prev.text !== '=' && prev.text !== ':')) return undefined;
  const name = t[i - 2];
  return name?.kind === 'ident' ? name.text : undefined;
}

/** Every function of the host: named functions, methods, function expressions and arrow functions. */
export function functionScopes(t: JsToken[]): FnScope[] {
  const match = matchBrackets(t);
  const out: FnScope[] = [];
  const end = (i: number) => t[Math.min(i, t.length - 1)]?.end ?? 0;
  for (let k = 0; k < t.length; k++) {
    const x = t[k];
    if (x.kind !== 'punct') continue;
    if (x.text === '=>') {
      // Parameters: `(a, b) =>` or `a =>`.
      let params = new Map<string, JsToken[] | undefined>();
      let head = k - 1;
      if (t[k - 1]?.text === ')' && match[k - 1] >= 0) {
        head = match[k - 1];
        params = paramsOf(t, head, k - 1);
      } else if (t[k - 1]?.kind === 'ident') params.set(t[k - 1].text, undefined);
      else continue;
      if (t[head - 1]?.text === 'async') head--;
      const body = k + 1;
      const bodyEnd = t[body]?.text === '{' && match[body] > body ? match[body] : expressionEnd(t, match, body);
      out.push({ name: assignedTo(t, head), params, start: t[body]?.start ?? x.end, end: end(bodyEnd) });
      continue;
    }
    if (x.text !== '{' || match[k] < 0) continue;
    // `name(params) {`, `function name(params) {`, `function (params) {`, with a TypeScript return type.
    let j = k - 1;
    if (t[j]?.text !== ')') {
      let back = j;
      while (back > k - 12 && back > 0 && t[back].text !== ':' && !['{', '}', ';', ')'].includes(t[back].text)) back--;
      if (t[back]?.text !== ':' || t[back - 1]?.text !== ')') continue;
      j = back - 1;
    }
    const open = match[j];
    if (open < 0) continue;
    const before = t[open - 1];
    if (before?.kind !== 'ident') continue;
    let name: string | undefined;
    if (before.text === 'function') name = assignedTo(t, open - 1);
    else if (CONTROL.has(before.text) || t[open - 2]?.text === '.') continue; // `if (…) {`; a call `a.b(x)` is no definition
    else name = before.text;
    out.push({ name, params: paramsOf(t, open, j), start: x.start, end: end(match[k]) });
  }
  return out;
}

/** Tokens an arrow function's expression body is followed for (long chains of arrows stay linear). */
const MAX_BODY = 4000;

/** The last token of an expression starting at `i` (an arrow function's expression body). */
function expressionEnd(t: JsToken[], match: Int32Array, i: number): number {
  for (let k = i; k < t.length && k < i + MAX_BODY; k++) {
    const x = t[k].text;
    if ((x === '(' || x === '[' || x === '{') && match[k] > k) {
      k = match[k];
      continue;
    }
    if (x === ';' || x === ',' || x === ')' || x === ']' || x === '}') return k - 1;
  }
  return Math.min(t.length, i + MAX_BODY) - 1;
}

/** The functions whose body contains `offset`, innermost first. */
export function scopesAt(scopes: FnScope[], offset: number): FnScope[] {
  return scopes.filter((s) => s.start <= offset && offset < s.end).sort((a, b) => a.end - a.start - (b.end - b.start));
}

/** Template literals holding a compute shader that a function returns or a field / variable / property holds. */
export function heldShaders(t: JsToken[], scopes: FnScope[]): HeldShader[] {
  const out: HeldShader[] = [];
  for (let i = 1; i < t.length; i++) {
    const lit = t[i];
    if (lit.kind !== 'template' || !(lit.parts ?? []).some((p) => p.kind === 'text' && COMPUTE.test(p.cooked))) continue;
    const prev = t[i - 1].text;
    const arrowed = prev === '=>' || (prev === '(' && t[i - 2]?.text === '=>');
    if (prev === 'return' || arrowed) {
      const fn = scopesAt(scopes, lit.start)[0];
      out.push({ lit, how: 'function', name: fn?.name });
    } else if (prev === '=' || prev === ':') out.push({ lit, how: 'name', name: assignedTo(t, i) });
  }
  return out;
}

/** WGSL names an override made from a host parameter must not take. */
const WGSL_RESERVED = /^(f16|f32|i32|u32|bool|vec[234][fhiu]?|mat\dx\d[fh]?|array|atomic|ptr|sampler|texture_\w*|fn|let|var|const|override|struct|alias|true|false|if|else|for|while|loop|return|break|continue|switch|case|default|enable|requires|diagnostic|discard)$/;

/**
 * An interpolation over the builder's parameters as a WGSL expression: numbers,
 * parameters (kept as names) and consts of the file (their values), with
 * `+ - *` and parentheses. Undefined for anything else (division differs
 * between JS and WGSL integers; member accesses and calls are run-time JS).
 */
export function paramExpression(
  tokens: JsToken[],
  params: (name: string) => boolean,
  constValue: (name: string) => number | undefined,
): { text: string; names: string[] } | undefined {
  const names: string[] = [];
  const parts: string[] = [];
  let depth = 0;
  for (let k = 0; k < tokens.length; k++) {
    const x = tokens[k];
    const next = tokens[k + 1]?.text;
    if (x.kind === 'number' && /^\d+$/.test(x.text)) parts.push(x.text);
    else if (x.kind === 'ident') {
      if (next === '.' || next === '(' || next === '[' || next === '?.') return undefined;
      if (params(x.text)) {
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(x.text) || WGSL_RESERVED.test(x.text) || x.text.startsWith('__')) return undefined;
        if (!names.includes(x.text)) names.push(x.text);
        parts.push(x.text);
      } else {
        const v = constValue(x.text);
        if (v === undefined || !Number.isInteger(v) || v < 0) return undefined;
        parts.push(String(v));
      }
    } else if (x.kind === 'punct' && ['+', '-', '*'].includes(x.text)) parts.push(x.text);
    else if (x.text === '(') {
      depth++;
      parts.push('(');
    } else if (x.text === ')' && depth > 0) {
      depth--;
      parts.push(')');
    } else return undefined;
  }
  if (names.length === 0 || depth !== 0) return undefined;
  return { text: parts.length > 1 ? `(${parts.join(' ')})` : parts[0], names };
}
