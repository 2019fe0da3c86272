/**
 * Work proportional to the edit never changes a number (issue 17): after
 * each edit of a file analysed in one process — digits flipped inside and
 * outside kernels, lines inserted and removed, text typed at the end of a
 * line — the report is byte-identical to a cold analysis of the same text
 * (every cache cleared). The incremental path reuses the previous tree,
 * the node objects of the statements the edit did not touch (syntax-tree.ts),
 * the scans kept per statement and the kernels kept by key.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { analyzeSource, clearCaches, OneShot } from '../src/core/analyze';
import { DEFAULT_FILE_STEPS } from '../src/core/budget';
import { findGpu } from '../src/core/gpus/catalog';
import type { Language } from '../src/core/ir';
import { parseCached, retiredTreeCount, type Parsers } from '../src/core/parsers';
import { syntaxRoot, type SyntaxNode } from '../src/core/syntax-tree';
import type { FileReport } from '../src/core/report/types';
import * as fs from 'node:fs';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { Parser } from 'web-tree-sitter';
import { editInside, editNewline, editOutside, fixtureFile, type KernelSpan } from './bench/fixtures';
import { cudaFile } from './bench/generate';
import { kernelStats } from '../src/core/engine/driver';
import { answerStats } from '../src/core/deps';
import { fixtures, loadParsers } from './check';
import { tritonLaunchBindStats, tritonOwnLaunchStats, tritonPipelineStats } from '../src/core/frontends/triton/frontend';
import { cudaPipelineStats } from '../src/core/frontends/cuda/frontend';
import { cudaScanStats } from '../src/core/frontends/cuda/file';
import { launchStats } from '../src/core/frontends/cuda/launch';
import { parseStats } from '../src/core/parsers';

const ROOT = path.join(__dirname, '..');
const H100 = findGpu('h100-sxm')!;
const EXT: Record<Language, string> = { triton: 'py', cuda: 'cu', wgsl: 'wgsl' };

/** A CUDA kernel the tests below write beside the one they edit (one thread an element, its block from the launch). */
const CUDA_SHIFT = ['__global__ void shift(float* y, const float* x, int n) {', '  int i = blockIdx.x * blockDim.x + threadIdx.x;', '  if (i < n) y[i] = x[i] + 1.0f;', '}'];

/** The first lines of the Triton files written in the tests below: the imports, then a kernel's decorator. */
const TRITON_HEAD = ['import torch', 'import triton', 'import triton.language as tl', '', '', '@triton.jit'];

/** A Triton kernel launched from two host functions with different blocks, both called from `main`. */
const OWN_LAUNCHES = [
  ...TRITON_HEAD,
  'def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):',
  '    pid = tl.program_id(0)',
  '    offs = pid * BLOCK + tl.arange(0, BLOCK)',
  '    mask = offs < n',
  '    x = tl.load(x_ptr + offs, mask=mask)',
  '    tl.store(out_ptr + offs, x * 2.0, mask=mask)',
  '',
  '',
  'def small(x):',
  '    out = torch.empty_like(x)',
  '    n = x.numel()',
  '    scale_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)',
  '    return out',
  '',
  '',
  'def large(x):',
  '    out = torch.empty_like(x)',
  '    n = x.numel()',
  '    scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)',
  '    return out',
  '',
  '',
  'def main():',
  '    small(torch.randn(4096, device="cuda"))',
  '    large(torch.randn(1 << 20, device="cuda"))',
  '',
].join('\n');

function content(r: FileReport): string {
  return JSON.stringify({ kernels: r.kernels, diagnostics: r.diagnostics, pipelines: r.pipelines ?? null, partial: r.partial ?? null });
}

/** Inserts `text` as a line before 0-based line `at`, or removes that line when `text` is undefined. */
function lineEdit(src: string, at: number, text: string | undefined): string {
  const lines = src.split('\n');
  const i = Math.min(at, lines.length - 1);
  if (text === undefined) lines.splice(i, 1);
  else lines.splice(i, 0, text);
  return lines.join('\n');
}

/** A sequence of versions of `src`, each one edit from the one before. */
function versions(src: string, spans: KernelSpan[], lang: Language): string[] {
  const comment = lang === 'triton' ? '# a note' : '// a note';
  const out: string[] = [];
  let cur = src;
  for (let n = 0; n < 24; n++) {
    const lines = cur.split('\n').length;
    switch (n % 6) {
      case 0:
      case 3:
        cur = editInside(cur, spans, n, lang);
        break;
      case 1:
      case 4:
        cur = editOutside(cur, spans, n, lang);
        break;
      case 2:
        // A line inserted in the middle: every statement below moves.
        cur = lineEdit(cur, Math.floor((lines * (n + 1)) / 25), comment);
        break;
      case 5:
        // The line inserted before removed again: the statements move back.
        cur = lineEdit(cur, Math.floor((lines * (n - 2)) / 25), undefined);
        break;
    }
    out.push(cur);
  }
  return out;
}

/** Every node of a tree, one line each: kind, indices, start, and a leaf's text. */
function dump(n: SyntaxNode, out: string[], depth = 0): void {
  out.push(`${depth}:${n.type}@${n.startIndex}-${n.endIndex}:${n.startPosition.row}.${n.startPosition.column}:${n.childCount ? '' : n.text}`);
  for (const c of n.children) dump(c, out, depth + 1);
}

/** The document's cached view of `text` (as the edits left it) and a fresh parse of the same text, dumped. */
function viewAndFresh(parser: Parser, file: string, text: string): { viewed: string[]; expected: string[] } {
  const viewed: string[] = [];
  dump(syntaxRoot(parseCached(parser, file, text, undefined)!, text), viewed);
  const fresh = parser.parse(text)!;
  const expected: string[] = [];
  dump(syntaxRoot(fresh, text), expected);
  fresh.delete();
  return { viewed, expected };
}

/**
 * Each of `texts` analysed cold (every cache cleared), then all of them in
 * turn on warm caches after `start` (each an edit of the one before): the
 * reports must be byte-identical. `what(i)` names a version in a failure.
 */
function warmEqualsCold(parsers: Parsers, file: string, start: string[], texts: string[], what: (i: number) => string): void {
  const cold = texts.map((t) => {
    clearCaches();
    return content(analyzeSource(t, parsers, { gpu: H100, path: file }));
  });
  clearCaches();
  for (const t of start) analyzeSource(t, parsers, { gpu: H100, path: file });
  texts.forEach((t, i) => {
    const warm = content(analyzeSource(t, parsers, { gpu: H100, path: file }));
    if (warm !== cold[i]) assert.deepEqual(JSON.parse(warm), JSON.parse(cold[i]), what(i));
    assert.equal(warm, cold[i], `${what(i)}: byte for byte`);
  });
}

/**
 * `warmEqualsCold` over edits of `src` given as `[what, from, to]` (each a
 * replacement of `src`'s first `from`); returns the edited texts.
 */
function editsWarmEqualsCold(parsers: Parsers, file: string, src: string, edits: readonly (readonly [string, string, string])[]): string[] {
  const texts = edits.map(([what, from, to]) => {
    assert.ok(src.includes(from), `${what}: \`${from}\` is in the text`);
    return src.replace(from, to);
  });
  warmEqualsCold(parsers, file, [src], texts, (i) => edits[i][0]);
  return texts;
}

/** The top-level statements a CUDA file's scan walks and replays for `edited`, after `start` (caches cleared first). */
function scanAfterEdit(parsers: Parsers, file: string, start: string, edited: string): { walked: number; replayed: number } {
  clearCaches();
  analyzeSource(start, parsers, { gpu: H100, path: file });
  const before = { ...cudaScanStats };
  analyzeSource(edited, parsers, { gpu: H100, path: file });
  return { walked: cudaScanStats.visited - before.visited, replayed: cudaScanStats.replayed - before.replayed };
}

/** Analyses `text` after `start` (caches cleared first): its report, and how many kernels it analysed (not kept). */
function afterEdit(parsers: Parsers, file: string, start: string, text: string): { report: ReturnType<typeof analyzeSource>; analysed: number } {
  clearCaches();
  analyzeSource(start, parsers, { gpu: H100, path: file });
  const before = kernelStats.analysed;
  const report = analyzeSource(text, parsers, { gpu: H100, path: file });
  return { report, analysed: kernelStats.analysed - before };
}

