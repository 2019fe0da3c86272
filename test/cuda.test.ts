/**
 * The CUDA frontend: every fixture's hand-derived counts (header `expect:`
 * lines), broken and half-typed inputs (diagnostics, never a throw), and the
 * counting rules of docs/counting-cuda.md that need more than one run.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeFile, assertSane, check, fixtures, loadParsers } from './check';
import { analyzeSource } from '../src/core/analyze';
import { findGpu } from '../src/core/gpus/catalog';
import { macroLines, relatedFile } from '../src/core/related';

const FIXTURES = path.join(__dirname, 'fixtures', 'cuda');
const fixture = (name: string) => path.join(FIXTURES, name);

/** Writes a throwaway `.cu` file for one test. */
function tempKernel(name: string, source: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'roofline-cuda-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  return file;
}

function kernel(r: Awaited<ReturnType<typeof analyzeFile>>, name: string) {
  const k = r.kernels.find((x) => x.name === name);
  assert.ok(k, `kernel ${name} not found; diagnostics: ${JSON.stringify(r.diagnostics)}`);
  return k;
}

describe('CUDA fixtures', () => {
  for (const f of fixtures('cuda', ['.cu', '.cuh'])) it(path.basename(f), async () => assertSane(await check(f)));
});

describe('CUDA broken and half-typed inputs', () => {
  for (const f of fixtures(path.join('cuda', 'broken'), ['.cu', '.cuh'])) it(path.basename(f), async () => assertSane(await check(f)));

  it('every fixture cut short at any of 25 points (half-typed code): sane, no internal error', async () => {
    for (const f of fixtures('cuda', ['.cu'])) {
      const text = fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .filter((line) => !/^\/\/ (args|expect)/.test(line))
        .join('\n');
      for (let i = 1; i <= 25; i++) {
        const file = tempKernel(path.basename(f), text.slice(0, Math.floor((text.length * i) / 26)));
        const r = await analyzeFile(file);
        assertSane(r);
        const internal = r.diagnostics.filter((d) => d.code === 'internal');
        assert.deepEqual(internal, [], `${path.basename(f)} cut at ${i}/26`);
      }
    }
  });

  it('a 20,000-line generated file: partial results, no throw', async () => {
    const lines = ['#define N 1024'];
    for (let k = 0; lines.length < 20000; k++)
      lines.push(
        `__global__ void k${k}(const float* a, float* b, int n) {`,
        '  int i = blockIdx.x * blockDim.x + threadIdx.x;',
        '  float acc = 0.0f;',
        '  for (int j = 0; j < N; j++) acc += a[i * N + j] * 2.0f;',
        '  if (i < n) b[i] = acc;',
        '}',
      );
    const file = tempKernel('generated.cu', lines.slice(0, 20000).join('\n'));
    const started = Date.now();
    // An interactive host's safety net (the CLI has none: it analyses every kernel).
    const r = await analyzeFile(file, { set: { 'blockDim.x': 256 }, budgetMs: 2000 });
    assertSane(r);
    assert.ok(Date.now() - started < 15000, 'analysis stays near its time budget');
    assert.ok(r.kernels.length > 0);
    assert.equal(r.kernels[0].perUnit.flops, 256 * 1024 * 2);
    assert.ok(!r.diagnostics.some((d) => d.code === 'internal'), JSON.stringify(r.diagnostics.slice(0, 3)));
  });

  it('an unterminated `/*` followed by thousands more: the rest is the comment, said at its line (the lexer looked for its end from each of them)', async () => {
    const head = '__global__ void before(float* a) { a[threadIdx.x] = 1.0f; }\n// a "/*" in a line comment and "/*" in a string do not open one\nconst char* s = "/*";\n';
    const file = tempKernel('unterminated.cu', `${head}/* x\n${'/* y\n'.repeat(20000)}__global__ void after(float* b) { b[0] = 2.0f; }\n`);
    // The parse's own safety net of an interactive host (the CLI has none); before, the parse ran into it.
    const r = await analyzeFile(file, { set: { 'blockDim.x': 32 }, budgetMs: 2000 });
    assertSane(r);
    assert.deepEqual(r.kernels.map((k) => k.name), ['before']);
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code === 'parseError').map((d) => [d.line, d.message]),
      [[4, 'syntax error: cannot read `/*`; counts below cover only what could be read']],
    );
  });

  it('deeply nested expressions and blocks: a diagnostic, not a crash', async () => {
    const expr = '('.repeat(3000) + 'a[threadIdx.x]' + ' + 1.0f)'.repeat(3000);
    const ifs = 'if (a[0] > 0) { '.repeat(3000) + 'a[1] = 2.0f;' + ' }'.repeat(3000);
    const file = tempKernel('deep.cu', `__global__ void deep(float* a) {\n  float x = ${expr};\n  a[threadIdx.x] = x;\n  ${ifs}\n}\n`);
    const r = await analyzeFile(file, { set: { 'blockDim.x': 32 } });
    assertSane(r);
    assert.ok(r.diagnostics.some((d) => d.message.includes('expression nested too deeply')), JSON.stringify(r.diagnostics));
    assert.ok(r.diagnostics.some((d) => d.message.includes('blocks nested too deeply')), JSON.stringify(r.diagnostics));
    assert.equal(kernel(r, 'deep').perUnit.storeBytes, 32 * 4, 'the store outside the nesting still counts');
  });
});

