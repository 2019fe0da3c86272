/**
 * Profiler import (issue 9): Nsight Compute CSV (raw and details pages) and
 * Triton Proton JSON, the C++ demangler, kernel matching, the four roofline
 * situations and the estimate-vs-measurement ratios. The values checked by
 * hand are derived in test/fixtures/profiles/README.md; the full outputs are
 * compared with golden files (UPDATE_GOLDEN=1 rewrites them).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  AGREEMENT,
  ON_ROOF_FRACTION,
  analyseKernelName,
  classify,
  compareEstimate,
  demangle,
  detectProfileFormat,
  matchKernels,
  measuredTotals,
  parseNcuCsv,
  parseProfile,
  parseProtonJson,
  type EstimatePerLaunch,
  type ProfileImport,
  type RoofEstimate,
  type SourceKernel,
} from '../src/core/profile';
import { readCsv } from '../src/core/profile/csv';
import { normaliseNumber, parseUnit, toBase } from '../src/core/profile/units';
import { fmtRatio } from '../src/core/profile/classify';

const DIR = path.join(__dirname, 'fixtures', 'profiles');
const GOLDEN = path.join(DIR, 'golden');
const read = (f: string) => fs.readFileSync(path.join(DIR, f), 'utf8');

/** Relative closeness, for values computed in floating point. */
function near(actual: number | undefined | null, expected: number, rel = 1e-12): void {
  assert.ok(actual !== undefined && actual !== null, `expected ${expected}, got ${actual}`);
  assert.ok(Math.abs(actual - expected) <= rel * Math.abs(expected), `expected ${expected}, got ${actual}`);
}

/** Every number an import carries is finite and not negative; no launch lacks a name. */
function assertSaneImport(r: ProfileImport): void {
  for (const l of r.launches) {
    assert.equal(typeof l.name, 'string');
    for (const v of [l.timeSeconds, l.dramBytes, l.l2Bytes, l.flops?.total, l.invocations])
      if (v !== undefined) assert.ok(Number.isFinite(v) && v >= 0, `${l.name}: bad number ${v}`);
  }
  for (const d of r.diagnostics) assert.ok(d.message.length > 0 && ['error', 'warning', 'info'].includes(d.severity));
}

const codes = (r: { diagnostics: { code: string }[] }) => r.diagnostics.map((d) => d.code);

// ---- the source kernels and their static estimates -----------------------------

const SOURCES: SourceKernel[] = [
  { name: 'add_kernel', file: 'kernels/vector_add.cu', language: 'cuda' },
  { name: 'add_kernel', file: 'kernels/legacy/vector_add_v1.cu', language: 'cuda' },
  { name: 'sgemm_kernel', file: 'kernels/sgemm.cu', language: 'cuda' },
  { name: 'rms_norm_kernel', file: 'csrc/layernorm_kernels.cu', language: 'cuda' },
  { name: 'rms_norm_kernel', file: 'triton/rms_norm.py', language: 'triton' },
  { name: '_rms_norm_fwd', file: 'triton/rms_norm.py', language: 'triton' },
  { name: 'matmul_kernel', file: 'triton/matmul.py', language: 'triton' },
  { name: 'matmul_kernel_fp8', file: 'triton/matmul_fp8.py', language: 'triton' },
];

/** The two `add_kernel`s are told apart by an override, as a user would. */
const OVERRIDES = { add_kernel: 'kernels/vector_add.cu:add_kernel' };

interface KernelEstimate {
  roof: RoofEstimate;
  perLaunch: EstimatePerLaunch;
}

/** Static estimates per source kernel, as the report gives them (README.md derives them). */
function estimate(peak: number, bw: number, flops: number, bytes: number, compulsory: number, l2bw: number | null): KernelEstimate {
  const dram = bw * (flops / compulsory);
  const l2 = l2bw ? l2bw * (flops / bytes) : Infinity;
  return {
    roof: {
      attainableFlops: Math.min(peak, dram, l2),
      arithmeticIntensity: flops / bytes,
      compulsoryIntensity: flops / compulsory,
      peakFlops: peak,
      memoryBandwidth: bw,
      ridgePoint: peak / bw,
    },
    perLaunch: { flops, bytes, compulsoryBytes: compulsory },
  };
}

const H100 = { bw: 3.35e12, l2: 9.7e12, fp32: 66.9e12, fp16Tensor: 989.4e12, fp8Tensor: 1978.9e12 };
const A100 = { bw: 2.039e12, l2: 5.4e12, fp32: 19.5e12 };

const H100_ESTIMATES: Record<string, KernelEstimate> = {
  'kernels/vector_add.cu:add_kernel': estimate(H100.fp32, H100.bw, 16_777_216, 201_326_592, 201_326_592, H100.l2),
  'kernels/sgemm.cu:sgemm_kernel': estimate(H100.fp32, H100.bw, 137_472_507_904, 4_429_185_024, 268_435_456, H100.l2),
  'triton/matmul.py:matmul_kernel': estimate(H100.fp16Tensor, H100.bw, 1_099_511_627_776, 17_314_086_912, 402_653_184, H100.l2),
  'triton/rms_norm.py:_rms_norm_fwd': estimate(H100.fp32, H100.bw, 67_108_864, 201_326_592, 134_234_112, H100.l2),
  'triton/matmul_fp8.py:matmul_kernel_fp8': estimate(H100.fp8Tensor, H100.bw, 137_438_953_472, 1_107_296_256, 67_108_864, H100.l2),
};

