import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeSource } from '../src/core/analyze';
import { findGpu } from '../src/core/gpus/catalog';
import { diffPipelines } from '../src/core/report/diff';
import { pipelineLens, pipelineRows, pipelineSummary } from '../src/core/report/pipelines';
import type { MultiGpuReport } from '../src/core/report/render';
import { loadParsers } from './check';

const gpu = findGpu('h100-sxm')!;
const FIXTURE = path.join(__dirname, 'fixtures', 'triton', 'pipeline_forward.py');

describe('pipelines', () => {
  it('the lens sums the launches, says how much is memory-bound and what fusing saves', async () => {
    const p = await loadParsers();
    const r = analyzeSource(fs.readFileSync(FIXTURE, 'utf8'), p, { gpu, path: FIXTURE });
    const pl = r.pipelines!.find((x) => x.name === 'forward')!;
    assert.equal(pipelineLens(pl, gpu.name), 'pipeline: 3 launches · T ≥ 54.4 µs on H100 SXM · 100 % of it memory-bound · fusing 1 pair saves up to 24.4 %');
  });

  it('a host loop multiplies its launches; a fusion inside it saves once per trip', async () => {
    const p = await loadParsers();
    const src = fs.readFileSync(FIXTURE, 'utf8').replace('    h = rmsnorm(x, w_norm)\n    p = matmul(h, w_proj)\n', '    for _ in range(4):\n        h = rmsnorm(x, w_norm)\n        p = matmul(h, w_proj)\n');
    const r = analyzeSource(src, p, { gpu, path: 'loop.py' });
    const pl = r.pipelines!.find((x) => x.name === 'forward')!;
    assert.deepEqual(pl.launches.map((l) => l.repeat), [4, 4, 1]);
    assert.equal(pl.total.launches, 9);
    assert.equal(pl.total.flops, 4 * 16785408 + 4 * 8589934592 + 4194304);
    assert.equal(pl.fusion[0].bytesSaved, 4 * 33554432);
    // matmul (×4) and add (×1) run a different number of times: not a fusion pair.
    assert.equal(pl.fusion.length, 1);
  });

  it('a launch whose kernel has no numbers is listed with the reason, and the totals are lower bounds', async () => {
    const p = await loadParsers();
    const src = fs.readFileSync(FIXTURE, 'utf8').replace('add_kernel[(triton.cdiv(n, 1024),)](x, p, out, n, BLOCK=1024)', 'add_kernel[(triton.cdiv(n, 1024),)](x, p, out, n, BLOCK=unknown_block())');
    const r = analyzeSource(src, p, { gpu, path: 'unknown.py' });
    const pl = r.pipelines!.find((x) => x.name === 'forward')!;
    assert.equal(pl.launches.length, 3);
    assert.match(pl.launches[2].unresolved ?? '', /BLOCK/);
    assert.equal(pl.total.resolved, 2);
    assert.equal(pl.total.complete, false);
    assert.ok(pl.notes.some((n) => /lower bounds/.test(n)));
  });

  it('with no launch resolved, the totals are "?" — never a free pipeline of 0 ns', async () => {
    const p = await loadParsers();
    // The fixture's host sizes made unknown: no launch has numbers.
    const src = fs.readFileSync(FIXTURE, 'utf8').replace(/torch\.randn\(\([^)]*\)/g, 'torch.randn(unknown_shape()');
    const r = analyzeSource(src, p, { gpu, path: 'sizeless.py' });
    const pl = r.pipelines!.find((x) => x.name === 'forward' || x.name === 'main');
    assert.ok(pl, `pipelines: ${r.pipelines?.map((x) => x.name)}`);
    if (pl.total.resolved !== 0) return assert.fail(`expected no resolved launch: ${JSON.stringify(pl.launches.map((l) => l.unresolved))}`);
    assert.match(pipelineSummary(pl), /none with numbers yet/);
    assert.deepEqual(pipelineRows(pl).at(-1)!.slice(4, 8), ['?', '?', '?', 'no launch has numbers']);
    assert.match(pipelineLens(pl, gpu.name), /no launch has numbers/);
  });

  it('diff reports a pipeline whose total time bound changed', async () => {
    const p = await loadParsers();
    const a = fs.readFileSync(FIXTURE, 'utf8');
    const b = a.replace('torch.randn((4096, 1024), device="cuda", dtype=torch.float32)', 'torch.randn((8192, 1024), device="cuda", dtype=torch.float32)');
    const rep = (src: string): MultiGpuReport => ({ schemaVersion: 1, gpu: { id: gpu.id, name: gpu.name, memoryBandwidth: gpu.memoryBandwidth, l2Bandwidth: gpu.l2Bandwidth, peaks: gpu.peaks }, files: [analyzeSource(src, p, { gpu, path: 'f.py' })] }) as MultiGpuReport;
    const d = diffPipelines(rep(a), rep(b), [{ status: 'modified', oldPath: 'f.py', newPath: 'f.py' }]);
    assert.equal(d.length, 1);
    assert.equal(d[0].change, 'changed');
    assert.ok(d[0].after! > d[0].before! * 1.5, `${d[0].before} → ${d[0].after}`);
    const same = diffPipelines(rep(a), rep(a), [{ status: 'modified', oldPath: 'f.py', newPath: 'f.py' }]);
    assert.equal(same[0].change, 'unchanged');
  });
});
