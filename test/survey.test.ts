/**
 * `npm run survey` (src/cli/survey): over our own fixtures its counts agree
 * with the analysis file by file and add up, nothing crashes, and the
 * deliberately suspicious fixtures in test/fixtures/survey/ are flagged. The
 * text heuristics behind the flags are checked on small snippets; the bundled
 * survey (worker threads) gives the same figures as the in-process one.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeFile } from './check';
import { summarise } from '../src/cli/survey/aggregate';
import { collect, fnv1a } from '../src/cli/survey/collect';
import { rowsOf } from '../src/cli/survey/file';
import { survey, type SurveyDocument } from '../src/cli/survey/main';
import { countDefinitions, cudaMemoryUse, isUnknownCall, messageTemplate, storageBindings, tritonMemoryUse, unknownCallName, wgslFunctions, wgslMemoryUse, withWgslHelpers } from '../src/cli/survey/scan';

const FIX = path.join(__dirname, 'fixtures');
// The regression fixtures are pathological on purpose (seconds each): left out to keep the suite fast.
const ROOTS = ['triton', 'cuda', 'wgsl', 'crosslang', 'survey'].map((d) => path.join(FIX, d));

describe('survey', function () {
  this.timeout(180000);
  let doc: SurveyDocument;

  before(async () => {
    doc = await survey({ roots: ROOTS, jobs: 0, timeoutMs: 60000 });
  });

  it('analyses every fixture with a kernel marker, without crashes', () => {
    assert.deepEqual(doc.summary.crashes, []);
    assert.equal(doc.summary.totals.crashes + doc.summary.totals.timeouts, 0);
    const names = new Set(doc.files.map((f) => f.file));
    for (const f of ['triton/softmax.py', 'cuda/sgemm_naive.cu', 'wgsl/matmul_tiled.wgsl', 'wgsl/embedded_compute.ts', 'survey/dead_store.py', 'survey/disabled.cu', 'survey/mystery.wgsl'])
      assert.ok(names.has(f), `${f} analysed`);
    assert.ok(doc.summary.languages.triton.files >= 15 && doc.summary.languages.cuda.files >= 20 && doc.summary.languages.wgsl.files >= 10 && doc.summary.languages['wgsl-embedded'].files >= 2);
  });

  it('finds the kernels the analysis finds, file by file', async () => {
    for (const f of doc.files) {
      const root = ROOTS.find((r) => f.file.startsWith(path.basename(r) + '/'))!;
      const report = await analyzeFile(path.join(root, f.file.slice(path.basename(root).length + 1)));
      assert.equal(f.found, report.kernels.length, `${f.file}: kernels found`);
    }
    // every fixture kernel's definition is in its text (no kernel comes from nowhere)
    const t = doc.summary.totals;
    assert.equal(t.foundBeyondDefined, 0);
    assert.equal(t.foundOfDefined, t.found);
  });

  it('adds up: totals = sum of languages = sum of roots = rows', () => {
    const t = doc.summary.totals;
    assert.equal(t.found, doc.kernels.length);
    assert.equal(t.files, doc.files.length);
    for (const key of ['files', 'found', 'defined', 'withNumbers', 'withNumbersClean', 'completeFalse'] as const) {
      const byLang = Object.values(doc.summary.languages).reduce((s, c) => s + c[key], 0);
      const byRoot = Object.values(doc.summary.roots).reduce((s, c) => s + c[key], 0);
      assert.equal(byLang, t[key], `${key} by language`);
      assert.equal(byRoot, t[key], `${key} by root`);
    }
    assert.equal(t.withNumbers, doc.kernels.filter((k) => k.flops !== null && k.loadBytes !== null && k.storeBytes !== null && k.intensity !== null).length);
    assert.ok(t.withNumbersCleanUnsuspicious <= t.withNumbersClean && t.withNumbersClean <= t.withNumbers && t.withNumbers <= t.found);
    const diagTotal = Object.values(t.diagnostics).reduce((s, n) => s + n, 0);
    assert.equal(diagTotal, doc.diagnostics.length);
    // the softmax fixture has numbers, is clean and nothing is suspicious
    const softmax = doc.kernels.find((k) => k.file === 'triton/softmax.py')!;
    assert.deepEqual([softmax.numbers, softmax.clean, softmax.suspicious], [true, true, []]);
  });

  it('counts host pipelines: the three pipeline fixtures, every launch resolved, their fusion pairs', () => {
    const of = (file: string) => doc.files.find((f) => f.file === file)?.pipelines ?? [];
    assert.deepEqual(of('triton/pipeline_forward.py').find((p) => p.name === 'forward'), { name: 'forward', launches: 3, resolved: 3, fusion: 2 });
    assert.deepEqual(of('cuda/pipeline_layers.cu').find((p) => p.name === 'forward'), { name: 'forward', launches: 4, resolved: 4, fusion: 2 });
    assert.deepEqual(of('wgsl/pipeline_two_passes.ts'), [{ name: 'encodeLayers', launches: 2, resolved: 2, fusion: 1 }]);
    const t = doc.summary.totals;
    assert.equal(t.pipelines, doc.files.reduce((n, f) => n + (f.pipelines?.length ?? 0), 0));
    assert.ok(t.pipelinesResolved >= 3 && t.fusionCandidates >= 5 && t.pipelineLaunchesResolved <= t.pipelineLaunches);
  });

  it('flags the deliberately suspicious fixtures', () => {
    const k = (file: string) => doc.kernels.find((x) => x.file === file)!;
    assert.deepEqual(k('survey/dead_store.py').suspicious, ['storesButZeroStoreBytes']);
    assert.deepEqual(k('survey/disabled.cu').suspicious, ['storesButZeroStoreBytes', 'allZero', 'loadsButZeroLoadBytes']);
    assert.ok(k('survey/mystery.wgsl').suspicious.includes('unknownCall'));
    assert.deepEqual(k('survey/mystery.wgsl').unknownCalls, ['mystery']);
    assert.equal(doc.summary.roots.survey.suspicious.allZero, 1);
    assert.ok(doc.summary.languages.wgsl.unknownCalls.mystery >= 1);
    assert.ok(doc.summary.totals.suspicious.storesButZeroStoreBytes >= 2);
  });

  it('the bundled survey (worker threads, --out) gives the same figures', function () {
    const bundle = path.join(__dirname, '..', 'dist', 'survey.js');
    if (!fs.existsSync(bundle)) this.skip();
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'survey-')), 's.json');
    const text = execFileSync(process.execPath, [bundle, path.join(FIX, 'triton'), path.join(FIX, 'survey'), '--jobs', '2', '--out', out], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.match(text, /kernels found/);
    assert.match(text, /Slowest files:/);
    const bundled = JSON.parse(fs.readFileSync(out, 'utf8')) as SurveyDocument;
    assert.equal(bundled.options.jobs, 2);
    assert.equal(bundled.summary.totals.crashes + bundled.summary.totals.timeouts, 0);
    assert.deepEqual(bundled.summary.roots.survey, { ...doc.summary.roots.survey, ms: bundled.summary.roots.survey.ms });
    const inProcess = doc.kernels.filter((k) => k.file.startsWith('survey/') || k.file.startsWith('triton/'));
    assert.deepEqual(
      bundled.kernels.map((k) => [k.file, k.kernel, k.flops, k.loadBytes, k.storeBytes, k.suspicious.join()]),
      inProcess.map((k) => [k.file, k.kernel, k.flops, k.loadBytes, k.storeBytes, k.suspicious.join()]),
    );
    assert.ok(bundled.run.peakRssMb > 0 && bundled.run.wallMs > 0);
  });
});

describe('survey heuristics', () => {
  it('counts definitions, and Triton helpers named by another jit function', () => {
    const py = [
      'import triton',
      '@triton.jit',
      'def combine(a, b):',
      '    return a + b',
      '',
      '@triton.jit',
      'def helper(x):',
      '    return x * 2',
      '',
      '@triton.autotune(configs=[],',
      '    key=[])',
      '@triton.jit',
      'def kernel(x_ptr, BLOCK: tl.constexpr):',
      '    x = helper(tl.load(x_ptr + tl.arange(0, BLOCK)))',
      '    tl.store(x_ptr, tl.reduce(x, 0, combine))',
      '# @triton.jit in a comment does not count',
    ].join('\n');
    assert.deepEqual(countDefinitions('triton', py), { defined: 3, helpers: 2, otherDecorators: 0 });
    assert.equal(countDefinitions('triton', 'from numba import jit\n@jit\ndef f(): pass\n').defined, 0);
    assert.equal(countDefinitions('triton', 'from triton import jit\n@jit\ndef f(): pass\n').defined, 1);
    assert.equal(countDefinitions('cuda', '// __global__ in a comment\n__global__ void a() {}\n/* __global__ */ template <int N> __global__ void b() {}').defined, 2);
    assert.equal(countDefinitions('wgsl', '// @compute\n@compute @workgroup_size(1) fn a() {}').defined, 1);
  });

  it('sees CUDA stores and loads through pointer parameters', () => {
    const tiled = `__global__ void __launch_bounds__((BM * BN) / (TM * TN), 1) k(int n, const float* __restrict__ A, float* __restrict__ C) {
      for (int m = 0; m < TM; ++m)
        for (int i = 0; i < TN; ++i)
          C[m * n + i] = acc[m];
    }`;
    assert.deepEqual(cudaMemoryUse(tiled, 'k'), { stores: true, loads: false });
    assert.deepEqual(cudaMemoryUse('__global__ void k(const float* x, float* y) { float v = x[threadIdx.x]; y[0] += v; }', 'k'), { stores: true, loads: true });
    // a const pointer is never written; a scalar parameter is not memory
    assert.deepEqual(cudaMemoryUse('__global__ void k(const float* x, int n) { float s = 0; for (int i = 0; i < n; i++) s += x[i] * n; }', 'k'), { stores: false, loads: true });
    // pointers declared from a parameter, vector casts, atomics, store intrinsics
    assert.equal(cudaMemoryUse('__global__ void k(float* out) { float4* o = reinterpret_cast<float4*>(out); o[threadIdx.x] = make_float4(0,0,0,0); }', 'k').stores, true);
    assert.equal(cudaMemoryUse('__global__ void k(int* hist, const int* v) { atomicAdd(&hist[v[threadIdx.x]], 1); }', 'k').stores, true);
    assert.equal(cudaMemoryUse('__global__ void k(float* mean) { __stcs(mean + blockIdx.x, 1.0f); }', 'k').stores, true);
    assert.equal(cudaMemoryUse('__global__ void k(float* out) { if (out[0] == 1.0f) return; }', 'k').stores, false);
  });

  it('sees Triton and WGSL memory use, WGSL through helpers', () => {
    assert.deepEqual(tritonMemoryUse('def k(a, b):\n    # tl.store(b, 1)\n    x = tl.load(a)\n'), { stores: false, loads: true });
    assert.deepEqual(tritonMemoryUse('def k(d):\n    d.store([0, 0], acc)\n'), { stores: true, loads: false });
    const wgsl = `@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
fn get(i: u32) -> f32 { return a[i]; }
@compute @workgroup_size(64) fn k(@builtin(global_invocation_id) id: vec3<u32>) {
  let n = arrayLength(&c);
  atomicAdd(&b[0], 1u);
  c[id.x] = get(id.x);
}`;
    const bindings = storageBindings(wgsl);
    assert.deepEqual([...bindings], [['a', 'read'], ['b', 'read_write'], ['c', 'read_write']]);
    const body = wgsl.slice(wgsl.indexOf('@compute'));
    assert.deepEqual(wgslMemoryUse(withWgslHelpers(body, wgslFunctions(wgsl), 'k'), bindings), { stores: true, loads: true });
    // without the helper, only the atomic reads; arrayLength reads nothing
    assert.deepEqual(wgslMemoryUse('fn k() { let n = arrayLength(&c); c[0] = 1.0; }', bindings), { stores: true, loads: false });
  });

  it('reads unknown-call names from the message or a structured field', () => {
    assert.equal(unknownCallName({ message: 'unknown call `tl.fancy`: counted as 0 FLOPs and 0 bytes' }), 'tl.fancy');
    assert.equal(unknownCallName({ message: 'inline PTX `mma.sync.aligned` is not counted' }), 'mma.sync.aligned');
    assert.equal(unknownCallName({ message: 'whatever', name: 'x.cast' }), 'x.cast');
    assert.equal(unknownCallName({ message: 'tensor descriptor with an unknown block shape' }), 'tensor descriptor with an unknown block shape');
    // other gaps reported under the same id are not calls
    assert.equal(isUnknownCall({ message: 'unknown call `foo`: counted as 0 FLOPs and 0 bytes' }), true);
    assert.equal(isUnknownCall({ message: 'tl.store to a value not derived from a pointer argument (`tl.store(o, x)`): not counted' }), false);
    assert.equal(
      messageTemplate('k: unknown call `foo`: counted as 0 FLOPs and 0 bytes (it may come from "a.h", "b.h", which is not analysed)', 'k'),
      'unknown call `…`: counted as # FLOPs and # bytes',
    );
  });

  it('attributes diagnostics to kernels and tolerates the honesty fields', () => {
    const src = ['@triton.autotune(', '    configs=[])', '@triton.jit', 'def k(x_ptr):', '    tl.store(x_ptr, 1.0)', '', 'def host():', '    pass'].join('\n');
    const { kernels, diagnostics } = rowsOf({ path: 'x.py', display: 'r/x.py', root: 'r', language: 'triton' }, src, {
      diagnostics: [
        { line: 1, severity: 'info', code: 'autotune', message: 'autotune configs …' },
        { line: 5, severity: 'warning', code: 'unknownCall', message: 'unknown call `.cast`: counted as 0' },
        { line: 8, severity: 'info', code: 'other', message: 'host' },
      ],
      kernels: [{ name: 'k', line: 4, endLine: 5, perUnit: { flops: 0, loadBytes: 0, storeBytes: 0 }, arithmeticIntensity: null, status: 'ok', complete: false, incompleteReasons: ['unknownCall', { id: 'descriptor' }], arithmeticIntensitySteady: { value: 2.5 } }],
    });
    assert.deepEqual(diagnostics.map((d) => d.kernel), ['k@4', 'k@4', undefined]);
    const k = kernels[0];
    assert.deepEqual([k.complete, k.reasons, k.steadyIntensity, k.clean, k.numbers, k.codes], [false, ['unknownCall', 'descriptor'], 2.5, false, false, ['autotune', 'unknownCall']]);
    // not clean (complete: false): the store flag needs a clean kernel; all-zero does not
    assert.deepEqual(k.suspicious, ['allZero', 'unknownCall']);
    const s = summarise([{ file: 'r/x.py', root: 'r', language: 'triton', ms: 1, bytes: 1, defined: 1, helpers: 0, otherDecorators: 0, found: 1, outcome: 'ok', diagnostics, kernels }]);
    assert.deepEqual([s.totals.completeFalse, s.totals.reasons, s.totals.withSteadyIntensity, s.totals.withFirstOpenNumber, s.totals.unknownCalls], [1, { unknownCall: 1, descriptor: 1 }, 1, 1, { '.cast': 1 }]);
    // an engine without the honesty fields: "not reported", never "complete"
    const old = rowsOf({ path: 'x.py', display: 'r/x.py', root: 'r', language: 'triton' }, src, { kernels: [{ name: 'k', line: 4, perUnit: { flops: 1, loadBytes: 4, storeBytes: 0 }, arithmeticIntensity: 0.25, status: 'ok' }] });
    assert.equal(old.kernels[0].complete, null);
    assert.equal(old.kernels[0].steadyIntensity, undefined);
    assert.deepEqual(old.kernels[0].suspicious, ['storesButZeroStoreBytes']);
    // an info note keeps a kernel clean (that is what a user sees as fine); a warning does not
    const noted = (severity: string) =>
      rowsOf({ path: 'x.py', display: 'r/x.py', root: 'r', language: 'triton' }, src, {
        diagnostics: [{ line: 5, severity, code: 'unknownCall', message: 'k: tl.store to a value not derived from a pointer argument (`tl.store(x_ptr, 1.0)`): not counted' }],
        kernels: [{ name: 'k', line: 4, endLine: 5, perUnit: { flops: 0, loadBytes: 0, storeBytes: 0 }, arithmeticIntensity: null, status: 'partial' }],
      }).kernels[0];
    assert.deepEqual(noted('info').suspicious, ['storesButZeroStoreBytes', 'allZero']);
    assert.deepEqual(noted('warning').suspicious, ['allZero']);
  });

  it('samples a fixed subset, and skips files without a kernel marker', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'survey-collect-'));
    fs.mkdirSync(path.join(dir, 'tests'));
    fs.mkdirSync(path.join(dir, 'node_modules'));
    for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(dir, 'tests', `t${i}.wgsl`), '@compute @workgroup_size(1) fn f() {}\n');
    fs.writeFileSync(path.join(dir, 'main.wgsl'), '@compute @workgroup_size(1) fn f() {}\n');
    fs.writeFileSync(path.join(dir, 'frag.wgsl'), '@fragment fn f() -> @location(0) vec4f { return vec4f(); }\n');
    fs.writeFileSync(path.join(dir, 'node_modules', 'x.wgsl'), '@compute @workgroup_size(1) fn f() {}\n');
    const a = collect([dir], { sample: [{ dir: 'tests', n: 3 }] });
    const b = collect([dir], { sample: [{ dir: 'tests', n: 3 }] });
    assert.deepEqual(a.jobs, b.jobs);
    assert.equal(a.jobs.length, 4);
    assert.ok(a.jobs.some((j) => j.display.endsWith('/main.wgsl')));
    assert.deepEqual(a.skipped, { 'no kernel marker': 1, 'not in sample': 7 });
    assert.deepEqual(a.sampled.map((s) => [s.candidates, s.kept]), [[10, 3]]);
    assert.notEqual(fnv1a('a'), fnv1a('b'));
    assert.equal(collect([dir], { exclude: ['tests/'] }).jobs.length, 1);
  });
});
