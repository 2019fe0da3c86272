/**
 * WGSL-specific user-facing messages, with stable ids (the shared ones live in
 * `core/messages.ts`; these are candidates to move there).
 */
import type { Diagnostic, Severity } from '../../ir';

export const WGSL_MSG = {
  stale: (name: string) => `\`${name}\` does not parse now: showing its last good analysis (stale)`,
  staleAssumption: () => 'stale: showing the last good analysis (the function does not parse now)',
  interpolation: (expr: string) => `embedded WGSL skipped: cannot resolve the interpolation \`\${${expr}}\` (only consts declared in this file with a literal value are substituted)`,
  unresolvedCode: (what: string) => `createShaderModule code \`${what}\` is not a literal in this file: not analysed`,
  unknownIdent: (name: string) => `unknown identifier \`${name}\`: treated as a run-time value`,
  textureFormat: (name: string) =>
    `texel format of \`${name}\` is not in its WGSL type: assumed rgba8unorm (4 B per texel); set it with --dtype ${name}=fp16 (rgba16float, 8 B) or =fp32 (rgba32float, 16 B)`,
  workgroupSize: (what: string) => `cannot evaluate @workgroup_size(${what}): counted as a symbol`,
  noWorkgroupSize: (name: string) => `\`${name}\` has no @workgroup_size: assumed 1×1×1`,
  dtypeIgnored: (name: string, dtype: string) => `--dtype ${name}=${dtype}: WGSL has no such type for a buffer; ignored`,
  dispatchUnresolved: (text: string) => `dispatchWorkgroups(${text}): the size is not a constant of this file; give --grid`,
} as const;

export type WgslMessageId = keyof typeof WGSL_MSG;

/** A WGSL-specific diagnostic; its code is `wgsl.<id>`. */
export function wdiag(code: WgslMessageId, line: number, severity: Severity, message: string): Diagnostic {
  return { code: `wgsl.${code}`, line, severity, message };
}