const A100_ESTIMATES: Record<string, KernelEstimate> = {
  'kernels/vector_add.cu:add_kernel': estimate(A100.fp32, A100.bw, 1_048_576, 12_582_912, 12_582_912, A100.l2),
  'csrc/layernorm_kernels.cu:rms_norm_kernel': estimate(A100.fp32, A100.bw, 67_108_864, 268_435_456, 134_234_112, A100.l2),
};

// ---- golden files ----------------------------------------------------------------

function golden(name: string, actual: unknown): void {
  const file = path.join(GOLDEN, name);
  const text = JSON.stringify(actual, null, 2) + '\n';
  if (process.env.UPDATE_GOLDEN === '1') {
    fs.mkdirSync(GOLDEN, { recursive: true });
    fs.writeFileSync(file, text);
    return;
  }
  assert.ok(fs.existsSync(file), `golden file ${name} missing: run with UPDATE_GOLDEN=1`);
  assert.deepEqual(JSON.parse(text), JSON.parse(fs.readFileSync(file, 'utf8')), `${name} changed: review the difference and rerun with UPDATE_GOLDEN=1`);
}

/** Import, matching (both modes) and, per matched group, classification and comparison. */
function fullRun(r: ProfileImport, estimates: Record<string, KernelEstimate>) {
  const aggregated = matchKernels(r.launches, SOURCES, { aggregate: true, overrides: OVERRIDES });
  const apart = matchKernels(r.launches, SOURCES, { aggregate: false, overrides: OVERRIDES });
  const assessments = [aggregated, apart].flatMap((m, i) =>
    m.kernels.flatMap((k) =>
      k.groups.map((g) => {
        const e = estimates[k.key];
        const t = measuredTotals(g);
        return {
          mode: i === 0 ? 'aggregated' : 'apart',
          kernel: k.key,
          group: g.key,
          classification: e ? classify(t, e.roof) : null,
          comparison: e ? compareEstimate(t, e.perLaunch) : null,
        };
      }),
    ),
  );
  return { import: r, match: { aggregated, apart }, assessments };
}

// ---- tests -----------------------------------------------------------------------

