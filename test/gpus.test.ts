import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadGpuFile } from '../src/cli/gpus';
import { CATALOG_IDS, DEFAULT_GPU_ID, findGpu, GPU_CATALOG } from '../src/core/gpus/catalog';
import type { GpuSpec } from '../src/core/gpus/types';
import { GPU_FILE_FORMAT, GPU_ID_PATTERN, validateGpu, validateGpuFile, validateGpuList } from '../src/core/gpus/validate';
import { readSettings, type RawSettings } from '../src/extension/settings';

/** The built-in table as its file holds it, parsed the way a `--gpu-file` is. */
const TABLE_FILE = path.join(__dirname, '..', 'src', 'core', 'gpus', 'gpus.json');
const readTable = (): { format: unknown; version: unknown; gpus: Record<string, unknown>[] } => JSON.parse(fs.readFileSync(TABLE_FILE, 'utf8'));

const REQUIRED_IDS = [
  'h100-sxm',
  'h100-pcie',
  'h200',
  'b200',
  'gb200',
  'a100-sxm-80gb',
  'a100-40gb',
  'l40s',
  'l40',
  'l4',
  'a10',
  'rtx-4090',
  'rtx-5090',
  't4',
  'v100',
  'mi300x',
  'mi250x',
  'mi325x',
];

function gpu(id: string): GpuSpec {
  const g = GPU_CATALOG.gpus.find((x) => x.id === id);
  assert.ok(g, `catalog has ${id}`);
  return g;
}

function allPeaks(g: GpuSpec): [string, number][] {
  const out: [string, number][] = [];
  for (const [d, v] of Object.entries(g.peaks.tensor)) out.push([`tensor.${d}`, v as number]);
  for (const [d, v] of Object.entries(g.peaks.vector)) out.push([`vector.${d}`, v as number]);
  return out;
}