describe('CUDA counting rules', () => {
  it('64×64 fp32 tile with BK = 8: K-loop tile intensity 2·64·64·8 / ((64·8 + 8·64)·4) = 16 FLOP/B', async () => {
    const k = kernel(await analyzeFile(fixture('sgemm_1d_blocktiling.cu')), 'sgemm1DBlocktiling');
    const loop = k.regions.find((r) => r.kind === 'loop' && r.tripsFormula === 'cdiv(K, BK)');
    assert.ok(loop && loop.flops !== null && loop.loadBytes !== null && loop.storeBytes !== null);
    const perTile = { flops: loop.flops / loop.trips!, bytes: (loop.loadBytes + loop.storeBytes) / loop.trips! };
    assert.equal(perTile.flops, 2 * 64 * 64 * 8);
    assert.equal(perTile.bytes, (64 * 8 + 8 * 64) * 4);
    assert.equal(perTile.flops / perTile.bytes, 16);
  });

  it('32×32 fp32 tile with BK = 32: K-loop tile intensity 2·32·32·32 / ((32·32 + 32·32)·4) = 8 FLOP/B', async () => {
    const k = kernel(await analyzeFile(fixture('sgemm_shared_tiled.cu')), 'sgemm_shared_mem_block');
    const loop = k.regions.find((r) => r.kind === 'loop' && r.tripsFormula === 'cdiv(K, BLOCKSIZE)');
    assert.ok(loop && loop.flops !== null && loop.loadBytes !== null);
    assert.equal(loop.flops / loop.loadBytes, 8);
  });

  it('a tree reduction over a block of 512 threads: 511 FLOPs in log2 steps', async () => {
    const k = kernel(await analyzeFile(fixture('block_sum_symbolic.cu'), { set: { 'blockDim.x': 512 } }), 'block_sum');
    assert.deepEqual(k.perUnit, { flops: 511, loadBytes: 2048, storeBytes: 4, sharedBytes: 2048 + 511 * 12 + 4 });
    assert.equal(k.regions.find((r) => r.kind === 'loop')?.trips, 9);
  });

  it('--set blockDim.x overrides the launch; --grid overrides the grid', async () => {
    const k = kernel(await analyzeFile(fixture('vector_add.cu'), { set: { 'blockDim.x': 128 }, grid: [7, 3] }), 'vector_add');
    assert.equal(k.perUnit.flops, 128);
    assert.equal(k.units, 21);
    assert.equal(k.bindingSources['blockDim.x'].source, 'user');
  });

  it('--dtype sets a template type or a pointer’s element type', async () => {
    const asFloat = kernel(await analyzeFile(fixture('conv1d_constant.cu'), { dtypes: { T: 'fp32' } }), 'conv1d');
    assert.equal(asFloat.perUnit.loadBytes, 128 * 9 * 4);
    const asHalf = kernel(await analyzeFile(fixture('vector_add.cu'), { dtypes: { a: 'fp16', b: 'fp16' } }), 'vector_add');
    assert.equal(asHalf.perUnit.loadBytes, 256 * 2 * 2);
  });

  it('reports the kernel’s 1-based line and its extent', async () => {
    const k = kernel(await analyzeFile(fixture('vector_add.cu')), 'vector_add');
    const lines = fs.readFileSync(fixture('vector_add.cu'), 'utf8').split('\n');
    assert.ok(lines[k.line - 1].startsWith('__global__ void vector_add'));
    assert.equal(lines[k.endLine! - 1], '}');
  });

  it('`x + 0.0f` counts, constant expressions fold, comparisons and fmaxf cost 0', async () => {
    const file = tempKernel(
      'fold.cu',
      [
        '#define SCALE (2.0f * 3.0f)',
        '__global__ void fold(const float* x, float* y) {',
        '  float v = x[threadIdx.x];',
        '  float c = sqrtf(2.0f / M_PI) * SCALE;',
        '  y[threadIdx.x] = fmaxf(v + 0.0f, c) > 1.0f ? v : c;',
        '}',
      ].join('\n'),
    );
    const k = kernel(await analyzeFile(file, { set: { 'blockDim.x': 64 } }), 'fold');
    assert.equal(k.perUnit.flops, 64);
    assert.equal(k.perUnit.specialOps, undefined);
  });

  it('thread conditions stay symbolic when the block size is unknown', async () => {
    const file = tempKernel(
      'lanes.cu',
      [
        '__global__ void lanes(float* out, const float* in) {',
        '  float v = in[threadIdx.x];',
        '  if (threadIdx.x == 0) out[0] = v;',
        '  if (threadIdx.x < 64) out[threadIdx.x] = v * 2.0f;',
        '  if ((threadIdx.x % 32) == 0) out[threadIdx.x + 1] = v;',
        '}',
      ].join('\n'),
    );
    const k = kernel(await analyzeFile(file), 'lanes');
    assert.deepEqual(k.unbound, ['blockDim.x']);
    assert.equal(k.formulas.storeBytes, '4·cdiv(blockDim.x, 32) + 4·min(blockDim.x, 64) + 4');
    const bound = kernel(await analyzeFile(file, { set: { 'blockDim.x': 256 } }), 'lanes');
    assert.equal(bound.perUnit.storeBytes, 4 * (1 + 64 + 8));
  });

  it('data-dependent branches are counted as taken, and the hover says so', async () => {
    const file = tempKernel(
      'relu.cu',
      ['__global__ void relu_grad(const float* x, float* g) {', '  int i = blockIdx.x * blockDim.x + threadIdx.x;', '  if (x[i] > 0.0f) g[i] = g[i] * 2.0f;', '}'].join('\n'),
    );
    const r = await analyzeFile(file, { set: { 'blockDim.x': 128 } });
    const k = kernel(r, 'relu_grad');
    assert.deepEqual(k.perUnit, { flops: 128, loadBytes: 1024, storeBytes: 512 });
    assert.ok(k.assumptions.some((a) => a.includes('counted as taken')));
    assert.ok(k.regions.some((x) => x.kind === 'branch' && x.line === 3));
  });

  it('block size from __launch_bounds__, template arguments from an explicit instantiation', async () => {
    const file = tempKernel(
      'bounds.cu',
      [
        'template <int TILE>',
        '__global__ void __launch_bounds__(128) scale_rows(const __nv_bfloat162* x, __nv_bfloat162* y, __nv_bfloat162 s) {',
        '  for (int j = 0; j < TILE; ++j) y[j * 128 + threadIdx.x] = __hmul2(x[j * 128 + threadIdx.x], s);',
        '}',
        'template __global__ void scale_rows<4>(const __nv_bfloat162*, __nv_bfloat162*, __nv_bfloat162);',
      ].join('\n'),
    );
    const k = kernel(await analyzeFile(file), 'scale_rows');
    assert.equal(k.bindingSources['blockDim.x'].source, 'launch_bounds');
    assert.equal(k.bindingSources.TILE.source, 'template');
    assert.deepEqual(k.perUnit, { flops: 128 * 4 * 2, loadBytes: 128 * 4 * 4, storeBytes: 128 * 4 * 4 });
    assert.equal(k.computeDtype, 'bf16');
  });

  it('loop headers: two variables, `<=`, `while`, `do … while (false)`', async () => {
    const file = tempKernel(
      'loops.cu',
      [
        '#define TILE 64',
        '__global__ void loops(float* x) {',
        '  float v = x[threadIdx.x];',
        '  for (int i = 0, j = 10; i < j; i++, j--) v += 1.0f;',
        '  for (int k = 0; k <= 7; k += 2) v *= 2.0f;',
        '  int w = 0;',
        '  while (w < TILE) { v -= 1.0f; w += 16; }',
        '  do { v = v / 2.0f; } while (false);',
        '  x[threadIdx.x] = v;',
        '}',
      ].join('\n'),
    );
    const k = kernel(await analyzeFile(file, { set: { 'blockDim.x': 1 } }), 'loops');
    assert.deepEqual(k.regions.filter((r) => r.kind === 'loop').map((r) => r.trips), [5, 4, 4, 1]);
    assert.equal(k.perUnit.flops, 5 + 4 + 4 + 1);
  });

  it('unknown loop bounds stay symbolic and are reported, never guessed', async () => {
    const file = tempKernel(
      'until.cu',
      ['__global__ void until(float* x, float eps) {', '  float v = x[threadIdx.x];', '  while (v > eps) v = v * 0.5f;', '  x[threadIdx.x] = v;', '}'].join('\n'),
    );
    const k = kernel(await analyzeFile(file, { set: { 'blockDim.x': 32 } }), 'until');
    assert.deepEqual(k.unbound, ['trips_L3']);
    assert.equal(k.perUnit.flops, null);
    assert.equal(kernel(await analyzeFile(file, { set: { 'blockDim.x': 32, trips_L3: 10 } }), 'until').perUnit.flops, 320);
  });
});

