/**
 * Findings grouped by bug (signature), and each bug's first input written
 * out as a fixture: a header comment saying what went wrong and where the
 * input came from, an `args:` line with the options it ran with, then the
 * (minimised) source. Moved under test/fixtures/regressions/<lang>/, it
 * becomes a regression fixture that check() and the fuzz test read.
 */
import { findGpu } from '../core/gpus/catalog';
import type { Finding } from './oracle';
import type { FuzzInput, Outcome } from './run';

export interface Bug {
  /** The signature, for hangs and crashes with the hostile rewrite that caused them. */
  key: string;
  signature: string;
  /** How many inputs hit it. */
  hits: number;
  first: Outcome;
  finding: Finding;
}

/** Hangs and crashes all look alike: the hostile rewrite that led to one (else its seed) tells them apart. */
export function bugKey(f: Finding, input: FuzzInput): string {
  if (f.kind !== 'hang' && f.kind !== 'crash') return f.signature;
  const hostile = input.ops.find((op) => op.startsWith('hostile:'));
  return `${f.signature} (${hostile ?? input.seed})`;
}

export function groupBySignature(outcomes: readonly Outcome[]): Bug[] {
  const bugs = new Map<string, Bug>();
  for (const o of outcomes) {
    for (const f of o.findings) {
      const key = bugKey(f, o.input);
      const b = bugs.get(key);
      if (b) b.hits++;
      else bugs.set(key, { key, signature: f.signature, hits: 1, first: o, finding: f });
    }
  }
  return [...bugs.values()].sort((a, b) => b.hits - a.hits);
}

/** The options of an input as a fixture's `args:` line (a custom GPU has no flag: the default GPU stands in). */
export function argsLine(options: FuzzInput['options']): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(options.set ?? {})) parts.push(`--set ${k}=${String(v)}`);
  for (const [k, v] of Object.entries(options.dtypes ?? {})) parts.push(`--dtype ${k}=${v}`);
  if (options.grid) parts.push(`--grid ${options.grid.join(',')}`);
  if (findGpu(options.gpu.id)) parts.push(`--gpu ${options.gpu.id}`);
  return parts.join(' ');
}

function commentPrefix(path: string): string {
  return path.endsWith('.py') ? '#' : '//';
}

/** A fixture for one bug: header comment, then the source. */
export function fixtureText(bug: Bug, source: string, runSeed: number): string {
  const c = commentPrefix(bug.first.input.path);
  const one = (s: string): string => s.replace(/\s+/g, ' ').slice(0, 300);
  const header = [
    `${c} Fuzz finding — ${bug.finding.kind}: ${one(bug.finding.detail)}`,
    `${c} Found by \`npm run fuzz -- --seed ${runSeed}\` (input ${bug.first.input.id}, ${bug.hits} hit(s)),`,
    `${c} from ${bug.first.input.seed} via ${one(bug.first.input.ops.join(' '))}; minimised.`,
    `${c} args: ${argsLine(bug.first.input.options)}`,
  ];
  if (!findGpu(bug.first.input.options.gpu.id)) header.push(`${c} It ran on the custom GPU ${one(JSON.stringify(bug.first.input.options.gpu))}.`);
  return `${header.join('\n')}\n${source}`;
}
