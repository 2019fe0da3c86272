/**
 * Triton Proton profiles: the default JSON ("hatchet") output, a list whose
 * first element is the calling-context tree (`frame.name`, `metrics`,
 * `children`) and whose second describes the devices. A kernel is a node
 * whose metrics carry a time (`time (ns)`) and a `count` of invocations;
 * metrics are per node (not summed into the parents).
 *
 * `flops8`/`flops16`/`flops32`/`flops64` and `bytes` are what each kernel's
 * `launch_metadata` function returned, summed over its invocations: the
 * kernel author's formulas, not hardware counters. When the kernel node has
 * none but its parent (the op scope Proton's launch hook opens around the
 * launch) has them and launches only that kernel, the parent's are used.
 * Subtrees named `__proton_launch_metadata` (the work of computing that
 * metadata) are skipped, as proton-viewer does.
 *
 * Shape (Triton's third_party/proton: TreeData's hatchet dump and
 * proton-viewer): element [0] is the tree; kernel nodes carry `time (ns)`,
 * `count`, `device_id` (a string) and `device_type` ("CUDA", "HIP"); with the
 * launch hook the kernel's node is named by `launch_metadata`'s "name"
 * (`matmul_kernel [M=4096, N=4096, K=4096]`) and holds its flops8/16/32/64 and bytes.
 * Element [1] describes each device by type and id: `arch`, `num_sms`,
 * `clock_rate` and `memory_clock_rate` (kHz), `bus_width` (bits).
 */
import { DiagnosticCollector } from './collect';
import { PMSG, pdiag } from './messages';
import { analyseKernelName, splitLaunchName } from './names';
import type { FlopCounts, FlopDtype, MeasuredLaunch, ProfileDevice, ProfileImport } from './types';

const METADATA_SCOPE = '__proton_launch_metadata';
const MAX_NODES = 1_000_000;
/** Divisors from each time unit to seconds. */
const TIME_UNITS: Record<string, number> = { ns: 1e9, us: 1e6, ms: 1e3, s: 1 };
const FLOPS_WIDTH: Record<string, FlopDtype | null> = { flops8: 'fp8', flops16: 'fp16', flops32: 'fp32', flops64: 'fp64', flops: null };

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

interface Frame {
  node: Obj;
  path: string[];
  /** The parent's metrics (and name) when the parent launches exactly one kernel. */
  inherited: { metrics: Obj; name: string } | null;
}

export function parseProtonJson(text: string): ProfileImport {
  const sink = new DiagnosticCollector();
  const doc = readRoot(text, sink);
  const launches = doc ? walk(doc.root, sink) : [];
  if (doc && launches.length === 0) sink.add(pdiag('noLaunches', 'error', PMSG.noLaunches()));
  if (launches.some((l) => l.flops || l.dramBytes !== undefined)) sink.add(pdiag('protonAnnotated', 'info', PMSG.protonAnnotated()));
  const devices = doc ? readDevices(doc.devices, launches) : [];
  return { format: doc ? 'proton' : 'unknown', launches, devices, diagnostics: sink.finish() };
}

/**
 * The devices of element [1] (`{"CUDA": {"0": {"arch": "90", …}}}`), plus
 * any device a kernel names that element [1] does not describe.
 */
