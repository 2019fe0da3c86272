/**
 * What the CLI reads from disk: kernel files below directories, file text,
 * the tree-sitter grammars; and the multi-GPU analysis of one file's text.
 */
import * as fs from 'node:fs';
import * as v8 from 'node:v8';
import * as path from 'node:path';
import { analyzeSource, languageOf, OneShot, type AnalyzeOptions } from '../core/analyze';
import type { GpuSpec } from '../core/gpus/types';
import type { Language } from '../core/ir';
import { grammarOf, initParsers, type Parsers, type WasmName } from '../core/parsers';
import { verdictOf, type GpuVerdict, type MultiGpuFile } from '../core/report/render';

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'out', '__pycache__', '.venv', 'venv']);

/** Expands directories into the kernel files below them (sorted, deterministic). */
export function expand(inputs: string[]): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (depth > 20) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((x, y) => x.name.localeCompare(y.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) walk(p, depth + 1);
      } else if (e.isFile() && languageOf(p)) files.push(p);
    }
  };
  for (const i of inputs) {
    let st: fs.Stats;
    try {
      st = fs.statSync(i);
    } catch {
      missing.push(i);
      continue;
    }
    if (st.isDirectory()) walk(i, 0);
    else files.push(i);
  }
  return { files, missing };
}

/** Does a file not named explicitly hold kernels of its language worth reporting? */
export function worthReporting(file: string, src: string): boolean {
  const lang = languageOf(file);
  if (lang === 'triton') return src.includes('triton');
  if (lang === 'wgsl' && !file.endsWith('.wgsl')) return src.includes('@compute');
  return lang !== undefined;
}

/** UTF-8 text of bytes; invalid sequences become U+FFFD (the analysis then flags binary input). */
export function decode(buf: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(buf);
}

export function wasmLoader(): (name: WasmName) => Promise<Uint8Array> {
  const here = typeof __dirname === 'string' ? __dirname : process.cwd();
  return async (name) => {
    const candidates = [path.join(here, name), path.join(here, 'wasm', name), path.join(here, '..', 'dist', name), path.join(here, '..', '..', 'dist', name)];
    for (const c of candidates) if (fs.existsSync(c)) return fs.readFileSync(c);
    throw new Error(`cannot find ${name} next to the CLI (looked in ${candidates.join(', ')}); run 'npm run build'`);
  };
}

/** Inputs up to this many bytes in all are a short run: the parsers' WASM stays on its baseline tier. */
const SHORT_RUN_BYTES = 256 * 1024;

/**
 * Before the parsers load: on a short run (a file or a few), V8 keeps the
 * grammars' WebAssembly on its baseline compiler. Otherwise V8 recompiles
 * the hot parser functions with its optimising compiler in background
 * threads, and the process waits for them at exit: ~50 ms of a 190 ms run on
 * one small file, for code the run is already done with. Long runs keep the
 * optimising tier (they parse megabytes with it).
 */
export function preferBaselineWasm(files: readonly string[]): boolean {
  let bytes = 0;
  for (const f of files) {
    try {
      bytes += fs.statSync(f).size;
    } catch {
      // unreadable: reported by the analysis
    }
    if (bytes > SHORT_RUN_BYTES) return false;
  }
  try {
    v8.setFlagsFromString('--liftoff-only');
    return true;
  } catch {
    return false;
  }
}

/**
 * The parsers, for files of `language`: tree-sitter's runtime is loaded on
 * the first call and each grammar when a file of its language first needs it
 * (a Python-only run never reads the 4 MB CUDA grammar).
 */
export type ParsersFor = (language: Language) => Promise<Parsers>;

/** A ParsersFor that reads the grammars next to the CLI. */
export function lazyParsers(load: (name: WasmName) => Promise<Uint8Array> = wasmLoader()): ParsersFor {
  return (language) => {
    const g = grammarOf(language);
    return initParsers(load, g ? [g] : []);
  };
}

/** The language a file is analysed as (its extension's; Triton when it has none the analysis knows). */
export function analysisLanguage(file: string): Language {
  return languageOf(file) ?? 'triton';
}

/**
 * Analyses one file's text for every GPU. The first GPU's report is the
 * file's report; with more than one GPU each kernel also gets `byGpu`.
 */
export function analyzeForGpus(source: string, parsers: Parsers, gpus: GpuSpec[], opts: Omit<AnalyzeOptions, 'gpu'>): MultiGpuFile {
  // The CLI reads a text once: nothing is kept for an edited version of it (the GPUs share its kernels).
  const once = opts.once ?? new OneShot();
  const first: MultiGpuFile = analyzeSource(source, parsers, { ...opts, once, gpu: gpus[0] });
  if (gpus.length < 2) return first;
  const others = gpus.slice(1).map((g) => ({ id: g.id, report: analyzeSource(source, parsers, { ...opts, once, gpu: g }) }));
  first.kernels = first.kernels.map((k) => {
    const byGpu: Record<string, GpuVerdict> = { [gpus[0].id]: verdictOf(k) };
    for (const o of others) {
      const same = o.report.kernels.find((x) => x.name === k.name && x.line === k.line);
      if (same) byGpu[o.id] = verdictOf(same);
    }
    return { ...k, byGpu };
  });
  return first;
}
