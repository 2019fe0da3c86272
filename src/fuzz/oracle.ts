/**
 * What every report must satisfy, whatever the input (the fuzzer's oracle):
 *
 * - no internal error (an exception the pipeline caught is still a crash);
 * - every number finite and ≥ 0, or null;
 * - per-unit counts are whole numbers unless a loop's trips are averaged
 *   (persistent loops, loops over the program id: 4096/132 trips) or the
 *   user bound a fraction;
 * - attainable FLOP/s at most the peak, and the bound consistent with it;
 * - a count that is null says why: an unbound symbol or a diagnostic.
 *
 * Each finding carries a signature (kind + what, without kernel names and
 * numbers) so that thousands of inputs hitting one bug count as one bug.
 */
import type { FileReport, KernelReport } from '../core/report/types';

export type FindingKind = 'throw' | 'crash' | 'internal' | 'hang' | 'bad-number' | 'inconsistent' | 'unexplained-unknown' | 'cache-mismatch';

export interface Finding {
  kind: FindingKind;
  /** What exactly, for the person fixing it. */
  detail: string;
  /** Stable across inputs hitting the same bug. */
  signature: string;
}

const INTEGER_COUNTS = ['flops', 'loadBytes', 'storeBytes', 'sharedBytes', 'uniformBytes', 'specialOps', 'intOps'] as const;

/**
 * Messages of WebAssembly traps. After one, tree-sitter's module may be left
 * broken (its stack pointer is not restored), so every later parse in the
 * same process is suspect: the fuzzer replaces the worker.
 */
const WASM_TRAPS = ['memory access out of bounds', 'table index is out of bounds', 'null function or function signature mismatch', 'unreachable', 'call stack exhausted'];

export function isWasmTrap(f: Finding): boolean {
  return (f.kind === 'internal' || f.kind === 'throw' || f.kind === 'crash') && WASM_TRAPS.some((t) => f.detail.includes(t));
}