describe('CUDA structs, references, __CUDA_ARCH__, textures (issue 13: P8, P9, N2, N5)', () => {
  it('`__CUDA_ARCH__` follows the GPU: H100 → the sm_90 branch, V100 → the #else, --set overrides, an AMD GPU warns', async () => {
    const f = fixture('cuda_arch.cu');
    const flops = async (opts: Parameters<typeof analyzeFile>[1]) => kernel(await analyzeFile(f, opts), 'axpb').perUnit.flops;
    // sm_90: fmaf (2), the product, the add, expf, the subtraction = 6, then × 0.5f = 7 per thread.
    assert.equal(await flops({ gpu: findGpu('h100-sxm')! }), 128 * 7);
    // sm_70: a · v, then × 0.5f = 2 per thread.
    assert.equal(await flops({ gpu: findGpu('v100')! }), 128 * 2);
    assert.equal(await flops({ gpu: findGpu('h100-sxm')!, set: { n: 1048576, __CUDA_ARCH__: 750 } }), 128 * 2);
    const amd = await analyzeFile(f, { gpu: findGpu('mi300x')! });
    const warn = amd.diagnostics.find((d) => d.code === 'cudaArchUnknown');
    assert.ok(warn && warn.severity === 'warning', JSON.stringify(amd.diagnostics));
    assert.match(warn.message, /--set __CUDA_ARCH__=/);
    // Not silently empty: the first branch is read (and `#ifdef __CUDA_ARCH__` is defined).
    assert.equal(kernel(amd, 'axpb').perUnit.flops, 128 * 7);
  });

  it('`#ifdef __CUDA_ARCH__` is the device pass: defined even without a value; `#ifndef` code is host-only', async () => {
    const file = tempKernel(
      'devpass.cu',
      [
        '__global__ void k(float* y, const float* x) {',
        '#ifndef __CUDA_ARCH__',
        '  y[threadIdx.x] = 0.0f;',
        '#else',
        '  y[threadIdx.x] = x[threadIdx.x] * 3.0f;',
        '#endif',
        '}',
      ].join('\n'),
    );
    for (const gpu of ['h100-sxm', 'mi300x']) {
      const k = kernel(await analyzeFile(file, { gpu: findGpu(gpu)!, set: { 'blockDim.x': 64 } }), 'k');
      assert.deepEqual(k.perUnit, { flops: 64, loadBytes: 256, storeBytes: 256 }, gpu);
    }
  });

  it('struct layouts: padding, alignas, unions, nested and template structs give sizeof as nvcc does', async () => {
    const file = tempKernel(
      'layouts.cu',
      [
        'struct A { char c; double d; int i; };            // 1 + 7 pad + 8 + 4 + 4 pad = 24',
        'struct alignas(32) B { float x; };                // 32',
        'union U { float4 v; float f[4]; char c; };        // 16',
        'struct N { A a; short s; };                       // 24 + 2 + 6 pad = 32',
        'template <typename T> struct P { T lo; T hi; };',
        'struct H { half h; half2 g; };                    // 2 + 2 pad + 4 = 8',
        'struct D : A { float e; };                        // base 24, then e at 24: 28 → 32',
        '__global__ void k(A* a, B* b, U* u, N* n, P<double>* p, H* h, D* d) {',
        '  int i = threadIdx.x;',
        '  a[i] = a[i + 1]; b[i] = b[i + 1]; u[i] = u[i + 1]; n[i] = n[i + 1]; p[i] = p[i + 1]; h[i] = h[i + 1]; d[i] = d[i + 1];',
        '}',
      ].join('\n'),
    );
    const k = kernel(await analyzeFile(file, { set: { 'blockDim.x': 1 } }), 'k');
    const sizes = 24 + 32 + 16 + 32 + 16 + 8 + 32;
    assert.deepEqual(k.perUnit, { flops: 0, loadBytes: sizes, storeBytes: sizes });
    assert.equal(k.complete, true);
  });

  it('a struct with a member type from a header: whole-struct accesses are said, the kernel is incomplete', async () => {
    const file = tempKernel(
      'opaque.cu',
      [
        '#include "vec.h"',
        'struct Body { Vec3 pos; float m; };',
        '__global__ void k(Body* b, Body* out, float* m) {',
        '  int i = threadIdx.x;',
        '  m[i] = b[i].m * 2.0f;',
        '  out[i] = b[i];',
        '}',
      ].join('\n'),
    );
    const r = await analyzeFile(file, { set: { 'blockDim.x': 32 } });
    const k = kernel(r, 'k');
    assert.equal(k.complete, false);
    assert.deepEqual(k.incompleteReasons, ['structLayoutUnknown']);
    assert.ok(r.diagnostics.some((d) => d.code === 'structLayoutUnknown' && d.message.includes('Vec3')), JSON.stringify(r.diagnostics));
    // The member `m` is still a 4-byte float read: 32 × 4 B, and its product is a FLOP.
    assert.equal(k.perUnit.flops, 32);
  });

  it('an element type from a header: member stores are said, not dropped in silence', async () => {
    const file = tempKernel(
      'vertex.cu',
      ['#include "shapes.h"', '__global__ void k(Vertex* v, float t) {', '  int i = threadIdx.x;', '  v[i].position.x = t * 2.0f;', '}'].join('\n'),
    );
    const r = await analyzeFile(file, { set: { 'blockDim.x': 32 } });
    const k = kernel(r, 'k');
    assert.equal(k.complete, false);
    assert.ok(r.diagnostics.some((d) => d.code === 'structLayoutUnknown' && d.message.includes('`Vertex`')), JSON.stringify(r.diagnostics));
  });

  it('a pointer whose target is not followed: its load and store are said (complete: false), never silently 0', async () => {
    const file = tempKernel(
      'lost.cu',
      [
        'struct Opaque;',
        '__device__ float* pick(float** table, int k);',
        '__global__ void k(float** rows, float* out) {',
        '  float* r = rows[blockIdx.x];      // a pointer read from memory: global, offset unknown',
        '  out[threadIdx.x] = r[threadIdx.x] * 2.0f;',
        '  float* q = (float*)0;',
        '  q[threadIdx.x] = 1.0f;',
        '}',
      ].join('\n'),
    );
    const r = await analyzeFile(file, { set: { 'blockDim.x': 32 } });
    const k = kernel(r, 'k');
    // rows[b] (8 B, by every thread) and r[t] (4 B) are loads; out[t] is a store.
    assert.equal(k.perUnit.loadBytes, 32 * (8 + 4));
    assert.equal(k.perUnit.storeBytes, 32 * 4);
    assert.ok(r.diagnostics.some((d) => d.code === 'unattributedStore'), JSON.stringify(r.diagnostics));
    assert.equal(k.complete, false);
  });

  it('cp.async through a macro defined in the file: one global load and one shared store per copy, the shared reads after it are shared', async () => {
    const file = tempKernel(
      'cpasync.cu',
      [
        '#define CP_ASYNC_CG(dst, src, bytes) asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], %2;\\n" ::"r"(dst), "l"(src), "n"(bytes))',
        '#define CP_ASYNC_COMMIT_GROUP() asm volatile("cp.async.commit_group;\\n" ::)',
        '__global__ void stage(const float* x, float* y) {',
        '  __shared__ float s[128 * 4];',
        '  int t = threadIdx.x;',
        '  unsigned int dst = __cvta_generic_to_shared(&s[t * 4]);',
        '  CP_ASYNC_CG(dst, &x[blockIdx.x * 512 + t * 4], 16);',
        '  CP_ASYNC_COMMIT_GROUP();',
        '  __syncthreads();',
        '  y[blockIdx.x * 128 + t] = s[t * 4] + s[t * 4 + 1];',
        '}',
      ].join('\n'),
    );
    const k = kernel(await analyzeFile(file, { set: { 'blockDim.x': 128 } }), 'stage');
    assert.equal(k.perUnit.loadBytes, 128 * 16, 'the copy is a global load, counted once');
    assert.equal(k.perUnit.storeBytes, 128 * 4);
    assert.equal(k.perUnit.sharedBytes, 128 * 16 + 128 * 8, 'the copy’s shared store and the two shared reads');
    assert.equal(k.perUnit.flops, 128);
    assert.equal(k.complete, true);
  });

  it('an out-of-range test (`if (x >= n) valid = false;`) is false on the interior path, so the guarded store counts', async () => {
    const file = tempKernel(
      'valid.cu',
      [
        '__global__ void k(float* out, const float* in, int nx, int ny) {',
        '  int x = blockIdx.x * blockDim.x + threadIdx.x;',
        '  int y = blockIdx.y * blockDim.y + threadIdx.y;',
        '  bool valid = true;',
        '  if (x >= nx || y >= ny) valid = false;',
        '  float v = 0.0f;',
        '  if (x >= nx) { v = 1.0f; } else { v = in[y * nx + x] * 2.0f; }',
        '  if (valid) out[y * nx + x] = v;',
        '}',
      ].join('\n'),
    );
    const k = kernel(await analyzeFile(file, { set: { 'blockDim.x': 16, 'blockDim.y': 16 } }), 'k');
    // The else arm of `x >= nx` (in range) runs: a load and a product; `valid` stays true: the store counts.
    assert.deepEqual(k.perUnit, { flops: 256, loadBytes: 1024, storeBytes: 1024 });
  });

  it('conversions written as calls: `uint(x)`, and `(T)(x)` with T a typedef from a header, are casts, not unknown calls', async () => {
    const file = tempKernel(
      'casts.cu',
      [
        '#include "types.h"',
        '__global__ void k(unsigned int* out, const float* a, float* b) {',
        '  int i = threadIdx.x;',
        '  out[i] = uint(a[i] * 255.0f);',
        '  b[i] = (floatX)(a[i] + 1.0f);',
        '}',
      ].join('\n'),
    );
    const r = await analyzeFile(file, { set: { 'blockDim.x': 32 } });
    const k = kernel(r, 'k');
    assert.ok(!r.diagnostics.some((d) => d.code === 'unknownCall'), JSON.stringify(r.diagnostics));
    assert.deepEqual(k.perUnit, { flops: 64, loadBytes: 256, storeBytes: 256 });
    assert.equal(k.complete, true);
  });

  it('memcpy_async: per thread (`cuda::memcpy_async`) or once per group (`cg::memcpy_async`), a global load and a shared store', async () => {
    const file = tempKernel(
      'memcpy_async.cu',
      [
        '#include <cooperative_groups.h>',
        '#include <cuda/pipeline>',
        'namespace cg = cooperative_groups;',
        '__global__ void stage(const float4* x, float* out) {',
        '  __shared__ float4 a[256];',
        '  __shared__ float b[256];',
        '  auto block = cg::this_thread_block();',
        '  auto warp = cg::tiled_partition<32>(block);',
        '  auto pipe = cuda::make_pipeline();',
        '  const auto shape = cuda::aligned_size_t<alignof(float4)>(sizeof(float4));',
        '  pipe.producer_acquire();',
        '  cuda::memcpy_async(&a[threadIdx.x], &x[blockIdx.x * 256 + threadIdx.x], shape, pipe);',
        '  pipe.producer_commit();',
        '  cg::memcpy_async(warp, &b[warp.meta_group_rank() * 32], (const float*)x + blockIdx.x * 256, cuda::aligned_size_t<16>{32 * sizeof(float)});',
        '  cg::wait(block);',
        '  out[blockIdx.x * 256 + threadIdx.x] = a[threadIdx.x].x + b[threadIdx.x];',
        '}',
      ].join('\n'),
    );
    const r = await analyzeFile(file, { set: { 'blockDim.x': 256 } });
    const k = kernel(r, 'stage');
    // 256 threads × 16 B, then 8 warps × 128 B (one copy per warp).
    assert.equal(k.perUnit.loadBytes, 256 * 16 + 8 * 128);
    assert.equal(k.perUnit.storeBytes, 256 * 4);
    assert.equal(k.complete, true, JSON.stringify(r.diagnostics));
  });

  it('cg::reduce with a combine function of the file: size − 1 applications per tile; a struct changed in a loop is not a constant after it', async () => {
    const file = tempKernel(
      'cgreduce.cu',
      [
        '#include <cooperative_groups.h>',
        'namespace cg = cooperative_groups;',
        'struct MaxSum { float m; float s; };',
        '__device__ MaxSum combine(MaxSum a, MaxSum b) {',
        '  MaxSum r;',
        '  r.m = fmaxf(a.m, b.m);',
        '  r.s = a.s * expf(a.m - r.m) + b.s * expf(b.m - r.m);',
        '  return r;',
        '}',
        '__global__ void k(float* out, const float* x, int C) {',
        '  cg::thread_block block = cg::this_thread_block();',
        '  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);',
        '  MaxSum acc;',
        '  acc.m = -INFINITY;',
        '  acc.s = 0.0f;',
        '  for (int i = warp.thread_rank(); i < C; i += 32) {',
        '    MaxSum one = { x[i], 1.0f };',
        '    acc = combine(acc, one);',
        '  }',
        '  MaxSum all = cg::reduce(warp, acc, combine);',
        '  out[threadIdx.x] = all.s;',
        '}',
      ].join('\n'),
    );
    const k = kernel(await analyzeFile(file, { set: { 'blockDim.x': 64, C: 1024 } }), 'k');
    // combine: 2 subtractions, 2 expf, 2 products, 1 add = 7 FLOPs (fmaxf is free).
    // Loop: 64 threads × cdiv(1024, 32) = 32 trips × 7; reduce: 2 warps × 31 × 7 (acc is not the constant it started as).
    assert.equal(k.perUnit.flops, 64 * 32 * 7 + 2 * 31 * 7);
    assert.equal(k.perUnit.specialOps, 64 * 32 * 2 + 2 * 31 * 2);
  });
});

