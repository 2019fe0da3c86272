/**
 * SARIF 2.1.0 rendering of an analysis report, for code-scanning tools: one
 * result per kernel at its definition line, with the roofline verdict on
 * every selected GPU in the message, and one rule per verdict kind.
 *
 * Artifact locations are relative to the repository root (`uriBaseId`
 * SRCROOT) when the report's paths are; absolute paths become file: URIs.
 */
import type { Severity } from '../ir';
import type { KernelReport } from './types';
import { boundsSentence, incompleteText } from './honesty';
import { measuredLabel, measuredSentence, reportGpus, verdictOn, verdictSentence, type GpuVerdict, type MultiGpuKernel, type MultiGpuReport } from './render';

export type SarifLevel = 'none' | 'note' | 'warning' | 'error';

export const SARIF_LEVELS: readonly SarifLevel[] = ['none', 'note', 'warning', 'error'];

/** The level of each verdict kind (`--sarif-level memory=warning,compute=note,unknown=note`). */
export interface SarifLevels {
  memory: SarifLevel;
  compute: SarifLevel;
  unknown: SarifLevel;
}

export const DEFAULT_SARIF_LEVELS: Readonly<SarifLevels> = { memory: 'warning', compute: 'note', unknown: 'note' };

export interface SarifOptions {
  tool: { name: string; version: string; informationUri: string };
  levels: SarifLevels;
}

/** The verdict kinds, each a rule. */
type RuleKey = 'memory-bound-dram' | 'memory-bound-l2' | 'compute-bound' | 'bound-unknown';

interface RuleText {
  name: string;
  short: string;
  full: string;
  level: keyof SarifLevels;
}

const RULES: Record<RuleKey, RuleText> = {
  'memory-bound-dram': {
    name: 'MemoryBoundDram',
    short: 'Kernel is memory-bound (DRAM)',
    full: 'The kernel\'s arithmetic intensity (FLOPs per byte of DRAM traffic; the compulsory traffic when the problem sizes are known) is below the GPU\'s ridge point: DRAM bandwidth, not the math units, limits it.',
    level: 'memory',
  },
  'memory-bound-l2': {
    name: 'MemoryBoundL2',
    short: 'Kernel is memory-bound (L2)',
    full: 'The tile arithmetic intensity (FLOPs per byte one unit requests) is below the GPU\'s L2 ridge point: larger tiles would raise it.',
    level: 'memory',
  },
  'compute-bound': {
    name: 'ComputeBound',
    short: 'Kernel is compute-bound',
    full: 'The kernel\'s arithmetic intensity is at or above the ridge points of every memory level: the peak of the unit its dominant arithmetic runs on limits it.',
    level: 'compute',
  },
  'bound-unknown': {
    name: 'BoundUnknown',
    short: 'Kernel bound unknown',
    full: 'The arithmetic intensity could not be estimated, usually because a problem or tile size is not known: bind it with --set NAME=VALUE.',
    level: 'unknown',
  },
};

const RULE_KEYS = Object.keys(RULES) as RuleKey[];
const RULE_PREFIX = 'roofline/';

function ruleKeyOf(v: GpuVerdict | undefined): RuleKey {
  if (!v || v.bound === 'unknown') return 'bound-unknown';
  if (v.bound === 'compute') return 'compute-bound';
  return v.boundLevel === 'l2' ? 'memory-bound-l2' : 'memory-bound-dram';
}

/** The most pressing verdict over the GPUs: DRAM-bound, then L2-bound, then compute-bound, then unknown. */
function worstRule(verdicts: (GpuVerdict | undefined)[]): RuleKey {
  const keys = verdicts.map(ruleKeyOf);
  return RULE_KEYS.find((k) => keys.includes(k)) ?? 'bound-unknown';
}

