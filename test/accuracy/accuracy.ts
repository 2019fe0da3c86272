/**
 * `npm run accuracy -- [--corpora DIR] [--json] [--case ID]... [--min N]`
 *
 * Runs the current CLI (dist/cli.js, built by the npm script) on each case of
 * the hand-checked accuracy set (test/accuracy/cases.json) with the case's
 * bindings, finds the kernel by name, and compares its per-unit FLOPs, load
 * bytes and store bytes with the hand-derived numbers. A case is "within
 * 10 %" when all three numbers are within ±10 % (an expected 0 needs 0; a
 * null or missing number is a miss).
 *
 * The kernels are read from a local corpus, DIR/<owner>+<name>/<path>
 * (default /work/corpora); a case whose file is missing is skipped and said so.
 * Before running anything, every `derive` string is evaluated and must equal
 * its expected number: the runner exits 1 if one does not.
 *
 * Exit status: 0 measured (whatever the score; with --min N, 1 when fewer than
 * N cases are within 10 %), 1 invalid cases.json, 2 usage error.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import caseFile from './cases.json';
import { bindingArgs, corpusDir, METRICS, validateCaseFile, within10, type AccuracyCase, type CaseFile, type Metric } from './casefile';

interface Options {
  corpora: string;
  json: boolean;
  only: string[];
  min: number | null;
  cli: string;
  timeoutMs: number;
}

const USAGE = 'usage: npm run accuracy -- [--corpora DIR] [--json] [--case ID]... [--min N] [--cli PATH] [--timeout-ms MS]';

function parseArgs(argv: string[]): Options {
  const here = typeof __dirname === 'string' ? __dirname : process.cwd();
  const o: Options = { corpora: '/work/corpora', json: false, only: [], min: null, cli: path.join(here, 'cli.js'), timeoutMs: 300_000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const eq = a.indexOf('=');
      if (eq > 0) return a.slice(eq + 1);
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    if (name === '--json') o.json = true;
    else if (name === '--corpora') o.corpora = value();
    else if (name === '--case') o.only.push(value());
    else if (name === '--cli') o.cli = value();
    else if (name === '--min') o.min = Number(value());
    else if (name === '--timeout-ms') o.timeoutMs = Number(value());
    else if (name === '--help' || name === '-h') {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    } else throw new Error(`unknown option '${a}'`);
  }
  if (o.min !== null && !(Number.isInteger(o.min) && o.min >= 0)) throw new Error('--min takes a whole number');
  if (!(o.timeoutMs > 0)) throw new Error('--timeout-ms takes a positive number');
  return o;
}

type Status = 'within' | 'miss' | 'skipped' | 'error';

interface CaseResult {
  id: string;
  language: string;
  kernel: string;
  file: string;
  status: Status;
  /** Why the case was skipped or failed to produce numbers. */
  reason?: string;
  expected: Record<Metric, number>;
  got: Record<Metric, number | null> | null;
  ok: Record<Metric, boolean> | null;
  complete?: boolean;
  incompleteReasons?: string[];
  unbound?: string[];
  kernelLine?: number;
  /** File-level warnings and errors of the analysis (a time budget hit, a parse error). */
  fileWarnings?: string[];
  ms?: number;
}

interface KernelJson {
  name: string;
  line: number;
  perUnit?: Partial<Record<Metric, number | null>>;
  complete?: boolean;
  incompleteReasons?: string[];
  unbound?: string[];
}

function runCase(c: AccuracyCase, o: Options): CaseResult {
  const file = path.join(o.corpora, corpusDir(c.project), c.path);
  const base: CaseResult = { id: c.id, language: c.language, kernel: c.kernel, file, status: 'skipped', expected: c.expected, got: null, ok: null };
  if (!fs.existsSync(file)) return { ...base, reason: `file not found: ${file}` };
  const args = [o.cli, 'analyze', file, '--format', 'json', ...bindingArgs(c.bindings)];
  const t0 = Date.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: o.timeoutMs, maxBuffer: 256 * 1024 * 1024 });
  const ms = Date.now() - t0;
  if (r.error) return { ...base, status: 'error', ms, reason: `could not run the CLI: ${r.error.message}` };
  if (r.status !== 0) {
    const msg = (r.stderr || r.stdout || '').split('\n').find((l) => l.trim()) ?? '';
    return { ...base, status: 'error', ms, reason: `CLI exited ${r.status ?? r.signal}: ${msg.trim()}` };
  }
  let doc: { files?: { kernels?: KernelJson[]; diagnostics?: { severity?: string; message?: string; line?: number }[] }[] };
  try {
    doc = JSON.parse(r.stdout);
  } catch (e) {
    return { ...base, status: 'error', ms, reason: `CLI output is not JSON: ${(e as Error).message}` };
  }
  const kernels = (doc.files ?? []).flatMap((f) => f.kernels ?? []);
  const warnings = (doc.files ?? [])
    .flatMap((f) => f.diagnostics ?? [])
    .filter((d) => (d.severity === 'warning' || d.severity === 'error') && (d.line === undefined || d.line <= 1))
    .map((d) => String(d.message));
  const fileWarnings = warnings.length ? { fileWarnings: warnings } : {};
  const named = kernels.filter((k) => k.name === c.kernel).sort((a, b) => Math.abs(a.line - c.line) - Math.abs(b.line - c.line));
  const k = named[0];
  if (!k) {
    const names = kernels.map((x) => x.name);
    return { ...base, ...fileWarnings, status: 'error', ms, reason: `kernel ${c.kernel} not found (found ${names.length ? names.join(', ') : 'no kernels'})` };
  }
  const got = {} as Record<Metric, number | null>;
  const ok = {} as Record<Metric, boolean>;
  for (const m of METRICS) {
    const v = k.perUnit?.[m];
    got[m] = typeof v === 'number' ? v : null;
    ok[m] = within10(c.expected[m], v);
  }
  const all = METRICS.every((m) => ok[m]);
  return {
    ...base,
    status: all ? 'within' : 'miss',
    got,
    ok,
    complete: k.complete,
    incompleteReasons: k.incompleteReasons,
    unbound: k.unbound,
    kernelLine: k.line,
    ...fileWarnings,
    ms,
  };
}