describe('CUDA: headers of the project (`#include "x.h"`)', () => {
  const FILE = path.join(__dirname, 'fixtures', 'cuda', 'include_header.cu');
  const HEADER = fs.readFileSync(path.join(__dirname, 'fixtures', 'cuda', 'common', 'pair_ops.h'), 'utf8');
  const source = fs.readFileSync(FILE, 'utf8');
  const run = async (src: string, header?: string) =>
    analyzeSource(src, await loadParsers(), { gpu: findGpu('h100-sxm')!, path: 'include_header.cu', ...(header !== undefined ? { related: { 'pair_ops.h': { path: 'common/pair_ops.h', text: header } } } : {}) });

  it('without the header: it is said not read, and the kernel is incomplete', async () => {
    const r = await run(source);
    assert.ok(r.diagnostics.some((d) => d.code === 'includeNotRead' && d.line === 15));
    assert.equal(r.kernels[0].complete, false);
  });

  it("a header's kernels are not this file's; what goes wrong in it is said at the #include line; lines stay the file's", async () => {
    const header = HEADER.replace('return x * y + 1.0f;', 'return mystery(x) * y + 1.0f;') + '\n__global__ void header_kernel(float* p) { p[threadIdx.x] = 1.0f; }\n';
    const r = await run(source, header);
    assert.deepEqual(r.kernels.map((k) => [k.name, k.line]), [['pair_kernel', 16]]);
    assert.ok(!r.diagnostics.some((d) => d.code === 'includeNotRead'), JSON.stringify(r.diagnostics));
    const d = r.diagnostics.find((x) => /mystery/.test(x.message));
    assert.equal(d?.line, 15);
    // The launch in main() is still found and sized (its line is the file's).
    assert.equal(r.kernels[0].units, 4096);
  });

  it('a file with no kernel and no launch, whose headers launch none, takes nothing from them: they are not read, nor said unread', async () => {
    const host = '#include "pair_ops.h"\nfloat twice(float x) { return x * 2.0f; }\n';
    // A header that does not parse: read with the file, its errors would be said at the #include line.
    const r = await run(host, HEADER.replace('return x * y + 1.0f;', 'return x * y + ;'));
    assert.deepEqual(r.diagnostics.map((d) => d.code), ['noKernels'], JSON.stringify(r.diagnostics));
    // A header that launches is read: the file's host code may call the function that launches.
    const launching = `${HEADER}\n__global__ void hk(float* p) { p[threadIdx.x] = 1.0f; }\nvoid go(float* p) { hk<<<4, 256>>>(p); hk<<<8, 256>>>(p); }\n`;
    const r2 = await run('#include "pair_ops.h"\nint main() { float* p; go(p); return 0; }\n', launching);
    assert.equal(r2.kernels.length, 0);
    assert.deepEqual(r2.pipelines?.map((p) => [p.name, p.launches.length]), [['go', 2]], JSON.stringify(r2.diagnostics));
  });

  it('conditionals nvcc resolves in a header (C linkage under `#ifdef __cplusplus`, qualifiers under `#ifdef __CUDACC__`): no syntax error, the file\'s statements stay its own', async () => {
    const api = (open: string) =>
      [
        '#pragma once',
        '#ifdef __cplusplus',
        open,
        '#endif',
        'typedef enum pair_status_t {',
        '  PAIR_OK = 0,',
        '  PAIR_ERR = 1,',
        '} pair_status_t;',
        'const char* pair_status_string(pair_status_t status);',
        '#ifdef __cplusplus',
        '}  // extern "C"',
        '#endif',
        'template <class T>',
        '#ifdef __CUDACC__',
        '__host__',
        '    __device__',
        '#endif',
        '        T',
        '        pair_min(const T &a, const T &b)',
        '{',
        '    return a < b ? a : b;',
        '}',
        '',
      ].join('\n');
    for (const open of ['extern "C" {', 'extern "C"\n{']) {
      const r = await run(source, `${api(open)}${HEADER}`);
      assert.ok(!r.diagnostics.some((d) => d.code === 'parseError'), JSON.stringify(r.diagnostics.filter((d) => d.code === 'parseError')));
      assert.deepEqual(r.kernels.map((k) => [k.name, k.line, k.units]), [['pair_kernel', 16, 4096]]);
    }
    // Unpaired (an `extern "C" {` the header never closes), the lines are left as written: the parser says so.
    const unpaired = await run(source, `${api('extern "C" {').replace('}  // extern "C"', '')}${HEADER}`);
    assert.ok(unpaired.diagnostics.some((d) => d.code === 'parseError'), JSON.stringify(unpaired.diagnostics));
  });

  it('past the first 16 headers, each is read for its macros only: an export macro defined there reads as nvcc reads it, and what is not known is said', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'roofline-headers-'));
    try {
      // api.h is the 17th header read: its macro decides how the first one's declaration parses.
      const own = Array.from({ length: 16 }, (_, i) => `part${i}.h`);
      fs.writeFileSync(path.join(dir, 'part0.h'), '#pragma once\nPAIR_API float pair_scale(void);\n');
      for (let i = 1; i < 16; i++) fs.writeFileSync(path.join(dir, own[i]), `#pragma once\n__device__ inline float add${i}(float x) { return x + ${i}.0f; }\n`);
      const api = [
        '#pragma once',
        '/* #define PAIR_API broken  (a directive in a comment is none)',
        '*/',
        '#if defined(_WIN32)',
        '#  define PAIR_API __declspec(dllexport)',
        '#else',
        '#  define PAIR_API \\',
        '     __attribute__((visibility("default")))',
        '#endif',
        '__device__ inline float unseen(float x) { return x * 3.0f; }',
      ].join('\n');
      fs.writeFileSync(path.join(dir, 'api.h'), api);
      const kernel = [
        ...own.map((h) => `#include "${h}"`),
        '#include "api.h"',
        '__global__ void scale(const float* x, float* y) {',
        '  int i = blockIdx.x * blockDim.x + threadIdx.x;',
        '  y[i] = unseen(add1(x[i]) * 2.0f);',
        '}',
        '',
      ].join('\n');
      const file = path.join(dir, 'scale.cu');
      fs.writeFileSync(file, kernel);
      const r = await analyzeFile(file, { set: { 'blockDim.x': 128 } });
      assert.ok(!r.diagnostics.some((d) => d.code === 'parseError'), JSON.stringify(r.diagnostics.filter((d) => d.code === 'parseError')));
      assert.deepEqual(
        r.diagnostics.filter((d) => /^include/.test(d.code)).map((d) => [d.code, d.line]),
        [['includeMacrosOnly', 17]],
      );
      // `unseen` is api.h's, whose functions are not read: it may come from there, and only there (the 16 read whole are not named).
      const unknown = r.diagnostics.find((d) => d.code === 'unknownCall');
      assert.match(unknown?.message ?? '', /`unseen`.*may come from `#include "api.h"`, which the analysis does not read \(or reads for its macros only\)/);
      // add1 is read: 1 add; × 2.0f: 1 multiply; unseen: 0, said.
      assert.equal(r.kernels[0].perUnit.flops, 128 * 2);
      assert.equal(r.kernels[0].complete, false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a header read for its macros keeps its preprocessor lines: continuations, not a comment's, a comment it opens closed", () => {
    const text = [
      '#pragma once',
      'int f();  /* a comment',
      '#define NOT_ONE 1',
      '*/ #define NOT_TWO 2',
      '#define LONG(a) \\',
      '  ((a) + 1)',
      'const char* s = "/*";',
      '#define OPENS 3 /* runs on',
      '   over code */ int g();',
      '  #  if X',
      '#endif',
    ].join('\n');
    assert.equal(macroLines(text), ['#pragma once', '#define LONG(a) \\', '  ((a) + 1)', '#define OPENS 3 /* runs on */', '  #  if X', '#endif', ''].join('\n'));
    assert.equal(macroLines('int f();\n'), '');
    assert.deepEqual(relatedFile('cuda', 15, 'a.h', text), { path: 'a.h', text });
    assert.deepEqual(relatedFile('cuda', 16, 'a.h', text), { path: 'a.h', text: macroLines(text), macrosOnly: true });
    assert.deepEqual(relatedFile('wgsl', 40, 'a.wgsl', text), { path: 'a.wgsl', text });
  });

  it('a header too large to read with the file on every analysis is said not read', async () => {
    const r = await run(source, `// ${'x'.repeat(1_100_000)}\n` + HEADER);
    assert.ok(r.diagnostics.some((d) => d.code === 'includeNotRead' && d.line === 15));
    assert.equal(r.kernels[0].complete, false);
  });
});

