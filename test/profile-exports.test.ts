/**
 * Profiler exports in the shapes the tools write them (issue 15): Hopper and
 * Blackwell tensor counters, Ampere sparsity, the roofline sections' own
 * metrics, Proton launches named by launch_metadata, several GPUs in one
 * profile. Every fixture is built from metric names NVIDIA documents
 * (Nsight Compute's section files) and from Proton's hatchet dump; the
 * tool version whose shape each follows is named in its test and derived in
 * test/fixtures/profiles/README.md.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeSource, type BindingValue } from '../src/core/analyze';
import { sourceRank } from '../src/core/bindings';
import { findGpu, GPU_CATALOG } from '../src/core/gpus/catalog';
import type { Parsers } from '../src/core/parsers';
import { classify, matchKernels, measuredTotals, parseNcuCsv, parseProfile, parseProtonJson, type ProfileImport, type RoofEstimate } from '../src/core/profile';
import { attachProfile } from '../src/core/profile/attach';
import { estimateForLaunch } from '../src/core/profile/bindings';
import { identifyDevice } from '../src/core/profile/gpu';
import { splitLaunchName } from '../src/core/profile/names';
import { classifyOpsMetric, sumTensorOps, type OpsPath } from '../src/core/profile/tensor';
import { chartKernels, rooflineSpec } from '../src/core/report/chart';
import type { FileReport, KernelReport } from '../src/core/report/types';
import { panelTable } from '../src/extension/panelModel';
import { measuredHover } from '../src/extension/profilePresent';
import { loadParsers } from './check';

const DIR = path.join(__dirname, 'fixtures', 'profiles');
const read = (f: string) => fs.readFileSync(path.join(DIR, f), 'utf8');
const codes = (r: { diagnostics: { code: string }[] }) => r.diagnostics.map((d) => d.code);
const H100 = findGpu('h100-sxm')!;
const A100 = findGpu('a100-sxm-80gb')!;

function near(actual: number | undefined | null, expected: number, rel = 1e-9): void {
  assert.ok(actual !== undefined && actual !== null, `expected ${expected}, got ${actual}`);
  assert.ok(Math.abs(actual - expected) <= rel * Math.abs(expected), `expected ${expected}, got ${actual}`);
}

/** H100 SXM roofs for a bf16 tensor-core kernel (peak 989.4 TFLOP/s, 3.35 TB/s: ridge 295 FLOP/B). */
const H100_BF16: RoofEstimate = { attainableFlops: null, arithmeticIntensity: null, compulsoryIntensity: null, peakFlops: 989.4e12, memoryBandwidth: 3.35e12, ridgePoint: 989.4e12 / 3.35e12 };

function launch(r: ProfileImport, name: string, i = 0) {
  const l = r.launches.filter((x) => x.baseName === name)[i];
  assert.ok(l, `no launch ${name}#${i} in ${r.launches.map((x) => x.name).join(', ')}`);
  return l;
}

