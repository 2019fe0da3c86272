/**
 * Bad input never throws, hangs, or produces NaN/negative counts: broken fixtures
 * (each states the diagnostic it expects) and generated inputs.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { analyzeSource, progressOf } from '../src/core/analyze';
import { findGpu } from '../src/core/gpus/catalog';
import { assertSane, check, fixtures, loadParsers } from './check';

const gpu = findGpu('h100-sxm')!;

describe('Triton bad input', () => {
  for (const f of fixtures(path.join('triton', 'broken'), ['.py'])) {
    it(`broken/${path.basename(f)}`, async () => {
      assertSane(await check(f));
    });
  }

  it('binary junk gives a diagnostic, not an exception', async () => {
    const p = await loadParsers();
    let junk = '';
    for (let i = 0; i < 4000; i++) junk += String.fromCharCode((i * 7919) % 256);
    const r = analyzeSource(junk, p, { gpu, path: 'junk.py' });
    assert.equal(r.kernels.length, 0);
    assert.ok(r.diagnostics.some((d) => d.code === 'binaryInput'));
  });

  it('non-UTF-8 bytes in a comment (decoded as U+FFFD) do not stop the analysis', async () => {
    const p = await loadParsers();
    const src = `# caf\uFFFD \uFFFD\uFFFD\nimport triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, B: tl.constexpr = 128):\n    o = tl.arange(0, B)\n    tl.store(x_ptr + o, tl.load(x_ptr + o) * 3.0)\n`;
    const r = analyzeSource(src, p, { gpu, path: 'latin1.py' });
    assert.equal(r.kernels.length, 1);
    assert.equal(r.kernels[0].perUnit.flops, 128);
    assert.equal(r.kernels[0].perUnit.loadBytes, 512);
  });

  it('a 20,000-line file returns within its budget with sane numbers', async () => {
    const p = await loadParsers();
    const parts = ['import triton', 'import triton.language as tl', ''];
    let i = 0;
    while (parts.length < 20000) {
      parts.push('@triton.jit', `def k${i}(x_ptr, y_ptr, n, BLOCK: tl.constexpr = 256):`, '    pid = tl.program_id(0)', '    offs = pid * BLOCK + tl.arange(0, BLOCK)', '    x = tl.load(x_ptr + offs, mask=offs < n)', '    tl.store(y_ptr + offs, x * x + 1.0, mask=offs < n)', '');
      i++;
    }
    const t0 = Date.now();
    const r = analyzeSource(parts.join('\n'), p, { gpu, path: 'big.py', budgetMs: 2000 });
    const ms = Date.now() - t0;
    assert.ok(ms < 10000, `took ${ms} ms`);
    assert.ok(r.kernels.length > 0);
    assertSane(r);
    for (const k of r.kernels) assert.equal(k.perUnit.flops, 512);
  });

  it('every prefix of a kernel (typing it character by character) analyses without throwing', async () => {
    const p = await loadParsers();
    const src = `import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr = 64, BN: tl.constexpr = 64, BK: tl.constexpr = 32):\n    pid = tl.program_id(0)\n    rm = pid * BM + tl.arange(0, BM)\n    rn = tl.arange(0, BN)\n    rk = tl.arange(0, BK)\n    acc = tl.zeros((BM, BN), dtype=tl.float32)\n    for k in range(0, tl.cdiv(K, BK)):\n        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])\n        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])\n        acc += tl.dot(a, b)\n    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)\n`;
    for (let n = 0; n <= src.length; n += 3) {
      const r = analyzeSource(src.slice(0, n), p, { gpu, path: 'typing.py', set: { K: 1024 } });
      assertSane(r);
    }
  });

  it('sizes like 2**999 and loops with 10^18 trips give finite numbers or unknowns', async () => {
    const p = await loadParsers();
    const src = `import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, B: tl.constexpr = 2**999):\n    o = tl.arange(0, B)\n    for i in range(0, 1000000000000000000):\n        tl.store(x_ptr + o, tl.load(x_ptr + o) + 1.0)\n`;
    const r = analyzeSource(src, p, { gpu, path: 'huge.py' });
    assertSane(r);
  });

  it('deeply nested blocks do not overflow the stack', async () => {
    const p = await loadParsers();
    let body = '';
    for (let d = 0; d < 300; d++) body += ' '.repeat(4 * (d + 1)) + `if B > ${d}:\n`;
    body += ' '.repeat(4 * 301) + 'tl.store(x_ptr + tl.arange(0, B), 1.0)\n';
    const src = `import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr, B: tl.constexpr = 512):\n${body}`;
    const r = analyzeSource(src, p, { gpu, path: 'deep.py' });
    assertSane(r);
  });
});

describe('Triton time slices', () => {
  it('a large file analysed in slices: partial results, then the rest from the cache', async function () {
    this.timeout(120000);
    const { tritonFile } = await import('./bench/generate');
    const { clearCaches } = await import('../src/core/analyze');
    const p = await loadParsers();
    const src = tritonFile(10000);
    clearCaches();
    const whole = analyzeSource(src, p, { gpu, path: 'whole.py' }).kernels.length;
    clearCaches();
    const first = analyzeSource(src, p, { gpu, path: 'slices.py', sliceMs: 5 });
    assert.ok(first.partial, 'the first slice is partial');
    assert.ok(first.diagnostics.some((d) => d.code === 'partial' || d.code === 'scanPending'));
    // Every call makes progress (the file's statements, then its kernels, then the pipelines), so the calls
    // always finish, however loaded the machine; each partial report with kernels shows them.
    let r = first;
    let last = progressOf(first.partial!);
    let calls = 1;
    while (r.partial && calls < 20000) {
      r = analyzeSource(src, p, { gpu, path: 'slices.py', sliceMs: 20 });
      calls++;
      if (r.partial) {
        assert.ok(progressOf(r.partial) > last, `call ${calls} made progress`);
        last = progressOf(r.partial);
      }
    }
    assert.equal(r.partial, undefined, 'slices finish');
    assert.equal(r.kernels.length, whole);
    assertSane(r);
  });
});

describe('Triton: a statement the grammar runs on past its line end', () => {
  const kernel = (body: string[]) =>
    [
      'import triton',
      'import triton.language as tl',
      '@triton.jit',
      'def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):',
      '    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)',
      '    x = tl.load(x_ptr + offs, mask=offs < n)',
      ...body.map((l) => `    ${l}`),
      'def go(x, y, n):',
      '    k[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)',
    ].join('\n');
  const run = async (src: string) => analyzeSource(src, await loadParsers(), { gpu: findGpu('h100-sxm')!, path: 'typing.py', set: { n: 4096 } });

  it('half-typed (`y = x * 2.0 +` above a store): a syntax error at that line, the kernel incomplete, never status ok', async () => {
    const r = await run(kernel(['y = x * 2.0 +', 'tl.store(y_ptr + offs, x * 3.0, mask=offs < n)']));
    assert.ok(r.diagnostics.some((d) => d.code === 'parseError' && d.line === 7 && /ends its line but not its statement/.test(d.message)), JSON.stringify(r.diagnostics));
    const k = r.kernels[0];
    assert.equal(k.complete, false);
    assert.deepEqual(k.incompleteReasons, ['syntaxErrorInKernel']);
  });

  it('a half-typed line is said where it is after edits elsewhere: lines added above move it, an edit below keeps it', async () => {
    const src = kernel(['y = x * 2.0 +', 'tl.store(y_ptr + offs, x * 3.0, mask=offs < n)']);
    const at = async (text: string) => (await run(text)).diagnostics.filter((d) => /ends its line but not its statement/.test(d.message)).map((d) => d.line);
    assert.deepEqual(await at(src), [7]);
    assert.deepEqual(await at(`# a comment\n# another\n${src}`), [9]);
    assert.deepEqual(await at(`# a comment\n# another\n${src}\n# below`), [9]);
    assert.deepEqual(await at(src), [7]);
  });

  it('brackets, a backslash, strings and comments continue a statement as Python does: no error', async () => {
    const { unendedRows } = await import('../src/core/frontends/triton/continuation');
    assert.deepEqual(unendedRows('y = f(a,\n      b)  # (\n'), [1]);
    assert.deepEqual(unendedRows('y = a + \\\n    b\n'), [1]);
    assert.deepEqual(unendedRows('s = """a\nb""" + \'x\'\n'), [1]);
    assert.deepEqual(unendedRows("s = 'open\ny = 1\n"), [0, 1]);
    assert.deepEqual(unendedRows('y = a +\nb\n'), [0, 1]);
    const r = await run(kernel(['y = x * 2.0 + \\', '    x * 3.0', 's = tl.sum(x,  # (', '           axis=0)', 'tl.store(y_ptr + offs, y + s, mask=offs < n)']));
    assert.ok(!r.diagnostics.some((d) => d.code === 'parseError'), JSON.stringify(r.diagnostics));
    assert.equal(r.kernels[0].complete, true);
  });
});