function readDevices(info: Json | undefined, launches: MeasuredLaunch[]): ProfileDevice[] {
  const out = new Map<string, ProfileDevice>();
  if (isObj(info))
    for (const [type, byId] of Object.entries(info)) {
      if (!isObj(byId)) continue;
      for (const [id, d] of Object.entries(byId)) {
        if (!isObj(d) || out.size >= 64) continue;
        const dev: ProfileDevice = { key: `${type}:${id}`, label: `${type} device ${id}` };
        const arch = typeof d.arch === 'number' ? String(d.arch) : typeof d.arch === 'string' ? d.arch.trim() : '';
        if (/^\d{2,3}$/.test(arch)) dev.cc = `${arch.slice(0, -1)}.${arch.slice(-1)}`;
        else if (/^gfx[0-9a-f]+$/i.test(arch)) dev.gfx = arch.toLowerCase();
        const sms = num(d.num_sms);
        if (sms !== undefined && sms > 0) dev.smCount = sms;
        const bus = num(d.bus_width);
        const memClock = num(d.memory_clock_rate);
        // As proton-viewer computes the peak: 2 (double data rate) × bus width (bits) × memory clock (kHz) / 8.
        if (bus !== undefined && memClock !== undefined && bus > 0 && memClock > 0) dev.memoryBandwidth = (2 * bus * memClock * 1e3) / 8;
        out.set(dev.key, dev);
      }
    }
  for (const l of launches)
    if (l.device !== undefined && !out.has(l.device)) {
      const [type, id] = l.device.split(':');
      out.set(l.device, { key: l.device, label: `${type} device ${id}` });
    }
  return [...out.values()];
}

function readRoot(text: string, sink: DiagnosticCollector): { root: Obj; devices: Json | undefined } | null {
  if (text.trim() === '') {
    sink.add(pdiag('empty', 'error', PMSG.empty()));
    return null;
  }
  let data: Json;
  try {
    data = JSON.parse(text) as Json;
  } catch (e) {
    sink.add(pdiag('invalidJson', 'error', PMSG.invalidJson(e instanceof Error ? e.message : 'parse error')));
    return null;
  }
  if (isObj(data) && 'traceEvents' in data) {
    sink.add(pdiag('protonTrace', 'error', PMSG.protonTrace()));
    return null;
  }
  const root = Array.isArray(data) ? data[0] : data;
  if (!isObj(root) || !isObj(root.frame)) {
    sink.add(pdiag('notProtonTree', 'error', PMSG.notProtonTree('the first element has no "frame"')));
    return null;
  }
  return { root, devices: Array.isArray(data) ? data[1] : undefined };
}

function walk(root: Obj, sink: DiagnosticCollector): MeasuredLaunch[] {
  const launches: MeasuredLaunch[] = [];
  const seen = new Map<string, number>();
  const stack: Frame[] = [{ node: root, path: [], inherited: null }];
  let visited = 0;
  while (stack.length > 0 && visited++ < MAX_NODES) {
    const { node, path, inherited } = stack.pop()!;
    const name = frameName(node);
    if (name === METADATA_SCOPE) continue;
    const metrics = isObj(node.metrics) ? node.metrics : {};
    const isRoot = node === root;
    if (!isRoot && isKernel(metrics)) {
      const launchIndex = seen.get(name) ?? 0;
      seen.set(name, launchIndex + 1);
      launches.push(kernelLaunch(name, path, metrics, inherited, launchIndex, sink));
    }
    const children = (Array.isArray(node.children) ? node.children : []).filter(isObj);
    const kernelChildren = children.filter((c) => isObj(c.metrics) && isKernel(c.metrics) && frameName(c) !== METADATA_SCOPE);
    const pass = !isRoot && kernelChildren.length === 1 && hasAnnotations(metrics) ? { metrics, name } : null;
    const childPath = isRoot ? path : [...path, name];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], path: childPath, inherited: pass });
  }
  if (visited > MAX_NODES) sink.add(pdiag('tooLarge', 'warning', PMSG.tooLarge(MAX_NODES)));
  return launches;
}