describe('CUDA: spin-waits', () => {
  const run = async (src: string) => analyzeSource(src, await loadParsers(), { gpu: findGpu('h100-sxm')!, path: 'spin.cu', set: { 'blockDim.x': 32 } });
  it('an empty loop on an atomic or a flag is a spin-wait (one test); one whose condition calls a function that works is not', async () => {
    const flag = await run('__global__ void k(volatile int* f) { while (f[0] < 1); }');
    assert.equal(flag.kernels[0].perUnit.loadBytes, 32 * 4);
    assert.ok(flag.kernels[0].assumptions.some((a) => /spin-wait/.test(a)));
    const work = await run('__device__ bool step(float* p) { p[0] = p[0] * 2.0f; return p[0] < 100.0f; }\n__global__ void k(float* p) { while (step(p)) {} }');
    assert.equal(work.kernels[0].perUnit.flops, null);
    assert.ok(!work.kernels[0].assumptions.some((a) => /spin-wait/.test(a)));
  });
});

describe('CUDA: in time slices, the file scan spans calls', () => {
  it('one top-level statement a call in a zero-length slice, each statement searched ahead, and the same scan as made at once', async () => {
    const { parseCached } = await import('../src/core/parsers');
    const { syntaxRoot, searchTogether } = await import('../src/core/syntax-tree');
    const { FileInfo } = await import('../src/core/frontends/cuda/file');
    const { Snippets } = await import('../src/core/frontends/cuda/syntax');
    const { fixtureFile } = await import('./bench/fixtures');
    const p = await loadParsers();
    // Macros, `#if`, structs, helpers, kernels and launches of the real-style fixtures.
    const src = fixtureFile(path.join(__dirname, '..'), 'cuda', 400);
    const show = (f: InstanceType<typeof FileInfo>) =>
      JSON.stringify({
        functions: [...f.functions.entries()].map(([n, l]) => [n, l.map((d) => d.node.startIndex)]),
        kernels: f.kernels.map((k) => k.name),
        structs: [...f.structs.keys()],
        typedefs: [...f.typedefs.keys()],
        globals: [...f.globals.keys()],
        macros: [...f.macros.entries()].map(([n, l]) => [n, l.length]),
        launches: f.launches.map((l) => [l.name, l.call.startIndex, l.args.length]),
        diagnostics: f.diagnostics,
      });
    const scan = (name: string, sliced: boolean) => {
      const tree = parseCached(p.cuda, name, src, undefined)!;
      searchTogether(tree.language, [['{', '}'], ['call_expression'], ['kernel_call_syntax']]);
      return { root: syntaxRoot(tree, src), file: new FileInfo(syntaxRoot(tree, src), new Snippets(p.cuda), new Map(), undefined, sliced) };
    };
    const whole = scan('scan-whole.cu', false).file;
    const { root, file } = scan('scan-sliced.cu', true);
    const statements = root.namedChildren.filter((c) => c.type !== 'comment').length;
    const nodes = root.children.length;
    assert.ok(whole.kernels.length > 5 && whole.launches.length > 0 && statements > 20, `${whole.kernels.length} kernels, ${statements} statements`);
    const steps: string[] = [];
    for (let call = 0; call < 3 * nodes; call++) {
      const r = file.scanOn(() => true);
      steps.push(r === true ? 'done' : `${r.done}`);
      if (r === true) break;
    }
    const of = statements + nodes + 1;
    assert.deepEqual(steps, [...Array.from({ length: statements + nodes }, (_, i) => `${i + 1}`), 'done'], `of ${of}`);
    assert.equal(show(file), show(whole));
    // The kernels' and launches' searches of the file are answered from what each statement kept.
    for (const c of root.children) for (const key of ['call_expression', 'kernel_call_syntax', '{\u0000}']) assert.ok(c.searched(key), `${c.type} at ${c.startIndex}: ${key}`);
  });
});

