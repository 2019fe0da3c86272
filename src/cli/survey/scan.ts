/**
 * What the survey reads from a kernel file's text on its own, without the
 * analysis: how many kernel definitions the text declares, and whether a
 * kernel's own source stores to / loads from global memory. These are cheap
 * textual heuristics, used only to cross-check the analysis (a kernel whose
 * text stores but whose `storeBytes` is 0 is suspicious); they never change a
 * number.
 */

export type SurveyGroup = 'triton' | 'cuda' | 'wgsl' | 'wgsl-embedded';

export const GROUPS: readonly SurveyGroup[] = ['triton', 'cuda', 'wgsl', 'wgsl-embedded'];

/** The survey's language group of a path, or undefined when it is not a kernel file. */
export function groupOf(file: string): SurveyGroup | undefined {
  const p = file.toLowerCase();
  if (p.endsWith('.py')) return 'triton';
  if (p.endsWith('.cu') || p.endsWith('.cuh')) return 'cuda';
  if (p.endsWith('.wgsl')) return 'wgsl';
  if (/\.(m?js|cjs|jsx|ts|mts|cts|tsx)$/.test(p) && !p.endsWith('.d.ts') && !/\.min\.m?js$/.test(p)) return 'wgsl-embedded';
  return undefined;
}

/** Does the text carry a marker of its language's kernels? (cheap; files without one are skipped) */
export function hasKernelMarker(group: SurveyGroup, text: string): boolean {
  switch (group) {
    case 'triton':
      return text.includes('triton') && /@(?:triton\.)?jit\b|@\w+\.jit\b/.test(text);
    case 'cuda':
      return text.includes('__global__');
    case 'wgsl':
    case 'wgsl-embedded':
      return text.includes('@compute');
  }
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Python: drops `#` comment lines (not trailing comments: `#` may sit in a string). */
function pyCode(text: string): string {
  return text.replace(/^[ \t]*#.*$/gm, '');
}

/** C-like: drops `//` line comments and block comments (strings are not parsed: good enough for counting). */
export function cCode(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** Python `@…jit` functions of a file: name and body text (module- or class-level, by indentation). */
function jitFunctions(code: string, bareJit: boolean): { name: string; body: string }[] {
  const lines = code.split('\n');
  const indent = (l: string): number => l.length - l.trimStart().length;
  const isJit = (l: string): boolean => /^[ \t]*@triton\.jit\b/.test(l) || (bareJit && /^[ \t]*@jit\b/.test(l));
  const out: { name: string; body: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!isJit(lines[i])) continue;
    let j = i + 1;
    while (j < lines.length && !/^\s*(?:async\s+)?def\s/.test(lines[j])) j++;
    const m = /^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)/.exec(lines[j] ?? '');
    if (!m) continue;
    const own = m[1].length;
    let k = j + 1;
    // the signature may span lines: the body starts after the line ending with ':'
    while (k < lines.length && !/:\s*(#.*)?$/.test(lines[k - 1])) k++;
    const body: string[] = [];
    for (; k < lines.length; k++) {
      const l = lines[k];
      if (l.trim() !== '' && indent(l) <= own) break;
      body.push(l);
    }
    out.push({ name: m[2], body: body.join('\n') });
    i = j;
  }
  return out;
}

/**
 * Definitions seen in the text: `@triton.jit`/`@jit`, `__global__`, `@compute`.
 * For Triton, `helpers` are the jit functions another jit function of the file
 * names (calls, or passes as a combine function): they are inlined, not kernels.
 * `otherDecorators` counts Triton element functions (`@pointwise_dynamic`) the
 * analysis does not treat as kernels.
 */
export function countDefinitions(group: SurveyGroup, text: string): { defined: number; helpers: number; otherDecorators: number } {
  if (group === 'triton') {
    const code = pyCode(text);
    // `@jit` counts only where jit comes from triton (numba has a `jit` too).
    const bareJit = /^\s*from\s+triton(?:\.runtime(?:\.jit)?)?\s+import\s[^\n]*\bjit\b/m.test(code);
    const tritonJit = (code.match(/^[ \t]*@triton\.jit\b/gm) ?? []).length;
    const bare = bareJit ? (code.match(/^[ \t]*@jit\b/gm) ?? []).length : 0;
    const fns = jitFunctions(code, bareJit);
    const helpers = new Set<string>();
    for (const f of fns) {
      const re = new RegExp(`\\b${escapeRe(f.name)}\\b`);
      if (fns.some((g) => g !== f && g.name !== f.name && re.test(g.body))) helpers.add(f.name);
    }
    const helperDefs = fns.filter((f) => helpers.has(f.name)).length;
    const other = (code.match(/^[ \t]*@pointwise_dynamic\b/gm) ?? []).length;
    return { defined: tritonJit + bare, helpers: helperDefs, otherDecorators: other };
  }
  if (group === 'cuda') return { defined: (cCode(text).match(/\b__global__\b/g) ?? []).length, helpers: 0, otherDecorators: 0 };
  const code = group === 'wgsl' ? cCode(text) : text;
  return { defined: (code.match(/@compute\b/g) ?? []).length, helpers: 0, otherDecorators: 0 };
}

/** Lines [start, end] (1-based, inclusive) of a kernel's own text. */
export function kernelText(lines: string[], start: number, end: number): string {
  return lines.slice(Math.max(0, start - 1), Math.max(start, end)).join('\n');
}

/**
 * Where a Python kernel's decorators begin: the kernel's diagnostics (autotune
 * configs, heuristics) sit on them, above the `def` line.
 */
export function decoratorStart(lines: string[], defLine: number): number {
  const indent = (s: string): number => s.length - s.trimStart().length;
  const defIndent = indent(lines[defLine - 1] ?? '');
  let start = defLine;
  for (let i = defLine - 2; i >= 0; i--) {
    const l = lines[i];
    if (l.trim() === '') break;
    const t = l.trimStart();
    if (indent(l) <= defIndent && !t.startsWith('@') && !/^[)\]}]/.test(t)) break;
    start = i + 1;
  }
  return start;
}

