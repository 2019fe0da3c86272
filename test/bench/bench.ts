/**
 * `npm run bench`: the figures of issue 17, one line each, min and median of
 * repeated runs (and the max where it says something), with the machine's
 * load average at the start and the end (docs/performance.md).
 *
 *   analysis   per language, on files built from the real-style fixtures
 *              (test/fixtures/, bench/fixtures.ts) and on generated ones
 *              (bench/generate.ts), 1,000 and 10,000 lines: cold (caches
 *              cleared: full parse + every kernel, a text of its own each
 *              run, after three warm-up runs whose first is shown beside),
 *              after a one-character edit
 *              inside a kernel, after one outside every kernel; CPU time
 *              beside the wall time (less sensitive to a loaded machine)
 *   session    a long editing session: 300 one-character edits of each
 *              generated 1,000-line file, each in another kernel (edits
 *              spread over more statements than the trees a view keeps
 *              alive); medians per 100 edits, and the parses from scratch
 *   floor      the parsers alone: a cold parse of each 1,000-line fixtures
 *              file (with and without one cursor walk over its tree) and
 *              of the corpus files — what no analysis of them can beat
 *   real       typing a line in the middle of eight real public files of
 *              /work/corpora (CUDA with project headers and syntax errors,
 *              Triton with host code and launch pipelines, WGSL): each text
 *              analysed at once, and as the editor's worker does it (in its
 *              slices: the parse ahead, then the analysis calls)
 *   fresh      the first analysis of a 1,000-line file in a new process
 *              (runtime, grammar and JIT cold)
 *   startup    loading the extension bundle (with a stand-in `vscode`)
 *   cli        `roofline-lens analyze` wall time: a 26-line file, the ten
 *              Triton tutorials (3,800 lines, /work/corpora), and
 *   corpus     793 real kernel files of /work/corpora in one process
 *   host       the extension host's longest synchronous block while a
 *              10,000- and a 20,000-line file opens and is edited: worker,
 *              in-host slices, and the synchronous analysis of before
 *   bundles    sizes
 *
 *   node dist/bench.js [--only analysis,session,floor,real,fresh,startup,cli,corpus,host,bundles] [--runs N] [--quick]
 *
 * The corpus and the tutorials are read where they are (never copied into
 * the repository); without /work/corpora those lines say so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decode, expand, worthReporting } from '../../src/cli/inputs';
import { readRelated } from '../../src/cli/related';
import { analyzeSource, clearCaches, languageOf, type AnalyzeOptions } from '../../src/core/analyze';
import { findGpu } from '../../src/core/gpus/catalog';
import type { Language } from '../../src/core/ir';
import * as parsersModule from '../../src/core/parsers';
import { initParsers, type Parsers, type WasmName } from '../../src/core/parsers';
import type { FileReport } from '../../src/core/report/types';
import type { Tree } from 'web-tree-sitter';
import { parseSrcModule } from 'wesl/core';
import { editInside, editNewline, editOutside, fixtureFile, type KernelSpan } from './fixtures';
import { cudaFile, tritonFile, wgslFile } from './generate';
import { freshWorker, hostSession, type FreshWorkerRun, type HostMode } from './host';
import { analyseInSlices } from '../../src/extension/sliced';
import { WORKER_SLICES } from '../../src/extension/analysisService';

const ROOT = [path.join(__dirname, '..'), path.join(__dirname, '..', '..')].find((r) => fs.existsSync(path.join(r, 'test', 'fixtures')))!;
const DIST = path.join(ROOT, 'dist');
const CORPORA = process.env.ROOFLINE_CORPORA ?? '/work/corpora';
const LANGS: Language[] = ['triton', 'cuda', 'wgsl'];
const EXT: Record<Language, string> = { triton: 'py', cuda: 'cu', wgsl: 'wgsl' };

// ---------------------------------------------------------------------------

function stats(xs: number[]): { median: number; min: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor((s.length - 1) / 2)], min: s[0], max: s[s.length - 1] };
}

const f1 = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

function fmt(xs: number[], unit = 'ms'): string {
  const s = stats(xs);
  return `min ${f1(s.min)} / median ${f1(s.median)} ${unit} (max ${f1(s.max)}, n=${xs.length})`;
}

function line(label: string, what: string, value: string): string {
  return `${label.padEnd(34)} ${what.padEnd(22)} ${value}`;
}

const load = (): string => os.loadavg().map((x) => x.toFixed(2)).join(', ');

function cpuMs(start: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1000;
}

async function parsersFor(languages: Language[]): Promise<Parsers> {
  const readWasm = async (name: WasmName): Promise<Uint8Array> => fs.readFileSync(path.join(DIST, name));
  const p = await initParsers(readWasm, []);
  // Older builds of the core have no lazy grammars (the bench also measures them, for "before").
  const loadGrammar = (parsersModule as { loadGrammar?: (p: Parsers, l: Language) => Promise<void> }).loadGrammar;
  if (loadGrammar) for (const l of languages) await loadGrammar(p, l);
  return p;
}

const spansOf = (r: FileReport): KernelSpan[] => r.kernels.map((k) => ({ start: k.line - 1, end: (k.endLine ?? k.line) - 1 }));

// ---------------------------------------------------------------------------
// analysis

/** Cold analyses of a language run before the measured ones (the JIT's warm-up; their first is shown beside). */
const COLD_WARMUP = 3;
/**
 * Edits of a kind made before the measured ones (the first is shown beside),
 * and at least how many are measured: typing is many keystrokes, and a
 * median of ten after five mixed the JIT's warm-up and one garbage
 * collection into it (Triton's Enter: 5–10 ms from run to run where 700
 * keystrokes give 4.5–5).
 */
