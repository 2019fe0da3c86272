/**
 * `npm run bench`: figures, one line each, medians of repeated runs with min/max.
 *
 *   analysis   cold ms (caches cleared), after a one-character edit ms (incremental
 *              parse + per-kernel cache), peak heap MB — per language, 1,000 and 10,000 lines
 *   bundles    size of each built bundle and grammar
 *
 * Run after `npm run build` (the npm script does both).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeSource, clearCaches, type AnalyzeOptions } from '../../src/core/analyze';
import { findGpu } from '../../src/core/gpus/catalog';
import { initParsers, type Parsers, type WasmName } from '../../src/core/parsers';
import type { Language } from '../../src/core/ir';
import { tritonFile, cudaFile, wgslFile } from './generate';

const ROOT = path.join(__dirname, '..');
const DIST = fs.existsSync(path.join(ROOT, 'dist')) ? path.join(ROOT, 'dist') : path.join(ROOT, '..', 'dist');

function stats(xs: number[]): { median: number; min: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
}

function fmt(x: { median: number; min: number; max: number }, unit: string): string {
  return `${x.median.toFixed(1)} ${unit} (min ${x.min.toFixed(1)}, max ${x.max.toFixed(1)})`;
}

/**
 * A one-character edit in the n-th occurrence of a language's marker (a block
 * size, a constant): its last digit flips between two values, so successive
 * edits are real changes to one kernel.
 */
const MARKERS: Record<Language, { text: string; a: string; b: string }> = {
  triton: { text: '1024', a: '4', b: '8' },
  cuda: { text: '2.0', a: '0', b: '5' },
  wgsl: { text: '2.0', a: '0', b: '5' },
};

function edit(src: string, n: number, lang: Language): string {
  const m = MARKERS[lang];
  let at = -1;
  let found = -1;
  for (let i = 0; i <= n; i++) {
    let next = src.indexOf(m.text.slice(0, -1), at + 1);
    while (next >= 0 && src[next + m.text.length - 1] !== m.a && src[next + m.text.length - 1] !== m.b) next = src.indexOf(m.text.slice(0, -1), next + 1);
    if (next < 0) break;
    at = found = next;
  }
  if (found < 0) return src + ' ';
  const pos = found + m.text.length - 1;
  return src.slice(0, pos) + (src[pos] === m.a ? m.b : m.a) + src.slice(pos + 1);
}

function measure(p: Parsers, lang: Language, src: string, file: string, opts: AnalyzeOptions, runs: number): string[] {
  const cold: number[] = [];
  const warm: number[] = [];
  let kernels = 0;
  let peak = 0;
  for (let r = 0; r < runs; r++) {
    clearCaches();
    const t0 = performance.now();
    const rep = analyzeSource(src, p, { ...opts, path: file, language: lang });
    cold.push(performance.now() - t0);
    kernels = rep.kernels.length;
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  let cur = src;
  analyzeSource(cur, p, { ...opts, path: file, language: lang });
  for (let r = 0; r < runs * 2; r++) {
    cur = edit(cur, r % Math.max(1, kernels), lang);
    const t0 = performance.now();
    analyzeSource(cur, p, { ...opts, path: file, language: lang });
    warm.push(performance.now() - t0);
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const lines = src.split('\n').length;
  const label = `${lang} ${lines} lines (${kernels} kernels)`;
  return [
    `${label.padEnd(36)} cold         ${fmt(stats(cold), 'ms')}`,
    `${label.padEnd(36)} after edit   ${fmt(stats(warm), 'ms')}`,
    `${label.padEnd(36)} peak heap    ${(peak / 1e6).toFixed(1)} MB`,
  ];
}

function size(file: string): string {
  try {
    const b = fs.statSync(file).size;
    return `${(b / 1024).toFixed(0)} KB`;
  } catch {
    return 'not built';
  }
}

async function main(): Promise<void> {
  const load = async (name: WasmName): Promise<Uint8Array> => fs.readFileSync(path.join(DIST, name));
  const p = await initParsers(load);
  const gpu = findGpu('h100-sxm')!;
  const opts: AnalyzeOptions = { gpu, set: { K: 4096, n: 1 << 20, n_cols: 1024, N: 4096, M: 4096 } };
  const out: string[] = [`machine: ${process.platform} ${process.arch}, node ${process.version}, ${require('node:os').cpus().length} cores`];
  const gens: [Language, (n: number) => string, string][] = [
    ['triton', tritonFile, 'bench.py'],
    ['cuda', cudaFile, 'bench.cu'],
    ['wgsl', wgslFile, 'bench.wgsl'],
  ];
  for (const [lang, gen, file] of gens) {
    out.push(...measure(p, lang, gen(1000), file, opts, 9));
    out.push(...measure(p, lang, gen(10000), file, opts, 3));
  }
  for (const b of ['extension.js', 'web/extension.js', 'webview.js', 'cli.js', 'web-tree-sitter.wasm', 'tree-sitter-python.wasm', 'tree-sitter-cuda.wasm'])
    out.push(`bundle ${b.padEnd(30)} ${size(path.join(DIST, b))}`);
  console.log(out.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
