/**
 * Every user-facing message of the analysis, with a stable id. Tests assert on
 * the ids; the editor and the CLI show the text.
 */
import type { Diagnostic, Severity } from './ir';

export const MSG = {
  parseError: (what: string) => `syntax error: ${what}; counts below cover only what could be read`,
  noKernels: (lang: string) => `no ${lang} kernels found in this file`,
  unboundLoop: (name: string) =>
    `cannot estimate: loop bound \`${name}\` unknown; bind it with --set ${name}=… or rooflineLens.bindings`,
  unbound: (names: string[]) =>
    `cannot estimate: ${names.map((n) => '`' + n + '`').join(', ')} unknown; bind ${names.length > 1 ? 'them' : 'it'} with --set ${names[0]}=… or rooflineLens.bindings`,
  unknownCall: (name: string) => `unknown call \`${name}\`: counted as 0 FLOPs and 0 bytes`,
  recursion: (name: string) => `recursive call to \`${name}\` not inlined: counted as 0`,
  depthLimit: (name: string) => `helper \`${name}\` nested too deeply to inline: counted as 0`,
  budget: () => `analysis stopped at its time budget: counts are partial`,
  partial: (done: number, total: number) => `analysed ${done} of ${total} kernels in this time slice; the rest follow`,
  unknownCondition: (cond: string) =>
    `condition \`${cond}\` cannot be evaluated at compile time: both branches counted (upper bound)`,
  dataBranch: (cond: string) => `data-dependent branch \`${cond}\` counted as taken (upper bound)`,
  binaryInput: () => `file does not look like text (binary bytes): not analysed`,
  tooLarge: (lines: number) => `file has ${lines} lines: analysed up to the budget; later kernels may be missing`,
  unknownDtype: (name: string) => `element type of \`${name}\` unknown: assumed fp32 (set it with --dtype ${name}=…)`,
  unknownGpu: (id: string) => `unknown GPU \`${id}\``,
  autotune: (kernel: string) =>
    `autotune configs of \`${kernel}\` are computed, not a literal list: bind the tile sizes with --set (e.g. the config you expect autotuning to pick)`,
  overflow: (what: readonly string[]) =>
    `${what.join(', ')} too large to represent (beyond 1.8e308) with these bindings: shown as unknown`,
  internal: (what: string) => `internal error: ${what}`,
  nonIntegerTrips: (label: string) => `trip count of \`${label}\` is not a whole number with these bindings`,
} as const;

export type MessageId = keyof typeof MSG;

export function diag(code: MessageId, line: number, severity: Severity, message: string): Diagnostic {
  return { code, line, severity, message };
}
