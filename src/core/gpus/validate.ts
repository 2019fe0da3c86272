/**
 * The one validator of GPU descriptions: the built-in table (gpus.json), a
 * `--gpu-file` and the `rooflineLens.customGpus` setting all go through it,
 * with the same rules and the same messages.
 *
 * A GPU file is a JSON array of GPUs, or an object `{ "format": 1, "version":
 * "...", "gpus": [...] }` (both fields optional in a user's file; other
 * fields are ignored). Each GPU has the shape of GpuSpec. See docs/gpus.md.
 *
 * Pure: no I/O, never throws, and every message is short (a huge or hostile
 * value is described, not echoed).
 */
import type { GpuSpec, TensorDtype, VectorDtype } from './types';

/** The GPU file format this version reads and writes. */
export const GPU_FILE_FORMAT = 1;

/** Ids are lowercase, dash-separated, at most 64 characters. */
export const GPU_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** A list holds at most this many GPUs; the rest are not read. */
export const GPU_LIST_MAX = 100;

// ---------------------------------------------------------------------------
// One GPU
// ---------------------------------------------------------------------------

const TENSOR_DTYPES: readonly TensorDtype[] = ['fp64', 'tf32', 'fp16', 'bf16', 'fp8', 'int8'];
const VECTOR_DTYPES: readonly VectorDtype[] = ['fp64', 'fp32', 'fp16', 'bf16', 'int32'];
const VENDORS: readonly GpuSpec['vendor'][] = ['nvidia', 'amd', 'apple', 'google', 'intel', 'custom'];
const KNOWN_FIELDS = [
  'id',
  'name',
  'vendor',
  'architecture',
  'memoryBandwidth',
  'l2Bandwidth',
  'peaks',
  'sources',
  'notes',
] as const;

const MAX_KEYS = 1000;
const MAX_STRING = 1000;
const MAX_ERRORS = 50;
const BW_MIN = 1e9;
const BW_MAX = 1e14;
const PEAK_MIN = 1e9;
const PEAK_MAX = 1e17;

/** A short, safe rendering of any value for an error message. Never throws. */
function describe(v: unknown): string {
  try {
    if (v === undefined) return 'nothing';
    if (v === null) return 'null';
    if (typeof v === 'string') {
      if (v.length > MAX_STRING) return `a string of ${v.length} characters`;
      return v.length > 60 ? `${JSON.stringify(v.slice(0, 57))}…` : JSON.stringify(v);
    }
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
    if (Array.isArray(v)) return `an array of ${v.length} items`;
    if (typeof v === 'function') return 'a function';
    if (typeof v === 'symbol') return 'a symbol';
    return 'an object';
  } catch {
    return 'an unreadable value';
  }
}

/** 1e9, 3.35e12: exponent notation without the "+". */
function exp(n: number): string {
  return n.toExponential().replace('e+', 'e');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, field: string): string {
  return path ? `${path}.${field}` : field;
}

/** A human hint when a number looks like it was given in TB/s or TFLOP/s. */
function unitHint(n: number, unit: 'bytes/s' | 'FLOP/s'): string {
  if (n > 0 && n < 1e6) {
    const big = unit === 'bytes/s' ? (n < 100 ? 'TB/s' : 'GB/s') : n < 100 ? 'PFLOP/s' : 'TFLOP/s';
    const scale = big === 'TB/s' || big === 'TFLOP/s' ? 1e12 : big === 'GB/s' ? 1e9 : 1e15;
    return ` (looks like ${big}: ${n} ${big} is ${exp(n * scale)} ${unit})`;
  }
  return '';
}

class Collector {
  readonly errors: string[] = [];
  add(msg: string): void {
    if (this.errors.length < MAX_ERRORS) this.errors.push(msg);
    else if (this.errors.length === MAX_ERRORS) this.errors.push('… more errors not shown');
  }
}

/** Own enumerable keys, or null (with an error) when there are too many. */
function keysOf(obj: Record<string, unknown>, where: string, out: Collector): string[] | null {
  const keys = Object.keys(obj);
  if (keys.length > MAX_KEYS) {
    out.add(`${where}: too many keys (${keys.length}; at most ${MAX_KEYS})`);
    return null;
  }
  return keys;
}

