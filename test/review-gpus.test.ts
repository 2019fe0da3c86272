/**
 * GPUs for review: `roofline-lens gpus` (every number with its source),
 * `--gpu-file` (custom GPUs, validated, exit 2 with the field named), the
 * catalogue entries added for reviews (units, ridge arithmetic), and the
 * property that no point a user can produce lies above the roof.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../src/cli/main';
import { exact, GPU_FILE_MAX_BYTES } from '../src/cli/gpus';
import { analyzeSource } from '../src/core/analyze';
import { findGpu, GPU_CATALOG } from '../src/core/gpus/catalog';
import type { GpuSpec } from '../src/core/gpus/types';
import { roofline } from '../src/core/model/roofline';
import { loadParsers } from './check';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, (s) => (out += s), (s) => (err += s));
  return { code, out, err };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'roofline-gpus-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function gpuFile(name: string, content: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

const MY_GPU = {
  id: 'lab-card',
  name: 'Lab Card',
  vendor: 'custom',
  memoryBandwidth: 1e12,
  peaks: { tensor: { fp16: 100e12 }, vector: { fp32: 20e12 } },
  sources: { memoryBandwidth: 'measured with our STREAM run' },
};

const SMALL = path.join(__dirname, 'fixtures', 'review', 'tiled_matmul_small.py');

/** A small deterministic PRNG (mulberry32), so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('GPUs for review', () => {
  describe('roofline-lens gpus', () => {
    it('text lists every number of every GPU with its source', async () => {
      const { code, out } = await run(['gpus']);
      assert.equal(code, 0);
      for (const g of GPU_CATALOG.gpus) {
        const block = out.split('\n\n').find((b) => b.startsWith(`${g.id}  `));
        assert.ok(block, `block for ${g.id}`);
        assert.ok(block.includes(`DRAM    ${exact(g.memoryBandwidth, 'B/s')}\n      source: ${g.sources.memoryBandwidth}`), `${g.id} DRAM and source`);
        if (g.l2Bandwidth !== null) assert.ok(block.includes(`L2      ${exact(g.l2Bandwidth, 'B/s')}\n      source: ${g.sources.l2Bandwidth}`), `${g.id} L2`);
        for (const [kind, peaks] of [['tensor', g.peaks.tensor], ['vector', g.peaks.vector]] as const) {
          for (const [d, v] of Object.entries(peaks)) assert.ok(block.includes(`${d} ${exact(v as number, d.startsWith('int') ? 'OP/s' : 'FLOP/s')}`), `${g.id} ${kind} ${d}`);
          if (Object.keys(peaks).length) assert.ok(block.includes(`source: ${g.sources[`peaks.${kind}`]}`), `${g.id} peaks.${kind} source`);
        }
        for (const n of g.notes ?? []) assert.ok(block.includes(`note    ${n}`), `${g.id} note`);
      }
      assert.match(out, /h100-sxm .*\n(.*\n)*  tensor  fp16 989\.4 TFLOP\/s, bf16 989\.4 TFLOP\/s, tf32 494\.7 TFLOP\/s, fp8 1978\.9 TFLOP\/s, int8 1978\.9 TOP\/s/);
      assert.match(out, /  ridge   fp16 tensor 295, .*fp32 vector 20, /);
    });

    it('JSON is the catalogue; --gpu-file adds customGpus', async () => {
      const plain = JSON.parse((await run(['gpus', '--format', 'json'])).out);
      assert.deepEqual(plain, JSON.parse(JSON.stringify(GPU_CATALOG)));
      const withCustom = JSON.parse((await run(['gpus', '--json', '--gpu-file', gpuFile('one.json', [MY_GPU])])).out);
      assert.equal(withCustom.customGpus[0].id, 'lab-card');
      assert.equal(withCustom.gpus.length, GPU_CATALOG.gpus.length);
      const text = (await run(['gpus', '--gpu-file', gpuFile('one-text.json', { gpus: [MY_GPU] })])).out;
      assert.match(text, /lab-card  Lab Card \(custom, custom\) \[--gpu-file\]\n  DRAM    1 TB\/s\n      source: measured with our STREAM run/);
    });
  });

  describe('--gpu-file', () => {
    it('custom GPUs work with analyze, next to catalogue GPUs', async () => {
      const file = gpuFile('lab.json', { gpus: [MY_GPU] });
      const doc = JSON.parse((await run(['analyze', SMALL, '--format', 'json', '--gpu-file', file, '--gpu', 'lab-card,h100-sxm'])).out);
      assert.equal(doc.gpu.id, 'lab-card');
      const k = doc.files[0].kernels[0];
      // Lab Card: fp16 tensor 100 TFLOP/s, 1 TB/s: ridge 100; compulsory AI 1365 > 100, no L2 term → compute-bound.
      assert.equal(k.byGpu['lab-card'].ridgePoint, 100);
      assert.equal(k.byGpu['lab-card'].bound, 'compute');
      assert.equal(k.byGpu['h100-sxm'].bound, 'memory');
    });

    it('a TPU v5e as a cross-check (vendor google, bf16 matrix peak only)', async () => {
      // Google Cloud TPU v5e: 197 TFLOP/s bf16, 819 GB/s HBM → ridge 197e12 / 819e9 = 240.5 FLOP/B.
      const tpu = { id: 'tpu-v5e', name: 'TPU v5e', vendor: 'google', memoryBandwidth: 819e9, peaks: { tensor: { bf16: 197e12 } } };
      const doc = JSON.parse((await run(['analyze', SMALL, '--format', 'json', '--gpu-file', gpuFile('tpu.json', [tpu]), '--gpu', 'tpu-v5e'])).out);
      const k = doc.files[0].kernels[0];
      assert.equal(doc.gpu.id, 'tpu-v5e');
      assert.deepEqual(k.peak, { kind: 'tensor', dtype: 'bf16', flops: 197e12 });
      assert.ok(Math.abs(k.ridgePoint - 240.537) < 0.001);
      // Compulsory AI 1365.33 > 240.5 and no L2 term → compute-bound at the bf16 peak.
      assert.equal(k.bound, 'compute');
      assert.equal(k.attainableFlops, 197e12);
    });

    it('bad files exit 2 with the file and the field named', async () => {
      const big = path.join(dir, 'big.json');
      fs.writeFileSync(big, '[' + ' '.repeat(GPU_FILE_MAX_BYTES) + ']');
      const cases: [string, RegExp][] = [
        [path.join(dir, 'missing.json'), /--gpu-file .*missing\.json: cannot read it \(ENOENT\)/],
        [dir, /not a file/],
        [big, /more than the 1048576 bytes allowed/],
        [gpuFile('bad.json', '{ "gpus": [ '), /not valid JSON/],
        [gpuFile('shape.json', { id: 'x' }), /expected a JSON array of GPUs or an object \{"gpus": \[...\]\}/],
        [gpuFile('unit.json', [{ ...MY_GPU, memoryBandwidth: '1 TB/s' }]), /gpus\[0\]\.memoryBandwidth: expected bytes\/s as a number > 0, got "1 TB\/s"/],
        [gpuFile('clash.json', [{ ...MY_GPU, id: 'h100-sxm' }]), /gpus\[0\]\.id: "h100-sxm" is a catalogue GPU/],
        [gpuFile('twice.json', [MY_GPU, MY_GPU]), /gpus\[1\]\.id: "lab-card" is defined twice/],
      ];
      for (const [file, re] of cases) {
        for (const args of [['gpus', '--gpu-file', file], ['analyze', SMALL, '--gpu-file', file]]) {
          const r = await run(args);
          assert.equal(r.code, 2, `${args.join(' ')}`);
          assert.match(r.err, re);
          assert.doesNotMatch(r.err, /usage:/, 'a data error, not a usage error');
        }
      }
      const unknown = await run(['analyze', SMALL, '--gpu', 'lab-card']);
      assert.equal(unknown.code, 2);
      assert.match(unknown.err, /unknown GPU 'lab-card'; known: h100-sxm/);
    });
  });

  describe('catalogue entries added for reviews', () => {
    it('RTX 4080 and A40: units and ridge arithmetic', () => {
      const r = findGpu('4080')!;
      assert.equal(r.id, 'rtx-4080');
      assert.equal(r.memoryBandwidth, 716.8e9);
      assert.equal(r.peaks.tensor.fp16, 97.5e12, 'FP32-accumulate figure');
      // 97.5e12 / 716.8e9 = 136.0; fp32 48.7e12 / 716.8e9 = 67.9.
      assert.ok(Math.abs(r.peaks.tensor.fp16! / r.memoryBandwidth - 136.02) < 0.01);
      assert.ok(Math.abs(r.peaks.vector.fp32! / r.memoryBandwidth - 67.94) < 0.01);
      const a = findGpu('nvidia a40')!;
      assert.equal(a.id, 'a40');
      // 149.7e12 / 696e9 = 215.1; fp32 37.4e12 / 696e9 = 53.7.
      assert.ok(Math.abs(a.peaks.tensor.bf16! / a.memoryBandwidth - 215.09) < 0.01);
      assert.ok(Math.abs(a.peaks.vector.fp32! / a.memoryBandwidth - 53.74) < 0.01);
      assert.equal(a.peaks.tensor.fp8, undefined, 'Ampere has no fp8 tensor cores');
      assert.ok(GPU_CATALOG.gpus.length >= 20);
    });
  });

  describe('nothing lies above the roof', () => {
    it('roofline(): for random peaks, bandwidths and intensities, attainable ≤ peak, ≤ DRAM bw × AI, ≤ L2 bw × tile AI', () => {
      const rand = prng(7);
      const logUniform = (lo: number, hi: number): number => Math.exp(Math.log(lo) + rand() * (Math.log(hi) - Math.log(lo)));
      for (let i = 0; i < 20000; i++) {
        const peak = logUniform(1e9, 1e17);
        const memoryBandwidth = logUniform(1e9, 1e14);
        const l2Bandwidth = rand() < 0.5 ? null : memoryBandwidth * logUniform(1, 20);
        const pick = (): number | null => (rand() < 0.05 ? null : rand() < 0.05 ? Infinity : rand() < 0.05 ? 0 : logUniform(1e-4, 1e5));
        const tileIntensity = pick();
        const compulsoryIntensity = rand() < 0.4 ? null : pick();
        const r = roofline({ peak, memoryBandwidth, l2Bandwidth, tileIntensity, compulsoryIntensity });
        const ctx = JSON.stringify({ peak, memoryBandwidth, l2Bandwidth, tileIntensity, compulsoryIntensity, r });
        assert.equal(r.ridgePoint, peak / memoryBandwidth, ctx);
        const dramAi = compulsoryIntensity ?? tileIntensity;
        if (dramAi === null) {
          assert.equal(r.attainable, null, ctx);
          assert.equal(r.bound, 'unknown', ctx);
          continue;
        }
        assert.ok(r.attainable !== null && r.attainable >= 0, ctx);
        assert.ok(r.attainable <= peak, ctx);
        if (Number.isFinite(dramAi)) assert.ok(r.attainable <= memoryBandwidth * dramAi, ctx);
        if (l2Bandwidth !== null && tileIntensity !== null && Number.isFinite(tileIntensity)) assert.ok(r.attainable <= l2Bandwidth * tileIntensity, ctx);
        assert.equal(r.bound === 'compute', r.attainable === peak, ctx);
        if (r.bound === 'memory' && r.boundLevel === 'dram') assert.ok(dramAi < r.ridgePoint, ctx);
      }
    });

    it('the CLI analysis: random tile and problem sizes on every catalogue GPU stay under every roof', async () => {
      const parsers = await loadParsers();
      const source = fs.readFileSync(SMALL, 'utf8');
      const rand = prng(11);
      const pow2 = (lo: number, hi: number): number => 2 ** (lo + Math.floor(rand() * (hi - lo + 1)));
      const gpus: GpuSpec[] = [...GPU_CATALOG.gpus];
      for (let i = 0; i < 60; i++) {
        const set = { BLOCK_M: pow2(4, 8), BLOCK_N: pow2(4, 8), BLOCK_K: pow2(4, 7), M: pow2(6, 14), N: pow2(6, 14), K: pow2(6, 14) };
        const gpu = gpus[i % gpus.length];
        const k = analyzeSource(source, parsers, { gpu, path: SMALL, set }).kernels[0];
        const ctx = `${gpu.id} ${JSON.stringify(set)}`;
        assert.ok(k && k.attainableFlops !== null && k.arithmeticIntensity !== null, ctx);
        assert.ok(k.attainableFlops <= k.peak.flops, ctx);
        const dramAi = k.compulsoryIntensity ?? k.arithmeticIntensity;
        assert.ok(k.attainableFlops <= gpu.memoryBandwidth * dramAi * (1 + 1e-12), ctx);
        if (gpu.l2Bandwidth !== null) assert.ok(k.attainableFlops <= gpu.l2Bandwidth * k.arithmeticIntensity * (1 + 1e-12), ctx);
        assert.ok(Math.abs(k.ridgePoint - k.peak.flops / gpu.memoryBandwidth) <= 1e-12 * k.ridgePoint, ctx);
        // Tile AI of a matmul tile: 2·BM·BN·BK·trips ÷ (2·(BM+BN)·BK·trips + 2·BM·BN) ≤ BM·BN/(BM+BN).
        assert.ok(k.arithmeticIntensity <= (set.BLOCK_M * set.BLOCK_N) / (set.BLOCK_M + set.BLOCK_N) + 1e-9, ctx);
      }
    });
  });
});
