/**
 * The sizes of a measured launch as bindings (binding source `profile`): a
 * Proton launch named `matmul_kernel [M=4096, N=4096, K=4096]` by its
 * `launch_metadata` is estimated with M, N and K bound to those values, so
 * the estimate beside its measured dot is for exactly that launch.
 *
 * Priority (src/core/bindings.ts): the user's --set / settings and the
 * file's `roofline:` pragmas win over the profile (a stated value is a
 * deliberate choice; the difference is reported), the profile wins over
 * everything read from the source (launch sites, autotune configs, defaults).
 * The analysis is run with the launch's values as --set values for the names
 * the user and the pragmas leave free, and their sources are then labelled
 * `profile`.
 */
import type { BindingValue } from '../analyze';
import { readPragmas } from '../bindings';
import type { Diagnostic } from '../ir';
import type { FileReport, KernelReport } from '../report/types';

export interface LaunchEstimate {
  /** The kernel estimated with the launch's sizes (sources of those bindings: `profile`). */
  kernel: KernelReport;
  /** Launch values the estimate uses. */
  applied: string[];
  /** Launch values a --set / setting or pragma overrides with another value. */
  overridden: { name: string; launch: BindingValue; used: BindingValue; by: 'user' | 'pragma' }[];
  /** Launch values the kernel has no symbol for. */
  unused: string[];
  /** The re-analysis's diagnostics about this kernel's unknowns (`unbound`, `unboundLoop`, `overflow`). */
  diagnostics: Diagnostic[];
}

/** Diagnostics that say what a kernel's estimate lacks, which its launch's sizes may settle. */
export const ESTIMATE_DIAGNOSTICS = new Set(['unbound', 'unboundLoop', 'overflow']);

/**
 * Re-analyses `kernel` (of the file whose text is `source`) with the
 * launch's `NAME=VALUE` pairs. `analyse(set)` analyses the file with these
 * --set values (the caller's GPU, dtypes and grid). Undefined when the file
 * no longer has the kernel.
 */
export function estimateForLaunch(
  kernel: KernelReport,
  source: string,
  launch: { name: string; bindings: Record<string, BindingValue> },
  userSet: Record<string, BindingValue>,
  analyse: (set: Record<string, BindingValue>) => FileReport,
): LaunchEstimate | undefined {
  const pragmas = new Map(readPragmas(source).map((p) => [p.name, p.value] as const));
  const fromLaunch: Record<string, BindingValue> = {};
  const overridden: LaunchEstimate['overridden'] = [];
  for (const [name, value] of Object.entries(launch.bindings)) {
    const stated = name in userSet ? { by: 'user' as const, value: userSet[name] } : pragmas.has(name) ? { by: 'pragma' as const, value: pragmas.get(name)! } : null;
    if (!stated) fromLaunch[name] = value;
    else if (stated.value !== value) overridden.push({ name, launch: value, used: stated.value, by: stated.by });
  }
  const report = analyse({ ...fromLaunch, ...userSet });
  const again = report.kernels.find((k) => k.name === kernel.name && k.line === kernel.line) ?? report.kernels.find((k) => k.name === kernel.name);
  if (!again) return undefined;
  const detail = `profile: launch \`${launch.name.length > 120 ? launch.name.slice(0, 117) + '…' : launch.name}\``;
  const bindingSources = { ...again.bindingSources };
  const applied: string[] = [];
  for (const name of Object.keys(fromLaunch)) {
    const src = bindingSources[name];
    if (!src || src.source !== 'user') continue;
    bindingSources[name] = { source: 'profile', detail };
    applied.push(name);
  }
  const unused = Object.keys(fromLaunch).filter((n) => !applied.includes(n));
  const diagnostics = report.diagnostics.filter((d) => ESTIMATE_DIAGNOSTICS.has(d.code) && d.message.startsWith(`${kernel.name}:`));
  return { kernel: { ...again, bindingSources }, applied, overridden, unused, diagnostics };
}