function checkString(
  v: unknown,
  where: string,
  out: Collector,
  opts: { required: boolean; what: string },
): string | undefined {
  if (v === undefined && !opts.required) return undefined;
  if (typeof v !== 'string') {
    out.add(`${where}: expected ${opts.what}, got ${describe(v)}`);
    return undefined;
  }
  if (v.length > MAX_STRING) {
    out.add(`${where}: string too long (${v.length} characters; at most ${MAX_STRING})`);
    return undefined;
  }
  if (opts.required && v.trim().length === 0) {
    out.add(`${where}: expected ${opts.what}, got an empty string`);
    return undefined;
  }
  return v;
}

function checkRate(
  v: unknown,
  where: string,
  out: Collector,
  unit: 'bytes/s' | 'FLOP/s',
  min: number,
  max: number,
): number | undefined {
  if (typeof v !== 'number') {
    out.add(`${where}: expected ${unit} as a number > 0, got ${describe(v)}`);
    return undefined;
  }
  if (!Number.isFinite(v) || v <= 0) {
    out.add(`${where}: expected ${unit} as a finite number > 0, got ${describe(v)}`);
    return undefined;
  }
  if (v < min || v > max) {
    out.add(
      `${where}: expected ${unit} between ${exp(min)} and ${exp(max)}, got ${describe(v)}${unitHint(v, unit)}`,
    );
    return undefined;
  }
  return v;
}

function checkPeakGroup<D extends string>(
  v: unknown,
  where: string,
  out: Collector,
  allowed: readonly D[],
  kind: string,
): Partial<Record<D, number>> {
  const result: Partial<Record<D, number>> = {};
  if (v === undefined) return result;
  if (!isPlainObject(v)) {
    out.add(`${where}: expected an object of ${kind} peaks in FLOP/s (e.g. { "fp16": 989.4e12 }), got ${describe(v)}`);
    return result;
  }
  const keys = keysOf(v, where, out);
  if (!keys) return result;
  for (const k of keys) {
    const field = join(where, k.length > 40 ? `${k.slice(0, 37)}…` : k);
    if (!(allowed as readonly string[]).includes(k)) {
      out.add(`${field}: unknown ${kind} dtype (expected one of ${allowed.join(', ')})`);
      continue;
    }
    const n = checkRate(v[k], field, out, 'FLOP/s', PEAK_MIN, PEAK_MAX);
    if (n !== undefined) result[k as D] = n;
  }
  return result;
}