describe('incremental analysis equals a cold one after every edit', function () {
  this.timeout(600_000);
  let parsers: Parsers;
  before(async () => {
    parsers = await loadParsers();
  });

  for (const lang of ['triton', 'cuda', 'wgsl'] as const) {
    it(`${lang}: 24 edits of a 1,000-line file of the fixtures`, () => {
      const src = fixtureFile(ROOT, lang, 1000);
      const file = `incremental.${EXT[lang]}`;
      clearCaches();
      const first = analyzeSource(src, parsers, { gpu: H100, path: file });
      const spans = first.kernels.map((k) => ({ start: k.line - 1, end: (k.endLine ?? k.line) - 1 }));
      assert.ok(spans.length > 5, `${spans.length} kernels`);
      warmEqualsCold(parsers, file, [src], versions(src, spans, lang), (i) => `edit ${i + 1}`);
    });
  }

  it('keeps a bounded number of earlier trees alive over a long editing session', () => {
    const src = fixtureFile(ROOT, 'triton', 1000);
    const file = 'incremental-session.py';
    clearCaches();
    const first = analyzeSource(src, parsers, { gpu: H100, path: file });
    const spans = first.kernels.map((k) => ({ start: k.line - 1, end: (k.endLine ?? k.line) - 1 }));
    let cur = src;
    let most = 0;
    for (let n = 0; n < 160; n++) {
      cur = n % 2 ? editOutside(cur, spans, n * 5, 'triton') : editInside(cur, spans, n * 7, 'triton');
      analyzeSource(cur, parsers, { gpu: H100, path: file });
      most = Math.max(most, retiredTreeCount());
    }
    assert.ok(most > 0, 'earlier trees were kept for carried statements');
    assert.ok(most <= 65, `at most 64 earlier trees alive at once (saw ${most})`);
    clearCaches();
    assert.equal(retiredTreeCount(), 0, 'every tree deleted once the cache is cleared');
  });

  it('goes on parsing incrementally when edits spread over more statements than the trees kept alive', () => {
    // 75 kernels, an edit in each in turn: every statement edited is read from the tree of its edit, and the view
    // reads from a tree per statement. Past the limit one parse starts afresh, and its view from its own tree only
    // (a view that carried them on read from as many, and every later keystroke was parsed from scratch).
    const src = cudaFile(1000);
    const file = 'incremental-spread.cu';
    clearCaches();
    const spans = analyzeSource(src, parsers, { gpu: H100, path: file }).kernels.map((k) => ({ start: k.line - 1, end: (k.endLine ?? k.line) - 1 }));
    assert.ok(spans.length > 70, `${spans.length} kernels`);
    let cur = src;
    const before = { ...parseStats };
    for (let n = 0; n < 200; n++) {
      cur = editInside(cur, spans, n, 'cuda');
      analyzeSource(cur, parsers, { gpu: H100, path: file });
    }
    const scratch = parseStats.scratch - before.scratch;
    assert.equal(parseStats.incremental - before.incremental + scratch, 200, 'each edit a new text of the document');
    assert.ok(scratch >= 2 && scratch <= 4, `a parse from scratch every 64 edits or so (saw ${scratch} of 200)`);
  });

  /**
   * Every number of every fixture changed in turn, each version analysed
   * after the one before on warm caches and compared with a cold analysis:
   * a kernel reused after an edit it read (a host constant, a launcher's
   * argument, a `__main__` size) would differ.
   */
  for (const [lang, exts] of [
    ['triton', ['.py']],
    ['cuda', ['.cu']],
    ['wgsl', ['.wgsl']],
  ] as const) {
    it(`${lang}: each number of each fixture changed in turn`, () => {
      const files = [...fixtures(lang, [...exts]), ...fs.readdirSync(path.join(__dirname, 'fixtures', 'rules')).flatMap((d) => fixtures(`rules/${d}`, [...exts]))];
      let compared = 0;
      for (const f of files) {
        const src = fs.readFileSync(f, 'utf8');
        const numbers = [...src.matchAll(/(?<![\w.])\d+(?![\w.])/g)].slice(0, 40);
        const texts = numbers.map((m) => src.slice(0, m.index) + String(Number(m[0]) + 1) + src.slice(m.index! + m[0].length));
        warmEqualsCold(parsers, `numbers-${path.basename(f)}`, [src], texts, (i) => `${f}: number ${numbers[i][0]} at offset ${numbers[i].index}`);
        compared += texts.length;
      }
      assert.ok(compared > 100, `${compared} versions compared`);
    });
  }

  /**
   * The launch pipelines are kept with what they read: an edit inside a
   * kernel's body reuses them; an edit of a kernel's parameters, of a
   * launcher, of the pipeline function, or one that moves a call into or out
   * of a host function rebuilds them, and every version equals a cold one.
   */
  /**
   * Edits of a pipeline fixture in turn, each equal to a cold analysis; then
   * again on warm caches, counting whether the launch pipelines were reused
   * (`reused` true) or rebuilt.
   */
  function pipelineEdits(file: string, name: string, edits: [string, string, boolean][], stats: () => { reused: number }): void {
    const src = fs.readFileSync(path.join(__dirname, 'fixtures', file), 'utf8');
    const texts: string[] = [];
    let cur = src;
    for (const [from, to] of edits) {
      assert.ok(cur.includes(from), `the fixture has ${from}`);
      cur = cur.replace(from, to);
      texts.push(cur);
    }
    warmEqualsCold(parsers, name, [src], texts, (i) => `edit ${i + 1}: ${edits[i][0]}`);
    clearCaches();
    analyzeSource(src, parsers, { gpu: H100, path: name });
    texts.forEach((t, i) => {
      const before = stats().reused;
      const r = analyzeSource(t, parsers, { gpu: H100, path: name });
      assert.ok(r.pipelines?.length, `edit ${i + 1}: a pipeline`);
      assert.equal(stats().reused - before, edits[i][2] ? 1 : 0, `edit ${i + 1} (${edits[i][0]}): pipelines ${edits[i][2] ? 'reused' : 'rebuilt'}`);
    });
  }

  /**
   * The launch pipelines are kept with what they read: an edit inside a
   * kernel's body reuses them; an edit of a kernel's parameters, of a
   * launcher, of the pipeline function, or one that moves a call into or out
   * of a host function rebuilds them.
   */
  it('triton: launch pipelines reused after edits they did not read, rebuilt after the others', () => {
    pipelineEdits('triton/pipeline_forward.py', 'pipelines.py', [
      ['ms = tl.sum(x * x, axis=0) / N', 'ms = tl.sum(x * x, axis=0) / N + 0.0', true],
      ['acc += tl.dot(a, b)', 'acc += tl.dot(a, b) * 1.0', true],
      ['def add_kernel(x_ptr, y_ptr, out_ptr, n,', 'def add_kernel(x_ptr, y_ptr, o_ptr, n,', false],
      ['BM=128, BN=128, BK=32)', 'BM=128, BN=128, BK=64)', false],
      ['    h = rmsnorm(x, w_norm)\n', '    h = rmsnorm(x, w_norm)\n    h = rmsnorm(h, w_norm)\n', false],
      ['    return out\n', '    return out\n\nadd_kernel[(1,)](x, x, x, 1, BLOCK=1024)\n', false],
      ['\nadd_kernel[(1,)](x, x, x, 1, BLOCK=1024)\n', '\n    add_kernel[(1,)](x, x, x, 1, BLOCK=1024)\n', false],
    ], tritonPipelineStats);
  });

  it("triton: typing in a kernel analyses its pipeline launches again without reading their host code again; an edit of that code reads it", () => {
    const src = fs.readFileSync(path.join(__dirname, 'fixtures', 'triton', 'pipeline_forward.py'), 'utf8');
    const body = src.replace('ms = tl.sum(x * x, axis=0) / N', 'ms = tl.sum(x * x, axis=0) / N + 0.0');
    const host = body.replace('x = torch.randn((4096, 1024)', 'x = torch.randn((2048, 1024)');
    warmEqualsCold(parsers, 'launch-binds.py', [src], [body, host], (i) => ['an edit in rmsnorm_kernel', 'an edit of the host sizes'][i]);
    clearCaches();
    analyzeSource(src, parsers, { gpu: H100, path: 'launch-binds.py' });
    const s0 = tritonLaunchBindStats();
    const r1 = analyzeSource(body, parsers, { gpu: H100, path: 'launch-binds.py' });
    const s1 = tritonLaunchBindStats();
    // rmsnorm_kernel's one launch in `forward` is analysed again: what its site binds is kept.
    assert.deepEqual([s1.reused - s0.reused, s1.computed - s0.computed], [1, 0]);
    const r2 = analyzeSource(host, parsers, { gpu: H100, path: 'launch-binds.py' });
    const s2 = tritonLaunchBindStats();
    // The sizes every launch reads changed: each of the three is bound again, none kept.
    assert.deepEqual([s2.reused - s1.reused, s2.computed - s1.computed], [0, 3]);
    const units = (r: FileReport) => r.pipelines!.find((p) => p.name === 'forward')!.launches.map((l) => l.units);
    assert.deepEqual(units(r1), [4096, 256, 4096]);
    assert.deepEqual(units(r2), [2048, 128, 2048]);
    // An Enter in rmsnorm_kernel: its launch below is analysed again, its site's bindings moved with their lines.
    const enter = host.replace('ms = tl.sum(x * x, axis=0) / N + 0.0', 'ms = tl.sum(x * x, axis=0) / N + 0.0\n');
    const r3 = analyzeSource(enter, parsers, { gpu: H100, path: 'launch-binds.py' });
    const s3 = tritonLaunchBindStats();
    assert.deepEqual([s3.moved - s2.moved, s3.computed - s2.computed], [1, 0]);
    clearCaches();
    assert.equal(content(r3), content(analyzeSource(enter, parsers, { gpu: H100, path: 'launch-binds.py' })), 'the Enter: warm equals cold');
  });

  it("triton: typing in a kernel does not follow its launch sites' host code again for its bindings and suggestions; an edit of a site does", () => {
    const src = OWN_LAUNCHES;
    const file = 'own-launches.py';
    const body = src.replace('x * 2.0', 'x * 3.0');
    const site = body.replace('BLOCK=1024)', 'BLOCK=512)');
    const enter = site.replace('    mask = offs < n\n', '    mask = offs < n\n\n');
    warmEqualsCold(parsers, file, [src], [body, site, enter], (i) => ['an edit in the kernel', 'an edit of the second launch site', 'an Enter in the kernel'][i]);
    clearCaches();
    const first = analyzeSource(src, parsers, { gpu: H100, path: file });
    assert.deepEqual(first.kernels[0].suggestions?.BLOCK?.map((x) => x.value), [1024]);
    const s0 = tritonOwnLaunchStats();
    analyzeSource(body, parsers, { gpu: H100, path: file });
    const s1 = tritonOwnLaunchStats();
    assert.deepEqual([s1.reused - s0.reused, s1.computed - s0.computed], [1, 0], 'typing in the kernel: kept');
    const r2 = analyzeSource(site, parsers, { gpu: H100, path: file });
    const s2 = tritonOwnLaunchStats();
    assert.deepEqual([s2.reused - s1.reused, s2.computed - s1.computed], [0, 1], 'an edit of a launch site: followed again');
    assert.deepEqual(r2.kernels[0].suggestions?.BLOCK?.map((x) => x.value), [512]);
    analyzeSource(enter, parsers, { gpu: H100, path: file });
    const s3 = tritonOwnLaunchStats();
    assert.deepEqual([s3.moved - s2.moved, s3.computed - s2.computed], [1, 0], 'an Enter in the kernel: moved with the lines it names');
    clearCaches();
  });

  /**
   * A value kept from an earlier version (a launch site's bindings, a
   * pipeline, a module scan, a host parameter another kernel read) takes the
   * steps computing it took from the budget, and is computed again where
   * computing it would have cut the budget: at every step limit, kernel and
   * file, an analysis after an edit gives what a cold one gives (before, a
   * kept value was free, and a kernel a cold analysis cuts short came out
   * whole after an edit).
   */
  it('kept values take the steps they took: warm equals cold at every step limit', () => {
    const fixture = (f: string) => fs.readFileSync(path.join(__dirname, 'fixtures', f), 'utf8');
    const cases: [string, string, string, string][] = [
      ['own-launches.py', OWN_LAUNCHES, 'x * 2.0', 'x * 3.0'],
      ['steps-pipeline.py', fixture('triton/pipeline_forward.py'), 'ms = tl.sum(x * x, axis=0) / N', 'ms = tl.sum(x * x, axis=0) / N + 0.0'],
      ['steps-pipeline-enter.py', fixture('triton/pipeline_forward.py'), '    row = tl.program_id(0)\n', '    row = tl.program_id(0)\n\n'],
      ['steps-pipeline.cu', fixture('cuda/pipeline_layers.cu'), '    ss += v * v;', '    ss += v * v + 0.0f;'],
    ];
    for (const [file, src, from, to] of cases) {
      assert.ok(src.includes(from), `${file}: \`${from}\` is in the text`);
      const text = src.replace(from, to);
      for (const limit of ['kernelSteps', 'fileSteps'] as const) {
        const run = (t: string, steps: number) => content(analyzeSource(t, parsers, { gpu: H100, path: file, [limit]: steps }));
        const cold = (steps: number) => {
          clearCaches();
          return run(text, steps);
        };
        // The fewest steps that give the whole analysis; every limit below it up to there, and a few past it.
        const whole = cold(DEFAULT_FILE_STEPS);
        let lo = 1;
        let hi = 100_000;
        while (lo < hi) {
          const mid = Math.floor((lo + hi) / 2);
          if (cold(mid) === whole) hi = mid;
          else lo = mid + 1;
        }
        assert.ok(lo > 10, `${file}, ${limit}: the analysis takes ${lo} steps`);
        for (let steps = 1; steps <= lo + 2; steps += steps < lo - 24 ? 10 : 1) {
          const expected = cold(steps);
          clearCaches();
          run(src, steps);
          const warm = run(text, steps);
          if (warm !== expected) assert.deepEqual(JSON.parse(warm), JSON.parse(expected), `${file}, ${limit} ${steps}: warm equals cold`);
        }
      }
    }
    clearCaches();
  });

  it('triton: one launch site reached from two pipeline calls is two analyses, both kept after an edit of another kernel', () => {
    const src = [
      'import torch',
      'import triton',
      'import triton.language as tl',
      '',
      '@triton.jit',
      'def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):',
      '    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)',
      '    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)',
      '',
      '@triton.jit',
      'def shift_kernel(x_ptr, n, BLOCK: tl.constexpr):',
      '    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)',
      '    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)',
      '',
      'def scale(x):',
      '    n = x.numel()',
      '    scale_kernel[(triton.cdiv(n, 1024),)](x, n, BLOCK=1024)',
      '',
      'def forward(x):',
      '    scale(x)',
      '    shift_kernel[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)',
      '    scale(x)',
      '',
      'if __name__ == "__main__":',
      '    forward(torch.randn(1 << 20, device="cuda"))',
      '',
    ].join('\n');
    const edited = src.replace('+ 1.0, mask', '+ 2.0, mask');
    warmEqualsCold(parsers, 'two-calls.py', [src], [edited], () => 'an edit in shift_kernel');
    clearCaches();
    const first = analyzeSource(src, parsers, { gpu: H100, path: 'two-calls.py' });
    assert.deepEqual(first.pipelines?.find((p) => p.name === 'forward')?.launches.map((l) => l.kernel), ['scale_kernel', 'shift_kernel', 'scale_kernel']);
    const before = kernelStats.analysed;
    analyzeSource(edited, parsers, { gpu: H100, path: 'two-calls.py' });
    // shift_kernel, and its launch in the pipeline; not scale_kernel's two launches (one site, two calls: two entries of one key).
    assert.equal(kernelStats.analysed - before, 2);
  });

  it('cuda: launch pipelines reused after edits they did not read, rebuilt after the others', () => {
    pipelineEdits('cuda/pipeline_layers.cu', 'pipelines.cu', [
      ['    ss += v * v;', '    ss += v * v + 0.0f;', true],
      // A host function that launches nothing, called on the way: its text is not read, only that it launches nothing.
      ['  long bytes = (long)rows * C * 4;', '  long bytes = (long)rows * C * 8;', true],
      // A launcher that runs one launch at most, which no pipeline calls.
      ['  int threads = 256;\n  if (which > 0)', '  int threads = 512;\n  if (which > 0)', true],
      ['  if (i < n) out[i] = a[i] + b[i];', '  if (i < n) out[i] = a[i] + b[i] * 1.0f;', true],
      ['__global__ void residual_add_kernel(float* out, const float* a,', '__global__ void residual_add_kernel(float* o, const float* a,', false],
      ['  dim3 block(16, 16);', '  dim3 block(16, 8);', false],
      ['    rmsnorm(x, wn, h, rows, C);\n', '    rmsnorm(x, wn, h, rows, C);\n    rmsnorm(h, wn, h, rows, C);\n', false],
      ['void matmul(const float* a,', '__device__ void matmul(const float* a,', false],
    ], cudaPipelineStats);
  });

  /**
   * An Enter in a kernel above a pipeline's launches: the pipelines are moved
   * with their lines (not rebuilt), each version equal to a cold analysis.
   */
  function pipelineEnters(file: string, name: string, after: string[], stats: () => { moved: number; computed: number }): void {
    const src = fs.readFileSync(path.join(__dirname, 'fixtures', file), 'utf8');
    const texts: string[] = [];
    let cur = src;
    for (const line of after) {
      assert.ok(cur.includes(`${line}\n`), `the fixture has ${line}`);
      cur = cur.replace(`${line}\n`, `${line}\n\n`);
      texts.push(cur);
    }
    warmEqualsCold(parsers, name, [src], texts, (i) => `Enter ${i + 1} after ${after[i]}`);
    clearCaches();
    analyzeSource(src, parsers, { gpu: H100, path: name });
    texts.forEach((t, i) => {
      const before = { ...stats() };
      const r = analyzeSource(t, parsers, { gpu: H100, path: name });
      assert.ok(r.pipelines?.length, `Enter ${i + 1}: a pipeline`);
      assert.equal(stats().moved - before.moved, 1, `Enter ${i + 1}: the pipelines moved`);
      assert.equal(stats().computed - before.computed, 0, `Enter ${i + 1}: not rebuilt`);
    });
  }

  it('triton and cuda: an Enter above the launches moves the launch pipelines instead of rebuilding them', () => {
    pipelineEnters('triton/pipeline_forward.py', 'pipeline-enter.py', ['    row = tl.program_id(0)', '        acc += tl.dot(a, b)'], tritonPipelineStats);
    pipelineEnters('cuda/pipeline_layers.cu', 'pipeline-enter.cu', ['    ss += v * v;', '  if (i < n) out[i] = a[i] + b[i];'], cudaPipelineStats);
  });

  /**
   * Enter (a line added inside a kernel): the kernels the edit only moved are
   * taken with their lines moved (engine/shift.ts), not analysed again — and
   * every version equals a cold analysis byte for byte.
   */
  for (const lang of ['triton', 'cuda', 'wgsl'] as const) {
    it(`${lang}: an Enter in a kernel moves the kernels below it instead of analysing them again`, () => {
      const src = fixtureFile(ROOT, lang, 1000);
      const file = `enter.${EXT[lang]}`;
      // The versions: an empty line added in kernel 0, 5, 10, … (each found where the previous Enter left it).
      const texts: string[] = [];
      let cur = src;
      clearCaches();
      for (let n = 0; n < 6; n++) {
        const spans = analyzeSource(cur, parsers, { gpu: H100, path: 'spans.' + EXT[lang] }).kernels.map((k) => ({ start: k.line - 1, end: (k.endLine ?? k.line) - 1 }));
        cur = editNewline(cur, spans, n * 5, lang);
        texts.push(cur);
      }
      warmEqualsCold(parsers, file, [src], texts, (i) => `Enter ${i + 1}`);
      clearCaches();
      const kernels = analyzeSource(src, parsers, { gpu: H100, path: file }).kernels.length;
      let moved = 0;
      texts.forEach((t, i) => {
        const before = { ...kernelStats };
        analyzeSource(t, parsers, { gpu: H100, path: file });
        const analysed = kernelStats.analysed - before.analysed;
        moved += kernelStats.moved - before.moved;
        // The kernel the line was added in (and its launches in a pipeline) is analysed again; none of the others.
        assert.ok(analysed <= 4, `Enter ${i + 1}: ${analysed} kernels analysed again`);
      });
      assert.ok(moved >= kernels, `${moved} kernels moved over ${texts.length} Enters (${kernels} kernels)`);
    });
  }

  it('cuda: a file read with its project header in front is moved by an Enter too (its own lines, not the rows parsed)', () => {
    const dir = path.join(__dirname, 'fixtures', 'cuda');
    const src = fs.readFileSync(path.join(dir, 'include_header.cu'), 'utf8');
    const opts = { gpu: H100, path: 'enter-header.cu', related: { 'pair_ops.h': { path: 'common/pair_ops.h', text: fs.readFileSync(path.join(dir, 'common', 'pair_ops.h'), 'utf8') } } };
    // Empty lines added after the #include (above the kernel), then in main() (below it).
    const at = src.indexOf('__global__');
    const texts = [src.slice(0, at) + '\n' + src.slice(at), src.slice(0, at) + '\n\n' + src.slice(at)];
    texts.push(texts[1].replace('  return 0;', '\n  return 0;'));
    const cold = texts.map((t) => {
      clearCaches();
      return content(analyzeSource(t, parsers, opts));
    });
    clearCaches();
    analyzeSource(src, parsers, opts);
    let moved = 0;
    texts.forEach((t, i) => {
      const before = kernelStats.moved;
      assert.equal(content(analyzeSource(t, parsers, opts)), cold[i], `version ${i + 1}`);
      moved += kernelStats.moved - before;
    });
    assert.ok(moved >= 2, `${moved} kernels moved`);
  });

  it('cuda: the file scan replays the declarations of statements an edit left alone, at their new places', () => {
    // What a top-level statement adds (structs by their place, instantiations by their line, typedefs,
    // textures, globals, functions) is replayed after an edit above moved it; statements with macros,
    // #if or an anonymous member (named by its place) are visited again.
    const src = [
      '#define TILE 64',
      'struct Pair { float a; float b; };',
      'typedef struct { int n; } Count, *CountPtr;',
      'struct Holder { union { float f; int i; }; float w; };',
      '__constant__ float kScale[TILE];',
      'texture<float, 1, cudaReadModeElementType> texIn;',
      'template <int B> __global__ void scaled(const Pair* in, CountPtr c, float* out, int n) {',
      '  int i = blockIdx.x * B + threadIdx.x;',
      '  if (i < n) out[i] = (in[i].a + in[i].b) * kScale[i % TILE] + c[i].n;',
      '}',
      'template __global__ void scaled<128>(const Pair*, CountPtr, float*, int);',
      '#if TILE > 32',
      '__global__ void holder(const Holder* h, float* out, int n) {',
      '  int i = blockIdx.x * blockDim.x + threadIdx.x;',
      '  if (i < n) out[i] = h[i].f * h[i].w + tex1Dfetch(texIn, i);',
      '}',
      '#endif',
      'void run(const Holder* h, float* o, int n) {',
      '  holder<<<(n + 255) / 256, 256>>>(h, o, n);',
      '}',
      '',
    ].join('\n');
    const texts = [
      '// a comment above\n' + src,
      '// a comment above\n\n' + src,
      '// a comment abov\n\n' + src,
      '// a comment abov\n\n' + src.replace('float w;', 'float w; float z;'),
      '// a comment abov\n\n' + src.replace('float w;', 'float w; float z;').replace('#define TILE 64', '#define TILE 16'),
    ];
    const before = { ...cudaScanStats };
    warmEqualsCold(parsers, 'scan-replay.cu', [src], texts, (i) => `version ${i + 1}`);
    assert.ok(cudaScanStats.replayed - before.replayed >= 5 * 4, `${cudaScanStats.replayed - before.replayed} statements replayed`);
  });

  it('cuda: kernels inside an include guard, a namespace or extern "C" are read as statements of their own; an edit of the wrapper itself reads it', () => {
    const src = [
      '#ifndef SCALE_KERNELS_CUH_',
      '#define SCALE_KERNELS_CUH_',
      '#define TILE 128',
      'namespace ops {',
      '__global__ void scale(float* y, const float* x, int n) {',
      '  int i = blockIdx.x * TILE + threadIdx.x;',
      '  if (i < n) y[i] = 2.0f * x[i];',
      '}',
      'extern "C" {',
      '__global__ void shift(float* y, const float* x, int n) {',
      '  int i = blockIdx.x * TILE + threadIdx.x;',
      '  if (i < n) y[i] = x[i] + 1.0f;',
      '}',
      '}',
      '}  // namespace ops',
      'void run(float* y, const float* x, int n) {',
      '  ops::scale<<<(n + TILE - 1) / TILE, TILE>>>(y, x, n);',
      '  ops::shift<<<(n + TILE - 1) / TILE, TILE>>>(y, y, n);',
      '}',
      '#endif  // SCALE_KERNELS_CUH_',
      '',
    ].join('\n');
    const inScale = src.replace('2.0f * x[i]', '3.0f * x[i]');
    const texts = [
      inScale,
      inScale.replace('x[i] + 1.0f', 'x[i] + 2.0f'),
      inScale.replace('namespace ops {', 'namespace ops2 {'),
      inScale.replace('#define TILE 128', '#define TILE 256'),
      inScale.replace('#ifndef SCALE_KERNELS_CUH_', '#ifndef SCALE_KERNELS_H_'),
      inScale.replace('\n}  // namespace ops', '\n\n}  // namespace ops'),
    ];
    warmEqualsCold(parsers, 'wrapped.cu', [src], texts, (i) => ['an edit in scale', 'then in shift', 'the namespace renamed', 'a macro of the guard', 'the guard renamed', 'an empty line in the namespace'][i]);
    clearCaches();
    analyzeSource(src, parsers, { gpu: H100, path: 'wrapped.cu' });
    const before = kernelStats.analysed;
    const r = analyzeSource(inScale, parsers, { gpu: H100, path: 'wrapped.cu' });
    assert.deepEqual(r.kernels.map((k) => k.name), ['scale', 'shift']);
    // scale, and its launch in run's pipeline; not shift, nor its launch (the guard, the namespace and extern "C"
    // hold them, but each reads its own statement).
    assert.equal(kernelStats.analysed - before, 2);
  });

  it('cuda: an include guard around the whole file is read as the preprocessor reads it first: its statements are top-level, an edit walks only its own', () => {
    const body = [
      '#define TILE 128',
      '__global__ void scale(float* y, const float* x, int n) {',
      '  int i = blockIdx.x * TILE + threadIdx.x;',
      '  if (i < n) y[i] = 2.0f * x[i];',
      '}',
      '__device__ float twice(float v) { return 2.0f * v; }',
      '__global__ void shift(float* y, const float* x, int n) {',
      '  int i = blockIdx.x * TILE + threadIdx.x;',
      '  if (i < n) y[i] = twice(x[i]) + 1.0f;',
      '}',
      'void run(float* y, const float* x, int n) {',
      '  scale<<<(n + TILE - 1) / TILE, TILE>>>(y, x, n);',
      '  shift<<<(n + TILE - 1) / TILE, TILE>>>(y, y, n);',
      '}',
    ];
    const wrap = (open: string[], close: string[]) => [...open, ...body, ...close, ''].join('\n');
    // What the report says, its lines aside.
    const counts = (r: ReturnType<typeof analyzeSource>) =>
      JSON.stringify([
        r.kernels.map((k) => [k.name, k.perUnit, k.formulas, k.bindings, k.status]),
        (r.pipelines ?? []).map((p) => [p.name, p.launches.map((l) => [l.kernel, l.bindings])]),
        r.diagnostics.map((d) => d.code),
      ]);
    const plain = counts(analyzeSource(wrap([], []), parsers, { gpu: H100, path: 'plain.cu' }));
    const guards = [
      wrap(['/* scale kernels */', '#ifndef SCALE_CUH_', '#define SCALE_CUH_'], ['#endif  // SCALE_CUH_']),
      wrap(['// scale kernels', '#if !defined(SCALE_CUH_)', '#define SCALE_CUH_'], ['#endif', '/* end */']),
    ];
    for (const g of guards) {
      assert.equal(counts(analyzeSource(g, parsers, { gpu: H100, path: 'plain.cu' })), plain);
      const { walked, replayed } = scanAfterEdit(parsers, 'guarded.cu', g, g.replace('2.0f * x[i]', '3.0f * x[i]'));
      // scale's statement walked again; the guard's lines, the macros and the others replayed or read as directives.
      assert.ok(walked <= 4, `${walked} statements walked`);
      assert.ok(replayed >= 3, `${replayed} statements replayed`);
    }
    // Not a guard: an `#else` of it, code after its `#endif`, another name defined: left as written, and read the same warm as cold.
    const texts = [
      wrap(['#ifndef SCALE_CUH_', '#define SCALE_CUH_'], ['#else', '#define TILE2 4', '#endif']),
      wrap(['#ifndef SCALE_CUH_', '#define SCALE_CUH_'], ['#endif', 'int after = 1;']),
      wrap(['#ifndef SCALE_CUH_', '#define OTHER_CUH_'], ['#endif']),
      wrap(['#ifndef SCALE_CUH_', '#define SCALE_CUH_'], ['#endif']),
      wrap(['#ifndef SCALE_CUH_', '#define SCALE_CUH_'], ['#endif']).replace('2.0f * x[i]', '4.0f * x[i]'),
    ];
    warmEqualsCold(parsers, 'guarded.cu', [guards[0]], texts, (i) => ['an #else', 'code after', 'another name', 'a guard again', 'an edit in it'][i]);
  });

  it('cuda: namespaces and extern "C" blocks are read as top-level code: a scoped call still finds its own namespace\'s function, an edit walks only its statement', () => {
    const src = [
      'namespace fast {',
      '__device__ float f(float v) { return v * 2.0f; }',
      '}  // namespace fast',
      'namespace exact {',
      '__device__ float f(float v) { return v * v + v * 3.0f; }',
      '}',
      'namespace ops { inline namespace v1 {',
      '__global__ void scale(float* y, const float* x, int n) {',
      '  int i = blockIdx.x * blockDim.x + threadIdx.x;',
      "  const char* tag = \"}{\"; char q = '}';",
      '  if (i < n) y[i] = exact::f(x[i]) + fast::f(x[i]);',
      '}',
      '__global__ void shift(float* y, const float* x, int n) {',
      '  int i = blockIdx.x * blockDim.x + threadIdx.x;',
      '  if (i < n) y[i] = fast::f(x[i]) + 1.0f;',
      '}',
      '} }',
      'extern "C" {',
      'void run(float* y, const float* x, int n) {',
      '  ops::scale<<<(n + 127) / 128, 128>>>(y, x, n);',
      '  ops::shift<<<(n + 127) / 128, 128>>>(y, y, n);',
      '}',
      '}',
      '',
    ].join('\n');
    const r = analyzeSource(src, parsers, { gpu: H100, path: 'spaces.cu' });
    // scale: exact::f 3 FLOPs + fast::f 1 + 1 add = 5 per thread; shift: fast::f 1 + 1 add = 2.
    assert.deepEqual(r.kernels.map((k) => [k.name, k.perUnit.flops]), [['scale', 128 * 5], ['shift', 128 * 2]]);
    const { walked, replayed } = scanAfterEdit(parsers, 'spaces.cu', src, src.replace('+ 1.0f;', '+ 2.0f;'));
    assert.ok(walked <= 1, `${walked} statements walked`);
    assert.ok(replayed >= 4, `${replayed} statements replayed`);
    // Braces an `#if` and its `#else` leave unbalanced, a string left open, braces that never close: left as written, the same warm as cold.
    const unbalanced = src.replace('namespace exact {', '#if FAST\nnamespace exact { namespace inner {\n#else\nnamespace exact {\n#endif');
    editsWarmEqualsCold(parsers, 'spaces.cu', src, [
      ['an #if with unbalanced braces', src, unbalanced],
      ['a string left open', '"}{"', '"}{'],
      ['a brace left open', 'y[i] = fast::f(x[i]) + 1.0f;', 'y[i] = fast::f(x[i]) + 1.0f; {'],
      ['a namespace renamed', 'namespace exact {', 'namespace precise {'],
    ]);
  });

  it("cuda: typing in a kernel's body does not read its other launch sites again (their suggestions are kept with their reads)", () => {
    const src = [
      '__global__ void axpy(float a, const float* x, float* y, int n) {',
      '  int i = blockIdx.x * blockDim.x + threadIdx.x;',
      '  if (i < n) y[i] = a * x[i] + y[i];',
      '}',
      'void small(const float* x, float* y) { axpy<<<4, 256>>>(2.0f, x, y, 1024); }',
      'void large(const float* x, float* y) { int n = 1 << 20; axpy<<<n / 512, 512>>>(3.0f, x, y, n); }',
      'void odd(const float* x, float* y) { axpy<<<3, 128>>>(1.0f, x, y, 384); }',
      '',
    ].join('\n');
    const typed = (s: string) => src.replace('a * x[i] + y[i]', s);
    const texts = editsWarmEqualsCold(parsers, 'suggested.cu', src, [
      ['typing in the body', 'a * x[i] + y[i]', 'a * x[i] + y[i] + 1.0f'],
      ['another launch changed', 'axpy<<<3, 128>>>', 'axpy<<<6, 128>>>'],
    ]);
    assert.ok(texts.length === 2);
    clearCaches();
    const first = analyzeSource(src, parsers, { gpu: H100, path: 'suggested.cu' });
    assert.deepEqual(Object.keys(first.kernels[0].suggestions ?? {}).sort(), ['blockDim.x', 'gridDim.x', 'n']);
    analyzeSource(typed('a * x[i] + y[i] * 2.0f'), parsers, { gpu: H100, path: 'suggested.cu' });
    const before = launchStats.reads;
    const r = analyzeSource(typed('a * x[i] + y[i] * 3.0f'), parsers, { gpu: H100, path: 'suggested.cu' });
    // Its first launch is read (it binds); the other two only suggest, kept.
    assert.equal(launchStats.reads - before, 1);
    assert.deepEqual(r.kernels[0].suggestions, first.kernels[0].suggestions);
  });

  it('cuda: typing in a host function does not analyse kernels that read only a declaration inside it, or no function at all', () => {
    // `prepare`'s alias is in the file's scan (a template's argument the analysis cannot resolve falls back to it):
    // the kernel reads that declaration, not the rest of `prepare`. `shift` and `scale` read of the helpers only
    // whether they mention `.y`/`.z` (a one-dimensional block), not every function's text.
    const src = [
      'template <typename Element>',
      'struct Bufs { Element* x; Element* y; int n; };',
      '',
      'template <typename Config>',
      '__global__ void scale(Bufs<typename Config::Element> const b) {',
      '  int i = blockIdx.x * blockDim.x + threadIdx.x;',
      '  if (i < b.n) b.y[i] = 2.0f * b.x[i];',
      '}',
      '',
      ...CUDA_SHIFT,
      '',
      'template <typename Config>',
      'void prepare(int n) {',
      '  using Element = typename Config::Element;',
      '  int unused = 0;',
      '}',
      '',
    ].join('\n');
    const texts = editsWarmEqualsCold(parsers, 'covered.cu', src, [
      ['typing beside the alias', 'int unused = 0;', 'int unused = 1;'],
      ['the alias changed', 'using Element = typename Config::Element;', 'using Element = double;'],
      ['a helper now mentions blockDim.y', 'int unused = 0;', 'int unused = blockDim.y;'],
    ]);
    const typed = afterEdit(parsers, 'covered.cu', src, texts[0]);
    assert.deepEqual(typed.report.kernels.map((k) => k.name), ['scale', 'shift']);
    assert.equal(typed.analysed, 0, 'no kernel analysed again');
    assert.equal(afterEdit(parsers, 'covered.cu', src, texts[1]).analysed, 1, 'the alias read by scale changed');
  });

  it('triton: typing in a host function analyses again only what reads the statement typed in (its assignments to a name, its return, its statements one by one)', () => {
    const src = [
      ...TRITON_HEAD,
      'def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):',
      '    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)',
      '    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)',
      '',
      '',
      'def rows(x):',
      '    return x.numel()',
      '',
      '',
      'def scale(x):',
      '    n = rows(x)',
      '    block = 1024',
      '    note = "scaling"',
      '    scale_kernel[(triton.cdiv(n, block),)](x, n, BLOCK=block)',
      '    return x',
      '',
      '',
      'if __name__ == "__main__":',
      '    scale(torch.randn(8192, device="cuda"))',
      '',
    ].join('\n');
    const texts = editsWarmEqualsCold(parsers, 'host_typing.py', src, [
      ['a statement nothing reads', 'note = "scaling"', 'note = "scaling!"'],
      ['an assignment to the block size added', '    note = "scaling"', '    note = "scaling"\n    block = 256'],
      ['the return of a function a size comes from', '    return x.numel()', '    return x.numel() // 2'],
      ['a statement added before that return', '    return x.numel()', '    y = 3\n    return x.numel()'],
      ['an if that assigns the size', '    n = rows(x)', '    n = rows(x)\n    if n > 4096:\n        n = 4096'],
    ]);
    const typed = afterEdit(parsers, 'host_typing.py', src, texts[0]);
    assert.equal(typed.report.kernels[0].bindings.BLOCK, 1024);
    assert.equal(typed.analysed, 0, 'typing in a statement of the launcher no launch reads');
    const block = afterEdit(parsers, 'host_typing.py', src, texts[1]);
    assert.equal(block.report.kernels[0].bindings.BLOCK, 256);
    assert.ok(block.analysed >= 1, 'an assignment to the block size: analysed again');
  });

  it('cuda: a kernel launched by several pipelines has its reads answered once per text, and typing elsewhere analyses nothing again', () => {
    const src = [
      '#include <cuda_runtime.h>',
      '#define THREADS 256',
      '',
      'template <int UNROLL>',
      '__global__ void axpy(float a, const float* x, float* y, int n) {',
      '  int i = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;',
      '  for (int u = 0; u < UNROLL; ++u)',
      '    if (i + u < n) y[i + u] = a * x[i + u] + y[i + u];',
      '}',
      '',
      ...[1, 2, 4, 8].flatMap((u) => [
        `void run_${u}(const float* x, float* y) {`,
        `  int n = ${u * 4096};`,
        `  axpy<${u}><<<(n / ${u} + THREADS - 1) / THREADS, THREADS>>>(2.0f, x, y, n);`,
        `  axpy<${u}><<<(n / ${u} + THREADS - 1) / THREADS, THREADS>>>(0.5f, y, y, n);`,
        '}',
        '',
      ]),
      'int unrelated(int v) {',
      '  int w = v * 3;',
      '  return w;',
      '}',
      '',
    ].join('\n');
    const texts = editsWarmEqualsCold(parsers, 'pipelines.cu', src, [
      ['a statement nothing reads', '  int w = v * 3;', '  int w = v * 3 + 1;'],
      ['a launch size', '  int n = 8192;', '  int n = 8000;'],
    ]);
    const asked = answerStats.asked;
    const answeredBefore = answerStats.answered;
    const typed = afterEdit(parsers, 'pipelines.cu', src, texts[0]);
    assert.equal(typed.report.kernels.length, 1);
    assert.ok(typed.report.pipelines!.length >= 4, `${typed.report.pipelines?.length} pipelines`);
    assert.equal(typed.analysed, 0, 'no kernel or launch analysed again');
    const timesAsked = answerStats.asked - asked;
    const timesAnswered = answerStats.answered - answeredBefore;
    assert.ok(timesAnswered * 2 <= timesAsked, `reads answered ${timesAnswered} times of ${timesAsked} asked`);
  });

  it('cuda: typing in one case of a host switch does not analyse the launches of the other cases again', () => {
    const src = [
      'template <int BLOCK>',
      '__global__ void scale(float* y, const float* x, int n) {',
      '  int i = blockIdx.x * BLOCK + threadIdx.x;',
      '  if (i < n) y[i] = 2.0f * x[i];',
      '}',
      '',
      ...CUDA_SHIFT,
      '',
      'template <class T>',
      'void run(int which, int n, T* y, const T* x) {',
      '  int threads = 256;',
      '  switch (which) {',
      '    case 0:',
      '      scale<256><<<(n + 255) / 256, 256>>>(y, x, n);',
      '      break;',
      '    case 1:',
      '      scale<128><<<(n + 127) / 128, 128>>>(y, x, n);',
      '      break;',
      '    default:',
      '      threads = 512;',
      '      shift<<<(n + threads - 1) / threads, threads>>>(y, x, n);',
      '      break;',
      '  }',
      '}',
      '',
      'int main() {',
      '  run<float>(0, 1 << 20, nullptr, nullptr);',
      '  run<float>(1, 1 << 20, nullptr, nullptr);',
      '  run<float>(2, 1 << 20, nullptr, nullptr);',
      '}',
      '',
    ].join('\n');
    editsWarmEqualsCold(parsers, 'host_switch.cu', src, [
      ['a statement in case 1', '      scale<128><<<', '      int unused = 1;\n      scale<128><<<'],
      ["the default case's block size", '      threads = 512;', '      threads = 1024;'],
      ['a statement before the switch', '  int threads = 256;', '  int threads = 256;\n  n = n / 2;'],
      ['a case label', '    case 1:', '    case 2:'],
      ['a statement after the launch of case 1', '      break;\n    default:', '      n = 64;\n      break;\n    default:'],
    ]);
    const { report, analysed: again } = afterEdit(parsers, 'host_switch.cu', src, src.replace('      threads = 512;', '      threads = 512;\n      int note = 0;'));
    const launches = (report.pipelines ?? []).reduce((k, p) => k + p.launches.length, 0);
    assert.ok(launches >= 3, `${launches} pipeline launches`);
    // The default case's launch of shift (and shift's own analysis, which reads its launch there); not the scale launches of cases 0 and 1.
    assert.ok(again <= 2 && again < launches, `${again} analysed again of ${launches} launches`);
  });

  it('cuda: with headers read in front, a text with syntax errors is parsed from the headers\' tree, the same whatever came before', () => {
    const header = fs.readFileSync(path.join(__dirname, 'fixtures', 'cuda', 'common', 'pair_ops.h'), 'utf8');
    const src = fs.readFileSync(path.join(__dirname, 'fixtures', 'cuda', 'include_header.cu'), 'utf8');
    const related = { 'pair_ops.h': { path: 'common/pair_ops.h', text: header } };
    const at = src.indexOf('\n', src.indexOf('__global__')) + 1;
    // A half-typed statement in the kernel (a syntax error), typed on; then fixed.
    const texts = ['  float t = ', '  float t = x', '  float t = x *', '  float t = x * 2.0f;'].map((typed) => src.slice(0, at) + typed + '\n' + src.slice(at));
    const run = (t: string) => content(analyzeSource(t, parsers, { gpu: H100, path: 'with-header.cu', related }));
    const cold = texts.map((t) => {
      clearCaches();
      return run(t);
    });
    clearCaches();
    run(src);
    const before = parseStats.fromPrefix;
    texts.forEach((t, i) => assert.equal(run(t), cold[i], `keystroke ${i + 1}: warm equals cold`));
    // The three texts with errors, and the fixed one after them (an erroneous tree is not built on).
    assert.equal(parseStats.fromPrefix - before, 4);
  });

  it('cuda: typing in a block left open reads the file with its braces closed once per text, also for a pipeline\'s launches', () => {
    const src = fs.readFileSync(path.join(__dirname, 'fixtures', 'cuda', 'pipeline_layers.cu'), 'utf8');
    const at = src.indexOf('\n', src.indexOf('__global__')) + 1;
    const texts = ['  if (n > 0) {', '  if (n > 0) {\n    in', '  if (n > 0) {\n    int'].map((typed) => src.slice(0, at) + typed + '\n' + src.slice(at));
    warmEqualsCold(parsers, 'open-block.cu', [src], texts, (i) => `keystroke ${i + 1}`);
    clearCaches();
    analyzeSource(src, parsers, { gpu: H100, path: 'open-block.cu' });
    for (const t of texts) {
      const before = cudaScanStats.scans;
      const r = analyzeSource(t, parsers, { gpu: H100, path: 'open-block.cu' });
      assert.ok(r.pipelines?.length, 'a pipeline, its launches analysed');
      assert.equal(cudaScanStats.scans - before, 1, 'one scan of the closed text');
    }
  });

  /**
   * Empty lines added at the top of `src`, once and twice (each version equal
   * to a cold analysis); then, on warm caches, how many kernels the first
   * Enter moved, and its report.
   */
  function enterAbove(src: string, file: string): { moved: number; r: FileReport } {
    const texts = ['\n' + src, '\n\n' + src, '\n' + src];
    warmEqualsCold(parsers, file, [src], texts, (i) => `version ${i + 1}`);
    clearCaches();
    analyzeSource(src, parsers, { gpu: H100, path: file });
    const before = kernelStats.moved;
    const r = analyzeSource(texts[0], parsers, { gpu: H100, path: file });
    return { moved: kernelStats.moved - before, r };
  }

  it('a symbol named like a line field (`line`, `endLine`) keeps its value when its kernel is moved', () => {
    const src = [
      'import triton',
      'import triton.language as tl',
      '',
      '',
      '@triton.jit',
      'def rows_kernel(x_ptr, y_ptr, line, endLine, BLOCK: tl.constexpr):',
      '    pid = tl.program_id(0)',
      '    offs = pid * BLOCK + tl.arange(0, BLOCK)',
      '    x = tl.load(x_ptr + offs, mask=offs < line)',
      '    tl.store(y_ptr + offs, x * endLine, mask=offs < line)',
      '',
      '',
      'def run(x, y):',
      '    rows_kernel[(triton.cdiv(4096, 1024),)](x, y, 4096, 7, BLOCK=1024)',
      '',
    ].join('\n');
    const { moved, r } = enterAbove(src, 'line-named.py');
    assert.equal(moved, 1, 'moved');
    assert.equal(r.kernels[0].bindings.line, 4096);
    assert.equal(r.kernels[0].bindings.endLine, 7);
  });

  it('a kernel that read "line N" in the text is analysed again after an Enter above it, not moved', () => {
    // The launch passes the string "line 3": a value the kernel's bindings quote, which moving would change.
    const src = [
      'import triton',
      'import triton.language as tl',
      '',
      '',
      '@triton.jit',
      'def act_kernel(x_ptr, y_ptr, n, ACT: tl.constexpr, BLOCK: tl.constexpr):',
      '    pid = tl.program_id(0)',
      '    offs = pid * BLOCK + tl.arange(0, BLOCK)',
      '    x = tl.load(x_ptr + offs)',
      '    if ACT == "line 3":',
      '        x = tl.exp(x) * 2.0',
      '    tl.store(y_ptr + offs, x)',
      '',
      '',
      'def run(x, y):',
      '    n = 4096',
      '    act_kernel[(triton.cdiv(n, 1024),)](x, y, n, ACT="line 3", BLOCK=1024)',
      '',
    ].join('\n');
    const { moved, r } = enterAbove(src, 'quoted.py');
    assert.equal(moved, 0, 'not moved');
    assert.equal(r.kernels[0].bindingSources?.ACT?.detail, 'launch at line 18');
  });

  /**
   * After a long run of edits (each analysed, so each view read only what the
   * analysis needed) the document's view reads node for node as a fresh parse
   * of the same text: nodes carried over from earlier trees still answer right
   * when first asked (tree-sitter invalidates a tree's nodes when that tree is
   * edited: the parse cache edits a copy).
   */
  it('a view carried over many edits reads as a fresh parse', () => {
    for (const [lang, f] of [
      ['cuda', path.join(__dirname, 'fixtures', 'cuda', 'gelu_tanh.cu')],
      ['triton', path.join(__dirname, 'fixtures', 'triton', 'softmax.py')],
    ] as const) {
      const src = fs.readFileSync(f, 'utf8');
      const numbers = [...src.matchAll(/(?<![\w.])\d+(?![\w.])/g)];
      const file = `long-${path.basename(f)}`;
      clearCaches();
      let text = src;
      for (const m of numbers) {
        text = src.slice(0, m.index) + String(Number(m[0]) + 1) + src.slice(m.index! + m[0].length);
        analyzeSource(text, parsers, { gpu: H100, path: file });
      }
      const { viewed, expected } = viewAndFresh(lang === 'cuda' ? parsers.cuda : parsers.python, file, text);
      assert.deepEqual(viewed, expected, `${f} after ${numbers.length} edits`);
    }
    clearCaches();
  });

  /**
   * Typing: characters inserted one at a time in the middle of a 1,000-line
   * file (every statement below moves by one character at each keystroke,
   * carried over with its indices shifted): after each keystroke the report
   * equals a cold one, and at the end the view reads as a fresh parse.
   */
  for (const lang of ['triton', 'cuda'] as const) {
    it(`${lang}: typing a line character by character`, () => {
      const src = fixtureFile(ROOT, lang, 1000);
      const file = `typing.${EXT[lang]}`;
      const lines = src.split('\n');
      // A line in the middle that is code: typed after it, a comment (valid at every keystroke) then a blank.
      let at = Math.floor(lines.length / 2);
      while (!/^\S/.test(lines[at]) || lines[at].startsWith(lang === 'triton' ? '#' : '//')) at++;
      const typed = lang === 'triton' ? '# tile 64 x 128' : '// tile 64 x 128';
      const prefix = lines.slice(0, at).join('\n') + '\n';
      const suffix = '\n' + lines.slice(at).join('\n');
      const texts = [...typed].map((_, i) => prefix + typed.slice(0, i + 1) + suffix);
      warmEqualsCold(parsers, file, [prefix + suffix.slice(1), prefix + suffix], texts, (i) => `keystroke ${i + 1}`);
      const { viewed, expected } = viewAndFresh(lang === 'cuda' ? parsers.cuda : parsers.python, file, texts[texts.length - 1]);
      assert.deepEqual(viewed, expected);
    });
  }
});

