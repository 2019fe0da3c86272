/**
 * WebGPU pipelines (issue 18, docs/pipelines.md): the dispatches a host
 * function records into its command encoder(s), in order, as one pipeline.
 *
 *   HostScan (embedded.ts): dispatches with the pipeline and bind groups set
 *   before each, bind groups' buffers, host loops, host functions
 *     ──► per host function with ≥ 2 dispatches (or one in a loop):
 *         each dispatch → its shader (setPipeline → createComputePipeline →
 *         module) and entry point, its repeat (host loops inside the
 *         function), and per binding variable of the shader the buffer bound
 *         to it (setBindGroup → createBindGroup entries) — the identities the
 *         fusion what-if follows.
 *
 * A dispatch whose pipeline, shader or entry point cannot be followed stays
 * in the list with the reason. Pure; never throws.
 */
import type { HostLaunchFact, HostPipelineFact } from '../../ir';
import { pipelineText } from '../../messages';
import { shaderOfPipeline, type Dispatch, type EmbeddedShader, type HostLoop, type HostScan } from './embedded';
import type { FnScope } from './hostfns';
import { findAttribute, type ModuleInfo } from './module';

/** Launches listed per pipeline at most (as the other languages). */
const MAX_LAUNCHES = 200;

/** The shader (index into `shaders`) and entry point a dispatch runs, or why it cannot be told. */
export function dispatchTarget(d: Dispatch, shaders: EmbeddedShader[], modules: (ModuleInfo | undefined)[]): { shader: number; entry: string } | { why: string } {
  const p = d.pipeline;
  if (!p) return { why: d.pipelineArg ? pipelineText('pipelineUnknown', d.pipelineArg) : pipelineText('noPipelineSet') };
  const shader = shaderOfPipeline(p, shaders);
  const mod = modules[shader];
  if (shader < 0 || !mod) return { why: pipelineText('shaderNotInFile', p.moduleVar ?? p.name ?? '?') };
  const names = mod.entries.map((f) => f.name.ident.originalName);
  const entry = p.entryPoint ?? (names.length === 1 ? names[0] : undefined);
  if (entry === undefined || !names.includes(entry)) return { why: pipelineText('entryUnknown', entry ?? '?') };
  return { shader, entry };
}

/** `@group(g) @binding(b)` of each storage / uniform variable of the module, by name. */
function bindingSlots(mod: ModuleInfo): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  const num = (e: unknown): number | undefined => {
    const x = e as { kind?: string; value?: string } | undefined;
    return x?.kind === 'literal' && x.value !== undefined && /^\d+[iu]?$/.test(x.value) ? parseInt(x.value, 10) : undefined;
  };
  for (const [name, g] of mod.globals) {
    const group = num(findAttribute(g.attributes, 'group')?.params[0]);
    const binding = num(findAttribute(g.attributes, 'binding')?.params[0]);
    if (group !== undefined && binding !== undefined) out.set(name, [group, binding]);
  }
  return out;
}

/** The innermost named host function around an offset. */
function functionAt(scopes: FnScope[], offset: number): FnScope | undefined {
  let best: FnScope | undefined;
  for (const s of scopes) if (s.name && s.start <= offset && offset < s.end && (!best || s.start >= best.start)) best = s;
  return best;
}

/** Times a dispatch runs per call of its function: the host loops inside the function around it. */
function repeatOf(loops: HostLoop[], fn: FnScope | undefined, offset: number, lineOf: (o: number) => number): { repeat: number | null; note?: string } {
  let repeat: number | null = 1;
  const notes: string[] = [];
  for (const l of loops) {
    if (!(l.start <= offset && offset < l.end) || (fn && l.at < fn.start)) continue;
    const head = l.header.length > 60 ? `${l.header.slice(0, 57)}…` : l.header;
    if (l.trips === undefined) {
      repeat = null;
      notes.push(l.header.startsWith('while') ? pipelineText('whileUnknown', 'while', lineOf(l.at)) : pipelineText('loopUnknown', head, lineOf(l.at)));
    } else {
      if (repeat !== null) repeat *= l.trips;
      notes.push(pipelineText('loopRuns', head, lineOf(l.at), l.trips));
    }
  }
  return { repeat, ...(notes.length ? { note: notes.join('; ') } : {}) };
}

/** The pipelines of a WebGPU host file. */
export function encoderPipelines(scan: HostScan, shaders: EmbeddedShader[], modules: (ModuleInfo | undefined)[], lineOf: (o: number) => number): HostPipelineFact[] {
  const groups = new Map<FnScope | undefined, Dispatch[]>();
  for (const d of scan.dispatches) {
    const fn = functionAt(scan.scopes, d.offset);
    groups.set(fn, [...(groups.get(fn) ?? []), d]);
  }
  const slots = modules.map((m) => (m ? bindingSlots(m) : new Map<string, [number, number]>()));
  const out: HostPipelineFact[] = [];
  for (const [fn, dispatches] of groups) {
    const launches: HostLaunchFact[] = [];
    for (const d of dispatches.slice(0, MAX_LAUNCHES)) {
      const line = lineOf(d.offset);
      const { repeat, note } = repeatOf(scan.loops, fn, d.offset, lineOf);
      const target = dispatchTarget(d, shaders, modules);
      const base = { line, callLine: line, repeat, ...(note ? { repeatNote: note } : {}) };
      if ('why' in target) {
        launches.push({ ...base, kernel: d.pipeline?.entryPoint ?? d.pipelineArg ?? 'dispatch', tensors: {}, names: {}, unresolved: target.why });
        continue;
      }
      const tensors: Record<string, string> = {};
      const names: Record<string, string> = {};
      for (const [v, [g, b]] of slots[target.shader]) {
        const group = d.bindGroups.get(g);
        const buffer = group === undefined ? undefined : scan.bindGroups.get(group)?.get(b);
        if (buffer === undefined) continue;
        tensors[v] = buffer;
        names[buffer] = buffer;
      }
      launches.push({ ...base, kernel: target.entry, tensors, names, inputs: { kernel: target.entry, line, label: pipelineText('launchLabel', line) } });
    }
    if (launches.length < 2 && !(launches.length === 1 && launches[0].repeat !== 1)) continue;
    const start = fn?.start ?? dispatches[0].offset;
    const end = fn?.end ?? dispatches[dispatches.length - 1].offset;
    out.push({
      name: fn?.name ?? 'top level',
      line: lineOf(start),
      endLine: lineOf(end),
      launches,
      ...(dispatches.length > MAX_LAUNCHES ? { notes: [pipelineText('truncatedNote', MAX_LAUNCHES)] } : {}),
    });
  }
  return out.sort((a, b) => a.line - b.line);
}