describe('CUDA: host values before a node, block by block', () => {
  it("HostStates gives what enterHostFunction gives before every node a pipeline's walk asks about, in any order", async () => {
    const { parseCached } = await import('../src/core/parsers');
    const { syntaxRoot } = await import('../src/core/syntax-tree');
    const { FileInfo } = await import('../src/core/frontends/cuda/file');
    const { Snippets } = await import('../src/core/frontends/cuda/syntax');
    const { enterHostFunction, hostInterp, HostStates } = await import('../src/core/frontends/cuda/launch');
    const { seedBindings } = await import('../src/core/frontends/common');
    const { Budget } = await import('../src/core/budget');
    const { printExpr } = await import('../src/core/sym/expr');
    const p = await loadParsers();
    const src = [
      'int half(int n) { int h = n / 2; for (int i = 0; i < 3; ++i) h += 0; return h; }',
      'void fill(int* out) { *out = 7; }',
      '__global__ void k(float* x, int n) { x[threadIdx.x] *= 2.0f; }',
      'void run(float* x, int n, int reps) {',
      '  int a = n * 2;',
      '  int b = half(a) + 1;',
      '  if (b > 4) { int c = b * 3; k<<<c, 32>>>(x, c); a = c + b; }',
      '  int got = 0;',
      '  fill(&got);',
      '  for (int r = 1; r < reps; r += 2) {',
      '    int d = a + r;',
      '    { int e = d * half(b); k<<<e, 64>>>(x, e); }',
      '    b = b + d;',
      '    if (d > got) k<<<d, 128>>>(x, d);',
      '  }',
      '  int f = a + b + got;',
      '  k<<<f, 256>>>(x, f);',
      '}',
    ].join('\n');
    const tree = parseCached(p.cuda, 'host-states.cu', src, undefined)!;
    const root = syntaxRoot(tree, src);
    const file = new FileInfo(root, new Snippets(p.cuda), new Map(), undefined, false);
    const ctx = { source: src, parsers: p, user: { set: {}, dtypes: {} }, pragmas: [], budget: new Budget() };
    const b = seedBindings(ctx);
    const run = root.namedChildren.find((c) => c.type === 'function_definition' && c.text.startsWith('void run'))!;
    const asked = ['call_expression', 'if_statement', 'for_statement', 'declaration'].flatMap((t) => run.descendantsOfType(t)).filter((n) => n !== null);
    asked.sort((x, y) => x.startIndex - y.startIndex);
    assert.ok(asked.length > 15, `${asked.length} nodes`);
    const values = (host: ReturnType<typeof hostInterp>) =>
      [...host.frame.scope.vars].map(([name, cell]) => `${name}=${cell.val.e ? printExpr(cell.val.e) : '?'}`).join(' ');
    for (const params of [new Map<string, number>(), new Map([['n', 5], ['reps', 6]])]) {
      const states = new HostStates(() => hostInterp(ctx, file, b));
      // In document order (the walk's), backwards (each block run again from its start), and forwards again.
      for (const order of [asked, [...asked].reverse(), asked]) {
        for (const node of order) {
          const want = hostInterp(ctx, file, b);
          enterHostFunction(want, node, params);
          const got = states.at(node, params);
          assert.equal(values(got), values(want), `before \`${node.text.slice(0, 40)}\` (${[...params].join(' ')})`);
          // What the caller does with it stays its own.
          got.frame.scope.vars.clear();
        }
      }
      // Before the last launch: `half` inlined, `got` written through its address (unknown: a symbol of its name).
      assert.equal(values(states.at(asked[asked.length - 1], params)), params.size ? 'x=? n=5 reps=6 a=10 b=6 got=? f=f' : 'x=? n=n reps=reps a=2·n b=n + 1 got=? f=f');
    }
  });
});

