/**
 * Every user-facing message of the profile import, with a stable id. Tests
 * assert on the ids; the editor and the CLI show the text.
 */
import type { ProfileDiagnostic, ProfileSeverity } from './types';

export const PMSG = {
  empty: () => `the file is empty: nothing to import`,
  binary: () => `the file does not look like text (binary bytes): export the profile as CSV (ncu --csv) or JSON (Proton)`,
  unknownFormat: (guess: string) =>
    `${guess}; expected an Nsight Compute CSV (ncu --csv --page raw --metrics …) or a Triton Proton JSON profile`,
  noHeader: () =>
    `no Nsight Compute header ("ID", …, "Kernel Name", …) found: export with ncu --csv --page raw --metrics … (see docs/profiles.md)`,
  profilerMessage: (text: string) => `the profiler reported: ${text}`,
  unterminatedQuote: () => `the file ends inside a quoted field: it looks truncated; the last row is ignored`,
  shortRow: (fields: number, expected: number) =>
    `row has ${fields} of ${expected} fields (truncated file?): read what is there, the rest counts as missing`,
  noUnitsRow: () =>
    `no units row under the header: every metric is read in its base unit (byte, nsecond, inst); re-export with ncu --csv --page raw to be sure`,
  noLaunches: () => `no kernel launches in the export`,
  unknownUnit: (metric: string, unit: string, kernels: string) =>
    `unit "${unit}" of ${metric} is not one the importer knows: ${metric} ignored for ${kernels} (re-export with --print-units base)`,
  wrongUnit: (metric: string, unit: string, expected: string, kernels: string) =>
    `${metric} is in "${unit}", which is not a unit of ${expected}: ignored for ${kernels}`,
  noUnit: (metric: string, kernels: string) => `${metric} has no unit and no base unit to assume: ignored for ${kernels}`,
  assumedUnit: (metric: string, unit: string) => `${metric} has no unit: read as ${unit} (the metric's base unit)`,
  badValue: (metric: string, value: string, kernels: string) =>
    `cannot read the value "${value}" of ${metric} (${kernels}): treated as missing`,
  notAvailable: (metric: string, kernels: string) =>
    `${metric} is n/a for ${kernels} (not collected or not supported on this GPU): treated as missing`,
  missingMetric: (metrics: string[], consequence: string) =>
    `${metrics.length > 1 ? 'metrics' : 'metric'} ${compactMetrics(metrics)} missing from the export: ${consequence}; add ${metrics.length > 1 ? 'them' : 'it'} to --metrics (see docs/profiles.md)`,
  missingForLaunches: (metric: string, kernels: string) => `${metric} has no value for ${kernels}`,
  partialFlops: (metrics: string[]) =>
    `FP instruction ${metrics.length > 1 ? 'counters' : 'counter'} ${compactMetrics(metrics)} missing: FLOPs count only the others (a lower bound)`,
  tensorUnknown: (metric: string, kernels: string, add: string) =>
    `tensor-core work ran in ${kernels} (${metric} > 0) but the export has no sm__ops_path_tensor_* op counter: tensor FLOPs unknown, the measured FLOPs cover CUDA-core arithmetic only (a lower bound); collect ${add}`,
  tensorUncovered: (metric: string, kind: 'warpgroup' | 'tcgen05', kernels: string, add: string) =>
    `${kind === 'warpgroup' ? 'warpgroup MMA (wgmma) instructions' : 'tcgen05 MMA instructions'} ran in ${kernels} (${metric} > 0) but none of the exported sm__ops_path_tensor_* counters covers them: their FLOPs are missing (a lower bound); collect ${add}`,
  tensorZero: (metric: string, counters: string[], kernels: string, add: string) =>
    `tensor-core work ran in ${kernels} (${metric} > 0) but the exported op counters (${counters.slice(0, 3).join(', ')}${counters.length > 3 ? ', …' : ''}) all read 0: the kernel's element types are not among them (a lower bound); collect ${add}`,
  tensorNotCount: (metric: string, rollup: string, kernels: string) =>
    `${metric} is a ${rollup.replace(/^\./, '')} rollup, not a count (${kernels}): export the .sum of that counter to count its FLOPs`,
  noTensorCounters: () =>
    `no tensor-pipe metrics in the export: tensor-core FLOPs are not counted (for tensor-core kernels add the sm__ops_path_tensor_* counters, or --section SpeedOfLight_HierarchicalTensorRooflineChart)`,
  unknownTensorType: (metric: string, why: string) =>
    `${metric}: ${why}; not counted (if it counted work, the measured FLOPs are a lower bound)`,
  integerTensor: (metric: string) => `${metric} counts integer tensor operations, which are not FLOPs: not counted`,
  sparseTensor: (kernels: string) =>
    `structured-sparsity (2:4) tensor instructions ran in ${kernels}: their ops are counted once, as ncu counts them (the dense-equivalent product), so the dot may sit above the dense peak`,
  fromSection: (section: string, kernels: string) =>
    `no FLOP counters for ${kernels}: FLOPs and DRAM bytes come from the achieved values of the section "${section}" (Nsight Compute's own convention)`,
  negativeValue: (metric: string, kernels: string) =>
    `${metric} is negative for ${kernels} (an overflow in the profiler?): treated as missing`,
  invalidJson: (what: string) => `not valid JSON (${what}): the file looks truncated or is not a Proton profile`,
  notProtonTree: (what: string) => `not a Proton (hatchet) profile: ${what}`,
  protonTrace: () =>
    `this is a Proton trace (Chrome trace format), not its tree profile: profile with the default data mode (hatchet JSON)`,
  protonNoTime: (key: string, kernels: string) => `unknown time unit in "${key}" (${kernels}): time treated as missing`,
  protonAnnotated: () =>
    `Proton's flops*/bytes come from each kernel's launch_metadata (the author's own formulas), not from hardware counters; its time is measured`,
  protonNoFlops: (kernels: string) =>
    `no flops8/flops16/flops32/flops64 for ${kernels}: give the kernel a launch_metadata function returning them (see docs/profiles.md)`,
  protonNoBytes: (kernels: string) => `no bytes for ${kernels}: return "bytes" from the kernel's launch_metadata`,
  gpuMismatch: (device: string, evidence: string, gpu: string, id: string, selected: string, alternatives: string[]) =>
    `the profile ran on ${device}, ${alternatives.length ? 'probably' : 'identified as'} ${gpu}${evidence ? ` (${evidence})` : ''}${alternatives.length ? `, or ${alternatives.join(' or ')}` : ''}, not on the selected ${selected}: its dots are placed under ${gpu}'s roofs; select that GPU (--gpu ${id}) so the estimates beside them are for it too`,
  gpuUnknown: (device: string, evidence: string, selected: string) =>
    `the profile ran on ${device} (${evidence}), which is not the selected ${selected} and not a GPU of the table: its dots are placed under ${selected}'s roofs, which may not be the ones it ran under`,
  tooLarge: (limit: number) => `the export has more than ${limit} launches: the rest are ignored`,
  unmatched: (names: string) => `no source kernel matches the measured ${names}`,
  ambiguous: (name: string, candidates: string) =>
    `measured kernel ${name} matches several source kernels (${candidates}): add an override to choose one`,
  overrideUnknown: (from: string, to: string) => `override "${from}" → "${to}": no source kernel is called "${to}"`,
  overrideAmbiguous: (from: string, to: string, candidates: string) =>
    `override "${from}" → "${to}" matches several source kernels (${candidates}): write it as file:name`,
  overrideUnused: (from: string) => `override "${from}" matches no measured kernel`,
} as const;