/** A report path as a URI: relative ones against SRCROOT, absolute ones as file: URIs. */
function artifactLocation(path: string): { uri: string; uriBaseId?: string } {
  const p = path.replace(/\\/g, '/');
  const encode = (s: string): string => s.split('/').map(encodeURIComponent).join('/');
  if (/^[A-Za-z]:\//.test(p)) return { uri: `file:///${p.slice(0, 2)}${encode(p.slice(2))}` };
  if (p.startsWith('/')) return { uri: `file://${encode(p)}` };
  return { uri: encode(p.replace(/^\.\//, '')), uriBaseId: 'SRCROOT' };
}

function rule(key: RuleKey, levels: SarifLevels): Record<string, unknown> {
  const r = RULES[key];
  return {
    id: RULE_PREFIX + key,
    name: r.name,
    shortDescription: { text: r.short },
    fullDescription: { text: r.full },
    help: { text: `${r.full} See \`roofline-lens analyze --format markdown\` for the counts, bindings and assumptions behind it.` },
    defaultConfiguration: { level: levels[r.level] },
    properties: { tags: ['performance', 'roofline'] },
  };
}

function result(k: MultiGpuKernel, path: string, r: MultiGpuReport, levels: SarifLevels): Record<string, unknown> {
  const gpus = reportGpus(r);
  const verdicts = gpus.map((g) => verdictOn(k, g.id, r));
  const key = worstRule(verdicts);
  const sentences = gpus.map((g, i) => (verdicts[i] ? verdictSentence(k, verdicts[i]!, g.name) : `not analysed on ${g.name}`));
  const region: Record<string, number> = { startLine: k.line };
  if (k.endLine && k.endLine >= k.line) region.endLine = k.endLine;
  return {
    ruleId: RULE_PREFIX + key,
    ruleIndex: RULE_KEYS.indexOf(key),
    level: levels[RULES[key].level],
    message: { text: `${k.name}: ${sentences.join('; ')}${k.complete ? '' : ` (${incompleteText(k)}: ${boundsSentence(k)})`}${(k.measured ?? []).map((m) => { const label = measuredLabel(k.name, m); return `; measured${label !== k.name ? ` ${label}` : ''} ${measuredSentence(m)}`; }).join('')}` },
    locations: [{ physicalLocation: { artifactLocation: artifactLocation(path), region }, logicalLocations: [{ name: k.name, kind: 'function' }] }],
    properties: resultProperties(k, gpus.map((g) => g.id), verdicts),
  };
}

function resultProperties(k: KernelReport, ids: string[], verdicts: (GpuVerdict | undefined)[]): Record<string, unknown> {
  const byGpu: Record<string, unknown> = {};
  ids.forEach((id, i) => {
    const v = verdicts[i];
    if (v) byGpu[id] = { bound: v.bound, boundLevel: v.boundLevel, attainableFlops: v.attainableFlops, ridgePoint: v.ridgePoint, peak: v.peak };
  });
  return { unit: k.unit, arithmeticIntensity: k.arithmeticIntensity, compulsoryIntensity: k.compulsoryIntensity, perUnit: k.perUnit, byGpu };
}

const NOTIFICATION_LEVEL: Record<Severity, SarifLevel> = { error: 'error', warning: 'warning', info: 'note' };

function notifications(r: MultiGpuReport): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const d of r.diagnostics ?? []) if (d.severity !== 'info') out.push({ level: NOTIFICATION_LEVEL[d.severity], message: { text: d.message }, descriptor: { id: d.code } });
  for (const f of r.files)
    for (const d of f.diagnostics)
      if (d.severity !== 'info')
        out.push({
          level: NOTIFICATION_LEVEL[d.severity],
          message: { text: d.message },
          locations: [{ physicalLocation: { artifactLocation: artifactLocation(f.path), region: { startLine: Math.max(1, d.line) } } }],
          descriptor: { id: d.code },
        });
  return out;
}

/** The SARIF log of a report, as a plain object ready for JSON.stringify. */
export function renderSarif(r: MultiGpuReport, opts: SarifOptions): Record<string, unknown> {
  const results = r.files.flatMap((f) => f.kernels.map((k) => result(k, f.path, r, opts.levels)));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: opts.tool.name,
            version: opts.tool.version,
            informationUri: opts.tool.informationUri,
            rules: RULE_KEYS.map((k) => rule(k, opts.levels)),
          },
        },
        originalUriBaseIds: { SRCROOT: { description: { text: 'The root of the repository the paths are relative to.' } } },
        invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications(r) }],
        results,
        properties: { gpus: reportGpus(r).map((g) => g.id) },
      },
    ],
  };
}