/**
 * A text analysed once (the CLI, `OneShot`): no reads recorded, nothing kept
 * for an edited version — the same report as the editor's path, the kernels
 * shared only by the analyses of that text (one per GPU).
 */
/**
 * A long editing session keeps what it needs of the versions before, not the
 * versions (issue 17: the analysis runs on every keystroke for hours). Each
 * edit's tree view stayed alive through the statements it carried that died
 * since, its root's lists and its trees read from (syntax-tree.ts
 * `carryOver`), through each version's module scan (Triton), and each
 * version's text through the names cut from it that the caches kept
 * (detach.ts): ~0.4 MB a keystroke on a 1,000-line file, for good.
 */
describe('a long editing session', function () {
  this.timeout(120_000);
  const collect = (): (() => void) => {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  };
  const macrotask = (): Promise<void> => new Promise((r) => setImmediate(r));

  for (const lang of ['triton', 'cuda', 'wgsl'] as const) {
    it(`${lang}: earlier versions' trees are let go, and the heap grows by far less than the texts typed`, async () => {
      const gc = collect();
      const parsers = await loadParsers();
      const src = fixtureFile(ROOT, lang, 1000);
      const file = `session.${EXT[lang]}`;
      const parser = lang === 'cuda' ? parsers.cuda : parsers.python;
      clearCaches();
      let report = analyzeSource(src, parsers, { gpu: H100, path: file });
      let cur = src;
      const early: WeakRef<object>[] = [];
      const heap: number[] = [];
      const edits = 240;
      for (let i = 0; i < edits; i++) {
        const spans = report.kernels.map((k) => ({ start: k.line - 1, end: (k.endLine ?? k.line) - 1 }));
        cur = i % 6 === 5 ? editNewline(cur, spans, i, lang) : editInside(cur, spans, i, lang);
        report = analyzeSource(cur, parsers, { gpu: H100, path: file });
        // The trees of the first versions (their views hold every node read of them).
        if (lang !== 'wgsl' && i < 5) early.push(new WeakRef(parseCached(parser, file, cur, undefined)!));
        if (i === 39 || i === edits - 1) {
          await macrotask();
          gc();
          heap.push(process.memoryUsage().heapUsed);
        }
      }
      for (const [i, t] of early.entries()) assert.equal(t.deref(), undefined, `the tree of version ${i + 1} is alive ${edits} edits on`);
      const grew = (heap[1] - heap[0]) / 1e6;
      // What stays is the kernels analysed (the kernel cache keeps 8 versions of each): a few MB here; before, 20–90.
      assert.ok(grew < 15, `the heap grew by ${grew.toFixed(1)} MB over 200 edits`);
      clearCaches();
    });

    it(`${lang}: Enters above kernels move them without keeping each earlier version`, async () => {
      const gc = collect();
      const parsers = await loadParsers();
      const src = fixtureFile(ROOT, lang, 1000);
      const file = `enters.${EXT[lang]}`;
      clearCaches();
      let report = analyzeSource(src, parsers, { gpu: H100, path: file });
      let cur = src;
      const heap: number[] = [];
      const edits = 240;
      for (let i = 0; i < edits; i++) {
        // Always in the first kernel: every kernel below is moved, none analysed again.
        const first = report.kernels[0];
        cur = editNewline(cur, [{ start: first.line - 1, end: (first.endLine ?? first.line) - 1 }], i, lang);
        report = analyzeSource(cur, parsers, { gpu: H100, path: file });
        if (i === 39 || i === edits - 1) {
          await macrotask();
          gc();
          heap.push(process.memoryUsage().heapUsed);
        }
      }
      const grew = (heap[1] - heap[0]) / 1e6;
      // A moved IR held the one it was moved from, and that one its own: every version of every kernel below (~20 MB here).
      assert.ok(grew < 5, `the heap grew by ${grew.toFixed(1)} MB over 200 Enters`);
      clearCaches();
    });
  }
});

