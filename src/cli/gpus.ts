/**
 * GPUs on the command line: `--gpu ID[,ID...]`, `--gpu-file FILE` (custom
 * GPUs, the schema of the `rooflineLens.customGpus` setting) and the `gpus`
 * command, which lists every number of the catalogue with its source.
 */
import * as fs from 'node:fs';
import { CATALOG_IDS, DEFAULT_GPU_ID, findGpu, GPU_CATALOG } from '../core/gpus/catalog';
import type { GpuSpec } from '../core/gpus/types';
import { validateGpuFile } from '../core/gpus/validate';
import { CliError, usageError } from './args';

/** `--gpu-file` is read only up to this size. */
export const GPU_FILE_MAX_BYTES = 1024 * 1024;

function readJson(file: string): unknown {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (e) {
    throw new CliError(`--gpu-file ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (!st.isFile()) throw new CliError(`--gpu-file ${file}: not a file`);
  if (st.size > GPU_FILE_MAX_BYTES) throw new CliError(`--gpu-file ${file}: ${st.size} bytes, more than the ${GPU_FILE_MAX_BYTES} bytes allowed`);
  const text = fs.readFileSync(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new CliError(`--gpu-file ${file}: not valid JSON (${(e as Error).message})`);
  }
}

/** Reads and checks a `--gpu-file` (the format of the built-in table, see core/gpus/validate.ts); any problem is a CliError naming the file and the field. */
export function loadGpuFile(file: string): GpuSpec[] {
  const { gpus, errors } = validateGpuFile(readJson(file), CATALOG_IDS);
  if (errors.length) throw new CliError(`--gpu-file ${file}: ${errors.length} problem(s):\n  ${errors.join('\n  ')}`);
  return gpus;
}

/** Custom GPUs of every `--gpu-file` given. */
export function loadGpuFiles(files: string[]): GpuSpec[] {
  const out: GpuSpec[] = [];
  for (const f of files)
    for (const g of loadGpuFile(f)) {
      if (out.some((x) => x.id === g.id)) throw new CliError(`--gpu-file ${f}: "${g.id}" is already defined by another --gpu-file`);
      out.push(g);
    }
  return out;
}

/** The GPUs of `--gpu a,b,c` (custom GPUs first, then the catalogue and its aliases), without repeats. */
export function selectGpus(ids: string[], custom: GpuSpec[]): GpuSpec[] {
  const out: GpuSpec[] = [];
  for (const id of ids.length ? ids : [DEFAULT_GPU_ID]) {
    const g = custom.find((c) => c.id === id) ?? findGpu(id);
    if (!g) {
      const known = [...GPU_CATALOG.gpus, ...custom].map((x) => x.id).join(', ');
      throw usageError(`unknown GPU '${id}'; known: ${known}`);
    }
    if (!out.some((x) => x.id === g.id)) out.push(g);
  }
  return out;
}

// ---------------------------------------------------------------------------
// The `gpus` command
// ---------------------------------------------------------------------------

const SCALES = [
  { v: 1e12, p: 'T' },
  { v: 1e9, p: 'G' },
  { v: 1e6, p: 'M' },
];

/** A number exactly as stored, in the unit datasheets use: 989.4e12 → "989.4 TFLOP/s", 3.2768e12 → "3.2768 TB/s". */
export function exact(x: number, unit: string): string {
  const s = SCALES.find((sc) => Math.abs(x) >= sc.v) ?? { v: 1, p: '' };
  return `${Number((x / s.v).toPrecision(12))} ${s.p}${unit}`;
}

function peakList(peaks: Partial<Record<string, number>>): string {
  const e = Object.entries(peaks).filter((x): x is [string, number] => typeof x[1] === 'number');
  return e.length ? e.map(([d, v]) => `${d} ${exact(v, d.startsWith('int') ? 'OP/s' : 'FLOP/s')}`).join(', ') : '—';
}

function ridgeList(g: GpuSpec): string {
  const parts: string[] = [];
  for (const [kind, peaks] of [['tensor', g.peaks.tensor], ['vector', g.peaks.vector]] as const)
    for (const [d, v] of Object.entries(peaks)) if (typeof v === 'number') parts.push(`${d} ${kind} ${Number((v / g.memoryBandwidth).toPrecision(3))}`);
  return parts.join(', ');
}

function gpuBlock(g: GpuSpec, custom: boolean): string {
  const src = (key: string): string => (g.sources[key] ? `\n      source: ${g.sources[key]}` : custom ? '' : '\n      source: —');
  const lines = [
    `${g.id}  ${g.name} (${g.vendor}${g.architecture ? `, ${g.architecture}` : ''})${custom ? ' [--gpu-file]' : ''}`,
    `  DRAM    ${exact(g.memoryBandwidth, 'B/s')}${src('memoryBandwidth')}`,
    `  L2      ${g.l2Bandwidth === null ? 'unknown (no L2 term)' : exact(g.l2Bandwidth, 'B/s') + src('l2Bandwidth')}`,
    `  tensor  ${peakList(g.peaks.tensor)}${Object.keys(g.peaks.tensor).length ? src('peaks.tensor') : ''}`,
    `  vector  ${peakList(g.peaks.vector)}${Object.keys(g.peaks.vector).length ? src('peaks.vector') : ''}`,
    `  ridge   ${ridgeList(g)} FLOP/B (peak ÷ DRAM bandwidth)`,
  ];
  for (const n of g.notes ?? []) lines.push(`  note    ${n}`);
  return lines.join('\n');
}

/** `roofline-lens gpus`: every number of every GPU with its source. */
export function gpusText(custom: GpuSpec[]): string {
  const head = `GPU catalogue ${GPU_CATALOG.version}: dense peaks (int8: OP/s), vendor figures at the boost clock. Default: ${DEFAULT_GPU_ID}.`;
  const blocks = [...GPU_CATALOG.gpus.map((g) => gpuBlock(g, false)), ...custom.map((g) => gpuBlock(g, true))];
  return `${head}\n\n${blocks.join('\n\n')}\n`;
}

/** `roofline-lens gpus --format json`: the catalogue, plus `customGpus` when a --gpu-file was given. */
export function gpusJson(custom: GpuSpec[]): string {
  const doc = custom.length ? { ...GPU_CATALOG, customGpus: custom } : GPU_CATALOG;
  return JSON.stringify(doc, null, 2) + '\n';
}