function validateInner(x: unknown, path: string, out: Collector): GpuSpec | undefined {
  const root = path || 'gpu';
  if (!isPlainObject(x)) {
    out.add(`${root}: expected a GPU object { id, name, memoryBandwidth, peaks, ... }, got ${describe(x)}`);
    return undefined;
  }
  const keys = keysOf(x, root, out);
  if (!keys) return undefined;
  for (const k of keys) {
    if (!(KNOWN_FIELDS as readonly string[]).includes(k)) {
      const shown = k.length > 40 ? `${k.slice(0, 37)}…` : k;
      out.add(`${join(path, shown)}: unknown field (expected ${KNOWN_FIELDS.join(', ')})`);
    }
  }

  // id
  let id: string | undefined;
  const rawId = x.id;
  if (typeof rawId !== 'string') {
    out.add(`${join(path, 'id')}: expected a lowercase id like "my-gpu" (a-z, 0-9, dashes), got ${describe(rawId)}`);
  } else if (!GPU_ID_PATTERN.test(rawId)) {
    out.add(
      `${join(path, 'id')}: expected a lowercase id like "my-gpu" (a-z, 0-9, dashes, at most 64 characters, starting with a letter or digit), got ${describe(rawId)}`,
    );
  } else {
    id = rawId;
  }

  const name = checkString(x.name, join(path, 'name'), out, { required: true, what: 'a display name (string)' });

  let vendor: GpuSpec['vendor'] = 'custom';
  if (x.vendor !== undefined) {
    const v = typeof x.vendor === 'string' && x.vendor.length <= 20 ? x.vendor.trim().toLowerCase() : undefined;
    if (v !== undefined && (VENDORS as readonly string[]).includes(v)) {
      vendor = v as GpuSpec['vendor'];
    } else {
      out.add(`${join(path, 'vendor')}: expected one of ${VENDORS.join(', ')} (or leave it out), got ${describe(x.vendor)}`);
    }
  }

  const architecture =
    checkString(x.architecture, join(path, 'architecture'), out, { required: false, what: 'a string' }) ?? 'custom';

  const memoryBandwidth = checkRate(x.memoryBandwidth, join(path, 'memoryBandwidth'), out, 'bytes/s', BW_MIN, BW_MAX);

  let l2Bandwidth: number | null = null;
  if (x.l2Bandwidth !== undefined && x.l2Bandwidth !== null) {
    l2Bandwidth = checkRate(x.l2Bandwidth, join(path, 'l2Bandwidth'), out, 'bytes/s', BW_MIN, BW_MAX) ?? null;
  }

  // peaks
  let tensor: GpuSpec['peaks']['tensor'] = {};
  let vector: GpuSpec['peaks']['vector'] = {};
  const peaksPath = join(path, 'peaks');
  const rawPeaks = x.peaks;
  let peaksOk = false;
  if (!isPlainObject(rawPeaks)) {
    out.add(
      `${peaksPath}: expected { "tensor": { dtype: FLOP/s }, "vector": { dtype: FLOP/s } } with at least one peak, got ${describe(rawPeaks)}`,
    );
  } else {
    const pk = keysOf(rawPeaks, peaksPath, out);
    if (pk) {
      peaksOk = true;
      for (const k of pk) {
        if (k !== 'tensor' && k !== 'vector') {
          const shown = k.length > 40 ? `${k.slice(0, 37)}…` : k;
          out.add(`${join(peaksPath, shown)}: unknown field (expected tensor, vector)`);
        }
      }
      tensor = checkPeakGroup(rawPeaks.tensor, join(peaksPath, 'tensor'), out, TENSOR_DTYPES, 'tensor');
      vector = checkPeakGroup(rawPeaks.vector, join(peaksPath, 'vector'), out, VECTOR_DTYPES, 'vector');
      if (
        Object.keys(tensor).length + Object.keys(vector).length === 0 &&
        !out.errors.some((e) => e.startsWith(`${peaksPath}.`))
      ) {
        out.add(`${peaksPath}: expected at least one peak (e.g. "vector": { "fp32": 60e12 }), got none`);
      }
    }
  }

  // sources
  const sources: Record<string, string> = {};
  if (x.sources !== undefined) {
    const sp = join(path, 'sources');
    if (!isPlainObject(x.sources)) {
      out.add(`${sp}: expected an object of citations { field: "document, URL" }, got ${describe(x.sources)}`);
    } else {
      const sk = keysOf(x.sources, sp, out);
      if (sk) {
        for (const k of sk) {
          if (k.length > MAX_STRING) {
            out.add(`${sp}: key too long (${k.length} characters; at most ${MAX_STRING})`);
            continue;
          }
          const s = checkString(x.sources[k], join(sp, k.length > 40 ? `${k.slice(0, 37)}…` : k), out, {
            required: false,
            what: 'a citation string',
          });
          if (s !== undefined) sources[k] = s;
        }
      }
    }
  }

  // notes
  const notes: string[] = [];
  if (x.notes !== undefined) {
    const np = join(path, 'notes');
    if (!Array.isArray(x.notes)) {
      out.add(`${np}: expected an array of strings, got ${describe(x.notes)}`);
    } else if (x.notes.length > MAX_KEYS) {
      out.add(`${np}: too many notes (${x.notes.length}; at most ${MAX_KEYS})`);
    } else {
      x.notes.forEach((n: unknown, i: number) => {
        const s = checkString(n, `${np}[${i}]`, out, { required: false, what: 'a string' });
        if (s !== undefined) notes.push(s);
        else if (n === undefined) out.add(`${np}[${i}]: expected a string, got nothing`);
      });
    }
  }

  if (out.errors.length > 0 || id === undefined || name === undefined || memoryBandwidth === undefined || !peaksOk) {
    return undefined;
  }
  const gpu: GpuSpec = {
    id,
    name,
    vendor,
    architecture,
    memoryBandwidth,
    l2Bandwidth,
    peaks: { tensor, vector },
    sources,
  };
  if (notes.length) gpu.notes = notes;
  return gpu;
}

/**
 * Checks one GPU (the shape of GpuSpec; `vendor`, `architecture`,
 * `l2Bandwidth`, `sources` and `notes` optional, vendor defaulting to
 * "custom"). Returns the GPU when valid (a fresh copy), else undefined, plus
 * messages naming each bad field under `path` (e.g. "customGpus[0].memoryBandwidth:
 * expected bytes/s as a number > 0, got \"3.35 TB/s\""). Never throws.
 */
