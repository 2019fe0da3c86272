/**
 * Which GPU of the table a profile's device is: from what the export says
 * about it — its name (`device__attribute_display_name`), compute capability
 * (ncu's `CC` column, Proton's `arch`), AMD architecture (`gfx942`), and the
 * DRAM bandwidth its clocks imply — so each measured dot is placed under the
 * roofs of the GPU it ran on, and a profile of another GPU than the selected
 * one is said to be so.
 *
 * The selected GPU is kept whenever nothing in the export contradicts it (an
 * H100 profile without bandwidth information is compatible with both H100
 * SXM and H100 PCIe: the selected one is used).
 */
import { findGpu } from '../gpus/catalog';
import type { GpuSpec } from '../gpus/types';
import type { ProfileDevice } from './types';

/**
 * Compute capability → the table's GPUs of that capability (NVIDIA's "CUDA
 * GPUs – Compute Capability" list).
 */
const BY_CC: Record<string, string[]> = {
  '7.0': ['v100'],
  '7.5': ['t4'],
  '8.0': ['a100-sxm-80gb', 'a100-40gb'],
  '8.6': ['a10', 'a40'],
  '8.9': ['l4', 'l40', 'l40s', 'rtx-4090', 'rtx-4080'],
  '9.0': ['h100-sxm', 'h100-pcie', 'h200'],
  '10.0': ['b200', 'gb200'],
  '12.0': ['rtx-5090'],
};

/** AMD architecture names → the table's GPUs. */
const BY_GFX: Record<string, string[]> = {
  gfx90a: ['mi250x'],
  gfx942: ['mi300x', 'mi325x'],
};

/** Compute capability → architecture name as the GPU table writes it. */
function architectureOf(cc: string): string | undefined {
  const [major, minor] = cc.split('.').map(Number);
  if (major === 7) return minor === 5 ? 'Turing' : 'Volta';
  if (major === 8) return minor === 9 ? 'Ada Lovelace' : 'Ampere';
  if (major === 9) return 'Hopper';
  if (major === 10 || major === 11 || major === 12) return 'Blackwell';
  return undefined;
}

/** Two DRAM bandwidths within 12 % of each other describe the same memory system. */
const BANDWIDTH_TOLERANCE = 0.12;

export interface DeviceGpu {
  device: ProfileDevice;
  /** The table GPU the device is, or the selected one when the export says too little. */
  gpu: GpuSpec;
  /** True when the export identifies (or at least fits) `gpu`; false when it says nothing usable. */
  known: boolean;
  /** False when the export contradicts the selected GPU; null when it cannot tell. */
  isSelected: boolean | null;
  /** Other table GPUs that fit the export as well. */
  alternatives: string[];
  /** How the device was identified, one phrase: "CC 9.0, 3.35 TB/s". */
  evidence: string;
}

/** The device's GPU among `gpus` (the table and any custom GPUs), preferring `selected`. */
export function identifyDevice(device: ProfileDevice, gpus: readonly GpuSpec[], selected: GpuSpec): DeviceGpu {
  const evidence = describeEvidence(device);
  const named = device.name ? (findGpu(device.name) ?? findGpu(device.name.replace(/^(nvidia|amd)\s+/i, ''))) : undefined;
  const says = named !== undefined || device.cc !== undefined || device.gfx !== undefined || device.memoryBandwidth !== undefined;
  if (!says) return { device, gpu: selected, known: false, isSelected: null, alternatives: [], evidence };
  const fits = (g: GpuSpec) => consistent(g, device, named);
  if (fits(selected)) {
    const others = tableCandidates(device, gpus).filter((g) => g.id !== selected.id && fits(g));
    return { device, gpu: selected, known: true, isSelected: true, alternatives: others.map((g) => g.id), evidence };
  }
  const candidates = named ? [named] : tableCandidates(device, gpus).filter(fits);
  if (candidates.length === 0) return { device, gpu: selected, known: false, isSelected: false, alternatives: [], evidence };
  const bw = device.memoryBandwidth;
  const best = bw === undefined ? candidates[0] : [...candidates].sort((a, b) => Math.abs(a.memoryBandwidth - bw) - Math.abs(b.memoryBandwidth - bw))[0];
  return { device, gpu: best, known: true, isSelected: false, alternatives: candidates.filter((g) => g !== best).map((g) => g.id), evidence };
}

function tableCandidates(device: ProfileDevice, gpus: readonly GpuSpec[]): GpuSpec[] {
  const ids = device.cc ? (BY_CC[device.cc] ?? []) : device.gfx ? (BY_GFX[device.gfx] ?? []) : [];
  const byId = new Map(gpus.map((g) => [g.id, g]));
  return ids.map((id) => byId.get(id)).filter((g): g is GpuSpec => g !== undefined);
}

/** Does nothing the export says about the device contradict `g`? */
function consistent(g: GpuSpec, device: ProfileDevice, named: GpuSpec | undefined): boolean {
  if (named && named.id !== g.id) return false;
  if (device.cc) {
    const tableCc = Object.entries(BY_CC).find(([, ids]) => ids.includes(g.id))?.[0];
    if (tableCc !== undefined ? tableCc !== device.cc : g.vendor !== 'nvidia' || architectureOf(device.cc) !== g.architecture) return false;
  }
  if (device.gfx) {
    const tableGfx = Object.entries(BY_GFX).find(([, ids]) => ids.includes(g.id))?.[0];
    if (tableGfx !== undefined ? tableGfx !== device.gfx : g.vendor !== 'amd') return false;
  }
  if (device.memoryBandwidth !== undefined && Math.abs(g.memoryBandwidth - device.memoryBandwidth) > BANDWIDTH_TOLERANCE * g.memoryBandwidth) return false;
  return true;
}

function describeEvidence(d: ProfileDevice): string {
  const parts: string[] = [];
  if (d.name) parts.push(d.name);
  if (d.cc) parts.push(`CC ${d.cc}`);
  if (d.gfx) parts.push(d.gfx);
  if (d.smCount) parts.push(`${d.smCount} SMs`);
  if (d.memoryBandwidth) parts.push(`${(d.memoryBandwidth / 1e12).toPrecision(3)} TB/s DRAM`);
  return parts.join(', ');
}
