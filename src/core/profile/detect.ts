/**
 * Which profiler wrote a file, from its first bytes: an Nsight Compute CSV
 * (raw or details page), a Proton JSON tree, or something else — in which
 * case `guessOtherTool` names the likely tool for the error message.
 */
import { lines } from './csv';
import type { ProfileFormat } from './types';

/** How much of a JSON file is searched for Proton's keys. */
const SNIFF = 65536;

export function detectProfileFormat(text: string): ProfileFormat {
  const t = text.replace(/^\uFEFF/, '').trimStart();
  if (t === '') return 'unknown';
  if (t[0] === '[' || t[0] === '{') return looksLikeProton(t) ? 'proton' : 'unknown';
  const header = findHeader(t);
  if (!header) return 'unknown';
  return header.text.includes('"Metric Name"') && header.text.includes('"Metric Value"') ? 'ncu-details' : 'ncu-raw';
}

/** The ncu header line: the first line starting with the ID column that names "Kernel Name". */
export function findHeader(text: string): { text: string; start: number; line: number } | null {
  for (const l of lines(text)) {
    const t = l.text.trimStart();
    if ((t.startsWith('"ID",') || t.startsWith('ID,')) && t.includes('Kernel Name')) return { text: t, start: l.start + (l.text.length - t.length), line: l.line };
  }
  return null;
}

function looksLikeProton(t: string): boolean {
  const head = t.slice(0, SNIFF);
  return head.includes('"frame"') && (head.includes('"metrics"') || head.includes('"children"'));
}

interface ToolSignature {
  /** Every one of these strings occurs in the first lines. */
  all: string[];
  says: string;
}

const OTHER_TOOLS: ToolSignature[] = [
  { all: ['Time (%)', 'Total Time (ns)'], says: 'this looks like an Nsight Systems (nsys stats) CSV: it has kernel times but no FLOP or byte counters' },
  { all: ['"Invocations"', '"Metric Description"'], says: 'this looks like an nvprof metrics CSV (nvprof is not supported)' },
  { all: ['Time(%)', 'Calls'], says: 'this looks like an nvprof summary CSV (nvprof is not supported)' },
  { all: ['KernelName', 'DurationNs'], says: 'this looks like a rocprof (AMD) CSV, which is not supported' },
  { all: ['KernelName', 'gpu-id'], says: 'this looks like a rocprof (AMD) CSV, which is not supported' },
  { all: ['Self CPU %', 'CPU total'], says: 'this looks like a PyTorch profiler table, which has no FLOP or byte counters' },
  { all: ['"traceEvents"'], says: 'this looks like a Chrome/Perfetto trace, which has kernel times only' },
];

/** A sentence naming the tool that probably wrote `text`, or null. */
export function guessOtherTool(text: string): string | null {
  const head = text.slice(0, 8192);
  for (const tool of OTHER_TOOLS) if (tool.all.every((s) => head.includes(s))) return tool.says;
  const first = head.split('\n').find((l) => l.trim() !== '') ?? '';
  if (first.includes(',') && !first.includes('Kernel Name')) return 'this CSV is not an Nsight Compute export (it has no "Kernel Name" column)';
  return null;
}