function kernelLaunch(name: string, path: string[], metrics: Obj, inherited: Frame['inherited'], launchIndex: number, sink: DiagnosticCollector): MeasuredLaunch {
  const { isCpp: _cpp, launchBindings, ...names } = analyseKernelName(name);
  const fromParent = !hasAnnotations(metrics) && inherited !== null;
  const source = fromParent ? inherited.metrics : metrics;
  // The op scope's launch_metadata name gives the sizes of the kernel it launches.
  const bindings = launchBindings ?? (fromParent ? splitLaunchName(inherited.name)?.bindings : undefined);
  const label = names.demangled;
  const deviceId = typeof metrics.device_id === 'string' || typeof metrics.device_id === 'number' ? String(metrics.device_id).trim() : '';
  const deviceType = typeof metrics.device_type === 'string' && metrics.device_type.trim() !== '' ? metrics.device_type.trim() : 'CUDA';
  const launch: MeasuredLaunch = {
    name,
    ...names,
    launchIndex,
    invocations: Math.max(1, Math.round(num(metrics.count) ?? 1)),
    ...(path.length > 0 ? { context: path.join('/') } : {}),
    ...(/^\d+$/.test(deviceId) ? { device: `${deviceType}:${deviceId}` } : {}),
    ...(bindings && Object.keys(bindings).length ? { launchBindings: bindings } : {}),
    origin: { flops: 'launch-metadata', bytes: 'launch-metadata' },
    missing: [],
  };
  const time = readTime(metrics);
  if (time.seconds !== undefined) launch.timeSeconds = time.seconds;
  else {
    launch.missing.push(time.key ?? 'time (ns)');
    if (time.key) sink.note(`time:${time.key}`, 'protonNoTime', 'error', (k) => PMSG.protonNoTime(time.key!, k), label);
  }
  const flops = readFlops(source);
  if (flops) launch.flops = flops;
  else {
    launch.missing.push('flops8/flops16/flops32/flops64');
    sink.note('noFlops', 'protonNoFlops', 'warning', (k) => PMSG.protonNoFlops(k), label);
  }
  const bytes = num(source.bytes);
  if (bytes !== undefined && bytes >= 0) launch.dramBytes = bytes;
  else {
    launch.missing.push('bytes');
    if (bytes !== undefined) sink.note('negativeBytes', 'negativeValue', 'warning', (k) => PMSG.negativeValue('bytes', k), label);
    else sink.note('noBytes', 'protonNoBytes', 'warning', (k) => PMSG.protonNoBytes(k), label);
  }
  return launch;
}

function frameName(node: Obj): string {
  return isObj(node.frame) && typeof node.frame.name === 'string' ? node.frame.name : '';
}

/** A kernel node: a time metric and at least one invocation. */
function isKernel(metrics: Obj): boolean {
  const key = timeKey(metrics);
  if (!key) return false;
  const count = num(metrics.count);
  return (count ?? 0) > 0 || (num(metrics[key]) ?? 0) > 0;
}

function timeKey(metrics: Obj): string | undefined {
  return Object.keys(metrics).find((k) => /^time \([^)]*\)$/.test(k));
}

function readTime(metrics: Obj): { seconds?: number; key?: string } {
  const key = timeKey(metrics);
  if (!key) return {};
  const unit = key.slice('time ('.length, -1);
  const value = num(metrics[key]);
  if (!(unit in TIME_UNITS) || value === undefined || value < 0) return { key };
  return { seconds: value / TIME_UNITS[unit], key };
}

function hasAnnotations(metrics: Obj): boolean {
  return Object.keys(metrics).some((k) => k in FLOPS_WIDTH || k === 'bytes');
}

function readFlops(metrics: Obj): FlopCounts | undefined {
  const byDtype: Partial<Record<FlopDtype, number>> = {};
  let total = 0;
  let any = false;
  for (const [key, dtype] of Object.entries(FLOPS_WIDTH)) {
    const v = num(metrics[key]);
    if (v === undefined || v < 0) continue;
    any = true;
    total += v;
    if (dtype) byDtype[dtype] = (byDtype[dtype] ?? 0) + v;
  }
  return any ? { total, byDtype, tensor: null, lowerBound: false, convention: 'launch-metadata' } : undefined;
}

function num(v: Json | undefined): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function isObj(v: Json | undefined): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
