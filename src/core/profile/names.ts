/**
 * Kernel names as profilers write them: mangled C++ (`_Z…`), demangled C++
 * (`void vllm::rms_norm_kernel<float>(float*, …)`, in GNU or NVIDIA spelling),
 * the bare function name (ncu's `--print-kernel-base function`), and Triton
 * names (the Python function name; Triton before 3.0 appended a
 * specialisation suffix such as `_0d1d2d3c`).
 */
import { parseBindingValue } from '../bindings';
import { demangle } from './demangle';

export interface KernelName {
  demangled: string;
  /** `ns::name` without template arguments or parameters. */
  qualifiedName: string;
  /** `name`, the last component of `qualifiedName`. */
  baseName: string;
  /** True when the name is C++ (mangled, or written with parameters, templates or namespaces). */
  isCpp: boolean;
  /** The `NAME=VALUE` pairs of a `launch_metadata` bracket (`matmul_kernel [M=4096, N=4096, K=4096]`). */
  launchBindings?: Record<string, number | boolean | string>;
}

export function analyseKernelName(raw: string): KernelName {
  const name = raw.trim();
  const launch = splitLaunchName(name);
  if (launch) {
    const baseName = stripTritonSuffix(launch.base);
    return { demangled: name, qualifiedName: baseName, baseName, isCpp: false, ...(Object.keys(launch.bindings).length ? { launchBindings: launch.bindings } : {}) };
  }
  const demangled = demangle(name);
  const qualifiedName = functionName(demangled);
  const parts = splitTopLevel(qualifiedName, '::');
  const last = parts[parts.length - 1] || qualifiedName;
  const plain = /^[A-Za-z_][A-Za-z0-9_]*$/.test(demangled);
  const isCpp = name.startsWith('_Z') || !plain;
  const baseName = plain ? stripTritonSuffix(last) : last;
  return { demangled, qualifiedName: plain ? baseName : qualifiedName, baseName, isCpp };
}

/**
 * The function name of a demangled signature: the clone suffix, ABI tags,
 * parameter list, template arguments and return type removed.
 */
function functionName(demangled: string): string {
  let s = demangled.replace(/( \[clone [^\]]*\])+$/, '').replace(/\[abi:[^\]]*\]/g, '').trim();
  s = s.replace(/\s+(const|volatile|&|&&)$/, '');
  if (s.endsWith(')')) {
    const open = matchingOpen(s, s.length - 1, '(', ')');
    if (open > 0) s = s.slice(0, open).trimEnd();
  }
  if (s.endsWith('>')) {
    const open = matchingOpen(s, s.length - 1, '<', '>');
    if (open > 0) s = s.slice(0, open).trimEnd();
  }
  const words = splitTopLevel(s, ' ');
  return words[words.length - 1] || s;
}

/** Index of the bracket that opens the one closing at `close`, or -1. */
function matchingOpen(s: string, close: number, open: string, shut: string): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    if (s[i] === shut) depth++;
    else if (s[i] === open && --depth === 0) return i;
  }
  return -1;
}

/** Splits at `sep` where no (), <> or [] bracket is open. */
function splitTopLevel(s: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '<' || c === '[') depth++;
    else if (c === ')' || c === '>' || c === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0 && s.startsWith(sep, i)) {
      out.push(s.slice(start, i));
      start = i + sep.length;
      i += sep.length - 1;
    }
  }
  out.push(s.slice(start));
  return out.filter((p) => p !== '');
}

/**
 * Removes Triton's pre-3.0 specialisation suffix (`matmul_kernel_0d1d2d3c`
 * → `matmul_kernel`): at least two groups of an argument index followed by
 * specialisation letters, the indices counting up from 0.
 */
function stripTritonSuffix(name: string): string {
  const underscore = name.lastIndexOf('_');
  if (underscore <= 0) return name;
  const groups = name.slice(underscore + 1).match(/\d+[a-z]+/g);
  if (!groups || groups.join('') !== name.slice(underscore + 1) || groups.length < 2) return name;
  const indicesCountUp = groups.every((g, i) => Number(/^\d+/.exec(g)![0]) === i);
  return indicesCountUp ? name.slice(0, underscore) : name;
}

/** At most this many pairs are read from one bracket (names are user text). */
const MAX_LAUNCH_PAIRS = 64;

/**
 * A launch named by Triton's `launch_metadata` hook: a Python identifier
 * followed by a bracket of `NAME=VALUE` pairs, separated by commas or spaces,
 * as Triton's tutorials and kernels write them: `matmul_kernel [M=4096,
 * N=4096, K=4096]`, `_matmul_ogs [N=4096 K=128 EXPT_PER_TOK=4]`. Returns the
 * identifier and the pairs (values read as `--set` reads them: numbers,
 * true/false, else strings; items without `=` are ignored), or null when the
 * name is not of that shape.
 */
export function splitLaunchName(name: string): { base: string; bindings: Record<string, number | boolean | string> } | null {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*\[(.*)\]$/s.exec(name.trim());
  if (!m) return null;
  const bindings: Record<string, number | boolean | string> = {};
  let n = 0;
  for (const item of splitItems(m[2])) {
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim().replace(/^(['"])(.*)\1$/s, '$2');
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || value === '' || key === '__proto__') continue;
    bindings[key] = parseBindingValue(value);
    if (++n >= MAX_LAUNCH_PAIRS) break;
  }
  return { base: m[1], bindings };
}

/** Items separated by commas or spaces outside (), [] and quotes; `M = 4096` stays one item. */
function splitItems(body: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  let quote = '';
  const flush = () => {
    if (cur.trim() !== '') out.push(cur.trim());
    cur = '';
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quote) {
      cur += c;
      if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    if (depth === 0 && (c === ',' || /\s/.test(c))) {
      // `M = 4096`: spaces around '=' do not split.
      const rest = body.slice(i).trimStart();
      if (/\s/.test(c) && (rest.startsWith('=') || /=\s*$/.test(cur))) continue;
      flush();
      continue;
    }
    cur += c;
  }
  flush();
  return out;
}