describe('CUDA: macros that stand for qualifiers or an unroll pragma', () => {
  const run = async (src: string) => analyzeSource(src, await loadParsers(), { gpu: findGpu('h100-sxm')!, path: 'macros.cu', set: { n: 4096 } });
  const syntax = (r: Awaited<ReturnType<typeof run>>) => r.diagnostics.filter((d) => d.code === 'parseError').map((d) => `${d.line}: ${d.message}`);
  const body = [
    'HD float sq(float t) { return t * t; }',
    'DEV float twice(float t) { return t + t; }',
    '__global__ void k(const float* x, float* y, int n) {',
    '  int i = blockIdx.x * blockDim.x + threadIdx.x;',
    '  float a = 0.0f;',
    '  UNROLL',
    '  for (int j = 0; j < 4; ++j) a += sq(x[i * 4 + j]);',
    '  y[i] = twice(a);',
    '}',
    'void go(const float* x, float* y, int n) { k<<<n / 1024, 256>>>(x, y, n); }',
  ];
  it("are read from the file's own definitions, each way it defines them (the device build's first); a qualifier itself is never redefined", async () => {
    const src = [
      '#ifndef __CUDACC__',
      '#define __device__',
      '#define __host__',
      '#endif',
      '#ifdef __CUDA_ARCH__',
      '#define HD __forceinline__ __host__ __device__',
      '#define DEV __device__ __forceinline__  // device only',
      '#else',
      '#define HD inline',
      '#define DEV inline',
      '#endif',
      '#define UNROLL _Pragma("unroll")',
      ...body,
    ].join('\n');
    const r = await run(src);
    assert.deepEqual(syntax(r), []);
    // Per thread: 4 × (sq 1 + += 1) + twice 1 = 9 FLOPs, 4 loads of 4 B, one store; 256 threads.
    assert.equal(r.kernels[0].perUnit.flops, 256 * 9);
    assert.equal(r.kernels[0].perUnit.loadBytes, 256 * 16);
    assert.equal(r.kernels[0].units, 4);
  });
  it('a macro defined as anything else, only empty, or not defined, is left as written (a syntax error, as before)', async () => {
    const r = await run(['#define HD __host__ __device__', '#define DEV my_attr', '#define UNROLL', ...body].join('\n'));
    // DEV and UNROLL (a macro defined only empty, as an include guard is, is read on preprocessor lines alone) left.
    assert.ok(syntax(r).some((d) => d.startsWith('5:')) && syntax(r).some((d) => d.startsWith('10:')), syntax(r).join('\n'));
    assert.ok(!syntax(r).some((d) => d.startsWith('4:')), syntax(r).join('\n'));
    // A kernel macro whose `__global__` does not fit in its name is left as written too.
    const kernel = await run(['#define KERN __global__', 'KERN void k(float* y) { y[threadIdx.x] = 1.0f; }'].join('\n'));
    assert.ok(syntax(kernel).some((d) => d.startsWith('2:')), syntax(kernel).join('\n'));
  });
  it("CuTe's and CUTLASS's are read as their headers define them for device code, unless the text defines them; not on preprocessor lines", async () => {
    const lib = body.map((l) => l.replace(/^HD /, 'CUTLASS_HOST_DEVICE ').replace(/^DEV /, 'CUTE_DEVICE ').replace(/^  UNROLL$/, '  CUTE_UNROLL'));
    const r = await run(['#include <cute/tensor.hpp>', '#ifndef CUTE_UNROLL', '#endif', ...lib].join('\n'));
    assert.deepEqual(syntax(r), []);
    assert.equal(r.kernels[0].perUnit.flops, 256 * 9);
    const own = await run(['#define CUTE_DEVICE my_attr', ...lib].join('\n'));
    assert.ok(syntax(own).some((d) => d.startsWith('3:')), syntax(own).join('\n'));
  });
});

