/**
 * Kernel names as profilers write them: mangled C++ (`_Z…`), demangled C++
 * (`void vllm::rms_norm_kernel<float>(float*, …)`, in GNU or NVIDIA spelling),
 * the bare function name (ncu's `--print-kernel-base function`), and Triton
 * names (the Python function name; Triton before 3.0 appended a
 * specialisation suffix such as `_0d1d2d3c`).
 */
import { demangle } from './demangle';

export interface KernelName {
  demangled: string;
  /** `ns::name` without template arguments or parameters. */
  qualifiedName: string;
  /** `name`, the last component of `qualifiedName`. */
  baseName: string;
  /** True when the name is C++ (mangled, or written with parameters, templates or namespaces). */
  isCpp: boolean;
}

export function analyseKernelName(raw: string): KernelName {
  const name = raw.trim();
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