function fmtNum(v: number | null): string {
  return v === null ? 'null' : String(v);
}

function ratio(e: number, g: number | null): string {
  if (g === null) return '';
  if (e === 0) return g === 0 ? '' : '(expected 0)';
  return `(${(g / e).toFixed(2)}×)`;
}

function renderCase(r: CaseResult): string {
  const mark = r.status === 'within' ? '✓ within 10 %' : r.status === 'skipped' ? '– skipped' : '✗ miss';
  const lines = [`${r.id}  [${r.language}] ${r.kernel}  ${mark}${r.ms !== undefined ? `  (${r.ms} ms)` : ''}`];
  if (r.reason) lines.push(`    ${r.reason}`);
  for (const w of r.fileWarnings ?? []) lines.push(`    file: ${w}`);
  if (r.got && r.ok) {
    for (const m of METRICS)
      lines.push(
        `    ${m.padEnd(11)} expected ${String(r.expected[m]).padStart(11)}   got ${fmtNum(r.got[m]).padStart(11)} ${ratio(r.expected[m], r.got[m]).padEnd(14)} ${r.ok[m] ? '✓' : '✗'}`,
      );
    const extra: string[] = [];
    if (r.complete === false) extra.push(`complete: false${r.incompleteReasons?.length ? ` (${r.incompleteReasons.join(', ')})` : ''}`);
    if (r.unbound?.length) extra.push(`unbound: ${r.unbound.join(', ')}`);
    if (extra.length) lines.push(`    ${extra.join('; ')}`);
  }
  return lines.join('\n') + '\n';
}

function renderSummary(results: CaseResult[]): string {
  const lines: string[] = [];
  const within = results.filter((r) => r.status === 'within').length;
  const skipped = results.filter((r) => r.status === 'skipped');
  lines.push('');
  for (const lang of ['triton', 'cuda', 'wgsl']) {
    const of = results.filter((r) => r.language === lang);
    if (of.length) lines.push(`${lang.padEnd(7)} ${of.filter((r) => r.status === 'within').length}/${of.length} within 10 %`);
  }
  if (skipped.length) lines.push(`${skipped.length} skipped (file missing): ${skipped.map((r) => r.id).join(', ')}`);
  lines.push(`${within}/${results.length} within 10 %`);
  return lines.join('\n') + '\n';
}

function main(): number {
  let o: Options;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`accuracy: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const doc = caseFile as unknown as CaseFile;
  const errors = validateCaseFile(doc);
  if (errors.length) {
    process.stderr.write(`accuracy: cases.json is invalid (${errors.length} problems):\n${errors.map((e) => `  ${e}`).join('\n')}\n`);
    return 1;
  }
  const unknown = o.only.filter((id) => !doc.cases.some((c) => c.id === id));
  if (unknown.length) {
    process.stderr.write(`accuracy: no case ${unknown.join(', ')}\n`);
    return 2;
  }
  if (!fs.existsSync(o.cli)) {
    process.stderr.write(`accuracy: ${o.cli} not found; run 'npm run build' (npm run accuracy does)\n`);
    return 2;
  }
  const cases = o.only.length ? doc.cases.filter((c) => o.only.includes(c.id)) : doc.cases;
  const results: CaseResult[] = [];
  for (const c of cases) {
    const r = runCase(c, o);
    results.push(r);
    if (!o.json) process.stdout.write(renderCase(r));
  }
  const within = results.filter((r) => r.status === 'within').length;
  if (o.json) {
    const byLanguage: Record<string, { within: number; total: number }> = {};
    for (const r of results) {
      byLanguage[r.language] ??= { within: 0, total: 0 };
      byLanguage[r.language].total++;
      if (r.status === 'within') byLanguage[r.language].within++;
    }
    const out = {
      contract: doc.contract,
      corpora: o.corpora,
      total: results.length,
      within,
      skipped: results.filter((r) => r.status === 'skipped').map((r) => r.id),
      byLanguage,
      cases: results,
    };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  } else {
    process.stdout.write(renderSummary(results));
  }
  if (o.min !== null && within < o.min) {
    process.stderr.write(`accuracy: ${within} within 10 %, fewer than --min ${o.min}\n`);
    return 1;
  }
  return 0;
}

// `npm run accuracy | head` closes the pipe early: stop quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
process.exitCode = main();