export type ProfileMessageId = keyof typeof PMSG;

export function pdiag(code: ProfileMessageId, severity: ProfileSeverity, message: string, line?: number): ProfileDiagnostic {
  return line === undefined ? { code, severity, message } : { code, severity, message, line };
}

/** "kernel a (line 4)", "3 launches of a, b" — the subject list of a summarised message. */
export function describeSubjects(names: string[], lines: number[]): string {
  const distinct = [...new Set(names)];
  const shown = distinct.slice(0, 3).map((n) => `\`${shortName(n)}\``).join(', ') + (distinct.length > 3 ? `, +${distinct.length - 3} more` : '');
  if (names.length === 1) return lines.length === 1 ? `${shown} (line ${lines[0]})` : shown;
  return `${names.length} launches of ${shown}`;
}

/** A kernel name short enough for a message. */
export function shortName(name: string): string {
  return name.length > 80 ? name.slice(0, 77) + '…' : name;
}

/**
 * Metric names with a common prefix and suffix written once:
 * `sm__sass_thread_inst_executed_op_{fadd,fmul}_pred_on.sum`.
 */
export function compactMetrics(names: string[]): string {
  const fp = /^(sm__sass_thread_inst_executed_op_)([a-z]+)(_pred_on\.sum)$/;
  const ops = names.map((n) => fp.exec(n)?.[2]).filter((o): o is string => o !== undefined);
  const others = names.filter((n) => !fp.test(n));
  const grouped = ops.length > 1 ? [`sm__sass_thread_inst_executed_op_{${ops.join(',')}}_pred_on.sum`] : names.filter((n) => fp.test(n));
  return [...others, ...grouped].join(', ');
}