export interface MemoryUse {
  /** The text writes global memory (a store, an atomic, a write through a pointer parameter / storage buffer). */
  stores: boolean;
  /** The text reads global memory. */
  loads: boolean;
}

/** Triton: `tl.store`, `.store(` (block pointers, descriptors), atomics; `tl.load`, `.load(`. */
export function tritonMemoryUse(kernel: string): MemoryUse {
  const code = pyCode(kernel);
  return {
    stores: /\.store\s*\(|\btl\.atomic_\w+\s*\(|_experimental_descriptor_store\s*\(/.test(code),
    loads: /\.load\s*\(|\btl\.atomic_\w+\s*\(|_experimental_descriptor_load\s*\(/.test(code),
  };
}

/** Splits a parameter list at top-level commas. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(' || ch === '[' || ch === '{' || ch === '<') depth++;
    else if (ch === ')' || ch === ']' || ch === '}' || ch === '>') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur);
  return out;
}

/** The position of a statement's assignment operator (`=`, `+=`, `<<=`, ...; not `==`, `<=`, `>=`, `!=`), or -1. */
function assignmentAt(s: string): { at: number; compound: boolean } {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    if (c !== '=' || depth !== 0) continue;
    if (s[i + 1] === '=') {
      i++;
      continue;
    }
    const p = s[i - 1];
    if (p === '=' || p === '!') continue;
    if (p === '<' || p === '>') {
      if (s[i - 2] === p) return { at: i - 2, compound: true };
      continue;
    }
    if (p && '+-*/%&|^'.includes(p)) return { at: i - 1, compound: true };
    return { at: i, compound: false };
  }
  return { at: -1, compound: false };
}

/** Does `text` dereference pointer `n` (index, unary `*`, `->`, a cast of it, `__ldg`)? */
function derefs(text: string, n: string): boolean {
  const e = escapeRe(n);
  return new RegExp(
    `\\b${e}\\s*\\[|(?:^|[^\\w)\\]\\s]|[=(,;{}!&|?:+\\-]\\s*)\\*\\s*\\(*\\s*${e}\\b|\\b${e}\\s*->|_cast\\s*<[^>]*\\*\\s*>\\s*\\(\\s*&?\\s*${e}\\b|__ld\\w*\\s*\\(\\s*&?\\s*\\(*\\s*${e}\\b`,
  ).test(text);
}

/**
 * CUDA: reads and writes through the kernel's pointer parameters (and pointers
 * declared from them), found statement by statement in its own text.
 */
export function cudaMemoryUse(kernel: string, name?: string): MemoryUse {
  const code = cCode(kernel);
  const from = Math.max(0, code.search(/__global__/));
  const named = name ? new RegExp(`\\b${escapeRe(name)}\\s*\\(`).exec(code.slice(from)) : null;
  const open = named ? from + named.index + named[0].length - 1 : code.indexOf('(', from);
  if (open < 0) return { stores: false, loads: false };
  let depth = 0;
  let close = -1;
  for (let i = open; i < code.length; i++) {
    if (code[i] === '(') depth++;
    else if (code[i] === ')' && --depth === 0) {
      close = i;
      break;
    }
  }
  if (close < 0) return { stores: false, loads: false };
  const body = code.slice(code.indexOf('{', close) + 1);
  // name → may be written (the pointee is not const)
  const ptrs = new Map<string, boolean>();
  for (const p of splitTop(code.slice(open + 1, close))) {
    const t = p.replace(/=.*$/s, '').trim();
    const m = /([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*$/.exec(t);
    if (!m) continue;
    const isPtr = t.includes('*') || !!m[2];
    if (!isPtr) continue;
    const beforeStar = t.includes('*') ? t.slice(0, t.indexOf('*')) : t;
    ptrs.set(m[1], !/\bconst\b/.test(beforeStar));
  }
  const statements = body.split(/[;{}]/);
  // Pointers declared from a parameter inherit it (two rounds for short chains).
  for (let round = 0; round < 2; round++) {
    for (const s of statements) {
      const d = /^\s*((?:const\s+|volatile\s+|__restrict__\s+)*[\w:]+(?:\s*<[^;=]*>)?\s*(?:const\s*)?\*+\s*(?:const\s+|__restrict__\s+)*|auto\s*\*?\s*)([A-Za-z_]\w*)\s*=\s*([^]*)$/.exec(s);
      if (!d || ptrs.has(d[2])) continue;
      const from = [...ptrs].find(([n]) => new RegExp(`\\b${escapeRe(n)}\\b`).test(d[3]));
      if (!from) continue;
      const declConst = /\bconst\b/.test(d[1].split('*')[0]) || /_cast\s*<\s*const\b/.test(d[3]);
      ptrs.set(d[2], from[1] && !declConst);
    }
  }
  let stores = false;
  let loads = false;
  for (const s of statements) {
    if (!s.trim()) continue;
    for (const [n, writable] of ptrs) {
      if (!new RegExp(`\\b${escapeRe(n)}\\b`).test(s)) continue;
      const e = escapeRe(n);
      if (new RegExp(`\\batomic\\w*\\s*\\(\\s*&?\\s*\\(*\\s*${e}\\b`).test(s)) {
        stores = true;
        loads = true;
        continue;
      }
      // store / load intrinsics and library calls with the pointer first: __stcs, store_matrix_sync, __ldg, load_matrix_sync, ...
      if (writable && new RegExp(`\\b(?:__st[a-z]{0,3}|\\w*store\\w*)\\s*\\(\\s*&?\\s*\\(*\\s*${e}\\b`).test(s)) stores = true;
      if (new RegExp(`\\b\\w*load\\w*\\s*\\([^;]*?\\b${e}\\b`).test(s)) loads = true;
      const a = assignmentAt(s);
      const lhs = a.at >= 0 ? s.slice(0, a.at) : '';
      const rhs = a.at >= 0 ? s.slice(a.at).replace(/^[^=]*=/, '') : s;
      if (writable && lhs && derefs(lhs, n)) {
        stores = true;
        if (a.compound) loads = true;
      }
      if (derefs(rhs, n)) loads = true;
    }
    if (stores && loads) break;
  }
  return { stores, loads };
}

/** WGSL functions of a module: name → body (brace-matched). */
export function wgslFunctions(text: string): Map<string, string> {
  const code = cCode(text);
  const out = new Map<string, string>();
  const re = /\bfn\s+([A-Za-z_]\w*)\s*\(/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(code))) {
    const open = code.indexOf('{', m.index);
    if (open < 0) break;
    let depth = 0;
    let end = code.length;
    for (let i = open; i < code.length; i++) {
      if (code[i] === '{') depth++;
      else if (code[i] === '}' && --depth === 0) {
        end = i + 1;
        break;
      }
    }
    if (!out.has(m[1])) out.set(m[1], code.slice(open, end));
  }
  return out;
}

/** A WGSL entry point's text plus the bodies of the module functions it calls, transitively. */
export function withWgslHelpers(kernel: string, functions: Map<string, string>, self?: string): string {
  const seen = new Set<string>(self ? [self] : []);
  const parts = [kernel];
  for (let i = 0; i < parts.length && seen.size < 200; i++) {
    for (const [n, body] of functions) {
      if (seen.has(n) || !new RegExp(`\\b${escapeRe(n)}\\s*\\(`).test(parts[i])) continue;
      seen.add(n);
      parts.push(body);
    }
  }
  return parts.join('\n');
}

/** WGSL storage bindings of a module: name → access. */
export function storageBindings(text: string): Map<string, 'read' | 'read_write' | 'write'> {
  const out = new Map<string, 'read' | 'read_write' | 'write'>();
  const re = /var\s*<\s*storage\s*(?:,\s*(read_write|read|write)\s*)?>\s*([A-Za-z_]\w*)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) out.set(m[2], (m[1] as 'read' | 'read_write' | 'write' | undefined) ?? 'read');
  return out;
}

/**
 * WGSL: writes to a `var<storage, read_write>` (assignment, atomics other than
 * `atomicLoad`, `textureStore`) and reads of storage buffers or textures, in
 * the entry point's own text.
 */
export function wgslMemoryUse(kernel: string, bindings: Map<string, 'read' | 'read_write' | 'write'>): MemoryUse {
  const code = cCode(kernel);
  let stores = /\btextureStore\s*\(/.test(code);
  let loads = /\btexture(?:Load|Sample\w*|Gather\w*)\s*\(/.test(code);
  for (const s of code.split(/[;{}]/)) {
    for (const [n, access] of bindings) {
      const e = escapeRe(n);
      if (!new RegExp(`\\b${e}\\b`).test(s)) continue;
      const clean = s.replace(new RegExp(`arrayLength\\s*\\(\\s*&\\s*${e}\\b[^)]*\\)`, 'g'), '');
      const atomic = new RegExp(`\\b(atomic\\w+)\\s*\\(\\s*&\\s*${e}\\b`).exec(clean);
      if (atomic) {
        if (atomic[1] === 'atomicLoad') loads = true;
        else {
          if (access !== 'read') stores = true;
          loads = true;
        }
        continue;
      }
      const a = assignmentAt(clean);
      const lhs = a.at >= 0 ? clean.slice(0, a.at) : '';
      const rhs = a.at >= 0 ? clean.slice(a.at).replace(/^[^=]*=/, '') : clean;
      if (access !== 'read' && lhs && new RegExp(`\\b${e}\\b`).test(lhs) && !/^\s*(?:let|var|const)\b/.test(lhs)) {
        stores = true;
        if (a.compound) loads = true;
      }
      if (access !== 'write' && new RegExp(`\\b${e}\\b`).test(rhs)) loads = true;
    }
  }
  return { stores, loads };
}

/**
 * A diagnostic's message with its particulars taken out, so that messages of
 * one kind count together: backquoted text becomes `…`, a leading kernel name
 * (`name: `) and trailing parentheses listing files are dropped, numbers become #.
 */
export function messageTemplate(message: string, kernel?: string): string {
  let m = message;
  if (kernel && m.startsWith(kernel + ': ')) m = m.slice(kernel.length + 2);
  return m
    .replace(/`[^`]*`/g, '`…`')
    .replace(/\s*\(it may come from [^)]*\)/g, '')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b/gi, '#')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);
}

/** Is this diagnostic about a call the analysis cannot see (as opposed to other gaps reported under the same id)? */
export function isUnknownCall(d: { message: string; name?: unknown; data?: unknown }): boolean {
  return /^(?:[\w.$]+: )?unknown (?:call|function|builtin)\b/i.test(d.message) || typeof d.name === 'string' || typeof (d.data as { name?: unknown } | undefined)?.name === 'string';
}

/**
 * The called name in an "unknown call" diagnostic: the structured field when
 * the diagnostic has one, else the first backquoted text, else the message.
 */
export function unknownCallName(d: { message: string; name?: unknown; data?: unknown }): string {
  if (typeof d.name === 'string' && d.name) return d.name;
  const data = d.data as { name?: unknown } | undefined;
  if (data && typeof data.name === 'string' && data.name) return data.name;
  const m = /unknown call `([^`]+)`/.exec(d.message) ?? /`([^`]+)`/.exec(d.message);
  const name = (m ? m[1] : d.message).replace(/\s+/g, ' ').trim();
  return name.length > 80 ? name.slice(0, 77) + '...' : name;
}
