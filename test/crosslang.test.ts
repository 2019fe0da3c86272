/**
 * Two routes that must agree: the same tiled matmul (64×64 output tile, K-step
 * 8, fp32, M = N = K = 1024) written in Triton, CUDA and WGSL gives the same
 * per-unit FLOPs and bytes, the same tile intensity and the same compulsory
 * intensity — and each matches its hand derivation (checked by check()).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { check } from './check';

const DIR = path.join(__dirname, 'fixtures', 'crosslang');

describe('cross-language twins', () => {
  it('Triton, CUDA and WGSL tiled matmuls agree', async () => {
    const reports = await Promise.all(['matmul.py', 'matmul.cu', 'matmul.wgsl'].map((f) => check(path.join(DIR, f))));
    const ks = reports.map((r) => r.kernels[0]);
    for (const k of ks.slice(1)) {
      assert.equal(k.perUnit.flops, ks[0].perUnit.flops, `${k.name} FLOPs`);
      assert.equal(k.perUnit.loadBytes, ks[0].perUnit.loadBytes, `${k.name} loads`);
      assert.equal(k.perUnit.storeBytes, ks[0].perUnit.storeBytes, `${k.name} stores`);
      assert.ok(Math.abs(k.arithmeticIntensity! - ks[0].arithmeticIntensity!) < 1e-9, `${k.name} tile AI`);
      assert.ok(Math.abs(k.compulsoryIntensity! - ks[0].compulsoryIntensity!) < 1e-9, `${k.name} compulsory AI`);
      assert.equal(k.units, ks[0].units, `${k.name} units`);
      assert.equal(k.computeDtype, ks[0].computeDtype);
    }
    assert.deepEqual(ks.map((k) => k.unit), ['program', 'block', 'workgroup']);
  });
});