const EDIT_WARMUP = 20;
const EDITS_MEASURED = 40;

function measureFile(p: Parsers, lang: Language, label: string, src: string, opts: AnalyzeOptions, runs: number): string[] {
  const file = `bench-${label.replace(/\W+/g, '-')}.${EXT[lang]}`;
  const o = { ...opts, path: file, language: lang };
  const cold: number[] = [];
  const coldCpu: number[] = [];
  let peak = 0;
  // Each cold run analyses a text of its own (a comment line added at the end), every cache cleared: nothing
  // kept by text helps it. The first runs of a language are the JIT's warm-up (what a new process pays is the
  // `fresh` figure): measured after COLD_WARMUP runs, the first of them said apart.
  const note = lang === 'triton' ? '#' : '//';
  let first = 0;
  for (let r = -COLD_WARMUP; r < runs; r++) {
    clearCaches();
    const c = process.cpuUsage();
    const t0 = performance.now();
    analyzeSource(`${src}\n${note} cold run ${r + COLD_WARMUP}\n`, p, o);
    const ms = performance.now() - t0;
    if (r === -COLD_WARMUP) first = ms;
    if (r < 0) continue;
    cold.push(ms);
    coldCpu.push(cpuMs(c));
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  clearCaches();
  const report = analyzeSource(src, p, o);
  const spans = spansOf(report);
  // Each edit is given the kernels as the previous analysis found them (an Enter moves those below). Typing is
  // measured as it goes on, after EDIT_WARMUP edits of the same kind (their first is shown beside: an edit's path
  // through the incremental parse and the kept reads is JIT-compiled at the first keystrokes of a session).
  const edits = (edit: (s: string, n: number, now: KernelSpan[]) => string): { wall: number[]; cpu: number[]; first: number } => {
    const wall: number[] = [];
    const cpu: number[] = [];
    let first = 0;
    let cur = src;
    let now = spansOf(analyzeSource(cur, p, o));
    for (let r = -EDIT_WARMUP; r < Math.max(runs * 2, EDITS_MEASURED); r++) {
      cur = edit(cur, r + EDIT_WARMUP, now);
      const c = process.cpuUsage();
      const t0 = performance.now();
      now = spansOf(analyzeSource(cur, p, o));
      const ms = performance.now() - t0;
      if (r === -EDIT_WARMUP) first = ms;
      if (r < 0) continue;
      wall.push(ms);
      cpu.push(cpuMs(c));
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    return { wall, cpu, first };
  };
  const inside = edits((s, n) => editInside(s, spans, n, lang));
  const outside = edits((s, n) => editOutside(s, spans, n, lang));
  const enter = edits((s, n, now) => editNewline(s, now, n, lang));
  const lines = src.split('\n').length;
  const name = `${lang} ${label} ${lines} lines (${report.kernels.length} k)`;
  return [
    line(name, 'cold', `${fmt(cold)}; cpu median ${f1(stats(coldCpu).median)} ms; the language's first: ${f1(first)} ms`),
    line(name, 'edit in a kernel', `${fmt(inside.wall)}; cpu median ${f1(stats(inside.cpu).median)} ms; the first: ${f1(inside.first)} ms`),
    line(name, 'edit outside kernels', `${fmt(outside.wall)}; cpu median ${f1(stats(outside.cpu).median)} ms; the first: ${f1(outside.first)} ms`),
    line(name, 'Enter in a kernel', `${fmt(enter.wall)}; cpu median ${f1(stats(enter.cpu).median)} ms; the first: ${f1(enter.first)} ms`),
    line(name, 'peak heap', `${(peak / 1e6).toFixed(0)} MB`),
  ];
}

async function analysis(runs: number, quick: boolean): Promise<string[]> {
  const p = await parsersFor(LANGS);
  const gpu = findGpu('h100-sxm')!;
  const opts: AnalyzeOptions = { gpu, set: { K: 4096, n: 1 << 20, n_cols: 1024, N: 4096, M: 4096 } };
  const gen: Record<Language, (n: number) => string> = { triton: tritonFile, cuda: cudaFile, wgsl: wgslFile };
  const out: string[] = [];
  for (const lang of LANGS) {
    out.push(...measureFile(p, lang, 'fixtures', fixtureFile(ROOT, lang, 1000), opts, runs));
    out.push(...measureFile(p, lang, 'generated', gen[lang](1000), opts, runs));
    if (!quick) out.push(...measureFile(p, lang, 'fixtures', fixtureFile(ROOT, lang, 10000), opts, Math.max(3, Math.ceil(runs / 3))));
  }
  return out;
}

// ---------------------------------------------------------------------------
// session: many edits spread over a file

/** Edits of a long session, each in the next kernel; medians per SESSION_CHUNK of them. */
const SESSION_EDITS = 300;
const SESSION_CHUNK = 100;

/**
 * A long editing session on each generated file: one-character edits, each
 * in another kernel (75–105 kernels: more statements edited than the trees
 * one view keeps alive, parsers.ts), every version analysed after the one
 * before. A cost that grows as a session goes on shows here, not in the
 * analysis figures' 60 edits of a kind.
 */
async function session(quick: boolean): Promise<string[]> {
  const p = await parsersFor(LANGS);
  const gpu = findGpu('h100-sxm')!;
  const gen: Record<Language, (n: number) => string> = { triton: tritonFile, cuda: cudaFile, wgsl: wgslFile };
  const out: string[] = [];
  for (const lang of LANGS) {
    const src = gen[lang](1000);
    const o: AnalyzeOptions = { gpu, path: `bench-session.${EXT[lang]}`, language: lang };
    clearCaches();
    const spans = spansOf(analyzeSource(src, p, o));
    const before = { ...parsersModule.parseStats };
    const ms: number[] = [];
    let cur = src;
    const edits = quick ? SESSION_EDITS : 2 * SESSION_EDITS;
    for (let n = 0; n < edits; n++) {
      cur = editInside(cur, spans, n, lang);
      const t0 = performance.now();
      analyzeSource(cur, p, o);
      ms.push(performance.now() - t0);
    }
    const chunks: string[] = [];
    for (let i = 0; i < ms.length; i += SESSION_CHUNK) chunks.push(f1(stats(ms.slice(i, i + SESSION_CHUNK)).median));
    const scratch = parsersModule.parseStats.scratch - before.scratch;
    const parsed = lang === 'wgsl' ? 'wesl parses each text' : `${scratch} of ${edits} texts parsed from scratch`;
    out.push(line(`${lang} generated 1k lines, ${spans.length} k`, `${edits} spread edits`, `medians per ${SESSION_CHUNK}: ${chunks.join(' / ')} ms; ${parsed}`));
  }
  return out;
}

// ---------------------------------------------------------------------------
// floor: what the parsers alone take

/**
 * Every node of a tree visited once with a cursor, its type and range read:
 * the least any reading of the whole tree does. Returns the node count.
 */
function walkAll(tree: Tree): number {
  const c = tree.walk();
  let n = 0;
  let sink = 0;
  for (;;) {
    n++;
    sink += c.nodeTypeId + c.startIndex + c.endIndex;
    if (c.gotoFirstChild()) continue;
    while (!c.gotoNextSibling()) {
      if (!c.gotoParent()) {
        c.delete();
        return sink === -1 ? 0 : n;
      }
    }
  }
}

/** One text parsed (and its tree walked): ms, and the nodes of the tree (WGSL: wesl's parse only). */
function parseOnce(p: Parsers, lang: Language, src: string, walk: boolean): { ms: number; nodes: number } {
  const t0 = performance.now();
  if (lang === 'wgsl') {
    try {
      parseSrcModule({ modulePath: 'package::main', debugFilePath: 'floor.wgsl', src });
    } catch {
      // a text wesl cannot read: its time still counts
    }
    return { ms: performance.now() - t0, nodes: 0 };
  }
  const tree = (lang === 'cuda' ? p.cuda : p.python).parse(src)!;
  const nodes = walk ? walkAll(tree) : 0;
  const ms = performance.now() - t0;
  tree.delete();
  return { ms, nodes };
}

/**
 * The parsers' share of the targets: a cold parse of each 1,000-line
 * fixtures file, with and without one cursor walk over its tree, and of the
 * corpus files (their own text, without the headers the analysis reads in
 * front of CUDA files). No analysis of the same text can be faster.
 */
async function floor(runs: number): Promise<string[]> {
  const p = await parsersFor(LANGS);
  const out: string[] = [];
  for (const lang of LANGS) {
    const src = fixtureFile(ROOT, lang, 1000);
    const parse: number[] = [];
    const walked: number[] = [];
    let nodes = 0;
    for (let r = 0; r < Math.max(runs, 5); r++) {
      parse.push(parseOnce(p, lang, src, false).ms);
      const w = parseOnce(p, lang, src, true);
      walked.push(w.ms);
      nodes = w.nodes;
    }
    const name = `floor: ${lang} fixtures ${src.split('\n').length} lines`;
    out.push(line(name, 'parse', fmt(parse)));
    if (lang !== 'wgsl') out.push(line(name, 'parse + walk', `${fmt(walked)}; ${nodes} nodes`));
  }
  const dirs = CORPUS_FOLDERS.map((d) => path.join(CORPORA, d));
  if (!dirs.every((d) => fs.existsSync(d))) return [...out, line('floor: corpus', '', `skipped: the folders of ${CORPORA} are not all there`)];
  const texts: [Language, string][] = [];
  for (const f of expand(dirs).files) {
    const lang = languageOf(f);
    const src = decode(fs.readFileSync(f));
    if (lang && worthReporting(f, src)) texts.push([lang, src]);
  }
  const chars = texts.reduce((n, [, t]) => n + t.length, 0);
  const passes: { parse: number; walked: number }[] = [];
  for (let r = 0; r < (runs > 3 ? 2 : 1); r++) {
    let parse = 0;
    let walked = 0;
    for (const [lang, src] of texts) {
      parse += parseOnce(p, lang, src, false).ms;
      walked += parseOnce(p, lang, src, true).ms;
    }
    passes.push({ parse, walked });
  }
  const name = `floor: ${texts.length} corpus files (${(chars / 1e6).toFixed(1)} M chars)`;
  out.push(line(name, 'parse', fmt(passes.map((x) => x.parse / 1000), 's')));
  out.push(line(name, 'parse + walk', fmt(passes.map((x) => x.walked / 1000), 's')));
  return out;
}

// ---------------------------------------------------------------------------
// fresh process

/** In a child: the first analysis of a 1,000-line fixture file in this process. */
async function freshChild(lang: Language): Promise<void> {
  const t0 = performance.now();
  const p = await parsersFor([lang]);
  const t1 = performance.now();
  const src = fixtureFile(ROOT, lang, 1000);
  const gpu = findGpu('h100-sxm')!;
  const t2 = performance.now();
  const r = analyzeSource(src, p, { gpu, path: `fresh.${EXT[lang]}`, language: lang });
  const t3 = performance.now();
  clearCaches();
  const t4 = performance.now();
  analyzeSource(src, p, { gpu, path: `fresh2.${EXT[lang]}`, language: lang });
  const t5 = performance.now();
  process.stdout.write(JSON.stringify({ parsersMs: t1 - t0, firstMs: t3 - t2, secondColdMs: t5 - t4, kernels: r.kernels.length }) + '\n');
}

/** In a child: one new desktop worker's first analysis of a fixtures file (1,000 lines), with the code cache in `cache` or none. */
async function freshWorkerChild(lang: Language, cache: string): Promise<void> {
  const text = fixtureFile(ROOT, lang, 1000);
  const r = await freshWorker(DIST, text, { gpu: findGpu('h100-sxm')!, path: `fresh-worker.${EXT[lang]}`, language: lang }, cache === 'none' ? undefined : cache);
  process.stdout.write(JSON.stringify(r) + '\n');
}

/**
 * A new desktop worker, each in a new process (V8 shares compiled
 * WebAssembly between the workers of one process), without and with the
 * code cache a first worker wrote (src/desktop/workerLaunch.ts), in turn:
 * the first lenses of a file opened in a new window.
 */
function freshWorkers(runs: number): string[] {
  if (!fs.existsSync(path.join(DIST, 'worker-main.js'))) return [line('fresh worker', '', 'not built')];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rl-bench-cache-'));
  const out: string[] = [];
  try {
    for (const lang of LANGS) {
      const cache = path.join(dir, `${lang}.v8cache`);
      const once = (arg: string): FreshWorkerRun | string => {
        const res = spawnSync(process.execPath, [__filename, '--child-fresh-worker', lang, arg], { encoding: 'utf8' });
        return res.status === 0 ? (JSON.parse(res.stdout.trim().split('\n').pop()!) as FreshWorkerRun) : `child failed: ${res.stderr.slice(0, 300)}`;
      };
      // The first worker writes the cache (after its first report, as in the editor).
      const made = once(cache);
      if (typeof made === 'string' || !fs.existsSync(cache)) return [line(`fresh worker ${lang}`, '', typeof made === 'string' ? made : 'no code cache written')];
      const rows: Record<'none' | 'used', FreshWorkerRun[]> = { none: [], used: [] };
      for (let r = 0; r < runs; r++)
        for (const arg of ['none', cache]) {
          const x = once(arg);
          if (typeof x === 'string') return [line(`fresh worker ${lang}`, '', x)];
          rows[x.codeCache === 'used' ? 'used' : 'none'].push(x);
        }
      for (const [kind, xs] of Object.entries(rows)) {
        if (xs.length === 0) continue;
        const label = `fresh worker ${lang} 1k (${xs[0].kernels} k), ${kind === 'used' ? 'cache' : 'no cache'}`;
        out.push(line(label, 'ready', fmt(xs.map((x) => x.readyMs))));
        out.push(line(label, 'first lenses', fmt(xs.map((x) => x.firstLensesMs))));
        out.push(line(label, 'whole report', fmt(xs.map((x) => x.completeMs))));
      }
      out.push(line(`fresh worker ${lang} 1k`, 'code cache', `${Math.round(fs.statSync(cache).size / 1024)} KB`));
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function fresh(runs: number): string[] {
  const out: string[] = [];
  for (const lang of LANGS) {
    const rows: { parsersMs: number; firstMs: number; secondColdMs: number; kernels: number }[] = [];
    for (let r = 0; r < runs; r++) {
      const res = spawnSync(process.execPath, [__filename, '--child-fresh', lang], { encoding: 'utf8' });
      if (res.status !== 0) return [`fresh ${lang}: child failed: ${res.stderr.slice(0, 300)}`];
      rows.push(JSON.parse(res.stdout.trim().split('\n').pop()!));
    }
    const label = `${lang} fixtures 1k lines (${rows[0].kernels} k)`;
    out.push(line(label, 'runtime + grammar', fmt(rows.map((x) => x.parsersMs))));
    out.push(line(label, 'first analysis', fmt(rows.map((x) => x.firstMs))));
    out.push(line(label, 'second (cold caches)', fmt(rows.map((x) => x.secondColdMs))));
  }
  return out;
}

// ---------------------------------------------------------------------------
// extension load

/** In a child: requires the extension bundle with a stand-in `vscode` module; prints the time. */
function startupChild(bundle: string): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Module = require('node:module') as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = Module._load;
  Module._load = (request: string, ...rest: unknown[]) => (request === 'vscode' ? {} : original(request, ...rest));
  const t0 = performance.now();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(bundle);
  process.stdout.write(JSON.stringify({ loadMs: performance.now() - t0 }) + '\n');
}

function startup(runs: number): string[] {
  const out: string[] = [];
  for (const b of ['extension.js', 'worker.js']) {
    const file = path.join(DIST, b);
    if (!fs.existsSync(file)) {
      out.push(line(`load dist/${b}`, '', 'not built'));
      continue;
    }
    if (b === 'worker.js') continue;
    const xs: number[] = [];
    for (let r = 0; r < runs; r++) {
      const res = spawnSync(process.execPath, [__filename, '--child-startup', file], { encoding: 'utf8' });
      if (res.status !== 0) return [`startup: child failed: ${res.stderr.slice(0, 300)}`];
      xs.push(JSON.parse(res.stdout.trim().split('\n').pop()!).loadMs);
    }
    out.push(line(`load dist/${b} (${Math.round(fs.statSync(file).size / 1024)} KB)`, 'require()', fmt(xs)));
  }
  return out;
}

// ---------------------------------------------------------------------------
// CLI

function wall(args: string[], runs: number): { times: number[]; stdout: string } {
  const times: number[] = [];
  let stdout = '';
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const res = spawnSync(process.execPath, [path.join(DIST, 'cli.js'), ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
    times.push(performance.now() - t0);
    if (res.status !== 0) throw new Error(`cli ${args.join(' ')} exited ${res.status}: ${res.stderr.slice(0, 300)}`);
    stdout = res.stdout;
  }
  return { times, stdout };
}

function tutorials(): string[] {
  const dir = path.join(CORPORA, 'triton-tutorials');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.py')).sort().map((f) => path.join(dir, f)) : [];
}

function cli(runs: number): string[] {
  const out: string[] = [];
  const version = wall(['--version'], runs).times;
  out.push(line('cli --version (Node + bundle)', 'wall', fmt(version)));
  const small = path.join(ROOT, 'examples', 'softmax.py');
  const s = wall(['analyze', small], runs).times;
  out.push(line(`cli analyze ${path.basename(small)} (${fs.readFileSync(small, 'utf8').split('\n').length} lines)`, 'wall', fmt(s)));
  const tut = tutorials();
  if (tut.length === 0) out.push(line('cli analyze Triton tutorials', '', `skipped: no ${CORPORA}/triton-tutorials`));
  else {
    const lines = tut.reduce((n, f) => n + fs.readFileSync(f, 'utf8').split('\n').length, 0);
    const t = wall(['analyze', ...tut, '--format', 'json'], runs);
    const kernels = (JSON.parse(t.stdout) as { files: { kernels: unknown[] }[] }).files.reduce((n, f) => n + f.kernels.length, 0);
    const beyond = t.times.map((x) => x - stats(version).median);
    out.push(line(`cli analyze ${tut.length} tutorials (${lines} lines, ${kernels} k)`, 'wall', fmt(t.times)));
    out.push(line(`cli analyze ${tut.length} tutorials`, 'beyond --version', fmt(beyond)));
  }
  return out;
}

/** 793 kernel files of the public corpora (docs/performance.md names the folders). */
const CORPUS_FOLDERS = [
  'triton-tutorials',
  'BobMcDear+attorch',
  'ELS-RD+kernl',
  'ModelTC+lightllm',
  'linkedin+Liger-Kernel',
  'pytorch-labs+applied-ai',
  'siboehm+SGEMM_CUDA',
  'NVIDIA+cuda-samples',
  'linebender+vello',
  'webgpu+webgpu-samples',
  '0hq+WebGPT',
];

function corpus(runs: number): string[] {
  const dirs = CORPUS_FOLDERS.map((d) => path.join(CORPORA, d));
  if (!dirs.every((d) => fs.existsSync(d))) return [line('corpus', '', `skipped: the folders of ${CORPORA} are not all there`)];
  const times: number[] = [];
  const rss: number[] = [];
  let files = 0;
  let kernels = 0;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const res = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, path.join(DIST, 'cli.js'), 'analyze', ...dirs, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 30 });
    times.push(performance.now() - t0);
    if (res.status !== 0) return [`corpus: cli exited ${res.status}: ${res.stderr.slice(-300)}`];
    rss.push(Number(res.stderr.trim().split('\n').pop()) / 1024);
    const doc = JSON.parse(res.stdout) as { files: { kernels: unknown[] }[] };
    files = doc.files.length;
    kernels = doc.files.reduce((n, f) => n + f.kernels.length, 0);
  }
  return [line(`cli analyze ${files} corpus files (${kernels} k)`, 'wall', fmt(times)), line(`cli analyze ${files} corpus files`, 'peak RSS', fmt(rss, 'MB'))];
}

// ---------------------------------------------------------------------------
// real files

/**
 * Real public files of /work/corpora typed into (read where they are, with the
 * project files the CLI would read beside them): the fixtures and generated
 * files do not show what a real file costs — its host code, launch sites,
 * headers, and the syntax errors the parser meets in a sixth of real CUDA
 * files.
 */
const REAL_FILES = [
  'NVIDIA+cuda-samples/Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu',
  'linkedin+Liger-Kernel/liger_cute_kernels/csrc/core/src/moe/moe.cu',
  'linkedin+Liger-Kernel/liger_cute_kernels/csrc/core/src/moe/moe_bwd.cu',
  // Host code with one launch, 8 project headers (one of them a C API header: docs/accuracy.md, eighth session).
  'linkedin+Liger-Kernel/liger_cute_kernels/csrc/core/src/moe/tune/tune_moe_fwd_bwd.cu',
  'triton-tutorials/06-fused-attention.py',
  'ModelTC+lightllm/lightllm/common/basemodel/triton_kernel/quantize_gemm_int8.py',
  'linkedin+Liger-Kernel/src/liger_kernel/ops/backends/_ascend/ops/fused_neighborhood_attention.py',
  'linebender+vello/vello_shaders/shader/fine.wgsl',
];

/**
 * A new line typed in the middle of the file, one character a keystroke: a
 * statement in the function body found there (`int zz… = 1;` / `zz… = 1` /
 * `let zz… = 1;`), which parses at every keystroke.
 */
/**
 * Typing a line in the middle of a real file, one character a keystroke:
 * each text analysed by `analyzeSource`, or, `sliced`, as the editor's
 * worker analyses it (`analyseInSlices` with the worker's slices: the
 * parse ahead, then the analysis calls until the report is complete).
 */
async function realTyping(p: Parsers, lang: Language, file: string, src: string, related: AnalyzeOptions['related'], runs: number, sliced: boolean): Promise<{ wall: number[]; cpu: number[]; kernels: number }> {
  const o: AnalyzeOptions = { gpu: findGpu('h100-sxm')!, path: file, language: lang, ...(related ? { related } : {}) };
  const lines = src.split('\n');
  const ends = lang === 'triton' ? /^\s+[A-Za-z_][\w.]*\s*=\s*\S.*[^\\,(\[{:]$/ : /^\s+.*;\s*$/;
  let at = lines.length >> 1;
  while (at < lines.length - 1 && !ends.test(lines[at])) at++;
  const indent = /^\s*/.exec(lines[at])![0];
  const typed = (name: string): string => (lang === 'triton' ? `${indent}${name} = 1` : lang === 'wgsl' ? `${indent}let ${name} = 1;` : `${indent}int ${name} = 1;`);
  const text = (name: string): string => [...lines.slice(0, at + 1), typed(name), ...lines.slice(at + 1)].join('\n');
  const so = { ...o, path: file, language: lang };
  const analyse = async (t: string): Promise<FileReport> => (sliced ? ((await analyseInSlices(p, t, so, { ...WORKER_SLICES, pause: async () => {} })) as FileReport) : analyzeSource(t, p, o));
  clearCaches();
  const kernels = (await analyse(src)).kernels.length;
  await analyse(text('z'));
  const wall: number[] = [];
  const cpu: number[] = [];
  let name = 'z';
  for (let r = 0; r < Math.max(runs * 2, 6); r++) {
    name += 'a';
    const c = process.cpuUsage();
    const t0 = performance.now();
    await analyse(text(name));
    wall.push(performance.now() - t0);
    cpu.push(cpuMs(c));
  }
  return { wall, cpu, kernels };
}

async function real(runs: number): Promise<string[]> {
  const present = REAL_FILES.map((f) => path.join(CORPORA, f)).filter((f) => fs.existsSync(f));
  if (present.length === 0) return [line('real files', '', `skipped: none of them in ${CORPORA}`)];
  const p = await parsersFor(LANGS);
  const out: string[] = [];
  for (const file of present) {
    const lang = languageOf(file)!;
    const src = decode(fs.readFileSync(file));
    const related = readRelated(file, lang, src);
    const n = related ? Object.keys(related).length : 0;
    const headers = n ? ` + ${n} related` : '';
    for (const sliced of [false, true]) {
      const t = await realTyping(p, lang, file, src, related, runs, sliced);
      out.push(line(`${path.basename(file)} (${src.split('\n').length} lines${headers}, ${t.kernels} k)`, sliced ? "typing, editor's path" : 'typing a line', `${fmt(t.wall)}; cpu median ${f1(stats(t.cpu).median)} ms`));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// host

async function host(quick: boolean): Promise<string[]> {
  const out: string[] = [];
  const gpu = findGpu('h100-sxm')!;
  const files: [Language, string, string][] = [
    ['triton', 'fixtures 10k', fixtureFile(ROOT, 'triton', 10000)],
    ['cuda', 'fixtures 10k', fixtureFile(ROOT, 'cuda', 10000)],
    ['wgsl', 'fixtures 10k', fixtureFile(ROOT, 'wgsl', 10000)],
    ['triton', 'generated 20k', tritonFile(20000)],
  ];
  const modes: HostMode[] = ['worker', 'in-host', 'synchronous (before)'];
  await parsersFor(LANGS);
  for (const [lang, label, text] of quick ? files.slice(0, 1) : files) {
    for (const mode of modes) {
      clearCaches();
      const file = `host-${label.replace(/\W+/g, '-')}-${mode.replace(/\W+/g, '')}.${EXT[lang]}`;
      const session = hostSession(mode, DIST, { gpu, path: file, language: lang });
      const lines = text.split('\n').length;
      // The editor shows about 50 lines in the middle of the file.
      const focus = { startLine: Math.floor(lines / 2), endLine: Math.floor(lines / 2) + 50 };
      try {
        const open = await session.analyse(text, focus);
        const name = `host ${mode}: ${lang} ${label} (${open.kernels} k)`;
        out.push(
          line(
            name,
            'open',
            `longest block ${f1(open.longestBlockCpuMs)} ms on-CPU (${f1(open.longestBlockMs)} ms wall) of ${open.blocks}; first lenses ${f1(open.firstLensesMs)} ms, all ${f1(open.completeMs)} ms; loop delay max ${f1(open.loopDelayMaxMs)} ms`,
          ),
        );
        const spans = open.report ? spansOf(open.report) : [];
        let cur = text;
        const edits: number[] = [];
        const editsCpu: number[] = [];
        const complete: number[] = [];
        for (let i = 0; i < 3; i++) {
          cur = i % 2 === 0 ? editInside(cur, spans, i, lang) : editOutside(cur, spans, i, lang);
          const r = await session.analyse(cur, focus);
          edits.push(r.longestBlockMs);
          editsCpu.push(r.longestBlockCpuMs);
          complete.push(r.completeMs);
        }
        out.push(line(name, 'edits', `longest block on-CPU ${fmt(editsCpu)}; wall ${fmt(edits)}; complete ${fmt(complete)}`));
      } finally {
        session.dispose();
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------

function bundles(): string[] {
  const gz = (file: string): string => {
    try {
      const n = execFileSync('gzip', ['-c', file]).length;
      return ` (${Math.round(n / 1024)} KB gzip)`;
    } catch {
      return '';
    }
  };
  return ['extension.js', 'worker.js', 'web/extension.js', 'web/worker.js', 'webview.js', 'cli.js', 'cli-main.js', 'cli-main.cache', 'web-tree-sitter.wasm', 'tree-sitter-python.wasm', 'tree-sitter-cuda.wasm'].map((b) => {
    const file = path.join(DIST, b);
    return line(`bundle ${b}`, 'size', fs.existsSync(file) ? `${Math.round(fs.statSync(file).size / 1024)} KB${gz(file)}` : 'not built');
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child-fresh') return freshChild(argv[1] as Language);
  if (argv[0] === '--child-startup') return startupChild(argv[1]);
  if (argv[0] === '--child-fresh-worker') return freshWorkerChild(argv[1] as Language, argv[2]);
  const opt = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes('--quick');
  const runs = Number(opt('--runs') ?? (quick ? 3 : 9));
  const only = new Set((opt('--only') ?? 'analysis,session,floor,real,fresh,startup,cli,corpus,host,bundles').split(','));
  const print = (lines: string[]): void => console.log(lines.join('\n'));
  print([`machine: ${process.platform} ${process.arch}, node ${process.version}, ${os.cpus().length} cores; load average at start ${load()}`]);
  if (only.has('analysis')) print(await analysis(runs, quick));
  if (only.has('session')) print(await session(quick));
  if (only.has('floor')) print(await floor(runs));
  if (only.has('real')) print(await real(runs));
  if (only.has('fresh')) print([...fresh(Math.min(runs, 5)), ...freshWorkers(Math.max(runs, 5))]);
  if (only.has('startup')) print(startup(runs));
  if (only.has('cli')) print(cli(Math.min(runs, 5)));
  if (only.has('corpus')) print(corpus(quick ? 1 : 3));
  if (only.has('host')) print(await host(quick));
  if (only.has('bundles')) print(bundles());
  print([`load average at end ${load()}`]);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
