/**
 * Values the file suggests for binding (issue 16, part 3): every autotune
 * config's, the other launch sites' and the other call sites' of the host
 * code, per symbol with their source. Fixtures in test/fixtures/suggestions
 * state them beside the derivation; the checks here cover what an `expect:`
 * line cannot say (absence, order, the Suggestions class itself).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { MAX_SUGGESTIONS, Suggestions } from '../src/core/bindings';
import { analyzeSource } from '../src/core/analyze';
import { hostStats } from '../src/core/frontends/triton/host';
import { findGpu } from '../src/core/gpus/catalog';
import { analyzeFile, assertSane, check, fixtures, loadParsers } from './check';

const DIR = path.join(__dirname, 'fixtures', 'suggestions');

describe('suggested binding values', () => {
  for (const f of fixtures('suggestions', ['.py', '.cu'])) {
    it(path.basename(f), async () => {
      assertSane(await check(f));
    });
  }

  it('Triton: a tensor argument and a call site whose shapes cannot be read suggest nothing', async () => {
    const r = await analyzeFile(path.join(DIR, 'configs_and_sites.py'));
    const k = r.kernels.find((x) => x.name === 'scale_kernel')!;
    assert.deepEqual(k.suggestions?.M?.map((s) => s.value), [8192]);
    assert.deepEqual(k.suggestions?.N?.map((s) => s.value), [512]);
    assert.equal(k.suggestions?.x_ptr, undefined);
    assert.equal(k.suggestions?.y_ptr, undefined);
  });

  it('CUDA: under another caller, only what the caller changes (the launcher fixes blockDim.x)', async () => {
    const r = await analyzeFile(path.join(DIR, 'launch_sites.cu'));
    const k = r.kernels[0];
    assert.deepEqual(k.suggestions?.['blockDim.x']?.map((s) => [s.value, s.source]), [[128, 'launch']]);
    // A y or z of 1 is not suggested: a one-dimensional launch says it without saying it.
    assert.equal(k.suggestions?.['gridDim.y'], undefined);
  });

  it('Triton: every other row of a benchmark is suggested, with its row (the largest binds)', async () => {
    const r = await analyzeFile(path.join(__dirname, 'fixtures', 'triton', 'host_sizes.py'));
    const k = r.kernels.find((x) => x.name === 'row_scale_kernel')!;
    assert.equal(k.bindings.n_cols, 16384);
    assert.deepEqual(k.suggestions?.n_cols?.map((s) => s.value), [1024, 2048, 4096, 8192]);
    assert.match(k.suggestions!.n_cols[0].detail, /benchmark x_vals\[0\] = 1024 \(row 1 of 5, line \d+\)$/);
  });

  it('Triton: the other call sites are read once per choice, whatever parameter or reading asks', async () => {
    const src = [
      'import triton',
      'import triton.language as tl',
      '',
      '@triton.jit',
      'def axpy_kernel(x_ptr, y_ptr, M, N, K, BLOCK: tl.constexpr):',
      '    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)',
      '    mask = offs < M * N',
      '    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * K, mask=mask)',
      '',
      'def launch(x, y, M, N, K):',
      '    axpy_kernel[(triton.cdiv(M * N, 256),)](x, y, M, N, K, BLOCK=256)',
      '',
      'def layer(x, y, rows, cols, k):',
      '    launch(x, y, rows, cols, k)',
      '',
      'def model(x, y):',
      '    layer(x, y, 64, 128, 2)',
      '    layer(x, y, 256, 512, 3)',
      '    layer(x, y, 1024, 2048, 4)',
    ].join('\n');
    hostStats.reads = 0;
    const r = analyzeSource(src, await loadParsers(), { gpu: findGpu('h100-sxm')!, path: 'chain.py' });
    const k = r.kernels[0];
    assert.deepEqual([k.bindings.M, k.bindings.N, k.bindings.K], [64, 128, 2]);
    assert.deepEqual(['M', 'N', 'K'].map((p) => k.suggestions?.[p]?.map((s) => s.value)), [[256, 1024], [512, 2048], [3, 4]]);
    // The default reading reads each parameter of the chain once: x and y of model, layer and launch (6), M, N, K of
    // layer and launch (6). The other values of M, N and K are read under the two other call sites of `layer`: those
    // three parameters of layer and launch again under each (2 × 6). Nothing else is read again: not the default
    // values when the alternatives start from them, nor M and N for the grid under a site already tried.
    assert.equal(hostStats.reads, 6 + 6 + 2 * 6);
  });

  it('the values do not change the counts: a file with one launch site counts as before', async () => {
    const r = await analyzeFile(path.join(DIR, 'configs_and_sites.py'));
    const k = r.kernels.find((x) => x.name === 'bias_kernel')!;
    // n = 1000, BLOCK = 256 from the first site: 256 loads and stores of 4 B, 256 adds.
    assert.equal(k.perUnit.flops, 256);
    assert.equal(k.perUnit.loadBytes, 1024);
  });

  describe('the Suggestions class', () => {
    it('keeps one entry per value: a repeat from the same source counts in `more`, from another source is dropped', () => {
      const s = new Suggestions();
      s.add('K', 4096, 'host', 'host: a at line 3');
      s.add('K', 4096, 'host', 'host: b at line 4');
      s.add('K', 4096, 'launch', 'launch at line 9');
      s.add('K', 512, 'launch', 'launch at line 9');
      assert.deepEqual(s.toRecord(), {
        K: [
          { value: 512, source: 'launch', detail: 'launch at line 9' },
          { value: 4096, source: 'host', detail: 'host: a at line 3', more: 1 },
        ],
      });
    });

    it('orders by source (launch, host, autotune: as the bindings rank them), stable within a source; names sorted', () => {
      const s = new Suggestions();
      s.add('B', 1, 'host', 'h');
      s.add('A', 3, 'host', 'h1');
      s.add('A', 2, 'autotune', 'a');
      s.add('A', 4, 'host', 'h2');
      s.add('A', 5, 'launch', 'l');
      const r = s.toRecord()!;
      assert.deepEqual(Object.keys(r), ['A', 'B']);
      assert.deepEqual(r.A.map((x) => x.value), [5, 3, 4, 2]);
    });

    it('drops non-finite numbers and stops at MAX_SUGGESTIONS values per symbol', () => {
      const s = new Suggestions();
      s.add('K', Number.NaN, 'host', 'x');
      s.add('K', Infinity, 'host', 'x');
      assert.equal(s.size, 0);
      assert.equal(s.toRecord(), undefined);
      for (let i = 0; i < MAX_SUGGESTIONS + 5; i++) s.add('K', i, 'host', `row ${i}`);
      assert.equal(s.toRecord()!.K.length, MAX_SUGGESTIONS);
    });
  });
});