describe('profile exports as the tools write them (issue 15)', () => {
  describe('Hopper tensor counters (ncu 2025.x raw page, H100 SXM, CC 9.0)', () => {
    it('a bf16 GEMM with only the _op_hgmma_ counters imports at its real intensity (~10^3 FLOP/B), compute side', () => {
      const r = parseNcuCsv(read('h100_gemm_hgmma_raw.csv'));
      const mm = launch(r, 'matmul_kernel');
      // 2·5120³ = 268,435,456,000 tensor FLOPs (hgmma bf16, sparsity off) + fadd 7,864,320 + fmul 26,214,400.
      assert.equal(mm.flops?.tensor?.total, 268_435_456_000);
      assert.equal(mm.flops?.tensor?.byDtype.bf16, 268_435_456_000);
      assert.equal(mm.flops?.total, 268_435_456_000 + 34_078_720);
      assert.equal(mm.flops?.lowerBound, false);
      assert.equal(mm.flops?.convention, 'ncu-counters');
      assert.equal(mm.dramBytes, 262_144_000);
      const c = classify(measuredTotals(mm), H100_BF16);
      near(c.achievedIntensity, 268_469_534_720 / 262_144_000);
      assert.ok(c.achievedIntensity! > 1000 && c.achievedIntensity! < 1100, String(c.achievedIntensity));
      assert.equal(c.side, 'compute');
      // 650.7 TFLOP/s = 65.8 % of the bf16 peak: under the compute roof.
      assert.equal(c.situation, 'compute-intensive');
      near(c.fractionOfRoof, 268_469_534_720 / 412.6e-6 / 989.4e12);
      assert.ok(!codes(r).some((x) => x.startsWith('tensor')), codes(r).join(', '));
    });

    it('half-precision instructions count as packed pairs, as ncu’s Half Precision roofline does (HADD2 = 2 FLOPs)', () => {
      const add = launch(parseNcuCsv(read('h100_gemm_hgmma_raw.csv')), 'add_kernel');
      // bf16 c = a + b over 2²⁴ elements: 2²³ HADD2 thread instructions → 2²⁴ FLOPs.
      assert.equal(add.flops?.byDtype.fp16, 2 ** 24);
      assert.equal(add.flops?.total, 2 ** 24);
    });

    it('tensor instructions but no op counters: a labelled lower bound, with a warning naming the counters to collect', () => {
      const r = parseNcuCsv(read('h100_gemm_no_ops_raw.csv'));
      const mm = launch(r, 'matmul_kernel');
      assert.equal(mm.flops?.total, 34_078_720);
      assert.equal(mm.flops?.lowerBound, true);
      assert.equal(mm.flops?.tensor, null);
      assert.ok(mm.missing.includes('sm__ops_path_tensor_*'));
      const w = r.diagnostics.find((d) => d.code === 'tensorUnknown');
      assert.equal(w?.severity, 'warning');
      assert.match(w!.message, /sm__inst_executed_pipe_tensor_op_gmma\.sum > 0/);
      assert.match(w!.message, /sm__ops_path_tensor_op_hgmma_src_\{bf16_dst_fp32,fp16,tf32_dst_fp32\}_sparsity_off\.sum/);
      assert.match(mm.flops!.lowerBoundReasons!.join(' '), /collect sm__ops_path_tensor_op_hgmma/);
      // 0.13 FLOP/B — the dot the issue saw — now says it is a lower bound, in the panel too.
      near(measuredTotals(mm).flops! / mm.dramBytes!, 34_078_720 / 262_144_000);
      const { files } = attachProfile([kernelFile('matmul_kernel', 'tensor', 'bf16')], H100, read('h100_gemm_no_ops_raw.csv'));
      const cell = panelTable(files, { workspace: false, profile: true }).rows[0].cells.achieved;
      assert.equal(cell.text, '≥ 82.6 GFLOP/s');
      assert.match(cell.title!, /collect sm__ops_path_tensor_op_hgmma/);
    });

    it('warpgroup MMA that only hmma counters cover is a lower bound too', () => {
      const csv = [
        '"ID","Kernel Name","CC","gpu__time_duration.sum","sm__inst_executed_pipe_tensor_op_gmma.sum","sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum"',
        '"","","","ns","inst",""',
        '"0","gemm","9.0","1,000","4,096","1,048,576"',
      ].join('\n');
      const r = parseNcuCsv(csv);
      const l = r.launches[0];
      assert.equal(l.flops?.total, 1_048_576);
      assert.equal(l.flops?.lowerBound, true);
      assert.ok(codes(r).includes('tensorUncovered'));
    });

    it('op counters that all read 0 while the tensor pipe ran: a lower bound (the kernel’s type is missing)', () => {
      const csv = [
        '"ID","Kernel Name","CC","gpu__time_duration.sum","sm__inst_executed_pipe_tensor_op_hmma.sum","sm__ops_path_tensor_src_fp16.sum"',
        '"","","","ns","inst",""',
        '"0","gemm","9.0","1,000","4,096","0"',
      ].join('\n');
      const r = parseNcuCsv(csv);
      assert.equal(r.launches[0].flops?.lowerBound, true);
      assert.ok(codes(r).includes('tensorZero'));
    });
  });

  describe('every documented op-counter family', () => {
    // Names from SpeedOfLight_HierarchicalTensorRooflineChart.section (ncu 2025.x), per architecture.
    const DOCUMENTED: [string, string][] = [
      ['sm_75', 'sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32.sum'],
      ['sm_75', 'sm__ops_path_tensor_src_fp16_dst_fp16.sum'],
      ['sm_80', 'sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_off.sum'],
      ['sm_80', 'sm__ops_path_tensor_src_tf32_dst_fp32_sparsity_on.sum'],
      ['sm_80', 'sm__ops_path_tensor_src_fp64.sum'],
      ['sm_89', 'sm__ops_path_tensor_src_fp8_sparsity_off.sum'],
      ['sm_90', 'sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum'],
      ['sm_90', 'sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_on.sum'],
      ['sm_90', 'sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32_sparsity_off.sum'],
      ['sm_90', 'sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16_sparsity_off.sum'],
      ['sm_90', 'sm__ops_path_tensor_op_igmma_src_int8_sparsity_off.sum'],
      ['sm_90', 'sm__ops_path_tensor_op_bgmma_src_int1.sum'],
      ['sm_90', 'sm__ops_path_tensor_src_bf16_dst_fp32.sum'],
      ['sm_90', 'sm__ops_path_tensor_src_fp16.sum'],
      ['sm_100', 'sm__ops_path_tensor_op_utchmma_src_bf16_dst_fp32_sparsity_off.sum'],
      ['sm_100', 'sm__ops_path_tensor_op_utcimma_src_int8_sparsity_on.sum'],
      ['sm_100', 'sm__ops_path_tensor_op_utcomma_src_fp4_dst_fp32_sparsity_off.sum'],
      ['sm_100', 'sm__ops_path_tensor_op_utcqmma_src_fp4_fp6_fp8_dst_fp16_sparsity_off.sum'],
      ['sm_100', 'sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum'],
      ['sm_103', 'sm__ops_path_tensor_op_utcqmma_src_fp4_fp6_dst_fp32_sparsity_on.sum'],
      ['sm_120', 'sm__ops_path_tensor_src_fp8_dst_fp16_sparsity_off.sum'],
    ];
    for (const [arch, name] of DOCUMENTED)
      it(`${arch}: ${name}`, () => {
        const c = classifyOpsMetric(name);
        assert.ok(c && 'path' in c, JSON.stringify(c));
        for (const suffix of ['.per_cycle_elapsed', '.per_second']) assert.ok((classifyOpsMetric(name + suffix) as { path?: unknown }).path, suffix);
      });

    it('labels: integer paths are not FLOPs; several source types take the type they run at', () => {
      const kind = (n: string) => (classifyOpsMetric(n) as { path: OpsPath }).path.kind;
      assert.equal(kind('sm__ops_path_tensor_op_igmma_src_int8_sparsity_off.sum'), 'integer');
      assert.equal(kind('sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum'), 'fp8');
      assert.equal(kind('sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32.sum'), 'fp16');
      assert.equal(kind('sm__ops_path_tensor_op_utcomma_src_fp4_dst_fp32_sparsity_off.sum'), 'fp4');
    });

    it('names it does not know are reported, rollups that are not counts are told apart', () => {
      assert.match((classifyOpsMetric('sm__ops_path_tensor_op_xyzmma_src_bf16_sparsity_off.sum') as { unknown: string }).unknown, /instruction "xyzmma"/);
      assert.match((classifyOpsMetric('sm__ops_path_tensor_src_fp5_dst_fp32.sum') as { unknown: string }).unknown, /"fp5"/);
      assert.match((classifyOpsMetric('sm__ops_path_tensor_src_bf16_dst_int7.sum') as { unknown: string }).unknown, /destination/);
      assert.ok('notCount' in (classifyOpsMetric('sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.max.pct_of_peak_sustained_elapsed') as object));
      assert.equal(classifyOpsMetric('sm__inst_executed_pipe_tensor.sum'), null);
    });

    it('an unknown name with a value is a warning and makes the FLOPs a lower bound', () => {
      const csv = ['"ID","Kernel Name","gpu__time_duration.sum","sm__ops_path_tensor_op_xyzmma_src_bf16_sparsity_off.sum","sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum"', '"","","ns","",""', '"0","gemm","1,000","512","1,024"'].join('\n');
      const r = parseNcuCsv(csv);
      assert.equal(r.launches[0].flops?.total, 1024);
      assert.equal(r.launches[0].flops?.lowerBound, true);
      const w = r.diagnostics.find((d) => d.code === 'unknownTensorType');
      assert.equal(w?.severity, 'warning');
      assert.match(w!.message, /xyzmma/);
    });

    it('a counter exported only as a percentage of its peak: a warning (not a count) and a lower bound', () => {
      const csv = ['"ID","Kernel Name","gpu__time_duration.sum","sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.max.pct_of_peak_sustained_elapsed","sm__sass_thread_inst_executed_op_ffma_pred_on.sum"', '"","","ns","%","inst"', '"0","gemm","1,000","61.2","10"'].join('\n');
      const r = parseNcuCsv(csv);
      assert.ok(codes(r).includes('tensorNotCount'), codes(r).join(', '));
      assert.equal(r.launches[0].flops?.lowerBound, true);
      assert.equal(r.launches[0].flops?.tensor, null);
    });

    it('each piece of work is counted once: halves vs unsplit, by-type vs by-instruction, several types vs one', () => {
      const ops = (entries: [string, number][]) =>
        sumTensorOps(entries.map(([n, value]) => ({ path: (classifyOpsMetric(n) as { path: OpsPath }).path, value })));
      // Unsplit and its halves: the halves give the split, the work counts once.
      let t = ops([
        ['sm__ops_path_tensor_src_bf16_dst_fp32.sum', 300],
        ['sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_off.sum', 100],
        ['sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_on.sum', 200],
      ]);
      assert.deepEqual([t.total, t.sparse], [300, 200]);
      // The by-type counter covers the instructions of its type; hmma's fp16 work is another type and counts.
      t = ops([
        ['sm__ops_path_tensor_src_bf16_dst_fp32.sum', 1000],
        ['sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum', 900],
        ['sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum', 100],
        ['sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32_sparsity_off.sum', 7],
      ]);
      assert.deepEqual([t.total, t.byDtype.bf16, t.byDtype.fp16], [1007, 1000, 7]);
      assert.deepEqual(t.covered.sort(), ['sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum', 'sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum']);
      // A path without a destination covers the ones with one (sm_90's src_fp16).
      t = ops([
        ['sm__ops_path_tensor_src_fp16.sum', 50],
        ['sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum', 40],
      ]);
      assert.equal(t.total, 50);
      // Without a by-type counter, the instructions add up.
      t = ops([
        ['sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum', 900],
        ['sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32_sparsity_off.sum', 100],
      ]);
      assert.equal(t.total, 1000);
    });
  });

  describe('Ampere sparsity (ncu 2023.x raw page, auto units, A100, CC 8.0)', () => {
    const r = parseNcuCsv(read('a100_sparse_raw.csv'));

    it('dense paths count 1:1; a 2:4 sparse GEMM counts once, as ncu counts it, with a note', () => {
      const dense = r.launches[0];
      assert.equal(dense.flops?.tensor?.byDtype.bf16, 2 * 4096 ** 3);
      assert.equal(dense.flops?.tensor?.sparse, undefined);
      const sparse = r.launches[1];
      assert.equal(sparse.flops?.tensor?.total, 2 * 4096 ** 3);
      assert.equal(sparse.flops?.tensor?.sparse, 2 * 4096 ** 3);
      assert.equal(sparse.flops?.total, 2 * 4096 ** 3);
      assert.ok(codes(r).includes('sparseTensor'));
      assert.deepEqual(r.devices, [{ key: '0', label: 'GPU 0', cc: '8.0' }]);
    });
  });

  describe('Blackwell (ncu 2025.x raw page, B200, CC 10.0)', () => {
    const r = parseNcuCsv(read('b200_raw.csv'));

    it('by-instruction (utchmma, utcqmma) and by-type counters of the same work count it once', () => {
      const bf16 = launch(r, 'gemm_bf16_sm100');
      assert.equal(bf16.flops?.tensor?.byDtype.bf16, 2 * 8192 ** 3);
      assert.equal(bf16.flops?.total, 2 * 8192 ** 3);
      const fp8 = launch(r, 'gemm_fp8_sm100');
      assert.deepEqual(fp8.flops?.tensor?.byDtype, { bf16: 0, fp8: 2 * 8192 ** 3 });
      assert.equal(fp8.flops?.lowerBound, false);
    });
  });

  describe("the roofline sections' own metrics (ncu 2025.x raw page, --section SpeedOfLight_HierarchicalTensorRooflineChart --section SpeedOfLight_RooflineChart)", () => {
    it('per-cycle op rates × the SM clock × the duration give the op totals; DRAM bytes/s × the duration the bytes', () => {
      const r = parseNcuCsv(read('h100_sections_raw.csv'));
      const mm = launch(r, 'matmul_kernel');
      // 370,709.35 ops/cycle × 1.755 GHz × 412.6 µs = 2.684·10¹¹ (the rates are printed to 2 decimals).
      near(mm.flops?.tensor?.byDtype.bf16, 268_435_456_000, 1e-6);
      near(mm.dramBytes, 262_144_000, 1e-9);
      // FFMA from the section's derived__smsp__…_x2 (already ×2): 0 here; fadd/fmul from their per-cycle rates.
      near(mm.flops?.byDtype.fp32, 34_078_720, 1e-4);
      // The section has no half-precision counters: the FLOPs are a lower bound, saying which are missing.
      assert.equal(mm.flops?.lowerBound, true);
      assert.match(mm.flops!.lowerBoundReasons![0], /hadd/);
      // Peaks (.peak_sustained) are not work and raise no warning.
      assert.ok(!codes(r).includes('tensorNotCount'));
      const c = classify(measuredTotals(mm), H100_BF16);
      assert.equal(c.side, 'compute');
      // dram__bytes.sum.peak_sustained × dram__cycles_elapsed.avg.per_second: the device's DRAM bandwidth.
      near(r.devices[0].memoryBandwidth, 3840 * 872e6);
    });
  });

  describe('the details page of a roofline section, by label (shape derived from the section files, ncu 2025.x)', () => {
    it("no counters: the section's achieved FLOP/s and DRAM intensity rows give the dot, in ncu's convention", () => {
      const head = '"ID","Kernel Name","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"';
      const row = (section: string, name: string, unit: string, value: string) => `"0","matmul_kernel","0","9.0","${section}","${name}","${unit}","${value}"`;
      const T = 'GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)';
      const csv = [
        head,
        row('GPU Speed Of Light Throughput', 'Duration', 'us', '412.60'),
        row(T, 'DRAM Achieved Value (Src:bf16 Dst:fp32)', 'TFLOP/s', '650.59'),
        row(T, 'DRAM Arithmetic Intensity (Src:bf16 Dst:fp32)', 'FLOP/byte', '1,024.00'),
        row(T, 'L2 Cache Achieved Value (Src:bf16 Dst:fp32)', 'TFLOP/s', '650.59'),
        row(T, 'L2 Cache Arithmetic Intensity (Src:bf16 Dst:fp32)', 'FLOP/byte', '62.40'),
        '"0","matmul_kernel","0","9.0","SpeedOfLight_HierarchicalTensorRooflineChart","","","","RooflineRule","INF","The ratio …"',
      ].join('\n');
      const r = parseNcuCsv(csv);
      assert.equal(r.format, 'ncu-details');
      const l = r.launches[0];
      assert.equal(l.flops?.convention, 'ncu-section');
      near(l.flops?.total, 650.59e12 * 412.6e-6, 1e-12);
      near(l.flops?.tensor?.byDtype.bf16, 650.59e12 * 412.6e-6, 1e-12);
      near(l.dramBytes, (650.59e12 * 412.6e-6) / 1024, 1e-12);
      assert.ok(codes(r).includes('fromSection'));
      // Only L2 traffic is missing (info): time, FLOPs and DRAM bytes are all there.
      assert.deepEqual(r.diagnostics.filter((d) => d.code === 'missingMetric').map((d) => [d.severity, /lts__t_bytes/.test(d.message)]), [['info', true]]);
    });
  });

  describe('the details page of several roofline sections at once', () => {
    it('each tensor path and vector type counts once (its DRAM row; the L2 row repeats the same work)', () => {
      const head = '"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"';
      const row = (section: string, name: string, unit: string, value: string) => `"0","k","${section}","${name}","${unit}","${value}"`;
      const T = 'GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)';
      const S = 'GPU Speed Of Light Roofline Chart';
      const csv = [
        head,
        row('GPU Speed Of Light Throughput', 'Duration', 'ms', '1.00'),
        row(T, 'DRAM Achieved Value (Src:fp16,bf16,tf32 Dst:fp32)', 'TFLOP/s', '100.00'),
        row(T, 'L2 Cache Achieved Value (Src:fp16,bf16,tf32 Dst:fp32)', 'TFLOP/s', '100.00'),
        row(T, 'DRAM Achieved Value (Src:fp16 Dst:fp16)', 'TFLOP/s', '20.00'),
        row(S, 'Single Precision Achieved Value', 'GFLOP/s', '500.00'),
        row(S, 'Double Precision Achieved Value', 'GFLOP/s', '0.00'),
        row(S, 'DRAM Bandwidth', 'Tbyte/s', '1.00'),
      ].join('\n');
      const l = parseNcuCsv(csv).launches[0];
      near(l.flops?.total, (100e12 + 20e12 + 500e9) * 1e-3, 1e-12);
      near(l.flops?.tensor?.byDtype.fp16, 120e12 * 1e-3, 1e-12);
      near(l.flops?.byDtype.fp32, 500e9 * 1e-3, 1e-12);
      near(l.dramBytes, 1e12 * 1e-3, 1e-12);
    });
  });

  describe('several GPUs in one export', () => {
    it('ncu --devices 0,1 (ncu 2025.x raw page): dots split per GPU, each under its own roofline', () => {
      const r = parseNcuCsv(read('two_gpus_raw.csv'));
      assert.deepEqual(
        r.devices.map((d) => [d.key, d.cc, d.name, d.smCount]),
        [
          ['0', '9.0', 'NVIDIA H100 80GB HBM3', 132],
          ['1', '8.0', 'NVIDIA A100-SXM4-80GB', 108],
        ],
      );
      const m = matchKernels(r.launches, [{ name: 'add_kernel', file: 'add.cu', language: 'cuda' }], { aggregate: true });
      const groups = m.kernels[0].groups;
      assert.deepEqual(
        groups.map((g) => [g.device, g.invocations]),
        [
          ['0', 2],
          ['1', 1],
        ],
      );
      assert.ok(groups[0].key.endsWith('@ GPU 0'));
    });

    it('each device is identified in the GPU table; the selected one is kept when nothing contradicts it', () => {
      const r = parseNcuCsv(read('two_gpus_raw.csv'));
      const [h, a] = r.devices.map((d) => identifyDevice(d, GPU_CATALOG.gpus, H100));
      assert.deepEqual([h.gpu.id, h.isSelected, a.gpu.id, a.isSelected], ['h100-sxm', true, 'a100-sxm-80gb', false]);
      // CC 9.0 alone fits H100 SXM, H100 PCIe and H200: the selected H100 PCIe is kept.
      const pcie = findGpu('h100-pcie')!;
      const cc = identifyDevice({ key: '0', label: 'GPU 0', cc: '9.0' }, GPU_CATALOG.gpus, pcie);
      assert.deepEqual([cc.gpu.id, cc.isSelected], ['h100-pcie', true]);
      // …but its bandwidth tells an H200 (4.9 TB/s) from an H100.
      const h200 = identifyDevice({ key: '0', label: 'GPU 0', cc: '9.0', memoryBandwidth: (2 * 6144 * 3_200_000 * 1e3) / 8 }, GPU_CATALOG.gpus, H100);
      assert.deepEqual([h200.gpu.id, h200.isSelected], ['h200', false]);
      // An AMD architecture name; nothing at all.
      assert.equal(identifyDevice({ key: 'HIP:0', label: 'HIP device 0', gfx: 'gfx942', memoryBandwidth: 5.3e12 }, GPU_CATALOG.gpus, H100).gpu.id, 'mi300x');
      const none = identifyDevice({ key: '0', label: 'GPU 0' }, GPU_CATALOG.gpus, H100);
      assert.deepEqual([none.gpu.id, none.known, none.isSelected], ['h100-sxm', false, null]);
    });

    it('Proton, two CUDA devices (element [1]): each dot under its own GPU’s roofs; the other GPU is named', () => {
      const files = [kernelFile('matmul_kernel', 'tensor', 'bf16')];
      const { files: out, profile } = attachProfile(files, H100, read('proton_two_gpus.json'));
      const ms = out[0].kernels[0].measured!;
      assert.deepEqual(
        ms.map((m) => [m.gpu?.id, m.gpu?.isSelected]),
        [
          ['h100-sxm', true],
          ['a100-sxm-80gb', false],
        ],
      );
      // 1.374·10¹² FLOPs in 5.508 ms on the A100 = 249.5 TFLOP/s = 80 % of its 312 TFLOP/s bf16 peak (only 25 % of the H100's).
      near(ms[1].fractionOfRoof, (10 * 2 * 4096 ** 3) / 5_507_970e-9 / A100.peaks.tensor.bf16!, 1e-12);
      assert.equal(ms[1].situation, 'compute-bound');
      assert.equal(ms[0].situation, 'compute-bound');
      const mismatch = profile.diagnostics.find((d) => d.code === 'gpuMismatch');
      assert.equal(mismatch?.severity, 'warning');
      assert.match(mismatch!.message, /CUDA device 1.*A100 SXM 80GB.*not on the selected H100 SXM.*--gpu a100-sxm-80gb/);
      assert.deepEqual(
        profile.devices!.map((d) => [d.key, d.gpu.id, d.isSelected]),
        [
          ['CUDA:0', 'h100-sxm', true],
          ['CUDA:1', 'a100-sxm-80gb', false],
        ],
      );
    });
  });

  describe('Proton launch metadata (Triton 3.x Proton hatchet JSON, launch hook)', () => {
    const r = parseProtonJson(read('proton_launch_metadata.json'));

    it('bracketed launch names match their kernel; the NAME=VALUE pairs are the launch’s sizes', () => {
      const m = matchKernels(r.launches, [{ name: 'matmul_kernel', file: 'matmul_bf16.py', language: 'triton' }], { aggregate: true });
      assert.deepEqual(
        m.kernels[0].groups.map((g) => [g.key, g.invocations, g.launchBindings]),
        [
          ['matmul_kernel [M=4096, N=4096, K=4096]', 50, { M: 4096, N: 4096, K: 4096 }],
          ['matmul_kernel [M=8192, N=8192, K=512]', 20, { M: 8192, N: 8192, K: 512 }],
        ],
      );
      assert.deepEqual(r.devices, [{ key: 'CUDA:0', label: 'CUDA device 0', cc: '9.0', smCount: 132, memoryBandwidth: (2 * 5120 * 2_619_000 * 1e3) / 8 }]);
      assert.equal(r.launches[0].flops?.convention, 'launch-metadata');
    });

    it('launch names as Triton code writes them', () => {
      assert.deepEqual(splitLaunchName('matmul_kernel [M=4096, N=4096, K=4096]'), { base: 'matmul_kernel', bindings: { M: 4096, N: 4096, K: 4096 } });
      assert.deepEqual(splitLaunchName('_matmul_ogs [N=4096 K=128 EXPT_PER_TOK=4]')?.bindings, { N: 4096, K: 128, EXPT_PER_TOK: 4 });
      assert.deepEqual(splitLaunchName('matmul_kernel_persistent_ws [M=8192, N=8192, K=512, tiles_per_update=01]')?.bindings, { M: 8192, N: 8192, K: 512, tiles_per_update: 1 });
      assert.deepEqual(splitLaunchName('attn [shape=(4, 32), causal=True, dtype="bf16"]')?.bindings, { shape: '(4, 32)', causal: true, dtype: 'bf16' });
      assert.equal(splitLaunchName('matmul_kernel'), null);
      assert.equal(splitLaunchName('foo(int) [clone .constprop.0]'), null);
    });

    describe('the estimate beside each dot is for exactly that launch', () => {
      let parsers: Parsers;
      const source = read('src/matmul_bf16.py');
      const file = 'matmul_bf16.py';
      const dtypes = { a_ptr: 'bf16', b_ptr: 'bf16' } as const;
      const analyse = (set: Record<string, BindingValue>): FileReport => analyzeSource(source, parsers, { gpu: H100, path: file, set, dtypes });
      before(async () => {
        parsers = await loadParsers();
      });

      it("re-analyses the kernel with the bracket's sizes, binding source 'profile'", () => {
        const own = analyse({});
        assert.deepEqual(own.kernels[0].unbound, ['K', 'M', 'N'], 'the sizes are unknown to the source alone');
        const { files } = attachProfile([own], H100, read('proton_launch_metadata.json'), {
          reestimate: (_path, kernel, l) => estimateForLaunch(kernel, source, l, {}, analyse),
        });
        const [big, flat] = files[0].kernels[0].measured!;
        const e = big.launchEstimate!;
        assert.deepEqual([e.bindings.M, e.bindings.N, e.bindings.K], [4096, 4096, 4096]);
        assert.deepEqual([e.bindingSources.M.source, e.bindingSources.K.source], ['profile', 'profile']);
        assert.match(e.bindingSources.M.detail, /matmul_kernel \[M=4096, N=4096, K=4096\]/);
        // 32 × 32 programs of 128×128 tiles, 2·4096³ FLOPs: the launch_metadata formula agrees (×1.00).
        assert.equal(e.units, 1024);
        assert.equal(e.flops, 2 * 4096 ** 3);
        assert.equal(big.flopsRatio, 1);
        near(e.compulsoryIntensity, 4096 / 3);
        assert.deepEqual(big.launchSizes, { M: 4096, N: 4096, K: 4096 });
        assert.ok(big.notes[0].startsWith('Estimated for the measured launch: '), big.notes[0]);
        // The other size is its own launch: K = 512.
        assert.equal(flat.launchEstimate!.bindings.K, 512);
        assert.equal(flat.launchEstimate!.flops, 2 * 8192 * 8192 * 512);
        assert.equal(flat.flopsRatio, 1);
        // The kernel's own estimate is unchanged.
        assert.deepEqual(files[0].kernels[0].unbound, ['K', 'M', 'N']);
      });

      it('the panel’s table: a row per launch, named by its sizes, with its own estimate', () => {
        const { files } = attachProfile([analyse({})], H100, read('proton_launch_metadata.json'), { reestimate: (_p, kernel, l) => estimateForLaunch(kernel, source, l, {}, analyse) });
        const rows = panelTable(files, { workspace: false, profile: true }).rows;
        assert.deepEqual(
          rows.map((r) => [r.cells.kernel.text, r.cells.ai.text, r.cells.compulsory.text, r.cells.achieved.text]),
          [
            ['matmul_kernel [M=4096, N=4096, K=4096]', '63', '1365', '700 TFLOP/s'],
            ['matmul_kernel [M=8192, N=8192, K=512]', '56.9', '455', '480 TFLOP/s'],
          ],
        );
      });

      it('when every measured launch has the same sizes, the kernel’s own estimate is the one for them', () => {
        const own = analyse({});
        assert.ok(own.diagnostics.some((d) => d.code === 'unbound' || d.code === 'unboundLoop'));
        const { files } = attachProfile([own], H100, read('proton_two_gpus.json'), { reestimate: (_p, kernel, l) => estimateForLaunch(kernel, source, l, {}, analyse) });
        const k = files[0].kernels[0];
        assert.deepEqual([k.bindings.M, k.bindingSources.M.source, k.units, k.unbound], [4096, 'profile', 1024, []]);
        near(k.arithmeticIntensity, 134_217_728 / 2_129_920);
        assert.ok(k.assumptions.some((a) => /measured launch's sizes \(M=4096, N=4096, K=4096, from the profile\)/.test(a)), k.assumptions.join('\n'));
        assert.equal(k.measured!.length, 2, 'one dot per GPU');
        // The estimate no longer lacks M, N and K: the diagnostics saying so are gone.
        assert.ok(!files[0].diagnostics.some((d) => d.code === 'unbound' || d.code === 'unboundLoop'), JSON.stringify(files[0].diagnostics));
      });

      it('a --set value wins over the launch’s and the difference is said; names the kernel lacks are said too', () => {
        const kernel = analyse({}).kernels[0];
        const l = estimateForLaunch(kernel, source, { name: 'matmul_kernel [M=4096, N=4096, K=4096, WS=1]', bindings: { M: 4096, N: 4096, K: 4096, WS: 1 } }, { K: 1024 }, (set) => analyse(set))!;
        assert.equal(l.kernel.bindings.K, 1024);
        assert.equal(l.kernel.bindingSources.K.source, 'user');
        assert.deepEqual(l.overridden, [{ name: 'K', launch: 4096, used: 1024, by: 'user' }]);
        assert.deepEqual(l.applied.sort(), ['M', 'N']);
        assert.deepEqual(l.unused, ['WS']);
      });

      it('the chart joins each measured dot to its launch’s estimate; the hover lists the launch’s bindings with their sources', () => {
        const own = analyse({});
        const { files } = attachProfile([own], H100, read('proton_launch_metadata.json'), { reestimate: (_p, kernel, l) => estimateForLaunch(kernel, source, l, {}, analyse) });
        // The kernel has no estimate of its own (M, N, K unbound), yet both launches are drawn, each linked from its own estimate.
        const kernels = chartKernels(files);
        assert.equal(kernels[0].ai, null);
        const spec = rooflineSpec(kernels, { gpu: H100, showRegions: true });
        const dataset = (name: string) => (spec.layer as { data: { name: string; values: Record<string, unknown>[] } }[]).find((l) => l.data.name === name)?.data.values ?? [];
        assert.equal(dataset('measured').length, 2);
        const starts = dataset('measuredLinks').filter((p) => p.order === 0);
        near(starts[0].x as number, 134_217_728 / 2_129_920);
        near(starts[0].y as number, H100.l2Bandwidth! * (134_217_728 / 2_129_920));
        assert.equal(dataset('kernels').length, 0, 'no dot for the kernel’s own (unknown) estimate');
        const md = measuredHover(files[0].kernels[0].measured!).replace(/\\(.)/g, '$1');
        for (const part of [
          '**Estimate for this launch**: 611 TFLOP/s attainable at 63 FLOP/B (compulsory 1365 FLOP/B), memory-bound',
          '- `M` = `4096` · profile: launch `matmul_kernel [M=4096, N=4096, K=4096]`',
          '- `BLOCK_M` = `128` · launch at line 44',
          "FLOPs and bytes from the kernel's launch_metadata (its author's formulas, not measured).",
        ])
          assert.ok(md.includes(part), `missing "${part}" in:\n${md}`);
      });

      it("'profile' ranks below --set and pragmas and above everything read from the source", () => {
        assert.ok(sourceRank('user') < sourceRank('profile') && sourceRank('pragma') < sourceRank('profile'));
        for (const s of ['launch', 'autotune', 'heuristics', 'template', 'define', 'default', 'global', 'launch_bounds', 'derived'] as const) assert.ok(sourceRank('profile') < sourceRank(s), s);
      });
    });
  });

  it('every truncation of every new fixture imports without throwing', () => {
    for (const f of ['h100_gemm_hgmma_raw.csv', 'h100_gemm_no_ops_raw.csv', 'a100_sparse_raw.csv', 'b200_raw.csv', 'h100_sections_raw.csv', 'two_gpus_raw.csv', 'proton_launch_metadata.json', 'proton_two_gpus.json']) {
      const text = read(f);
      for (let n = 0; n <= text.length; n += 89) {
        const r = parseProfile(text.slice(0, n));
        for (const l of r.launches) for (const v of [l.timeSeconds, l.dramBytes, l.flops?.total]) if (v !== undefined) assert.ok(Number.isFinite(v) && v >= 0, `${f}@${n}: ${v}`);
      }
    }
  });
});

/** A file with one kernel whose report is a stand-in (only what the roof needs). */
function kernelFile(name: string, kind: 'tensor' | 'vector', dtype: 'bf16' | 'fp32'): FileReport {
  const peak = kind === 'tensor' ? H100.peaks.tensor[dtype as 'bf16']! : H100.peaks.vector[dtype as 'fp32']!;
  const k = {
    name,
    line: 1,
    unit: 'program',
    bindings: {},
    bindingSources: {},
    unbound: [],
    perUnit: { flops: 134_217_728, loadBytes: 2_097_152, storeBytes: 32_768 },
    units: 1024,
    computeDtype: dtype,
    arithmeticIntensity: 134_217_728 / 2_129_920,
    compulsoryIntensity: 4096 / 3,
    compulsory: { loadBytes: 67_108_864, storeBytes: 33_554_432, flops: 2 * 4096 ** 3 },
    peak: { kind, dtype, flops: peak },
    ridgePoint: peak / H100.memoryBandwidth,
    l2RidgePoint: peak / H100.l2Bandwidth!,
    bound: 'memory',
    boundLevel: 'l2',
    attainableFlops: H100.l2Bandwidth! * (134_217_728 / 2_129_920),
    time: { perUnit: { math: null, memory: null, lower: null, upper: null }, launch: null },
    formulas: { flops: '', loadBytes: '', storeBytes: '' },
    regions: [],
    breakdown: { flops: [], bytes: [] },
    assumptions: [],
    assumptionIds: [],
    complete: true,
    status: 'ok',
  } as KernelReport;
  return { path: 'matmul_bf16.py', language: 'triton', diagnostics: [], kernels: [k] };
}