const close = (actual: number, expected: number, tol: number, what: string): void =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: expected ${expected} ± ${tol}, got ${actual}`);

/** A valid custom GPU, fresh each call. */
function goodCustom(): Record<string, unknown> {
  return {
    id: 'my-gpu',
    name: 'My GPU',
    memoryBandwidth: 1.5e12,
    peaks: { tensor: { fp16: 200e12 }, vector: { fp32: 25e12 } },
  };
}

describe('GPU catalog', () => {
  describe('table shape', () => {
    it('has a version and every required id, each exactly once', () => {
      assert.equal(typeof GPU_CATALOG.version, 'string');
      assert.match(GPU_CATALOG.version, /^\d{4}\.\d+\.\d+$/);
      const ids = GPU_CATALOG.gpus.map((g) => g.id);
      assert.equal(new Set(ids).size, ids.length, 'ids are unique');
      for (const id of REQUIRED_IDS) assert.ok(ids.includes(id), `missing ${id}`);
    });

    it('ids match the id pattern, names and architectures are non-empty', () => {
      for (const g of GPU_CATALOG.gpus) {
        assert.match(g.id, GPU_ID_PATTERN, g.id);
        assert.match(g.id, /^[a-z0-9][a-z0-9-]{0,63}$/, g.id);
        assert.ok(g.name.trim().length > 0, `${g.id} name`);
        assert.ok(g.architecture.trim().length > 0, `${g.id} architecture`);
        assert.ok(['nvidia', 'amd'].includes(g.vendor), `${g.id} vendor`);
      }
      assert.equal(gpu('h100-sxm').name, 'H100 SXM');
    });

    it('the default GPU is H100 SXM and is in the table', () => {
      assert.equal(DEFAULT_GPU_ID, 'h100-sxm');
      assert.equal(findGpu(DEFAULT_GPU_ID)?.id, 'h100-sxm');
    });

    it('the table is frozen', () => {
      assert.ok(Object.isFrozen(GPU_CATALOG.gpus));
      assert.ok(Object.isFrozen(gpu('h100-sxm').peaks.tensor));
    });
  });

  describe('units and plausibility', () => {
    it('every number is finite and in a plausible range (bytes/s, FLOP/s)', () => {
      for (const g of GPU_CATALOG.gpus) {
        assert.ok(Number.isFinite(g.memoryBandwidth), `${g.id} memoryBandwidth finite`);
        // 100 GB/s .. 20 TB/s: catches GB/s or TB/s typed as bytes/s.
        assert.ok(g.memoryBandwidth >= 1e11 && g.memoryBandwidth <= 2e13, `${g.id} memoryBandwidth ${g.memoryBandwidth}`);
        if (g.l2Bandwidth !== null) {
          assert.ok(Number.isFinite(g.l2Bandwidth), `${g.id} l2 finite`);
          assert.ok(g.l2Bandwidth >= 1e12 && g.l2Bandwidth <= 1e14, `${g.id} l2Bandwidth ${g.l2Bandwidth}`);
          assert.ok(g.l2Bandwidth > g.memoryBandwidth, `${g.id}: L2 faster than DRAM`);
        }
        const peaks = allPeaks(g);
        assert.ok(peaks.length >= 2, `${g.id} has peaks`);
        for (const [k, v] of peaks) {
          assert.ok(Number.isFinite(v), `${g.id} ${k} finite`);
          // 1 TFLOP/s .. 10 PFLOP/s: catches TFLOP/s typed as FLOP/s.
          assert.ok(v >= 1e12 && v <= 1e16, `${g.id} ${k} = ${v}`);
        }
      }
    });

    it('catches TB/s vs B/s mistakes on known parts', () => {
      const h = gpu('h100-sxm');
      assert.ok(h.memoryBandwidth > 3e12 && h.memoryBandwidth < 4e12, `H100 SXM ${h.memoryBandwidth}`);
      assert.equal(h.memoryBandwidth, 3.35e12);
      close(gpu('a100-sxm-80gb').memoryBandwidth, 2.039e12, 1e9, 'A100 80GB bandwidth');
      close(gpu('a100-40gb').memoryBandwidth, 1.555e12, 1e9, 'A100 40GB bandwidth');
      close(gpu('h200').memoryBandwidth, 4.8e12, 1e9, 'H200 bandwidth');
      close(gpu('mi300x').memoryBandwidth, 5.3e12, 1e9, 'MI300X bandwidth');
      close(gpu('rtx-4090').memoryBandwidth, 1.008e12, 1e9, 'RTX 4090 bandwidth');
      close(gpu('l4').memoryBandwidth, 300e9, 1e9, 'L4 bandwidth');
    });

    it('catches TFLOP/s vs FLOP/s mistakes on known parts', () => {
      const h = gpu('h100-sxm');
      close(h.peaks.tensor.bf16 ?? 0, 989.4e12, 1e12, 'H100 SXM bf16 tensor');
      close(h.peaks.tensor.fp16 ?? 0, 989.4e12, 1e12, 'H100 SXM fp16 tensor');
      close(h.peaks.tensor.tf32 ?? 0, 494.7e12, 1e12, 'H100 SXM tf32 tensor');
      close(h.peaks.tensor.fp8 ?? 0, 1978.9e12, 1e12, 'H100 SXM fp8 tensor');
      close(h.peaks.tensor.int8 ?? 0, 1978.9e12, 1e12, 'H100 SXM int8 tensor');
      close(h.peaks.tensor.fp64 ?? 0, 66.9e12, 0.2e12, 'H100 SXM fp64 tensor');
      close(h.peaks.vector.fp32 ?? 0, 66.9e12, 0.2e12, 'H100 SXM fp32 vector');
      close(h.peaks.vector.fp64 ?? 0, 33.5e12, 0.2e12, 'H100 SXM fp64 vector');
      close(gpu('a100-sxm-80gb').peaks.vector.fp16 ?? 0, 78e12, 0.5e12, 'A100 non-tensor fp16');
      close(gpu('mi300x').peaks.tensor.fp16 ?? 0, 1307.4e12, 1e12, 'MI300X fp16 matrix');
    });
  });

  describe('ridge points (peak ÷ DRAM bandwidth, FLOP/B)', () => {
    it('H100 SXM: bf16 tensor ≈ 295, fp32 vector ≈ 20', () => {
      const h = gpu('h100-sxm');
      close((h.peaks.tensor.bf16 ?? 0) / h.memoryBandwidth, 295, 2, 'H100 SXM bf16 ridge');
      close((h.peaks.vector.fp32 ?? 0) / h.memoryBandwidth, 20, 1, 'H100 SXM fp32 ridge');
    });

    it('A100 SXM 80GB: bf16 tensor ≈ 153 (312e12 / 2.039e12)', () => {
      const a = gpu('a100-sxm-80gb');
      close((a.peaks.tensor.bf16 ?? 0) / a.memoryBandwidth, 153, 1, 'A100 bf16 ridge');
      close((a.peaks.vector.fp32 ?? 0) / a.memoryBandwidth, 9.56, 0.1, 'A100 fp32 ridge');
    });

    it('RTX 4090 fp16 uses the FP32-accumulate figure: ridge ≈ 164, not 328', () => {
      const r = gpu('rtx-4090');
      close(r.peaks.tensor.fp16 ?? 0, 165.2e12, 0.1e12, 'RTX 4090 fp16 (fp32 accumulate)');
      close((r.peaks.tensor.fp16 ?? 0) / r.memoryBandwidth, 164, 1, 'RTX 4090 fp16 ridge');
      assert.ok((r.notes ?? []).some((n) => /FP32-accumulate/i.test(n)), 'RTX 4090 notes mention FP32 accumulate');
      close(gpu('rtx-5090').peaks.tensor.bf16 ?? 0, 209.5e12, 0.1e12, 'RTX 5090 bf16 (fp32 accumulate)');
    });

    it('every GPU with a known L2 bandwidth has a smaller L2 ridge than DRAM ridge', () => {
      for (const g of GPU_CATALOG.gpus) {
        if (g.l2Bandwidth === null) continue;
        const peak = g.peaks.tensor.fp16 ?? g.peaks.vector.fp32 ?? 0;
        assert.ok(peak / g.l2Bandwidth < peak / g.memoryBandwidth, g.id);
      }
    });
  });

  describe('dense, not sparse', () => {
    it('every tensor fp16 peak is at least the vector fp32 peak', () => {
      for (const g of GPU_CATALOG.gpus) {
        const t = g.peaks.tensor.fp16;
        const v = g.peaks.vector.fp32;
        assert.ok(t !== undefined, `${g.id} has a tensor fp16 peak`);
        assert.ok(v !== undefined, `${g.id} has a vector fp32 peak`);
        assert.ok(t >= v, `${g.id}: tensor fp16 ${t} < vector fp32 ${v}`);
      }
    });

    it('dense peaks are not the datasheet sparsity figures', () => {
      assert.ok((gpu('h100-sxm').peaks.tensor.bf16 ?? Infinity) < 1.2e15, 'H100 SXM bf16 is dense');
      assert.ok((gpu('h100-sxm').peaks.tensor.fp8 ?? Infinity) < 2.5e15, 'H100 SXM fp8 is dense');
      assert.ok((gpu('h100-pcie').peaks.tensor.bf16 ?? Infinity) < 0.9e15, 'H100 PCIe bf16 is dense');
      assert.ok((gpu('h200').peaks.tensor.bf16 ?? Infinity) < 1.2e15, 'H200 bf16 is dense');
      assert.ok((gpu('b200').peaks.tensor.bf16 ?? Infinity) < 3e15, 'B200 bf16 is dense');
      assert.ok((gpu('gb200').peaks.tensor.bf16 ?? Infinity) < 3e15, 'GB200 bf16 is dense');
      assert.ok((gpu('a100-sxm-80gb').peaks.tensor.bf16 ?? Infinity) < 400e12, 'A100 bf16 is dense');
      assert.ok((gpu('l40s').peaks.tensor.fp16 ?? Infinity) < 400e12, 'L40S fp16 is dense');
      assert.ok((gpu('l4').peaks.tensor.fp16 ?? Infinity) < 150e12, 'L4 fp16 is dense');
      assert.ok((gpu('mi300x').peaks.tensor.fp8 ?? Infinity) < 3e15, 'MI300X fp8 is dense');
    });

    it('tensor peaks are ordered the way the hardware is: tf32 < fp16 = bf16 ≤ fp8', () => {
      for (const g of GPU_CATALOG.gpus) {
        const { tf32, fp16, bf16, fp8 } = g.peaks.tensor;
        if (tf32 !== undefined && fp16 !== undefined) assert.ok(tf32 < fp16, `${g.id} tf32 < fp16`);
        if (bf16 !== undefined && fp16 !== undefined) assert.equal(bf16, fp16, `${g.id} bf16 = fp16`);
        if (fp8 !== undefined && fp16 !== undefined) assert.ok(fp8 >= fp16, `${g.id} fp8 >= fp16`);
      }
    });

    it('fp64 tensor peaks only on parts with fp64 matrix units', () => {
      const withFp64 = GPU_CATALOG.gpus.filter((g) => g.peaks.tensor.fp64 !== undefined).map((g) => g.id).sort();
      assert.deepEqual(withFp64, ['a100-40gb', 'a100-sxm-80gb', 'b200', 'gb200', 'h100-pcie', 'h100-sxm', 'h200', 'mi250x', 'mi300x', 'mi325x']);
    });
  });

  describe('sources', () => {
    it('every GPU cites its bandwidth and peaks, and its L2 bandwidth when known', () => {
      for (const g of GPU_CATALOG.gpus) {
        for (const key of ['memoryBandwidth', 'peaks.tensor', 'peaks.vector']) {
          const s = g.sources[key];
          assert.ok(typeof s === 'string' && s.length > 10, `${g.id} sources.${key}`);
          assert.match(s, /https?:\/\//, `${g.id} sources.${key} has a URL`);
        }
        if (g.l2Bandwidth !== null) {
          assert.match(g.sources.l2Bandwidth ?? '', /https?:\/\//, `${g.id} sources.l2Bandwidth`);
        } else {
          assert.equal(g.sources.l2Bandwidth, undefined, `${g.id}: no L2 source without an L2 number`);
        }
      }
    });

    it('halved sparse figures are called out in notes', () => {
      for (const id of ['h100-sxm', 'h100-pcie', 'h200', 'b200', 'gb200', 'l4']) {
        assert.ok((gpu(id).notes ?? []).some((n) => /sparsity/i.test(n) && /half/i.test(n)), `${id} notes`);
      }
    });
  });

  describe('findGpu', () => {
    it('finds ids case-insensitively', () => {
      assert.equal(findGpu('h100-sxm')?.id, 'h100-sxm');
      assert.equal(findGpu('H100-SXM')?.id, 'h100-sxm');
      assert.equal(findGpu('  MI300X ')?.id, 'mi300x');
      for (const id of REQUIRED_IDS) assert.equal(findGpu(id.toUpperCase())?.id, id);
    });

    it('resolves common aliases and display names', () => {
      assert.equal(findGpu('h100')?.id, 'h100-sxm');
      assert.equal(findGpu('H100')?.id, 'h100-sxm');
      assert.equal(findGpu('a100')?.id, 'a100-sxm-80gb');
      assert.equal(findGpu('4090')?.id, 'rtx-4090');
      assert.equal(findGpu('RTX 4090')?.id, 'rtx-4090');
      assert.equal(findGpu('5090')?.id, 'rtx-5090');
      assert.equal(findGpu('H100 SXM')?.id, 'h100-sxm');
      assert.equal(findGpu('a100_40gb')?.id, 'a100-40gb');
      assert.equal(findGpu('NVIDIA L40S')?.id, 'l40s');
    });

    it('returns undefined for unknown or odd input', () => {
      assert.equal(findGpu('tpu-v5'), undefined);
      assert.equal(findGpu(''), undefined);
      assert.equal(findGpu('x'.repeat(10_000)), undefined);
      assert.equal(findGpu(null as unknown as string), undefined);
      assert.equal(findGpu(42 as unknown as string), undefined);
    });
  });

  describe('validateGpu', () => {
    it('accepts a good custom GPU and defaults vendor, architecture, l2, sources', () => {
      const { gpu: g, errors } = validateGpu(goodCustom(), 'customGpus[0]');
      assert.deepEqual(errors, []);
      assert.ok(g);
      assert.equal(g.id, 'my-gpu');
      assert.equal(g.vendor, 'custom');
      assert.equal(g.l2Bandwidth, null);
      assert.deepEqual(g.sources, {});
      assert.equal(g.peaks.tensor.fp16, 200e12);
      assert.equal(g.peaks.vector.fp32, 25e12);
    });

    it('accepts a full object, including a catalog entry round-tripped through JSON', () => {
      const copy: unknown = JSON.parse(JSON.stringify(gpu('h100-sxm')));
      const { gpu: g, errors } = validateGpu(copy);
      assert.deepEqual(errors, []);
      assert.equal(g?.vendor, 'nvidia');
      assert.equal(g?.l2Bandwidth, 9.7e12);
      assert.deepEqual(g?.peaks, gpu('h100-sxm').peaks);
      assert.equal(validateGpu({ ...goodCustom(), vendor: 'NVIDIA' }).gpu?.vendor, 'nvidia');
    });

    it('names the field and shows the value for a TB/s string', () => {
      const bad = { ...goodCustom(), memoryBandwidth: '3.35 TB/s' };
      const { gpu: g, errors } = validateGpu(bad, 'customGpus[0]');
      assert.equal(g, undefined);
      assert.deepEqual(errors, ['customGpus[0].memoryBandwidth: expected bytes/s as a number > 0, got "3.35 TB/s"']);
    });

    it('rejects numbers in the wrong unit with a hint', () => {
      const bad = { ...goodCustom(), memoryBandwidth: 3.35, peaks: { tensor: { bf16: 989.4 } } };
      const { errors } = validateGpu(bad, 'customGpus[1]');
      assert.equal(errors.length, 2);
      assert.match(errors[0] ?? '', /^customGpus\[1\]\.memoryBandwidth: expected bytes\/s between 1e9 and 1e14, got 3\.35 \(looks like TB\/s/);
      assert.match(errors[1] ?? '', /^customGpus\[1\]\.peaks\.tensor\.bf16: expected FLOP\/s between .* got 989\.4 \(looks like TFLOP\/s/);
    });

    it('rejects bad ids, missing fields, non-finite and negative numbers, unknown dtypes and fields', () => {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ ...goodCustom(), id: 'My GPU' }, /^gpu\.id: /],
        [{ ...goodCustom(), id: '-leading-dash' }, /^gpu\.id: /],
        [{ ...goodCustom(), id: 'a'.repeat(65) }, /^gpu\.id: /],
        [{ ...goodCustom(), name: undefined }, /^gpu\.name: /],
        [{ ...goodCustom(), memoryBandwidth: Infinity }, /^gpu\.memoryBandwidth: .*finite/],
        [{ ...goodCustom(), memoryBandwidth: Number.NaN }, /^gpu\.memoryBandwidth: /],
        [{ ...goodCustom(), memoryBandwidth: -1e12 }, /^gpu\.memoryBandwidth: /],
        [{ ...goodCustom(), memoryBandwidth: 1e15 }, /^gpu\.memoryBandwidth: .*between/],
        [{ ...goodCustom(), l2Bandwidth: '7 TB/s' }, /^gpu\.l2Bandwidth: /],
        [{ ...goodCustom(), peaks: { tensor: { fp4: 1e15 } } }, /^gpu\.peaks\.tensor\.fp4: unknown tensor dtype/],
        [{ ...goodCustom(), peaks: { vector: { fp32: 1e18 } } }, /^gpu\.peaks\.vector\.fp32: .*between 1e9 and 1e17/],
        [{ ...goodCustom(), peaks: {} }, /^gpu\.peaks: expected at least one peak/],
        [{ ...goodCustom(), peaks: { tensor: {}, vector: {} } }, /^gpu\.peaks: expected at least one peak/],
        [{ ...goodCustom(), peaks: undefined }, /^gpu\.peaks: /],
        [{ ...goodCustom(), vendor: 'acme' }, /^gpu\.vendor: /],
        [{ ...goodCustom(), vendor: 42 }, /^gpu\.vendor: /],
        [{ ...goodCustom(), memoryBandwith: 1e12 }, /^gpu\.memoryBandwith: unknown field/],
        [{ ...goodCustom(), notes: 'not an array' }, /^gpu\.notes: /],
        [{ ...goodCustom(), sources: { memoryBandwidth: 42 } }, /^gpu\.sources\.memoryBandwidth: /],
      ];
      for (const [input, re] of cases) {
        const { gpu: g, errors } = validateGpu(input, 'gpu');
        assert.equal(g, undefined, `rejected: ${JSON.stringify(input)}`);
        assert.ok(errors.length >= 1, `has errors: ${JSON.stringify(input)}`);
        assert.ok(errors.some((e) => re.test(e)), `${re} in ${JSON.stringify(errors)}`);
      }
    });

    it('rejects huge strings and objects with more than 1000 keys', () => {
      const longName = validateGpu({ ...goodCustom(), name: 'x'.repeat(1001) });
      assert.equal(longName.gpu, undefined);
      assert.match(longName.errors[0] ?? '', /^name: string too long \(1001 characters/);
      assert.ok(!longName.errors[0]?.includes('xxxxxxxxxx'), 'does not echo the huge string');

      const hugeId = validateGpu({ ...goodCustom(), id: 'x'.repeat(1_000_000) });
      assert.equal(hugeId.gpu, undefined);
      assert.ok((hugeId.errors[0] ?? '').length < 300, 'message stays short');

      const many: Record<string, unknown> = goodCustom();
      for (let i = 0; i < 1001; i++) many[`k${i}`] = i;
      const r = validateGpu(many, 'customGpus[2]');
      assert.equal(r.gpu, undefined);
      assert.deepEqual(r.errors, ['customGpus[2]: too many keys (1005; at most 1000)']);

      const tensor: Record<string, number> = {};
      for (let i = 0; i < 2000; i++) tensor[`d${i}`] = 1e12;
      const r2 = validateGpu({ ...goodCustom(), peaks: { tensor } });
      assert.equal(r2.gpu, undefined);
      assert.ok(r2.errors.some((e) => /^peaks\.tensor: too many keys/.test(e)));
    });

    it('never throws, on any input', () => {
      const cyclic: Record<string, unknown> = { ...goodCustom() };
      cyclic.self = cyclic;
      (cyclic.peaks as Record<string, unknown>).loop = cyclic;
      const throwing = new Proxy(
        {},
        {
          ownKeys() {
            throw new Error('boom');
          },
          get() {
            throw new Error('boom');
          },
        },
      );
      const getter = Object.defineProperty({ ...goodCustom() }, 'memoryBandwidth', {
        enumerable: true,
        get() {
          throw new Error('getter');
        },
      });
      const inputs: unknown[] = [
        null,
        undefined,
        [],
        [goodCustom()],
        'h100',
        'x'.repeat(1_000_000),
        42,
        Number.NaN,
        true,
        Symbol('s'),
        () => 1,
        10n,
        cyclic,
        throwing,
        getter,
        Object.create(null),
        { __proto__: { id: 'evil' } },
      ];
      for (const input of inputs) {
        let result: { gpu?: GpuSpec; errors: string[] } | undefined;
        assert.doesNotThrow(() => {
          result = validateGpu(input, 'customGpus[0]');
        });
        assert.ok(result);
        assert.equal(result.gpu, undefined);
        assert.ok(result.errors.length >= 1);
        for (const e of result.errors) {
          assert.equal(typeof e, 'string');
          assert.ok(e.startsWith('customGpus[0]'), e);
          assert.ok(e.length < 500, 'short messages');
        }
      }
      assert.match(validateGpu(null, 'customGpus[0]').errors[0] ?? '', /^customGpus\[0\]: expected a GPU object .* got null$/);
      assert.match(validateGpu([], 'customGpus[0]').errors[0] ?? '', /got an array of 0 items$/);
      assert.match(validateGpu(cyclic, 'customGpus[0]').errors.join('\n'), /customGpus\[0\]\.self: unknown field/);
    });

    it('the accepted GPU is a fresh copy (no shared references to the input)', () => {
      const input = goodCustom();
      const { gpu: g } = validateGpu(input);
      assert.ok(g);
      ((input.peaks as Record<string, Record<string, number>>).tensor as Record<string, number>).fp16 = 1;
      assert.equal(g.peaks.tensor.fp16, 200e12);
    });
  });

  describe('one format, one validator: the built-in table, --gpu-file and rooflineLens.customGpus', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'roofline-gpu-format-'));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const writeFile = (name: string, doc: unknown): string => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, JSON.stringify(doc));
      return file;
    };
    const settings = (customGpus: unknown): ReturnType<typeof readSettings> =>
      readSettings({ gpu: undefined, customGpus, bindings: {}, dtypes: {}, kernelLenses: true, loopLenses: true, diagnostics: true } satisfies RawSettings);

    it("the built-in table passes the validator, and the validator's output is the table", () => {
      const result = validateGpuFile(readTable());
      assert.deepEqual(result.errors, []);
      assert.equal(result.format, GPU_FILE_FORMAT);
      assert.equal(result.version, GPU_CATALOG.version);
      assert.equal(GPU_CATALOG.format, GPU_FILE_FORMAT);
      assert.deepEqual(result.gpus, GPU_CATALOG.gpus);
    });

    it('a user file or setting with the same entry validates identically (only the id differs)', () => {
      for (const entry of readTable().gpus) {
        const id = `my-${entry.id as string}`;
        const expected = { ...GPU_CATALOG.gpus.find((g) => g.id === entry.id), id };
        const fromFile = loadGpuFile(writeFile(`${id}.json`, { format: GPU_FILE_FORMAT, gpus: [{ ...entry, id }] }));
        assert.deepEqual(fromFile, [expected], `${id} from --gpu-file`);
        const fromArrayFile = loadGpuFile(writeFile(`${id}-array.json`, [{ ...entry, id }]));
        assert.deepEqual(fromArrayFile, [expected], `${id} from a --gpu-file array`);
        const fromSetting = settings([{ ...entry, id }]);
        assert.deepEqual(fromSetting.errors, []);
        assert.deepEqual(fromSetting.customGpus, [expected], `${id} from rooflineLens.customGpus`);
      }
    });

    it('the same entry under its catalogue id is refused by a user file and the setting, with one message', () => {
      const entry = readTable().gpus[0];
      assert.throws(() => loadGpuFile(writeFile('clash.json', [entry])), /gpus\[0\]\.id: "h100-sxm" is a catalogue GPU; give the custom GPU its own id/);
      assert.deepEqual(settings([entry]).errors, ['rooflineLens.customGpus[0].id: "h100-sxm" is a catalogue GPU; give the custom GPU its own id']);
      assert.deepEqual(validateGpuList([entry], 'gpus', CATALOG_IDS).errors, ['gpus[0].id: "h100-sxm" is a catalogue GPU; give the custom GPU its own id']);
    });

    it('a mistake in the table is caught with the message a user would get for the same mistake', () => {
      const table = readTable();
      const broken = { ...table, gpus: table.gpus.map((g, i) => (i === 1 ? { ...g, memoryBandwidth: 2.0 } : g)) };
      const builtIn = validateGpuFile(broken).errors;
      assert.equal(builtIn.length, 1);
      assert.match(builtIn[0], /^gpus\[1\]\.memoryBandwidth: expected bytes\/s between 1e9 and 1e14, got 2 \(looks like TB\/s/);
      const user = settings([{ ...table.gpus[1], id: 'mine', memoryBandwidth: 2.0 }]).errors;
      assert.deepEqual(user, [builtIn[0].replace('gpus[1]', 'rooflineLens.customGpus[0]')]);
      assert.throws(() => loadGpuFile(writeFile('unit.json', [{ ...table.gpus[1], id: 'mine', memoryBandwidth: 2.0 }])), (e: Error) => e.message.includes(builtIn[0].replace('gpus[1]', 'gpus[0]')));
      const twice = validateGpuFile({ ...table, gpus: [table.gpus[0], table.gpus[0]] }).errors;
      assert.deepEqual(twice, ['gpus[1].id: "h100-sxm" is defined twice (first at gpus[0])']);
    });

    it("the file's format and version are checked; other top-level fields are ignored", () => {
      const gpus = [{ id: 'lab', name: 'Lab', memoryBandwidth: 1e12, peaks: { vector: { fp32: 1e13 } } }];
      assert.deepEqual(validateGpuFile({ format: 1, version: 'lab-3', gpus, $comment: 'ours' }), { gpus: validateGpuList(gpus, 'gpus').gpus, errors: [], format: 1, version: 'lab-3' });
      assert.deepEqual(validateGpuFile({ format: 2, gpus }).errors, ['format: expected 1 (the GPU file format this version reads), got 2']);
      assert.deepEqual(validateGpuFile({ version: 3, gpus }).errors, ['version: expected a version string, got 3']);
      assert.deepEqual(validateGpuFile({ id: 'x' }).errors, ['expected a JSON array of GPUs or an object {"gpus": [...]}, got an object']);
      assert.deepEqual(validateGpuFile({ gpus: 'x' }).errors, ['expected a JSON array of GPUs or an object {"gpus": [...]}, got an object']);
      assert.throws(() => loadGpuFile(writeFile('format2.json', { format: 2, gpus })), /format: expected 1/);
    });

    it('a list reads at most 100 GPUs, under the same rule everywhere', () => {
      const many = Array.from({ length: 101 }, (_, i) => ({ id: `g${i}`, name: `G${i}`, memoryBandwidth: 1e12, peaks: { vector: { fp32: 1e13 } } }));
      const list = validateGpuList(many, 'rooflineLens.customGpus');
      assert.equal(list.gpus.length, 100);
      assert.deepEqual(list.errors, ['rooflineLens.customGpus: 101 GPUs, at most 100 allowed: only the first 100 are read']);
      assert.deepEqual(settings(many).errors, list.errors);
      assert.throws(() => loadGpuFile(writeFile('many.json', many)), /gpus: 101 GPUs, at most 100 allowed/);
    });
  });
});
