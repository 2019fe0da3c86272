/**
 * The analysis report: exactly the JSON COUNTING.md specifies, plus a few
 * extra fields (sources of bindings, assumptions, breakdowns, time bounds) the
 * hover and the chart use. Numbers that cannot be evaluated are `null`.
 */
import type { Dtype, GpuSpec } from '../gpus/types';
import type { Diagnostic, Language, UnitKind, BindingSource } from '../ir';

export interface PerUnit {
  flops: number | null;
  loadBytes: number | null;
  storeBytes: number | null;
  sharedBytes?: number | null;
  uniformBytes?: number | null;
  specialOps?: number | null;
  intOps?: number | null;
}

export interface RegionReport {
  line: number;
  kind: 'loop' | 'branch';
  label: string;
  /** Trips per entry into the loop (1 for a branch). */
  trips: number | null;
  tripsFormula: string;
  /** Contribution to the unit's totals (all enclosing trips included). */
  flops: number | null;
  loadBytes: number | null;
  storeBytes: number | null;
}

export interface TimeBounds {
  /** Seconds. */
  math: number | null;
  memory: number | null;
  lower: number | null;
  upper: number | null;
}

export interface BreakdownItem {
  label: string;
  line: number;
  value: number | null;
  formula: string;
}

export interface KernelReport {
  name: string;
  line: number;
  endLine?: number;
  unit: UnitKind;
  bindings: Record<string, number | boolean | string>;
  bindingSources: Record<string, { source: BindingSource; detail: string }>;
  unbound: string[];
  perUnit: PerUnit;
  units: number | null;
  computeDtype: Dtype;
  arithmeticIntensity: number | null;
  compulsoryIntensity: number | null;
  compulsory: { loadBytes: number | null; storeBytes: number | null; flops: number | null; note?: string } | null;
  peak: { kind: 'tensor' | 'vector'; dtype: Dtype; flops: number };
  ridgePoint: number;
  l2RidgePoint: number | null;
  bound: 'memory' | 'compute' | 'unknown';
  boundLevel: 'dram' | 'l2' | null;
  attainableFlops: number | null;
  time: { perUnit: TimeBounds; launch: TimeBounds | null };
  formulas: { flops: string; loadBytes: string; storeBytes: string; units?: string };
  regions: RegionReport[];
  breakdown: { flops: BreakdownItem[]; bytes: BreakdownItem[] };
  assumptions: string[];
  /** 'ok' when every count evaluated, 'partial' when some are symbolic. */
  status: 'ok' | 'partial';
}

export interface FileReport {
  path: string;
  language: Language;
  diagnostics: Diagnostic[];
  kernels: KernelReport[];
  /** Present when the time slice ended first: analyse again to get the rest. */
  partial?: { analysed: number; total: number };
}

export interface GpuSummary {
  id: string;
  name: string;
  memoryBandwidth: number;
  l2Bandwidth: number | null;
  peaks: GpuSpec['peaks'];
}

export interface AnalysisReport {
  schemaVersion: 1;
  gpu: GpuSummary;
  files: FileReport[];
}