/** Digits, quoted names and identifiers in back-ticks stripped, so one bug has one signature. */
export function normalise(message: string): string {
  return message
    .replace(/`[^`]*`/g, '`…`')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+(\.\d+)?(e[+-]?\d+)?/gi, 'N')
    .slice(0, 160);
}

function finding(kind: FindingKind, detail: string, what: string): Finding {
  return { kind, detail, signature: `${kind}: ${what}` };
}

/** Every numeric field of a kernel report that must be finite and ≥ 0, with its path. */
function numbersOf(k: KernelReport): [string, number | null | undefined][] {
  const out: [string, number | null | undefined][] = [];
  for (const key of INTEGER_COUNTS) out.push([`perUnit.${key}`, k.perUnit[key]]);
  out.push(['units', k.units], ['arithmeticIntensity', k.arithmeticIntensity], ['compulsoryIntensity', k.compulsoryIntensity]);
  out.push(['peak.flops', k.peak.flops], ['ridgePoint', k.ridgePoint], ['l2RidgePoint', k.l2RidgePoint], ['attainableFlops', k.attainableFlops]);
  if (k.compulsory) out.push(['compulsory.loadBytes', k.compulsory.loadBytes], ['compulsory.storeBytes', k.compulsory.storeBytes], ['compulsory.flops', k.compulsory.flops]);
  for (const [scope, t] of [['perUnit', k.time.perUnit], ['launch', k.time.launch]] as const) {
    if (!t) continue;
    for (const f of ['math', 'memory', 'lower', 'upper'] as const) out.push([`time.${scope}.${f}`, t[f]]);
  }
  for (const r of k.regions) {
    for (const f of ['trips', 'flops', 'loadBytes', 'storeBytes'] as const) out.push([`regions[${r.kind}].${f}`, r[f]]);
  }
  for (const b of [...k.breakdown.flops, ...k.breakdown.bytes]) out.push(['breakdown.value', b.value]);
  return out;
}

function checkNumbers(k: KernelReport, out: Finding[]): void {
  for (const [where, v] of numbersOf(k)) {
    if (v === null || v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) out.push(finding('bad-number', `${k.name}.${where} = ${v}`, `${where} is ${badness(v)}`));
  }
}

function badness(v: unknown): string {
  if (typeof v !== 'number') return `a ${typeof v}`;
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return 'infinite';
  return 'negative';
}

/** Counts are whole numbers unless some loop's trips are averaged (fractional). */
function checkIntegers(k: KernelReport, out: Finding[]): void {
  const averaged = k.regions.some((r) => r.trips !== null && !Number.isInteger(r.trips));
  if (averaged) return;
  for (const key of INTEGER_COUNTS) {
    const v = k.perUnit[key];
    if (typeof v === 'number' && Number.isFinite(v) && !Number.isInteger(v)) {
      out.push(finding('bad-number', `${k.name}.perUnit.${key} = ${v} with whole trip counts`, `perUnit.${key} is fractional`));
    }
  }
}

function checkRoofline(k: KernelReport, out: Finding[]): void {
  if (k.attainableFlops !== null && k.attainableFlops > k.peak.flops * (1 + 1e-12)) {
    out.push(finding('inconsistent', `${k.name}: attainable ${k.attainableFlops} above the peak ${k.peak.flops}`, 'attainable above the peak'));
  }
  if ((k.attainableFlops === null) !== (k.bound === 'unknown')) {
    out.push(finding('inconsistent', `${k.name}: bound ${k.bound} with attainable ${k.attainableFlops}`, 'bound and attainable disagree'));
  }
  if (!(k.peak.flops > 0) || !(k.ridgePoint > 0)) {
    out.push(finding('inconsistent', `${k.name}: peak ${k.peak.flops}, ridge ${k.ridgePoint}`, 'peak or ridge not positive'));
  }
  const counts = [k.perUnit.flops, k.perUnit.loadBytes, k.perUnit.storeBytes];
  if (k.status === 'ok' && counts.some((v) => v === null)) {
    out.push(finding('inconsistent', `${k.name}: status ok with a null count`, 'status ok with a null count'));
  }
}

/** A null count needs a reason the user can see: an unbound symbol or a diagnostic. */
function checkExplained(k: KernelReport, report: FileReport, out: Finding[]): void {
  const missing = (['flops', 'loadBytes', 'storeBytes'] as const).filter((f) => k.perUnit[f] === null);
  if (missing.length === 0 || k.unbound.length > 0) return;
  const first = k.line;
  const last = k.endLine ?? Number.MAX_SAFE_INTEGER;
  const said = report.diagnostics.some((d) => d.line === 1 || (d.line >= first && d.line <= last) || d.message.includes(k.name));
  if (!said) {
    out.push(finding('unexplained-unknown', `${k.name}: ${missing.join(', ')} null with nothing unbound and no diagnostic`, `${missing.join(', ')} null without a reason`));
  }
}

/** What the user bound: `--set` values and the file's `roofline:` pragmas. */
export interface UserValues {
  set?: Record<string, unknown>;
  pragmas?: readonly { value: unknown }[];
}

/**
 * True when the user bound a fractional number (`--set n=0.5`, a pragma
 * `blockDim.x=1e-300`): counts scaled by it are fractional by the user's
 * own word, so they are not held to being whole.
 */
function boundFraction(user: UserValues): boolean {
  const values = [...Object.values(user.set ?? {}), ...(user.pragmas ?? []).map((p) => p.value)];
  return values.some((v) => typeof v === 'number' && !Number.isInteger(v));
}

/** Every problem of one report (`user`: what the user bound for it). */
export function inspect(report: FileReport, user: UserValues = {}): Finding[] {
  const out: Finding[] = [];
  const wholeCounts = !boundFraction(user);
  for (const d of report.diagnostics) {
    if (d.code === 'internal') out.push(finding('internal', d.message, normalise(d.message)));
  }
  for (const k of report.kernels) {
    checkNumbers(k, out);
    if (wholeCounts) checkIntegers(k, out);
    checkRoofline(k, out);
    checkExplained(k, report, out);
  }
  return out;
}