export function validateGpu(x: unknown, path = ''): { gpu?: GpuSpec; errors: string[] } {
  const prefix = typeof path === 'string' && path.length <= 200 ? path : '';
  const out = new Collector();
  try {
    const gpu = validateInner(x, prefix, out);
    if (gpu && out.errors.length === 0) return { gpu, errors: [] };
    if (out.errors.length === 0) out.add(`${prefix || 'gpu'}: not a valid GPU`);
    return { errors: out.errors };
  } catch (e) {
    let why = 'unknown error';
    try {
      why = e instanceof Error ? e.message.slice(0, 200) : describe(e);
    } catch {
      /* keep the default */
    }
    return { errors: [...out.errors, `${prefix || 'gpu'}: could not read the object (${why})`] };
  }
}

// ---------------------------------------------------------------------------
// Lists and files
// ---------------------------------------------------------------------------

export interface GpuListResult {
  /** The valid GPUs, in order; of two with one id, the first. */
  gpus: GpuSpec[];
  /** One message per problem, naming the entry and the field. */
  errors: string[];
}

/**
 * Checks a list of GPUs under `path` (`gpus`, `rooflineLens.customGpus`):
 * each entry as validateGpu does, plus: ids unique, no id from `reserved`
 * (the built-in table's, for a user's list), at most GPU_LIST_MAX entries
 * read. Never throws.
 */
export function validateGpuList(items: unknown, path: string, reserved: ReadonlySet<string> = new Set()): GpuListResult {
  if (!Array.isArray(items)) return { gpus: [], errors: [`${path}: expected an array of GPU objects, got ${describe(items)}`] };
  const gpus: GpuSpec[] = [];
  const errors: string[] = [];
  const firstAt = new Map<string, string>();
  try {
    if (items.length > GPU_LIST_MAX) errors.push(`${path}: ${items.length} GPUs, at most ${GPU_LIST_MAX} allowed: only the first ${GPU_LIST_MAX} are read`);
    items.slice(0, GPU_LIST_MAX).forEach((item, i) => {
      const where = `${path}[${i}]`;
      const { gpu, errors: problems } = validateGpu(item, where);
      if (!gpu) errors.push(...problems);
      else if (reserved.has(gpu.id)) errors.push(`${where}.id: "${gpu.id}" is a catalogue GPU; give the custom GPU its own id`);
      else if (firstAt.has(gpu.id)) errors.push(`${where}.id: "${gpu.id}" is defined twice (first at ${firstAt.get(gpu.id)})`);
      else {
        firstAt.set(gpu.id, where);
        gpus.push(gpu);
      }
    });
  } catch {
    errors.push(`${path}: could not read the list`);
  }
  return { gpus, errors };
}

export interface GpuFileResult extends GpuListResult {
  /** The file's `format` and `version`, when it has them (and they are valid). */
  format?: number;
  version?: string;
}

/**
 * Checks a GPU file (already parsed from JSON): an array of GPUs, or
 * `{ "format": 1, "version": "...", "gpus": [...] }`. Entries are named
 * `gpus[i]` either way. Never throws.
 */
export function validateGpuFile(doc: unknown, reserved: ReadonlySet<string> = new Set()): GpuFileResult {
  if (Array.isArray(doc)) return validateGpuList(doc, 'gpus', reserved);
  if (!isPlainObject(doc) || !Array.isArray(doc.gpus)) {
    return { gpus: [], errors: [`expected a JSON array of GPUs or an object {"gpus": [...]}, got ${describe(doc)}`] };
  }
  const head = new Collector();
  let format: number | undefined;
  if (doc.format !== undefined) {
    if (doc.format === GPU_FILE_FORMAT) format = GPU_FILE_FORMAT;
    else head.add(`format: expected ${GPU_FILE_FORMAT} (the GPU file format this version reads), got ${describe(doc.format)}`);
  }
  const version = doc.version === undefined ? undefined : checkString(doc.version, 'version', head, { required: true, what: 'a version string' });
  const { gpus, errors } = validateGpuList(doc.gpus, 'gpus', reserved);
  const result: GpuFileResult = { gpus, errors: [...head.errors, ...errors] };
  if (format !== undefined) result.format = format;
  if (version !== undefined) result.version = version;
  return result;
}