describe('profile import', () => {
  describe('C++ demangler', () => {
    // Expected strings are GNU c++filt's output for the same names.
    const CASES: [string, string][] = [
      ['_Z10add_kernelPKfS0_Pfi', 'add_kernel(float const*, float const*, float*, int)'],
      ['_Z12sgemm_kernelILi128ELi128ELi8EEvPKfS1_Pfiii', 'void sgemm_kernel<128, 128, 8>(float const*, float const*, float*, int, int, int)'],
      ['_ZN4vllm15rms_norm_kernelIfEEvPT_PKS1_S4_fii', 'void vllm::rms_norm_kernel<float>(float*, float const*, float const*, float, int, int)'],
      [
        '_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_',
        'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)',
      ],
      ['_Z6reduceILj256EEvPKdPdm', 'void reduce<256u>(double const*, double*, unsigned long)'],
      ['_ZN12_GLOBAL__N_115transpose_tiledEPfPKfii', '(anonymous namespace)::transpose_tiled(float*, float const*, int, int)'],
      ['_Z9scale_valP6__halfS_f', 'scale_val(__half*, __half, float)'],
      ['_Z7softmaxIN3c104HalfEfEvPKT_PS2_i', 'void softmax<c10::Half, float>(c10::Half const*, c10::Half*, int)'],
      ['_Z4stepILb1EEvPf', 'void step<true>(float*)'],
      ['_Z5shiftILin3ELl7EEvPi', 'void shift<-3, 7l>(int*)'],
      ['_Z3fooPf.constprop.0', 'foo(float*) [clone .constprop.0]'],
      ['_Z4copyPSt6vectorIiSaIiEE', 'copy(std::vector<int, std::allocator<int> >*)'],
      ['_ZL11local_scalePfi', 'local_scale(float*, int)'],
      ['_Z4swapRiS_', 'swap(int&, int&)'],
      ['_Z9copy_vec4PK6float4PS_', 'copy_vec4(float4 const*, float4*)'],
      ['_Z4haxxDhPDF16_', 'haxx(half, _Float16*)'],
      ['_Z3dotIfLi4EEvPKT_S2_PS0_', 'void dot<float, 4>(float const*, float const*, float*)'],
      ['_ZN7cutlass6KernelINS_4gemm6kernel4GemmEEEvNT_6ParamsE', 'void cutlass::Kernel<cutlass::gemm::kernel::Gemm>(cutlass::gemm::kernel::Gemm::Params)'],
      ['_Z12fused_kernelPKN3c108BFloat16EPS0_', 'fused_kernel(c10::BFloat16 const*, c10::BFloat16*)'],
      ['_Z5fill2PVKi', 'fill2(int const volatile*)'],
      ['_Z1fILc65ELs5EEvv', 'void f<(char)65, (short)5>()'],
      ['_Z6kernelILm4ELx9ELy2ELh1EEvv', 'void kernel<4ul, 9ll, 2ull, (unsigned char)1>()'],
      ['_ZN3foo3barIJifEEEvv', 'void foo::bar<int, float>()'],
      ['_Z3fooB5cxx11v', 'foo[abi:cxx11]()'],
    ];
    for (const [mangled, expected] of CASES) it(mangled, () => assert.equal(demangle(mangled), expected));

    it('returns names it cannot demangle unchanged', () => {
      for (const n of ['matmul_kernel', '', '_Z', '_Zx', '_ZN3foo', '_Z3fooPFvvE', '_ZZ4mainENKUlvE_clEv', '_Z3foov.', '_Z999fooi', '_Z3fooIXadL_Z3barvEEEvv'])
        assert.equal(demangle(n), n);
    });

    it('never throws and stays bounded on prefixes, mutations and huge inputs', () => {
      const seeds = CASES.map((c) => c[0]);
      let x = 12345;
      const rand = (n: number) => ((x = (x * 1103515245 + 12345) % 2147483648), x % n);
      const alphabet = '_ZNSIELPKRTvifd0123456789abcxyJ';
      for (const s of seeds) {
        for (let n = 0; n <= s.length; n++) assert.equal(typeof demangle(s.slice(0, n)), 'string');
        for (let k = 0; k < 200; k++) {
          const i = rand(s.length);
          const m = s.slice(0, i) + alphabet[rand(alphabet.length)] + s.slice(i + 1);
          assert.equal(typeof demangle(m), 'string');
        }
      }
      const deep = '_Z1f' + 'P'.repeat(5000) + 'i';
      assert.equal(demangle(deep), deep);
      const nested = '_Z1fI' + 'N1aI'.repeat(200) + 'i' + 'EE'.repeat(200) + 'Evv';
      assert.equal(typeof demangle(nested), 'string');
      const subs = '_Z1f' + 'PS_'.repeat(1000);
      assert.equal(typeof demangle(subs), 'string');
    });
  });

  describe('kernel names', () => {
    it('splits demangled names in GNU and NVIDIA spelling', () => {
      const nv = analyseKernelName('void vllm::rms_norm_kernel<float>(float *, const float *, const float *, float, int, int)');
      assert.deepEqual([nv.qualifiedName, nv.baseName, nv.isCpp], ['vllm::rms_norm_kernel', 'rms_norm_kernel', true]);
      const gnu = analyseKernelName('_ZN4vllm15rms_norm_kernelIfEEvPT_PKS1_S4_fii');
      assert.deepEqual([gnu.qualifiedName, gnu.baseName], ['vllm::rms_norm_kernel', 'rms_norm_kernel']);
      const anon = analyseKernelName('(anonymous namespace)::transpose_tiled(float*, float const*, int, int)');
      assert.equal(anon.baseName, 'transpose_tiled');
      const fn = analyseKernelName('sgemm_kernel');
      assert.deepEqual([fn.baseName, fn.isCpp], ['sgemm_kernel', false]);
      assert.equal(analyseKernelName('_Z3fooB5cxx11v').baseName, 'foo');
    });

    it("removes Triton's pre-3.0 specialisation suffix only when it is one", () => {
      assert.equal(analyseKernelName('matmul_kernel_0d1d2d3de4de5de6c7de8de9c10de11c').baseName, 'matmul_kernel');
      assert.equal(analyseKernelName('_fwd_kernel_0d1d2d3d4c').baseName, '_fwd_kernel');
      assert.equal(analyseKernelName('layer_norm_2d').baseName, 'layer_norm_2d');
      assert.equal(analyseKernelName('conv_1d2d').baseName, 'conv_1d2d');
      assert.equal(analyseKernelName('triton_poi_fused_add_0').baseName, 'triton_poi_fused_add_0');
    });
  });

  describe('units and numbers', () => {
    it('reads ncu units with SI factors (1000 for bytes), binary only for KiB/MiB', () => {
      const base = (value: string, unit: string) => toBase(normaliseNumber(value)!, parseUnit(unit)!);
      assert.equal(base('134.24', 'Mbyte'), 134_240_000);
      assert.equal(base('67,129.34', 'Kbyte'), 67_129_340);
      assert.equal(base('1.5', 'Gbyte'), 1_500_000_000);
      assert.equal(base('2', 'KB'), 2000);
      assert.equal(base('2', 'KiB'), 2048);
      assert.equal(base('3', 'MiB'), 3 * 1024 * 1024);
      assert.equal(base('68.45', 'usecond'), 68.45e-6);
      assert.equal(base('49,210.50', 'nsecond'), 49210.5e-9);
      assert.equal(base('1.2', 'msecond'), 1.2e-3);
      assert.equal(base('4.0e-05', 'second'), 4e-5);
      assert.equal(base('7', 'ns'), 7e-9);
      assert.equal(base('1,234', 'Kinst'), 1_234_000);
      assert.equal(base('1.41', 'Ghz'), 1.41e9);
      assert.equal(base('1.41', 'cycle/nsecond'), 1.41e9);
      assert.equal(parseUnit('inst')?.dimension, 'count');
      assert.equal(parseUnit('')?.dimension, 'count');
      assert.equal(parseUnit('cycle')?.dimension, 'cycles');
      assert.equal(parseUnit('%')?.dimension, 'percent');
      for (const u of ['Kibyte', 'Xbyte', 'kbit', 'sector', 'cycle/byte', 'byte/cycle', 'second/byte']) assert.equal(parseUnit(u), null, u);
      // Rates as ncu prints the roofline sections' metrics (ncu 2025.x: "Tbyte/s", "1/ns", "inst/cycle").
      assert.equal(base('1.2', 'Tbyte/s'), 1.2e12);
      assert.equal(base('635,346,582,646.63', 'byte/second'), 635_346_582_646.63);
      assert.equal(base('2', '1/ns'), 2e9);
      assert.equal(parseUnit('1/ns')?.dimension, 'countRate');
      assert.equal(parseUnit('inst/cycle')?.dimension, 'countPerCycle');
      assert.equal(parseUnit('FLOP/byte')?.dimension, 'intensity');
      assert.equal(base('650', 'TFLOP/s'), 650e12);
    });

    it('accepts thousands separators only where they group by three', () => {
      assert.equal(normaliseNumber('1,099,511,627,776'), '1099511627776');
      assert.equal(normaliseNumber('3,104.17'), '3104.17');
      assert.equal(normaliseNumber(' 42 '), '42');
      assert.equal(normaliseNumber('-1.5e3'), '-1.5e3');
      for (const bad of ['1,5', '1,23,456', '1.234.567', 'n/a', '', '12abc', '0x10', 'inf', 'NaN']) assert.equal(normaliseNumber(bad), null, bad);
    });
  });

  describe('CSV reader', () => {
    it('handles quotes, embedded commas and newlines, doubled quotes, CRLF and notices', () => {
      const text = '"a","b, c","d ""e"""\r\n==PROF== between rows\r\n"x\ny",2,\r\n\r\n3,"4"';
      const r = readCsv(text);
      assert.deepEqual(
        r.records.map((x) => x.fields),
        [['a', 'b, c', 'd "e"'], ['x\ny', '2', ''], ['3', '4']],
      );
      assert.deepEqual(r.records.map((x) => x.line), [1, 3, 6]);
      assert.deepEqual(r.notices, [{ text: '==PROF== between rows', line: 2 }]);
      assert.equal(r.unterminated, false);
      assert.equal(readCsv('"a","b\n').unterminated, true);
    });
  });

  describe('Nsight Compute raw page', () => {
    const r = parseNcuCsv(read('h100_raw.csv'));
    const byId = (id: number) => r.launches.find((l) => l.id === id)!;

    it('reads every launch, skipping the application output and ==PROF== lines', () => {
      assert.equal(r.format, 'ncu-raw');
      assert.deepEqual(r.launches.map((l) => l.id), [0, 1, 2, 3, 4, 5, 6, 7]);
      assert.deepEqual(r.launches.map((l) => l.launchIndex), [0, 0, 0, 1, 1, 1, 2, 0]);
      assert.deepEqual(codes(r), ['profilerMessage']);
      assert.equal(r.diagnostics[0].severity, 'warning');
      assertSaneImport(r);
    });

    it('converts units column by column (Mbyte, Kbyte, usecond) with thousands separators', () => {
      const add = byId(0);
      assert.equal(add.demangled, 'add_kernel(float const*, float const*, float*, int)');
      assert.equal(add.baseName, 'add_kernel');
      assert.deepEqual([add.grid, add.block], [[65536, 1, 1], [256, 1, 1]]);
      assert.equal(add.dramReadBytes, 134_240_000);
      assert.equal(add.dramWriteBytes, 67_129_340);
      assert.equal(add.dramBytes, 201_369_340);
      assert.equal(add.l2Bytes, 201_450_000);
      assert.equal(add.timeSeconds, 68.45e-6);
      assert.equal(add.flops?.total, 16_777_216);
      assert.deepEqual(add.missing, []);
    });

    it('counts FFMA as 2 FLOPs and tensor ops from sm__ops_path_tensor_*', () => {
      const sgemm = byId(1);
      assert.equal(sgemm.demangled, 'void sgemm_kernel<128, 128, 8>(float const*, float const*, float*, int, int, int)');
      assert.equal(sgemm.flops?.total, 2 * 68_736_253_952 + 16_777_216);
      assert.equal(sgemm.timeSeconds, 3104.17e-6);
      const mm = byId(2);
      assert.equal(mm.flops?.tensor?.total, 1_099_511_627_776);
      assert.equal(mm.flops?.byDtype.fp16, 1_099_511_627_776);
      assert.equal(mm.flops?.lowerBound, false);
      assert.equal(mm.timeSeconds, 1800.35e-6);
      assert.equal(byId(7).baseName, 'vectorized_elementwise_kernel');
    });
  });

  describe('Nsight Compute details page', () => {
    const r = parseNcuCsv(read('a100_details.csv'));

    it('groups the metric rows by launch, with units per row', () => {
      assert.equal(r.format, 'ncu-details');
      assert.equal(r.launches.length, 3);
      const [rms0, rms1, add] = r.launches;
      assert.equal(rms0.qualifiedName, 'vllm::rms_norm_kernel');
      assert.deepEqual([rms0.launchIndex, rms1.launchIndex], [0, 1]);
      assert.equal(rms0.dramBytes, 134_350_000);
      assert.equal(rms0.timeSeconds, 115.4e-6);
      assert.equal(rms1.dramBytes, 33_630_000 + 33_554_430);
      near(rms1.timeSeconds, 49_210.5e-9);
      assert.equal(add.timeSeconds, 7.35e-6, 'the "Duration" row of the SOL section gives the time');
      assert.equal(add.dramBytes, 8_390_656 + 4_194_304);
      assertSaneImport(r);
    });

    it('reports n/a values and keeps what can be counted (a lower bound)', () => {
      const rms0 = r.launches[0];
      assert.equal(rms0.flops?.total, 4_190_208 + 2 * 16_777_216 + 33_554_432);
      assert.equal(rms0.flops?.lowerBound, true);
      assert.deepEqual(rms0.missing, ['sm__sass_thread_inst_executed_op_hfma_pred_on.sum']);
      const na = r.diagnostics.find((d) => d.code === 'notAvailable');
      assert.ok(na && na.message.includes('hfma') && na.message.includes('2 launches'), na?.message);
      assert.ok(codes(r).includes('noTensorCounters'));
    });
  });

  describe('Proton', () => {
    const r = parseProtonJson(read('proton_h100.json'));
    const find = (name: string, i = 0) => r.launches.find((l) => l.baseName === name && l.launchIndex === i)!;

    it('reads kernel nodes with time, count, flops and bytes; skips launch-metadata work', () => {
      assert.equal(r.format, 'proton');
      assert.deepEqual(
        r.launches.map((l) => [l.baseName, l.context, l.invocations]),
        [
          ['matmul_kernel', 'forward', 20],
          ['_rms_norm_fwd', 'forward', 20],
          ['vectorized_elementwise_kernel', 'forward', 20],
          ['matmul_kernel_fp8', 'forward/matmul_fp8 [M=4096, N=4096, K=4096]', 10],
          ['matmul_kernel', 'backward', 40],
        ],
      );
      const mm = find('matmul_kernel');
      assert.equal(mm.timeSeconds, 0.027224);
      assert.equal(mm.flops?.byDtype.fp16, 20 * 1_099_511_627_776);
      assert.equal(mm.flops?.tensor, null);
      assert.equal(mm.dramBytes, 20 * 402_653_184);
      assert.deepEqual(mm.origin, { flops: 'launch-metadata', bytes: 'launch-metadata' });
      assert.equal(find('matmul_kernel', 1).invocations, 40);
      assertSaneImport(r);
    });

    it("takes an op scope's flops and bytes for the one kernel it launches", () => {
      const fp8 = find('matmul_kernel_fp8');
      assert.equal(fp8.flops?.byDtype.fp8, 10 * 137_438_953_472);
      assert.equal(fp8.dramBytes, 10 * 50_331_648);
    });

    it('says which kernels lack flops or bytes and that the numbers are annotations', () => {
      const fill = find('vectorized_elementwise_kernel');
      assert.deepEqual(fill.missing, ['flops8/flops16/flops32/flops64', 'bytes']);
      assert.deepEqual(codes(r).sort(), ['protonAnnotated', 'protonNoBytes', 'protonNoFlops']);
    });
  });

  describe('format detection', () => {
    it('recognises each export from its content', () => {
      assert.equal(detectProfileFormat(read('h100_raw.csv')), 'ncu-raw');
      assert.equal(detectProfileFormat(read('a100_details.csv')), 'ncu-details');
      assert.equal(detectProfileFormat(read('proton_h100.json')), 'proton');
      assert.equal(detectProfileFormat(read('bad/nsys_kern_sum.csv')), 'unknown');
      assert.equal(detectProfileFormat(''), 'unknown');
      assert.equal(parseProfile(read('a100_details.csv')).launches.length, 3);
      assert.equal(parseProfile(read('proton_h100.json')).launches.length, 5);
    });
  });

  describe('bad input', () => {
    it("another tool's CSV: says which tool, no launches", () => {
      const r = parseProfile(read('bad/nsys_kern_sum.csv'));
      assert.deepEqual(codes(r), ['unknownFormat']);
      assert.match(r.diagnostics[0].message, /Nsight Systems/);
      assert.equal(r.launches.length, 0);
    });

    it('a truncated CSV: reads the complete rows, reports the cut', () => {
      const r = parseProfile(read('bad/truncated_raw.csv'));
      assert.deepEqual(r.launches.map((l) => l.id), [0, 1, 2]);
      assert.ok(codes(r).includes('unterminatedQuote'));
      assertSaneImport(r);
    });

    it('missing metrics: names them, still gives time and what bytes there are', () => {
      const r = parseProfile(read('bad/missing_metrics.csv'));
      assert.equal(r.launches.length, 2);
      assert.equal(r.launches[0].timeSeconds, 98.12e-6);
      assert.equal(r.launches[0].dramReadBytes, 134_240_000);
      assert.equal(r.launches[0].dramBytes, undefined);
      assert.equal(r.launches[0].flops, undefined);
      const msgs = r.diagnostics.filter((d) => d.code === 'missingMetric').map((d) => d.message);
      assert.ok(msgs.some((m) => m.includes('dram__bytes_write.sum')));
      assert.ok(msgs.some((m) => m.includes('sm__sass_thread_inst_executed_op_{fadd,fmul,ffma,dadd,dmul,dfma,hadd,hmul,hfma}_pred_on.sum')));
      assert.ok(msgs.some((m) => m.includes('lts__t_bytes.sum')));
      assert.ok(!msgs.some((m) => m.includes('gpu__time_duration.sum')));
    });

    it('unknown or wrong units: the metric is dropped with an error, never read in a guessed unit', () => {
      const r = parseProfile(read('bad/unknown_units.csv'));
      const l = r.launches[0];
      assert.equal(l.timeSeconds, undefined);
      assert.equal(l.dramReadBytes, undefined);
      assert.equal(l.dramWriteBytes, 67_130_000);
      assert.ok(l.missing.includes('gpu__time_duration.sum') && l.missing.includes('dram__bytes_read.sum'));
      const unknown = r.diagnostics.find((d) => d.code === 'unknownUnit');
      const wrong = r.diagnostics.find((d) => d.code === 'wrongUnit');
      assert.ok(unknown?.message.includes('"Kibyte"') && unknown.severity === 'error', unknown?.message);
      assert.ok(wrong?.message.includes('"cycle"') && wrong.message.includes('time'), wrong?.message);
    });

    it('a truncated Proton profile or a Proton trace: a clear error', () => {
      assert.deepEqual(codes(parseProfile(read('bad/truncated_proton.json'))), ['invalidJson']);
      assert.deepEqual(codes(parseProfile(read('bad/proton_trace.json'))), ['protonTrace']);
      assert.deepEqual(codes(parseProtonJson('{"a": 1}')), ['notProtonTree']);
    });

    it('empty, binary and header-only files', () => {
      assert.deepEqual(codes(parseProfile('')), ['empty']);
      assert.deepEqual(codes(parseProfile('\u0000\u0001PK\u0003\u0004')), ['binary']);
      assert.deepEqual(codes(parseNcuCsv('hello\nworld\n')), ['noHeader']);
      const headerOnly = '"ID","Kernel Name","gpu__time_duration.sum"\n"","","nsecond"\n';
      assert.deepEqual(codes(parseNcuCsv(headerOnly)), ['noLaunches']);
    });

    it('short rows, a missing units row, ==ERROR== notices and unitless bytes', () => {
      const csv = [
        '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0.',
        '"ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum","gpu__time_duration.sum"',
        '"0","k","1,000","24","2,000"',
        '"1","k","1,000"',
      ].join('\n');
      const r = parseNcuCsv(csv);
      assert.deepEqual(r.launches.map((l) => [l.dramBytes, l.timeSeconds]), [
        [1024, 2e-6],
        [undefined, undefined],
      ]);
      const c = codes(r);
      for (const code of ['profilerMessage', 'noUnitsRow', 'shortRow', 'assumedUnit', 'missingForLaunches']) assert.ok(c.includes(code), `${code} in ${c}`);
      assert.equal(r.diagnostics[0].severity, 'error');
    });

    it('unreadable and negative values count as missing, with the metric named', () => {
      const csv = ['"ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum","gpu__time_duration.sum"', '"","","byte","byte","nsecond"', '"0","k","1.234.567","-5","10"'].join('\n');
      const r = parseNcuCsv(csv);
      assert.deepEqual(r.launches[0].missing.slice(0, 3), ['dram__bytes_read.sum', 'dram__bytes_write.sum', 'lts__t_bytes.sum']);
      assert.equal(r.launches[0].timeSeconds, 1e-8);
      const bad = r.diagnostics.find((d) => d.code === 'badValue');
      assert.ok(bad?.message.includes('"1.234.567"') && bad.message.includes('dram__bytes_read.sum'), bad?.message);
      assert.ok(codes(r).includes('negativeValue'));
    });

    it('tensor instructions without the ops counters: FLOPs are a flagged lower bound', () => {
      const csv = [
        '"ID","Kernel Name","gpu__time_duration.sum","sm__inst_executed_pipe_tensor.sum","sm__sass_thread_inst_executed_op_ffma_pred_on.sum"',
        '"","","usecond","inst","inst"',
        '"0","gemm","10","4,096","100"',
      ].join('\n');
      const r = parseNcuCsv(csv);
      const l = r.launches[0];
      assert.equal(l.flops?.total, 200);
      assert.equal(l.flops?.lowerBound, true);
      assert.equal(l.flops?.tensor, null);
      assert.ok(l.missing.includes('sm__ops_path_tensor_*'));
      assert.match(l.flops!.lowerBoundReasons!.join('\n'), /no op counter was exported/);
      assert.ok(codes(r).includes('tensorUnknown'));
    });

    it('time from cycles when gpu__time_duration.sum is absent; sparsity splits summed; integer paths ignored', () => {
      const csv = [
        '"ID","Kernel Name","sm__cycles_elapsed.avg","sm__cycles_elapsed.avg.per_second","sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_off.sum","sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_on.sum","sm__ops_path_tensor_src_int8.sum"',
        '"","","cycle","cycle/nsecond","","",""',
        '"0","gemm","1,410,000","1.41","1,000","500","7"',
      ].join('\n');
      const r = parseNcuCsv(csv);
      const l = r.launches[0];
      near(l.timeSeconds, 1e-3);
      const noClockUnit = parseNcuCsv(csv.replace('"cycle/nsecond"', '""'));
      assert.equal(noClockUnit.launches[0].timeSeconds, undefined);
      assert.ok(codes(noClockUnit).includes('noUnit'));
      assert.equal(l.flops?.tensor?.byDtype.bf16, 1500);
      assert.ok(codes(r).includes('integerTensor'));
      // A type no section file names: a warning, and not silently nothing (the metric is listed missing).
      const fp5 = parseNcuCsv(['"ID","Kernel Name","gpu__time_duration.sum","sm__ops_path_tensor_src_fp5_dst_fp32.sum"', '"","","usecond",""', '"0","gemm","1","64"'].join('\n'));
      assert.equal(fp5.launches[0].flops, undefined);
      assert.ok(fp5.launches[0].missing.includes('sm__ops_path_tensor_src_fp5_dst_fp32.sum'));
      assert.ok(codes(fp5).includes('unknownTensorType'));
      // fp4 is a Blackwell path the sm_100 section names (sm__ops_path_tensor_src_fp4_dst_fp32).
      const fp4 = parseNcuCsv(['"ID","Kernel Name","gpu__time_duration.sum","sm__ops_path_tensor_src_fp4_dst_fp32.sum"', '"","","usecond",""', '"0","gemm","1","64"'].join('\n'));
      assert.deepEqual(fp4.launches[0].flops?.tensor?.byDtype, { fp4: 64 });
    });

    it('every truncation of every fixture imports without throwing, with sane numbers', () => {
      for (const f of ['h100_raw.csv', 'a100_details.csv', 'proton_h100.json']) {
        const text = read(f);
        for (let n = 0; n <= text.length; n += 97) assertSaneImport(parseProfile(text.slice(0, n)));
      }
    });

    it('garbage never throws', () => {
      const inputs = ['{', '[', '[{}]', '[{"frame": 3}]', '[{"frame": {"name": 1}, "children": [1, null, "x"]}]', '"ID",', 'ID,Kernel Name\n,,,\n', '"ID","Kernel Name","a__b"\n"",""\n"x"', ',,,,\n,,,', '\uFEFF"ID","Kernel Name"'];
      let junk = '';
      for (let i = 0; i < 5000; i++) junk += String.fromCharCode(32 + ((i * 7919) % 95));
      for (const s of [...inputs, junk]) assertSaneImport(parseProfile(s));
    });
  });

  describe('matching', () => {
    const raw = parseNcuCsv(read('h100_raw.csv'));

    it('without an override, a name shared by two source kernels is ambiguous', () => {
      const m = matchKernels(raw.launches, SOURCES, { aggregate: true });
      assert.deepEqual(m.ambiguous.map((a) => [a.name, a.launches.length, a.candidates]), [
        ['_Z10add_kernelPKfS0_Pfi', 2, ['kernels/vector_add.cu:add_kernel', 'kernels/legacy/vector_add_v1.cu:add_kernel']],
      ]);
      assert.ok(codes(m).includes('ambiguous'));
      assert.deepEqual(m.unmatched.map((l) => l.baseName), ['vectorized_elementwise_kernel']);
    });

    it('an override settles it; aggregated groups sum per instantiation', () => {
      const m = matchKernels(raw.launches, SOURCES, { aggregate: true, overrides: OVERRIDES });
      const add = m.kernels.find((k) => k.key === 'kernels/vector_add.cu:add_kernel')!;
      assert.equal(add.groups.length, 1);
      assert.deepEqual(add.groups[0].ids, [0, 3]);
      assert.equal(add.groups[0].invocations, 2);
      assert.equal(add.groups[0].dramBytes, 201_369_340 + 201_329_120);
      near(add.groups[0].timeSeconds, 68.45e-6 + 67.91e-6);
      const sgemm = m.kernels.find((k) => k.key === 'kernels/sgemm.cu:sgemm_kernel')!;
      assert.equal(sgemm.groups.length, 1, 'one instantiation <128, 128, 8>');
      assert.equal(sgemm.groups[0].grid, undefined, 'the two launches have different grids');
      const mm = m.kernels.find((k) => k.key === 'triton/matmul.py:matmul_kernel')!;
      assert.equal(mm.groups[0].flops?.tensor?.total, 3 * 1_099_511_627_776);
      assert.equal(m.ambiguous.length, 0);
    });

    it('kept apart: one group per launch, keyed by launch index', () => {
      const m = matchKernels(raw.launches, SOURCES, { aggregate: false, overrides: OVERRIDES });
      const mm = m.kernels.find((k) => k.key === 'triton/matmul.py:matmul_kernel')!;
      assert.deepEqual(mm.groups.map((g) => [g.key, g.grid?.[0]]), [
        ['matmul_kernel#0', 4096],
        ['matmul_kernel#1', 2048],
        ['matmul_kernel#2', 16384],
      ]);
    });

    it('a C++ name never matches a Triton kernel; a qualified name matches exactly', () => {
      const details = parseNcuCsv(read('a100_details.csv'));
      const m = matchKernels(details.launches, SOURCES, { aggregate: true, overrides: OVERRIDES });
      const cuda = m.kernels.find((k) => k.key === 'csrc/layernorm_kernels.cu:rms_norm_kernel')!;
      const triton = m.kernels.find((k) => k.key === 'triton/rms_norm.py:rms_norm_kernel')!;
      assert.equal(cuda.groups[0].invocations, 2);
      assert.equal(triton.groups.length, 0);
      const qualified = matchKernels(details.launches, [{ name: 'vllm::rms_norm_kernel', language: 'cuda' }, { name: 'rms_norm_kernel', language: 'cuda' }], { aggregate: true });
      assert.equal(qualified.kernels[0].groups.length, 1);
      assert.equal(qualified.kernels[1].groups.length, 0);
    });

    it('bad overrides are reported, not applied', () => {
      const m = matchKernels(raw.launches, SOURCES, { aggregate: true, overrides: { add_kernel: 'nope.cu:add_kernel', sgemm_kernel: 'add_kernel', ghost: 'kernels/sgemm.cu:sgemm_kernel' } });
      assert.deepEqual(codes(m).sort(), ['ambiguous', 'overrideAmbiguous', 'overrideUnknown', 'overrideUnused', 'unmatched']);
    });
  });

  describe('classification', () => {
    const roof: RoofEstimate = { attainableFlops: 50e12, arithmeticIntensity: 10, compulsoryIntensity: 20, peakFlops: 100e12, memoryBandwidth: 2e12, ridgePoint: 50 };

    it('the four situations, with the 70 % threshold inclusive', () => {
      // Intensity 10 < ridge 50: memory side; the roof is 2e12 × 10 = 20e12 FLOP/s.
      assert.equal(classify({ flops: 14e12, bytes: 1.4e12, seconds: 1 }, roof).situation, 'memory-bound');
      assert.equal(classify({ flops: 13.9e12, bytes: 1.39e12, seconds: 1 }, roof).situation, 'memory-intensive');
      // Intensity 100 > ridge 50: compute side; the roof is the peak.
      assert.equal(classify({ flops: 70e12, bytes: 0.7e12, seconds: 1 }, roof).situation, 'compute-bound');
      assert.equal(classify({ flops: 30e12, bytes: 0.3e12, seconds: 1 }, roof).situation, 'compute-intensive');
      assert.equal(ON_ROOF_FRACTION, 0.7);
      const c = classify({ flops: 14e12, bytes: 1.4e12, seconds: 1 }, roof);
      near(c.fractionOfRoof, 0.7);
      near(c.roof, 20e12);
      near(c.fractionOfEstimate, 14 / 50);
      assert.ok(c.advice.some((a) => a.includes('Fuse')));
      assert.ok(classify({ flops: 30e12, bytes: 0.3e12, seconds: 1 }, roof).advice.some((a) => a.includes('num_stages')));
      assert.ok(classify({ flops: 13.9e12, bytes: 1.39e12, seconds: 1 }, roof).advice.some((a) => a.includes('Coalesce')));
    });

    it('kernels without FLOPs sit on the memory side; no DRAM traffic is the compute side', () => {
      const copy = classify({ flops: 0, bytes: 1.8e12, seconds: 1 }, roof);
      assert.deepEqual([copy.side, copy.situation], ['memory', 'memory-bound']);
      near(copy.fractionOfRoof, 0.9);
      const cached = classify({ flops: 80e12, bytes: 0, seconds: 1 }, roof);
      assert.deepEqual([cached.side, cached.situation, cached.achievedIntensity], ['compute', 'compute-bound', null]);
    });

    it('unknown when time, FLOPs or bytes are missing, with the reason', () => {
      assert.equal(classify({ flops: 1, bytes: 1 }, roof).reason, 'no kernel time');
      assert.equal(classify({ bytes: 1, seconds: 1 }, roof).reason, 'FLOPs unknown');
      const noBytes = classify({ flops: 1e12, seconds: 1 }, roof);
      assert.deepEqual([noBytes.situation, noBytes.reason, noBytes.achievedFlops], ['unknown', 'DRAM bytes unknown', 1e12]);
    });

    it('flags a dot above the roof and traffic far above the compulsory minimum', () => {
      const above = classify({ flops: 150e12, bytes: 1e12, seconds: 1 }, roof);
      assert.ok(above.advice.some((a) => a.includes('1.5× the roof')), above.advice.join('\n'));
      const reread = classify({ flops: 1e12, bytes: 1e12, seconds: 1 }, roof);
      assert.ok(reread.advice.some((a) => a.includes('20× the compulsory minimum')), reread.advice.join('\n'));
    });

    it('estimate vs measurement: ratios per launch, notes outside [0.8, 1.25]', () => {
      const e: EstimatePerLaunch = { flops: 1e9, bytes: 4e9, compulsoryBytes: 1e9 };
      const agree = compareEstimate({ flops: 2e9, dramBytes: 7e9, l2Bytes: 8e9, invocations: 2 }, e);
      assert.deepEqual([agree.flopsRatio, agree.bytesRatio, agree.compulsoryRatio, agree.l2Ratio], [1, 0.875, 3.5, 1]);
      assert.equal(agree.notes.length, 1);
      assert.match(agree.notes[0], /3\.5× the compulsory minimum/);
      const gap = compareEstimate({ flops: 0.5e9, dramBytes: 1e9 }, e);
      assert.match(gap.notes.join('\n'), /50 % of the estimate.*masked tails/s);
      assert.match(gap.notes.join('\n'), /25 % of the bytes the tiles request: cache reuse/);
      assert.match(gap.notes.join('\n'), /compulsory minimum: every element/);
      const more = compareEstimate({ flops: 3e9, dramBytes: 9e9 }, e);
      assert.match(more.notes.join('\n'), /3\.0× the estimate: the GPU executes more/);
      assert.match(more.notes.join('\n'), /uncoalesced/);
      const proton = compareEstimate({ flops: 1e9, origin: { flops: 'launch-metadata', bytes: 'launch-metadata' } }, e);
      assert.match(proton.notes[0], /two estimates/);
      assert.deepEqual([AGREEMENT.low, AGREEMENT.high], [0.8, 1.25]);
      assert.deepEqual([fmtRatio(0.034), fmtRatio(0.004), fmtRatio(2.54), fmtRatio(31.6)], ['3 % of', '0.004 % of', '2.5×', '32×']);
    });
  });

  describe('golden outputs', () => {
    const cases: [string, Record<string, KernelEstimate> | null][] = [
      ['h100_raw.csv', H100_ESTIMATES],
      ['a100_details.csv', A100_ESTIMATES],
      ['proton_h100.json', H100_ESTIMATES],
      ['bad/nsys_kern_sum.csv', null],
      ['bad/truncated_raw.csv', null],
      ['bad/missing_metrics.csv', H100_ESTIMATES],
      ['bad/unknown_units.csv', null],
      ['bad/truncated_proton.json', null],
      ['bad/proton_trace.json', null],
    ];
    for (const [file, estimates] of cases)
      it(file, () => {
        const r = parseProfile(read(file));
        golden(file.replace(/\//g, '_').replace(/\.\w+$/, '.json'), estimates ? fullRun(r, estimates) : { import: r });
      });

    it('the fixtures show all four situations', () => {
      const seen = new Set<string>();
      for (const [file, estimates] of cases.slice(0, 3))
        for (const a of fullRun(parseProfile(read(file)), estimates!).assessments) if (a.classification) seen.add(a.classification.situation);
      for (const s of ['memory-bound', 'memory-intensive', 'compute-bound', 'compute-intensive']) assert.ok(seen.has(s), `${s} in ${[...seen]}`);
    });
  });
});