describe('a text analysed once', function () {
  this.timeout(600_000);
  let parsers: Parsers;
  before(async () => {
    parsers = await loadParsers();
  });
  const PIPELINES: Record<Language, string> = { triton: 'triton/pipeline_forward.py', cuda: 'cuda/pipeline_layers.cu', wgsl: 'wgsl/pipeline_two_passes.ts' };
  const A100 = findGpu('a100-sxm4-80gb')!;
  const analysed = (fn: () => unknown): number => {
    const start = kernelStats.analysed;
    fn();
    return kernelStats.analysed - start;
  };

  for (const lang of ['triton', 'cuda', 'wgsl'] as const)
    for (const which of ['fixtures file', 'pipelines'] as const)
      it(`${lang}, ${which}: reports as the recorded path does, shares its kernels with its other GPUs only, keeps nothing`, () => {
        const fixture = path.join(ROOT, 'test', 'fixtures', PIPELINES[lang]);
        const src = which === 'pipelines' ? fs.readFileSync(fixture, 'utf8') : fixtureFile(ROOT, lang, 1000);
        const file = which === 'pipelines' ? fixture : `once.${EXT[lang]}`;
        const as = (gpu: typeof H100, once?: OneShot, text = src): FileReport => analyzeSource(text, parsers, { gpu, path: file, ...(once ? { once } : {}) });
        clearCaches();
        const recorded = as(H100);
        assert.ok(which === 'pipelines' ? recorded.pipelines?.length : recorded.kernels.length > 5, `${recorded.kernels.length} kernels, ${recorded.pipelines?.length ?? 0} pipelines`);
        const recordedA100 = as(A100);
        clearCaches();
        const once = new OneShot();
        let report: FileReport | undefined;
        const cold = analysed(() => (report = as(H100, once)));
        assert.equal(content(report!), content(recorded));
        // Another GPU, the same text: its kernels shared (CUDA's that read the architecture are analysed again).
        const other = analysed(() => (report = as(A100, once)));
        assert.equal(content(report!), content(recordedA100));
        if (lang !== 'cuda') assert.equal(other, 0);
        // Nothing kept: a new OneShot analyses everything again, and so does the recorded path.
        assert.equal(analysed(() => as(H100, new OneShot())), cold);
        assert.equal(analysed(() => as(H100)), cold);
        // The same OneShot given another text starts afresh.
        const edited = `${src}\n${lang === 'triton' ? '#' : '//'} edited\n`;
        const fresh = content(as(H100, new OneShot(), edited));
        clearCaches();
        assert.equal(analysed(() => (report = as(H100, once, edited))), cold);
        assert.equal(content(report!), fresh);
        clearCaches();
      });
});
