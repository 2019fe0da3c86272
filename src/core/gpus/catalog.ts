/**
 * The GPU table and its lookup. The numbers live in gpus.json (each with the
 * document it comes from, see docs/gpus.md for the rules); they go through
 * validate.ts, the same validator as a `--gpu-file` or the
 * `rooflineLens.customGpus` setting, when this module loads.
 *
 * Pure: no I/O. Nothing here throws on user input; a built-in table that
 * does not validate throws at load (test/gpus.test.ts keeps that from
 * shipping).
 */
import TABLE from './gpus.json';
import type { GpuCatalog, GpuSpec } from './types';
import { validateGpuFile } from './validate';

/** The GPU the analysis uses when none is configured. */
export const DEFAULT_GPU_ID = 'h100-sxm';

/** The built-in table, validated; throws (a bug in gpus.json, not a user error) when it is not valid. */
function loadBuiltIn(doc: unknown): GpuCatalog {
  const { format, version, gpus, errors } = validateGpuFile(doc);
  if (format === undefined) errors.push('format: missing');
  if (version === undefined) errors.push('version: missing');
  if (errors.length || format === undefined || version === undefined) throw new Error(`the built-in GPU table (src/core/gpus/gpus.json) is not valid: ${errors.join('; ')}`);
  return { format, version, gpus };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

/** Every GPU the analysis knows, frozen (copy an entry before changing it). */
export const GPU_CATALOG: GpuCatalog = deepFreeze(loadBuiltIn(TABLE));

/** Bumped whenever a number changes (gpus.json's `version`). */
export const GPU_CATALOG_VERSION = GPU_CATALOG.version;

/** The ids of the built-in table: a user's GPU may not take one. */
export const CATALOG_IDS: ReadonlySet<string> = new Set(GPU_CATALOG.gpus.map((g) => g.id));

// ---------------------------------------------------------------------------
// Lookup
// ---------------------------------------------------------------------------

/** Common spellings → catalog id (keys are already normalised). */
const ALIASES: Readonly<Record<string, string>> = {
  h100: 'h100-sxm',
  'h100-sxm5': 'h100-sxm',
  h100sxm: 'h100-sxm',
  'h100-80gb': 'h100-sxm',
  'h100-80gb-hbm3': 'h100-sxm',
  h100pcie: 'h100-pcie',
  'h200-sxm': 'h200',
  'h200-sxm-141gb': 'h200',
  'b200-sxm': 'b200',
  'hgx-b200': 'b200',
  'gb200-nvl72': 'gb200',
  a100: 'a100-sxm-80gb',
  'a100-80gb': 'a100-sxm-80gb',
  'a100-sxm': 'a100-sxm-80gb',
  'a100-sxm4-80gb': 'a100-sxm-80gb',
  'a100-sxm-40gb': 'a100-40gb',
  'a100-sxm4-40gb': 'a100-40gb',
  'a100-40': 'a100-40gb',
  '4090': 'rtx-4090',
  rtx4090: 'rtx-4090',
  'geforce-rtx-4090': 'rtx-4090',
  '4080': 'rtx-4080',
  rtx4080: 'rtx-4080',
  'geforce-rtx-4080': 'rtx-4080',
  '5090': 'rtx-5090',
  rtx5090: 'rtx-5090',
  'geforce-rtx-5090': 'rtx-5090',
  'tesla-t4': 't4',
  'v100-sxm2': 'v100',
  'v100-sxm2-32gb': 'v100',
  'tesla-v100': 'v100',
  'instinct-mi300x': 'mi300x',
  'mi300x-oam': 'mi300x',
  'instinct-mi325x': 'mi325x',
  'instinct-mi250x': 'mi250x',
  'nvidia-a10': 'a10',
  'nvidia-a40': 'a40',
  'nvidia-l4': 'l4',
  'nvidia-l40': 'l40',
  'nvidia-l40s': 'l40s',
};

const BY_ID = new Map<string, GpuSpec>(GPU_CATALOG.gpus.map((g) => [g.id, g]));
const BY_NAME = new Map<string, GpuSpec>(GPU_CATALOG.gpus.map((g) => [normaliseId(g.name), g]));

function normaliseId(s: string): string {
  return s
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-');
}

/**
 * The catalog GPU with this id, case-insensitively; also accepts display names
 * ("H100 SXM") and common aliases ("h100" → h100-sxm, "a100" → a100-sxm-80gb,
 * "4090" → rtx-4090). Undefined when unknown.
 */
export function findGpu(id: string): GpuSpec | undefined {
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) return undefined;
  let key = normaliseId(id);
  if (key.startsWith('nvidia-') && !BY_ID.has(key) && !ALIASES[key]) key = key.slice('nvidia-'.length);
  if (key.startsWith('amd-') && !BY_ID.has(key)) key = key.slice('amd-'.length);
  return BY_ID.get(key) ?? BY_ID.get(ALIASES[key] ?? '') ?? BY_NAME.get(key);
}

/** Ids of every catalog GPU, in table order. */
export function gpuIds(): string[] {
  return GPU_CATALOG.gpus.map((g) => g.id);
}