describe('CUDA: `typename` before a braced dependent type in an expression (CuTe)', () => {
  it('is read as the brace initialization it is, not a syntax error; a declaration keeps it', async () => {
    const src = [
      'template <class Traits>',
      '__global__ void k(float* y, const float* x, int n) {',
      '  auto s = make_layout(typename Traits::SmemLayoutX{}, typename Traits::template Tile<4>::Shape {});',
      '  typename Traits::Index i{};',
      '  i = blockIdx.x * blockDim.x + threadIdx.x;',
      '  for (int j = 0; j < 4; ++j) y[i * 4 + j] = 2.0f * x[i * 4 + j];',
      '}',
      'void go(float* y, const float* x, int n) { k<int><<<n / 1024, 256>>>(y, x, n); }',
    ].join('\n');
    const r = analyzeSource(src, await loadParsers(), { gpu: findGpu('h100-sxm')!, path: 'typename.cu', set: { n: 4096 } });
    assert.deepEqual(r.diagnostics.filter((d) => d.code === 'parseError' || d.code === 'syntaxErrorInKernel').map((d) => d.line), [3, 3]);
    const plain = analyzeSource(src.replace(', typename Traits::template Tile<4>::Shape {}', ''), await loadParsers(), { gpu: findGpu('h100-sxm')!, path: 'typename2.cu', set: { n: 4096 } });
    assert.deepEqual(plain.diagnostics.filter((d) => d.code === 'parseError'), []);
    // 4 iterations × 1 FLOP per thread, 256 threads.
    assert.equal(plain.kernels[0].perUnit.flops, 4 * 256);
  });
});

describe('CUDA: a registry built with X-macros, export macros', () => {
  it('a brace initializer that starts with a conditional is read empty; an export macro of attributes is blanked, a layout one left', async () => {
    const kernel = [
      '__global__ void k(float* y, const float* x, int n) {',
      '  int i = blockIdx.x * blockDim.x + threadIdx.x;',
      '  for (int j = 0; j < 4; ++j) y[i * 4 + j] = 2.0f * x[i * 4 + j];',
      '}',
      'void go(float* y, const float* x, int n) { k<<<n / 1024, 256>>>(y, x, n); }',
    ];
    const src = [
      '#if defined(_WIN32)',
      '#  define API __declspec(dllexport)',
      '#else',
      '#  define API __attribute__((visibility("default")))',
      '#endif',
      'struct E { int a; int b; };',
      '#define ROWS(X) X(1, 2) X(3, 4)',
      '#define ENTRY(a, b) {a, b},',
      'static const E kTable[] = {',
      '#if MODE == 0 || MODE == 90',
      '\tROWS(ENTRY)',
      '#endif',
      '};',
      'API int table_size(void);',
      ...kernel,
    ].join('\n');
    const p = await loadParsers();
    const r = analyzeSource(src, p, { gpu: findGpu('h100-sxm')!, path: 'registry.cu', set: { n: 4096 } });
    assert.deepEqual(r.diagnostics.filter((d) => d.code === 'parseError'), []);
    assert.equal(r.kernels[0].perUnit.flops, 4 * 256);
    assert.equal(r.kernels[0].line, 15);
    const packed = analyzeSource(src.replace('__attribute__((visibility("default")))', '__attribute__((packed))'), p, { gpu: findGpu('h100-sxm')!, path: 'registry-packed.cu', set: { n: 4096 } });
    assert.ok(packed.diagnostics.some((d) => d.code === 'parseError' && d.line === 14), JSON.stringify(packed.diagnostics));
  });
});

describe('CUDA: headers read in front, respelled once', () => {
  it('a header that leaves a comment open runs on into the file, as the compiler reads it; a closed one keeps its macros for the file', async () => {
    const p = await loadParsers();
    const own = ['#include "open.h"', '__global__ void k(float* y) { HD_UNROLL for (int j = 0; j < 4; ++j) y[threadIdx.x * 4 + j] = 1.0f; }', 'void go(float* y) { k<<<1, 256>>>(y); }'].join('\n');
    const run = (header: string, path: string) => analyzeSource(own, p, { gpu: findGpu('h100-sxm')!, path, related: { 'open.h': { path: 'open.h', text: header } } });
    const closed = run('#define HD_UNROLL _Pragma("unroll")\n', 'closed-header.cu');
    assert.deepEqual(closed.diagnostics.filter((d) => d.code === 'parseError'), []);
    assert.equal(closed.kernels[0].perUnit.storeBytes, 256 * 4 * 4);
    const open = run('#define HD_UNROLL _Pragma("unroll")\n/* never closed\n', 'open-header.cu');
    assert.equal(open.kernels.length, 0);
    assert.ok(open.diagnostics.some((d) => d.code === 'parseError' || d.code === 'kernelsNotFound'), JSON.stringify(open.diagnostics));
  });
});
