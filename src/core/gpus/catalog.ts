/**
 * The GPU table: DRAM and L2 bandwidth and dense peaks of the GPUs the
 * analysis knows, each number with the document it comes from.
 *
 * Rules (see docs/gpus.md):
 *  - Units: bandwidth in bytes/s, peaks in FLOP/s (int8: OP/s). Never TB/s or
 *    TFLOP/s in this file: 3.35 TB/s is written 3.35e12.
 *  - Dense peaks only. Where a datasheet prints structured-sparsity figures
 *    ("1,979 TFLOPS*, * with sparsity") the dense value is half of it and the
 *    entry's notes say so.
 *  - Peaks are the vendor's, i.e. at the boost clock; sustained clocks under
 *    load can be lower.
 *  - GeForce cards: fp16/bf16 (and fp8) tensor peaks are the FP32-accumulate
 *    figures (what Triton and cuBLAS use), half the FP16-accumulate ones.
 *  - l2Bandwidth only where a published measurement exists, else null.
 *
 * Pure data and pure functions: no I/O, nothing here throws on user input.
 */
import type { GpuCatalog, GpuSpec, TensorDtype, VectorDtype } from './types';

/** Bumped whenever a number changes. */
export const GPU_CATALOG_VERSION = '2026.11.2';

/** The GPU the analysis uses when none is configured. */
export const DEFAULT_GPU_ID = 'h100-sxm';

/** Ids are lowercase, dash-separated, at most 64 characters. */
export const GPU_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

// ---------------------------------------------------------------------------
// Sources (title + URL as published)
// ---------------------------------------------------------------------------

const SRC = {
  h100Datasheet:
    'NVIDIA H100 Tensor Core GPU datasheet, https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet (also https://www.nvidia.com/en-us/data-center/h100/)',
  hopperWhitepaper:
    'NVIDIA H100 Tensor Core GPU Architecture whitepaper (Hopper), https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper',
  h200:
    'NVIDIA H200 Tensor Core GPU datasheet / product specifications, https://www.nvidia.com/en-us/data-center/h200/',
  hgx:
    'NVIDIA HGX platform technical specifications, "Individual Blackwell GPU Specifications" (HGX B200 and GB200 NVL72 columns), https://www.nvidia.com/en-us/data-center/hgx/',
  gb200:
    'NVIDIA GB200 NVL72 specifications, https://www.nvidia.com/en-us/data-center/gb200-nvl72/',
  a100Datasheet:
    'NVIDIA A100 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf',
  ampereWhitepaper:
    'NVIDIA A100 Tensor Core GPU Architecture whitepaper, Table 1, https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf',
  adaWhitepaper:
    'NVIDIA Ada GPU Architecture whitepaper (v2.02), Appendix A, https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf',
  rtxBlackwellWhitepaper:
    'NVIDIA RTX Blackwell GPU Architecture whitepaper, Table 3, https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf',
  l40sDatasheet:
    'NVIDIA L40S GPU datasheet, https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413 (also https://www.nvidia.com/en-us/data-center/l40s/)',
  l40Datasheet:
    'NVIDIA L40 GPU datasheet, https://www.nvidia.com/en-us/data-center/l40/',
  l4Datasheet:
    'NVIDIA L4 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/l4/',
  a40Datasheet:
    'NVIDIA A40 GPU datasheet, https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf (also https://www.nvidia.com/en-us/data-center/a40/)',
  a10Datasheet:
    'NVIDIA A10 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/products/a10-gpu/',
  t4Datasheet:
    'NVIDIA T4 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/tesla-t4/',
  v100Datasheet:
    'NVIDIA Tesla V100 GPU datasheet (V100 SXM2), https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf (also https://www.nvidia.com/en-us/data-center/v100/)',
  mi300x:
    'AMD Instinct MI300X accelerator data sheet / specifications, https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html',
  mi325x:
    'AMD Instinct MI325X accelerator specifications, https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html',
  mi250x:
    'AMD Instinct MI250X accelerator specifications, https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html',
  gpuBenches: (file: string, what: string): string =>
    `Measured: te42kyfo/gpu-benches (D. Ernst, NHR@FAU) gpu-l2-cache benchmark, ${what}, https://github.com/te42kyfo/gpu-benches (gpu-l2-cache/${file})`,
} as const;

const NOTE_SPARSE_HALVED =
  'The datasheet prints tensor-core peaks with structured sparsity (marked *); the dense values here are half of them.';
const NOTE_BOOST = 'Peaks are the vendor figures at the boost clock; sustained clocks under load can be lower.';

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------

const GPUS: GpuSpec[] = [
  // ----------------------------------------------------------------- Hopper
  {
    id: 'h100-sxm',
    name: 'H100 SXM',
    vendor: 'nvidia',
    architecture: 'Hopper',
    memoryBandwidth: 3.35e12,
    l2Bandwidth: 9.7e12,
    peaks: {
      tensor: { fp16: 989.4e12, bf16: 989.4e12, tf32: 494.7e12, fp8: 1978.9e12, int8: 1978.9e12, fp64: 66.9e12 },
      vector: { fp32: 66.9e12, fp64: 33.5e12, fp16: 133.8e12, bf16: 133.8e12, int32: 33.5e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.h100Datasheet}: H100 SXM GPU memory bandwidth 3.35TB/s`,
      l2Bandwidth: SRC.gpuBenches(
        'h200.txt',
        'plateau 9.6-10.2 TB/s for 5-40 MB working sets, measured on H200, which has the same GH100 configuration (132 SMs, 50 MB L2, same clocks)',
      ),
      'peaks.tensor': `${SRC.hopperWhitepaper}: H100 SXM5 dense/sparse peaks (FP16/BF16 989.4/1978.9, TF32 494.7/989.4, FP8 and INT8 1978.9/3957.8, FP64 Tensor 66.9); matches ${SRC.h100Datasheet} halved (BF16 1,979* -> 989.5)`,
      'peaks.vector': `${SRC.hopperWhitepaper}: H100 SXM5 FP32 66.9, FP64 33.5, FP16/BF16 (non-Tensor) 133.8, INT32 33.5 TFLOPS/TOPS`,
    },
    notes: [
      NOTE_SPARSE_HALVED,
      NOTE_BOOST,
      'Whitepaper values (989.4 etc.) are used; the datasheet rounds them (989.5 = 1,979 / 2).',
      'L2 bandwidth was measured on an H200 (identical SM count, L2 and clocks), not on an H100 SXM.',
    ],
  },
  {
    id: 'h100-pcie',
    name: 'H100 PCIe',
    vendor: 'nvidia',
    architecture: 'Hopper',
    memoryBandwidth: 2.0e12,
    l2Bandwidth: 6.9e12,
    peaks: {
      tensor: { fp16: 756.5e12, bf16: 756.5e12, tf32: 378e12, fp8: 1513e12, int8: 1513e12, fp64: 51.2e12 },
      vector: { fp32: 51.2e12, fp64: 25.6e12, fp16: 102.4e12, bf16: 102.4e12, int32: 25.6e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.h100Datasheet}: H100 PCIe GPU memory bandwidth 2TB/s`,
      l2Bandwidth: SRC.gpuBenches('h100_pcie.txt', 'plateau 6.8-7.1 TB/s for 6-33 MB working sets on an H100 PCIe'),
      'peaks.tensor': `${SRC.h100Datasheet}: H100 PCIe BF16/FP16 1,513*, TF32 756*, FP8 and INT8 3,026* (with sparsity, halved here), FP64 Tensor 51; ${SRC.hopperWhitepaper}: FP64 Tensor 51.2`,
      'peaks.vector': `${SRC.hopperWhitepaper}: H100 PCIe FP32 51.2, FP64 25.6, FP16/BF16 (non-Tensor) 102.4, INT32 25.6 (datasheet rounds to FP32 51, FP64 26)`,
    },
    notes: [NOTE_SPARSE_HALVED, NOTE_BOOST],
  },
  {
    id: 'h200',
    name: 'H200 SXM',
    vendor: 'nvidia',
    architecture: 'Hopper',
    memoryBandwidth: 4.8e12,
    l2Bandwidth: 9.7e12,
    peaks: {
      tensor: { fp16: 989.5e12, bf16: 989.5e12, tf32: 494.5e12, fp8: 1979e12, int8: 1979e12, fp64: 67e12 },
      vector: { fp32: 67e12, fp64: 34e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.h200}: H200 SXM GPU memory bandwidth 4.8TB/s`,
      l2Bandwidth: SRC.gpuBenches('h200.txt', 'plateau 9.6-10.2 TB/s for 5-40 MB working sets on an H200'),
      'peaks.tensor': `${SRC.h200}: H200 SXM BF16/FP16 1,979*, TF32 989*, FP8 and INT8 3,958* (with sparsity, halved here), FP64 Tensor 67`,
      'peaks.vector': `${SRC.h200}: H200 SXM FP32 67, FP64 34 TFLOPS`,
    },
    notes: [
      NOTE_SPARSE_HALVED,
      NOTE_BOOST,
      'Same GH100 compute as H100 SXM (the whitepaper values 989.4 etc. apply); only memory differs (141 GB HBM3e).',
    ],
  },
  // -------------------------------------------------------------- Blackwell
  {
    id: 'b200',
    name: 'B200 (HGX)',
    vendor: 'nvidia',
    architecture: 'Blackwell',
    memoryBandwidth: 7.7e12,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 2.25e15, bf16: 2.25e15, tf32: 1.1e15, fp8: 4.5e15, int8: 4.5e15, fp64: 37e12 },
      vector: { fp32: 75e12, fp64: 37e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.hgx}: HGX B200 GPU memory 180GB HBM3E | 7.7TB/s`,
      'peaks.tensor': `${SRC.hgx}: HGX B200 per GPU FP16/BF16 4.5 PFLOPS*, TF32 2.2 PFLOPS*, FP8/FP6 9 PFLOPS*, INT8 9 POPS* (with sparsity, halved here), FP64/FP64 Tensor 37 TFLOPS`,
      'peaks.vector': `${SRC.hgx}: HGX B200 per GPU FP32 75 TFLOPS, FP64 37 TFLOPS`,
    },
    notes: [
      NOTE_SPARSE_HALVED,
      NOTE_BOOST,
      'HGX B200 (air/liquid, up to 1,000 W) per-GPU figures. Earlier NVIDIA material listed 8 TB/s, FP32 80 and FP64 40 TFLOPS for B200; the current HGX table is used.',
      'FP4/FP6 peaks are not modelled.',
    ],
  },
  {
    id: 'gb200',
    name: 'GB200 (per Blackwell GPU)',
    vendor: 'nvidia',
    architecture: 'Blackwell',
    memoryBandwidth: 8e12,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 2.5e15, bf16: 2.5e15, tf32: 1.25e15, fp8: 5e15, int8: 5e15, fp64: 40e12 },
      vector: { fp32: 80e12, fp64: 40e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.hgx}: GB200 NVL72 per GPU 186GB HBM3E | 8TB/s; ${SRC.gb200}: 16 TB/s per GB200 superchip (two GPUs)`,
      'peaks.tensor': `${SRC.hgx}: GB200 NVL72 per GPU FP16/BF16 5 PFLOPS*, TF32 2.5 PFLOPS*, FP8/FP6 10 PFLOPS*, INT8 10 POPS* (with sparsity, halved here), FP64/FP64 Tensor 40 TFLOPS`,
      'peaks.vector': `${SRC.hgx}: GB200 NVL72 per GPU FP32 80 TFLOPS, FP64 40 TFLOPS`,
    },
    notes: [
      NOTE_SPARSE_HALVED,
      NOTE_BOOST,
      'Per Blackwell GPU of a GB200 superchip (one Grace CPU + two GPUs, up to 1,200 W per GPU); superchip totals are twice these.',
      'The original GB200 NVL72 page listed FP64 90 TFLOPS per superchip (45 per GPU); the current per-GPU table says 40.',
    ],
  },
  // ----------------------------------------------------------------- Ampere
  {
    id: 'a100-sxm-80gb',
    name: 'A100 SXM 80GB',
    vendor: 'nvidia',
    architecture: 'Ampere',
    memoryBandwidth: 2.039e12,
    l2Bandwidth: 5.4e12,
    peaks: {
      tensor: { fp16: 312e12, bf16: 312e12, tf32: 156e12, int8: 624e12, fp64: 19.5e12 },
      vector: { fp32: 19.5e12, fp64: 9.7e12, fp16: 78e12, bf16: 39e12, int32: 19.5e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.a100Datasheet}: A100 80GB SXM GPU memory bandwidth 2,039GB/s`,
      l2Bandwidth: SRC.gpuBenches('a100_80.txt', 'plateau 5.3-5.5 TB/s for 2-28 MB working sets on an A100 80GB'),
      'peaks.tensor': `${SRC.a100Datasheet}: BFLOAT16/FP16 312 | 624*, TF32 156 | 312*, INT8 624 | 1,248* TOPS (* with sparsity), FP64 Tensor 19.5`,
      'peaks.vector': `${SRC.a100Datasheet}: FP32 19.5, FP64 9.7; ${SRC.ampereWhitepaper}: Peak FP16 (non-Tensor) 78, Peak BF16 (non-Tensor) 39, Peak INT32 19.5`,
    },
    notes: [
      'The datasheet prints dense and sparse tensor figures side by side (312 | 624*); the dense one is used.',
      NOTE_BOOST,
      'No FP8 tensor cores (fp8 falls back to fp16 in the analysis).',
    ],
  },
  {
    id: 'a100-40gb',
    name: 'A100 SXM 40GB',
    vendor: 'nvidia',
    architecture: 'Ampere',
    memoryBandwidth: 1.555e12,
    l2Bandwidth: 5.4e12,
    peaks: {
      tensor: { fp16: 312e12, bf16: 312e12, tf32: 156e12, int8: 624e12, fp64: 19.5e12 },
      vector: { fp32: 19.5e12, fp64: 9.7e12, fp16: 78e12, bf16: 39e12, int32: 19.5e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.a100Datasheet}: A100 40GB SXM GPU memory bandwidth 1,555GB/s`,
      l2Bandwidth: SRC.gpuBenches(
        'a100_80.txt',
        'plateau 5.3-5.5 TB/s measured on an A100 80GB, which has the same GA100 configuration (108 SMs, 40 MB L2, 1410 MHz boost)',
      ),
      'peaks.tensor': `${SRC.a100Datasheet}: BFLOAT16/FP16 312 | 624*, TF32 156 | 312*, INT8 624 | 1,248* TOPS (* with sparsity), FP64 Tensor 19.5`,
      'peaks.vector': `${SRC.a100Datasheet}: FP32 19.5, FP64 9.7; ${SRC.ampereWhitepaper}: Peak FP16 (non-Tensor) 78, Peak BF16 (non-Tensor) 39, Peak INT32 19.5`,
    },
    notes: [
      'The datasheet prints dense and sparse tensor figures side by side (312 | 624*); the dense one is used.',
      NOTE_BOOST,
      'L2 bandwidth was measured on the 80GB part (identical SMs, L2 and clocks), not on a 40GB one.',
    ],
  },
  {
    id: 'a10',
    name: 'A10',
    vendor: 'nvidia',
    architecture: 'Ampere',
    memoryBandwidth: 600e9,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 125e12, bf16: 125e12, tf32: 62.5e12, int8: 250e12 },
      vector: { fp32: 31.2e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.a10Datasheet}: GPU memory bandwidth 600GB/s`,
      'peaks.tensor': `${SRC.a10Datasheet}: BFLOAT16/FP16 Tensor Core 125 | 250* TF, TF32 62.5 | 125* TF, INT8 250 | 500* TOPS (* with sparsity)`,
      'peaks.vector': `${SRC.a10Datasheet}: FP32 31.2 TF`,
    },
    notes: [
      'The datasheet prints dense and sparse tensor figures side by side (125 | 250*); the dense one is used.',
      NOTE_BOOST,
      'The datasheet does not say which accumulate precision its FP16 figure assumes.',
    ],
  },
  // ------------------------------------------------------------------- Ada
  {
    id: 'l40s',
    name: 'L40S',
    vendor: 'nvidia',
    architecture: 'Ada Lovelace',
    memoryBandwidth: 864e9,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 362.05e12, bf16: 362.05e12, tf32: 183e12, fp8: 733e12, int8: 733e12 },
      vector: { fp32: 91.6e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.l40sDatasheet}: GPU memory bandwidth 864GB/s`,
      'peaks.tensor': `${SRC.l40sDatasheet}: BFLOAT16/FP16 Tensor Core 362.05 | 733* TFLOPS, TF32 183 | 366*, FP8 733 | 1,466*, INT8 733 | 1,466* TOPS (* with sparsity)`,
      'peaks.vector': `${SRC.l40sDatasheet}: FP32 91.6 TFLOPS`,
    },
    notes: [
      'The datasheet prints dense and sparse tensor figures side by side (362.05 | 733*); the dense one is used.',
      NOTE_BOOST,
      'The datasheet does not say whether its FP16/BF16 figure assumes FP16 or FP32 accumulate.',
      'No published L2 measurement for the L40S; the L40 (same AD102, 142 SMs) measures about 5.2 TB/s.',
    ],
  },
  {
    id: 'l40',
    name: 'L40',
    vendor: 'nvidia',
    architecture: 'Ada Lovelace',
    memoryBandwidth: 864e9,
    l2Bandwidth: 5.2e12,
    peaks: {
      tensor: { fp16: 181.05e12, bf16: 181.05e12, tf32: 90.5e12, fp8: 362e12, int8: 362e12 },
      vector: { fp32: 90.5e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.l40Datasheet}: GPU memory bandwidth 864GB/s`,
      l2Bandwidth: SRC.gpuBenches('l40.txt', 'plateau 5.1-5.3 TB/s for 2-92 MB working sets on an L40'),
      'peaks.tensor': `${SRC.l40Datasheet}: BFLOAT16/FP16 Tensor Core 181.05 | 362.1* TFLOPS, TF32 90.5 | 181*, FP8 362 | 724*, INT8 362 | 724* TOPS (* with sparsity)`,
      'peaks.vector': `${SRC.l40Datasheet}: FP32 90.5 TFLOPS`,
    },
    notes: [
      'The datasheet prints dense and sparse tensor figures side by side (181.05 | 362.1*); the dense one is used.',
      NOTE_BOOST,
    ],
  },
  {
    id: 'l4',
    name: 'L4',
    vendor: 'nvidia',
    architecture: 'Ada Lovelace',
    memoryBandwidth: 300e9,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 121e12, bf16: 121e12, tf32: 60e12, fp8: 242.5e12, int8: 242.5e12 },
      vector: { fp32: 30.3e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.l4Datasheet}: GPU memory bandwidth 300GB/s`,
      'peaks.tensor': `${SRC.l4Datasheet}: FP16/BFLOAT16 Tensor Core 242 TFLOPS*, TF32 120*, FP8 485*, INT8 485* TOPS (* with sparsity, halved here)`,
      'peaks.vector': `${SRC.l4Datasheet}: FP32 30.3 TFLOPS`,
    },
    notes: [
      NOTE_SPARSE_HALVED,
      NOTE_BOOST,
      'The L4 is a 72 W card: under sustained tensor load it usually runs well below its boost clock.',
      'The datasheet does not say whether its FP16/BF16 figure assumes FP16 or FP32 accumulate.',
    ],
  },
  {
    id: 'rtx-4090',
    name: 'GeForce RTX 4090',
    vendor: 'nvidia',
    architecture: 'Ada Lovelace',
    memoryBandwidth: 1008e9,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 165.2e12, bf16: 165.2e12, tf32: 82.6e12, fp8: 330.3e12, int8: 660.6e12 },
      vector: { fp32: 82.6e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.adaWhitepaper}: GeForce RTX 4090 Memory Bandwidth 1008 GB/sec`,
      'peaks.tensor': `${SRC.adaWhitepaper}: Peak FP16 and BF16 Tensor TFLOPS with FP32 Accumulate 165.2/330.4, Peak FP8 Tensor TFLOPS with FP32 Accumulate 330.3/660.6, Peak TF32 Tensor 82.6/165.2, Peak INT8 Tensor TOPS 660.6/1321.2 (dense/sparse)`,
      'peaks.vector': `${SRC.adaWhitepaper}: Peak FP32 TFLOPS (non-Tensor) 82.6`,
    },
    notes: [
      'GeForce: fp16/bf16/fp8 tensor peaks are the FP32-accumulate figures (what Triton and cuBLAS use), half the FP16-accumulate ones (fp16 330.3, fp8 660.6 dense).',
      'The whitepaper prints dense/sparse pairs; the dense (first) figure is used.',
      'No separate non-tensor FP16/BF16 peak is listed here; Ada runs them at the FP32 rate, which is what the fallback uses.',
      NOTE_BOOST,
    ],
  },
  {
    id: 'rtx-4080',
    name: 'GeForce RTX 4080',
    vendor: 'nvidia',
    architecture: 'Ada Lovelace',
    memoryBandwidth: 716.8e9,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 97.5e12, bf16: 97.5e12, tf32: 48.7e12, fp8: 194.9e12, int8: 389.9e12 },
      vector: { fp32: 48.7e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.adaWhitepaper}: GeForce RTX 4080 Memory Bandwidth 716.8 GB/sec (22.4 Gbps GDDR6X, 256-bit)`,
      'peaks.tensor': `${SRC.adaWhitepaper}: GeForce RTX 4080 Peak FP16 and BF16 Tensor TFLOPS with FP32 Accumulate 97.5/194.9, Peak FP8 Tensor TFLOPS with FP32 Accumulate 194.9/389.8, Peak TF32 Tensor 48.7/97.5, Peak INT8 Tensor TOPS 389.9/779.8 (dense/sparse)`,
      'peaks.vector': `${SRC.adaWhitepaper}: GeForce RTX 4080 Peak FP32 TFLOPS (non-Tensor) 48.7 (9728 CUDA cores × 2 × 2505 MHz)`,
    },
    notes: [
      'GeForce: fp16/bf16/fp8 tensor peaks are the FP32-accumulate figures (what Triton and cuBLAS use), half the FP16-accumulate ones (fp16 194.9, fp8 389.8 dense).',
      'The whitepaper prints dense/sparse pairs; the dense (first) figure is used.',
      'No separate non-tensor FP16/BF16 peak is listed here; Ada runs them at the FP32 rate, which is what the fallback uses.',
      NOTE_BOOST,
    ],
  },
  // ------------------------------------------------------ Blackwell GeForce
  {
    id: 'rtx-5090',
    name: 'GeForce RTX 5090',
    vendor: 'nvidia',
    architecture: 'Blackwell',
    memoryBandwidth: 1792e9,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 209.5e12, bf16: 209.5e12, tf32: 104.8e12, fp8: 419e12, int8: 838e12 },
      vector: { fp32: 104.8e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.rtxBlackwellWhitepaper}: GeForce RTX 5090 Memory Bandwidth 1792 GB/sec`,
      'peaks.tensor': `${SRC.rtxBlackwellWhitepaper}: Peak FP16/BF16 Tensor TFLOPS with FP32 Accumulate 209.5/419, Peak FP8 Tensor TFLOPS with FP32 Accumulate 419/838, Peak INT8 Tensor TOPS 838/1676 (dense/sparse); TF32 104.8 dense`,
      'peaks.vector': `${SRC.rtxBlackwellWhitepaper}: Peak FP32 TFLOPS (non-Tensor) 104.8`,
    },
    notes: [
      'GeForce: fp16/bf16/fp8 tensor peaks are the FP32-accumulate figures (what Triton and cuBLAS use), half the FP16-accumulate ones (fp16 419, fp8 838 dense).',
      'The whitepaper prints dense/sparse pairs; the dense (first) figure is used.',
      'TF32 is taken as half the FP32-accumulate FP16 rate (104.8), as on every GeForce generation; check against the whitepaper table.',
      NOTE_BOOST,
    ],
  },
  // ------------------------------------------------------ Ampere (GA102)
  {
    id: 'a40',
    name: 'A40',
    vendor: 'nvidia',
    architecture: 'Ampere',
    memoryBandwidth: 696e9,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 149.7e12, bf16: 149.7e12, tf32: 74.8e12, int8: 299.3e12 },
      vector: { fp32: 37.4e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.a40Datasheet}: GPU memory bandwidth 696 GB/s`,
      'peaks.tensor': `${SRC.a40Datasheet}: Peak FP16 Tensor and Peak BF16 Tensor 149.7 | 299.4* TFLOPS, Peak TF32 Tensor 74.8 | 149.6* TFLOPS, Peak INT8 Tensor 299.3 | 598.6* TOPS (dense | * with sparsity)`,
      'peaks.vector': `${SRC.a40Datasheet}: Peak FP32 37.4 TFLOPS`,
    },
    notes: [
      'The datasheet prints dense and sparse figures side by side ("149.7 | 299.4*"); the dense one is used.',
      NOTE_BOOST,
      'The datasheet does not say whether its FP16/BF16 figure assumes FP16 or FP32 accumulation.',
      'No FP8 tensor cores (Ampere): fp8 falls back to the fp16 tensor peak.',
    ],
  },
  // ------------------------------------------------------- Turing and Volta
  {
    id: 't4',
    name: 'T4',
    vendor: 'nvidia',
    architecture: 'Turing',
    memoryBandwidth: 320e9,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 65e12, int8: 130e12 },
      vector: { fp32: 8.1e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.t4Datasheet}: GPU memory bandwidth 320+ GB/s`,
      'peaks.tensor': `${SRC.t4Datasheet}: Mixed Precision (FP16/FP32) 65 TFLOPS, INT8 130 TOPS`,
      'peaks.vector': `${SRC.t4Datasheet}: Single-Precision 8.1 TFLOPS`,
    },
    notes: [
      'Turing has no structured sparsity: the datasheet figures are dense.',
      'No bf16, tf32 or fp8 tensor cores (those fall back to fp16 in the analysis).',
      'The T4 is a 70 W card: under sustained load it usually runs well below its 1590 MHz boost clock.',
    ],
  },
  {
    id: 'v100',
    name: 'V100 SXM2 32GB',
    vendor: 'nvidia',
    architecture: 'Volta',
    memoryBandwidth: 900e9,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 125e12 },
      vector: { fp32: 15.7e12, fp64: 7.8e12, fp16: 31.4e12, int32: 15.7e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.v100Datasheet}: V100 SXM2 memory bandwidth 900 GB/sec`,
      'peaks.tensor': `${SRC.v100Datasheet}: V100 SXM2 Tensor Performance 125 TFLOPS`,
      'peaks.vector': `${SRC.v100Datasheet}: V100 SXM2 Single-Precision 15.7 TFLOPS, Double-Precision 7.8 TFLOPS; ${SRC.ampereWhitepaper}: V100 column Peak FP16 TFLOPS (non-Tensor) 31.4, Peak INT32 TOPS 15.7`,
    },
    notes: [
      'Volta tensor cores are FP16-only (FP16 inputs, FP32 accumulate); no sparsity.',
      NOTE_BOOST,
      'No L2 measurement for the SXM2 part: published microbenchmarks (gpu-benches) are of a V100 PCIe at a lower clock.',
    ],
  },
  // -------------------------------------------------------------------- AMD
  {
    id: 'mi300x',
    name: 'Instinct MI300X',
    vendor: 'amd',
    architecture: 'CDNA 3',
    memoryBandwidth: 5.3e12,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 1307.4e12, bf16: 1307.4e12, tf32: 653.7e12, fp8: 2614.9e12, int8: 2614.9e12, fp64: 163.4e12 },
      vector: { fp32: 163.4e12, fp64: 81.7e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.mi300x}: Peak Memory Bandwidth 5.3 TB/s`,
      'peaks.tensor': `${SRC.mi300x}: Peak FP16 and BF16 1307.4 TFLOPs, TF32 653.7, FP8 2614.9, INT8 2614.9 TOPs (dense; sparsity figures are listed separately at 2x), FP64 Matrix 163.4`,
      'peaks.vector': `${SRC.mi300x}: Peak FP64 Vector 81.7 TFLOPs, FP32 Vector 163.4 TFLOPs`,
    },
    notes: [
      'AMD lists dense peaks and, separately, "with structured sparsity" peaks at twice the value; the dense ones are used.',
      NOTE_BOOST,
      'FP32 matrix peak (163.4) equals the FP32 vector peak; there is no separate entry for it.',
      'L2 is 4 MB per XCD (8 XCDs) backed by a 256 MB Infinity Cache (AMD: 17.2 TB/s peak); no per-device L2 measurement is used.',
    ],
  },
  {
    id: 'mi325x',
    name: 'Instinct MI325X',
    vendor: 'amd',
    architecture: 'CDNA 3',
    memoryBandwidth: 6e12,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 1307.4e12, bf16: 1307.4e12, tf32: 653.7e12, fp8: 2614.9e12, int8: 2614.9e12, fp64: 163.4e12 },
      vector: { fp32: 163.4e12, fp64: 81.7e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.mi325x}: Peak Memory Bandwidth 6 TB/s`,
      'peaks.tensor': `${SRC.mi325x}: Peak FP16 and BF16 1307.4 TFLOPs, TF32 653.7, FP8 2614.9, INT8 2614.9 TOPs (dense), FP64 Matrix 163.4`,
      'peaks.vector': `${SRC.mi325x}: Peak FP64 Vector 81.7 TFLOPs, FP32 Vector 163.4 TFLOPs`,
    },
    notes: [
      'AMD lists dense peaks and, separately, "with structured sparsity" peaks at twice the value; the dense ones are used.',
      NOTE_BOOST,
      'Same CDNA 3 compute as MI300X; 256 GB HBM3E.',
    ],
  },
  {
    id: 'mi250x',
    name: 'Instinct MI250X',
    vendor: 'amd',
    architecture: 'CDNA 2',
    memoryBandwidth: 3.2768e12,
    l2Bandwidth: null,
    peaks: {
      tensor: { fp16: 383e12, bf16: 383e12, int8: 383e12, fp64: 95.7e12 },
      vector: { fp32: 47.9e12, fp64: 47.9e12 },
    },
    sources: {
      memoryBandwidth: `${SRC.mi250x}: Peak Memory Bandwidth 3.2 TB/s (3.2768 TB/s: 8192-bit HBM2e at 1.6 GHz)`,
      'peaks.tensor': `${SRC.mi250x}: Peak FP16 and bfloat16 383 TFLOPs, INT8 383 TOPs, FP64 Matrix 95.7 TFLOPs`,
      'peaks.vector': `${SRC.mi250x}: Peak FP64 Vector 47.9 TFLOPs, FP32 Vector 47.9 TFLOPs (Packed FP32 95.7)`,
    },
    notes: [
      'Whole OAM package: two GCDs, each of which ROCm exposes as a separate device with half these numbers (1.6384 TB/s, 191.5 TFLOPs FP16).',
      'CDNA 2 has no structured sparsity, no TF32 and no FP8 (those fall back to fp16 in the analysis).',
      'Vector FP32 is the unpacked rate; packed FP32 (v_pk_fma_f32) reaches 95.7 TFLOPs.',
      NOTE_BOOST,
    ],
  },
];

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

/** Every GPU the analysis knows, frozen (copy an entry before changing it). */
export const GPU_CATALOG: GpuCatalog = deepFreeze({ version: GPU_CATALOG_VERSION, gpus: GPUS });

// ---------------------------------------------------------------------------
// Lookup
// ---------------------------------------------------------------------------

/** Common spellings → catalog id (keys are already normalised). */
const ALIASES: Readonly<Record<string, string>> = {
  h100: 'h100-sxm',
  'h100-sxm5': 'h100-sxm',
  h100sxm: 'h100-sxm',
  'h100-80gb': 'h100-sxm',
  'h100-80gb-hbm3': 'h100-sxm',
  h100pcie: 'h100-pcie',
  'h200-sxm': 'h200',
  'h200-sxm-141gb': 'h200',
  'b200-sxm': 'b200',
  'hgx-b200': 'b200',
  'gb200-nvl72': 'gb200',
  a100: 'a100-sxm-80gb',
  'a100-80gb': 'a100-sxm-80gb',
  'a100-sxm': 'a100-sxm-80gb',
  'a100-sxm4-80gb': 'a100-sxm-80gb',
  'a100-sxm-40gb': 'a100-40gb',
  'a100-sxm4-40gb': 'a100-40gb',
  'a100-40': 'a100-40gb',
  '4090': 'rtx-4090',
  rtx4090: 'rtx-4090',
  'geforce-rtx-4090': 'rtx-4090',
  '4080': 'rtx-4080',
  rtx4080: 'rtx-4080',
  'geforce-rtx-4080': 'rtx-4080',
  '5090': 'rtx-5090',
  rtx5090: 'rtx-5090',
  'geforce-rtx-5090': 'rtx-5090',
  'tesla-t4': 't4',
  'v100-sxm2': 'v100',
  'v100-sxm2-32gb': 'v100',
  'tesla-v100': 'v100',
  'instinct-mi300x': 'mi300x',
  'mi300x-oam': 'mi300x',
  'instinct-mi325x': 'mi325x',
  'instinct-mi250x': 'mi250x',
  'nvidia-a10': 'a10',
  'nvidia-a40': 'a40',
  'nvidia-l4': 'l4',
  'nvidia-l40': 'l40',
  'nvidia-l40s': 'l40s',
};

const BY_ID = new Map<string, GpuSpec>(GPU_CATALOG.gpus.map((g) => [g.id, g]));
const BY_NAME = new Map<string, GpuSpec>(GPU_CATALOG.gpus.map((g) => [normaliseId(g.name), g]));

function normaliseId(s: string): string {
  return s
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-');
}

/**
 * The catalog GPU with this id, case-insensitively; also accepts display names
 * ("H100 SXM") and common aliases ("h100" → h100-sxm, "a100" → a100-sxm-80gb,
 * "4090" → rtx-4090). Undefined when unknown.
 */
export function findGpu(id: string): GpuSpec | undefined {
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) return undefined;
  let key = normaliseId(id);
  if (key.startsWith('nvidia-') && !BY_ID.has(key) && !ALIASES[key]) key = key.slice('nvidia-'.length);
  if (key.startsWith('amd-') && !BY_ID.has(key)) key = key.slice('amd-'.length);
  return BY_ID.get(key) ?? BY_ID.get(ALIASES[key] ?? '') ?? BY_NAME.get(key);
}

/** Ids of every catalog GPU, in table order. */
export function gpuIds(): string[] {
  return GPU_CATALOG.gpus.map((g) => g.id);
}

// ---------------------------------------------------------------------------
// User-supplied GPUs
// ---------------------------------------------------------------------------

const TENSOR_DTYPES: readonly TensorDtype[] = ['fp64', 'tf32', 'fp16', 'bf16', 'fp8', 'int8'];
const VECTOR_DTYPES: readonly VectorDtype[] = ['fp64', 'fp32', 'fp16', 'bf16', 'int32'];
const VENDORS: readonly GpuSpec['vendor'][] = ['nvidia', 'amd', 'apple', 'google', 'intel', 'custom'];
const KNOWN_FIELDS = [
  'id',
  'name',
  'vendor',
  'architecture',
  'memoryBandwidth',
  'l2Bandwidth',
  'peaks',
  'sources',
  'notes',
] as const;

const MAX_KEYS = 1000;
const MAX_STRING = 1000;
const MAX_ERRORS = 50;
const BW_MIN = 1e9;
const BW_MAX = 1e14;
const PEAK_MIN = 1e9;
const PEAK_MAX = 1e17;

/** A short, safe rendering of any value for an error message. Never throws. */
function describe(v: unknown): string {
  try {
    if (v === undefined) return 'nothing';
    if (v === null) return 'null';
    if (typeof v === 'string') {
      if (v.length > MAX_STRING) return `a string of ${v.length} characters`;
      return v.length > 60 ? `${JSON.stringify(v.slice(0, 57))}…` : JSON.stringify(v);
    }
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
    if (Array.isArray(v)) return `an array of ${v.length} items`;
    if (typeof v === 'function') return 'a function';
    if (typeof v === 'symbol') return 'a symbol';
    return 'an object';
  } catch {
    return 'an unreadable value';
  }
}

/** 1e9, 3.35e12: exponent notation without the "+". */
function exp(n: number): string {
  return n.toExponential().replace('e+', 'e');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, field: string): string {
  return path ? `${path}.${field}` : field;
}

/** A human hint when a number looks like it was given in TB/s or TFLOP/s. */
function unitHint(n: number, unit: 'bytes/s' | 'FLOP/s'): string {
  if (n > 0 && n < 1e6) {
    const big = unit === 'bytes/s' ? (n < 100 ? 'TB/s' : 'GB/s') : n < 100 ? 'PFLOP/s' : 'TFLOP/s';
    const scale = big === 'TB/s' || big === 'TFLOP/s' ? 1e12 : big === 'GB/s' ? 1e9 : 1e15;
    return ` (looks like ${big}: ${n} ${big} is ${exp(n * scale)} ${unit})`;
  }
  return '';
}

class Collector {
  readonly errors: string[] = [];
  add(msg: string): void {
    if (this.errors.length < MAX_ERRORS) this.errors.push(msg);
    else if (this.errors.length === MAX_ERRORS) this.errors.push('… more errors not shown');
  }
}

/** Own enumerable keys, or null (with an error) when there are too many. */
function keysOf(obj: Record<string, unknown>, where: string, out: Collector): string[] | null {
  const keys = Object.keys(obj);
  if (keys.length > MAX_KEYS) {
    out.add(`${where}: too many keys (${keys.length}; at most ${MAX_KEYS})`);
    return null;
  }
  return keys;
}

function checkString(
  v: unknown,
  where: string,
  out: Collector,
  opts: { required: boolean; what: string },
): string | undefined {
  if (v === undefined && !opts.required) return undefined;
  if (typeof v !== 'string') {
    out.add(`${where}: expected ${opts.what}, got ${describe(v)}`);
    return undefined;
  }
  if (v.length > MAX_STRING) {
    out.add(`${where}: string too long (${v.length} characters; at most ${MAX_STRING})`);
    return undefined;
  }
  if (opts.required && v.trim().length === 0) {
    out.add(`${where}: expected ${opts.what}, got an empty string`);
    return undefined;
  }
  return v;
}

function checkRate(
  v: unknown,
  where: string,
  out: Collector,
  unit: 'bytes/s' | 'FLOP/s',
  min: number,
  max: number,
): number | undefined {
  if (typeof v !== 'number') {
    out.add(`${where}: expected ${unit} as a number > 0, got ${describe(v)}`);
    return undefined;
  }
  if (!Number.isFinite(v) || v <= 0) {
    out.add(`${where}: expected ${unit} as a finite number > 0, got ${describe(v)}`);
    return undefined;
  }
  if (v < min || v > max) {
    out.add(
      `${where}: expected ${unit} between ${exp(min)} and ${exp(max)}, got ${describe(v)}${unitHint(v, unit)}`,
    );
    return undefined;
  }
  return v;
}

function checkPeakGroup<D extends string>(
  v: unknown,
  where: string,
  out: Collector,
  allowed: readonly D[],
  kind: string,
): Partial<Record<D, number>> {
  const result: Partial<Record<D, number>> = {};
  if (v === undefined) return result;
  if (!isPlainObject(v)) {
    out.add(`${where}: expected an object of ${kind} peaks in FLOP/s (e.g. { "fp16": 989.4e12 }), got ${describe(v)}`);
    return result;
  }
  const keys = keysOf(v, where, out);
  if (!keys) return result;
  for (const k of keys) {
    const field = join(where, k.length > 40 ? `${k.slice(0, 37)}…` : k);
    if (!(allowed as readonly string[]).includes(k)) {
      out.add(`${field}: unknown ${kind} dtype (expected one of ${allowed.join(', ')})`);
      continue;
    }
    const n = checkRate(v[k], field, out, 'FLOP/s', PEAK_MIN, PEAK_MAX);
    if (n !== undefined) result[k as D] = n;
  }
  return result;
}

function validateInner(x: unknown, path: string, out: Collector): GpuSpec | undefined {
  const root = path || 'gpu';
  if (!isPlainObject(x)) {
    out.add(`${root}: expected a GPU object { id, name, memoryBandwidth, peaks, ... }, got ${describe(x)}`);
    return undefined;
  }
  const keys = keysOf(x, root, out);
  if (!keys) return undefined;
  for (const k of keys) {
    if (!(KNOWN_FIELDS as readonly string[]).includes(k)) {
      const shown = k.length > 40 ? `${k.slice(0, 37)}…` : k;
      out.add(`${join(path, shown)}: unknown field (expected ${KNOWN_FIELDS.join(', ')})`);
    }
  }

  // id
  let id: string | undefined;
  const rawId = x.id;
  if (typeof rawId !== 'string') {
    out.add(`${join(path, 'id')}: expected a lowercase id like "my-gpu" (a-z, 0-9, dashes), got ${describe(rawId)}`);
  } else if (!GPU_ID_PATTERN.test(rawId)) {
    out.add(
      `${join(path, 'id')}: expected a lowercase id like "my-gpu" (a-z, 0-9, dashes, at most 64 characters, starting with a letter or digit), got ${describe(rawId)}`,
    );
  } else {
    id = rawId;
  }

  const name = checkString(x.name, join(path, 'name'), out, { required: true, what: 'a display name (string)' });

  let vendor: GpuSpec['vendor'] = 'custom';
  if (x.vendor !== undefined) {
    const v = typeof x.vendor === 'string' && x.vendor.length <= 20 ? x.vendor.trim().toLowerCase() : undefined;
    if (v !== undefined && (VENDORS as readonly string[]).includes(v)) {
      vendor = v as GpuSpec['vendor'];
    } else {
      out.add(`${join(path, 'vendor')}: expected one of ${VENDORS.join(', ')} (or leave it out), got ${describe(x.vendor)}`);
    }
  }

  const architecture =
    checkString(x.architecture, join(path, 'architecture'), out, { required: false, what: 'a string' }) ?? 'custom';

  const memoryBandwidth = checkRate(x.memoryBandwidth, join(path, 'memoryBandwidth'), out, 'bytes/s', BW_MIN, BW_MAX);

  let l2Bandwidth: number | null = null;
  if (x.l2Bandwidth !== undefined && x.l2Bandwidth !== null) {
    l2Bandwidth = checkRate(x.l2Bandwidth, join(path, 'l2Bandwidth'), out, 'bytes/s', BW_MIN, BW_MAX) ?? null;
  }

  // peaks
  let tensor: GpuSpec['peaks']['tensor'] = {};
  let vector: GpuSpec['peaks']['vector'] = {};
  const peaksPath = join(path, 'peaks');
  const rawPeaks = x.peaks;
  let peaksOk = false;
  if (!isPlainObject(rawPeaks)) {
    out.add(
      `${peaksPath}: expected { "tensor": { dtype: FLOP/s }, "vector": { dtype: FLOP/s } } with at least one peak, got ${describe(rawPeaks)}`,
    );
  } else {
    const pk = keysOf(rawPeaks, peaksPath, out);
    if (pk) {
      peaksOk = true;
      for (const k of pk) {
        if (k !== 'tensor' && k !== 'vector') {
          const shown = k.length > 40 ? `${k.slice(0, 37)}…` : k;
          out.add(`${join(peaksPath, shown)}: unknown field (expected tensor, vector)`);
        }
      }
      tensor = checkPeakGroup(rawPeaks.tensor, join(peaksPath, 'tensor'), out, TENSOR_DTYPES, 'tensor');
      vector = checkPeakGroup(rawPeaks.vector, join(peaksPath, 'vector'), out, VECTOR_DTYPES, 'vector');
      if (
        Object.keys(tensor).length + Object.keys(vector).length === 0 &&
        !out.errors.some((e) => e.startsWith(`${peaksPath}.`))
      ) {
        out.add(`${peaksPath}: expected at least one peak (e.g. "vector": { "fp32": 60e12 }), got none`);
      }
    }
  }

  // sources
  const sources: Record<string, string> = {};
  if (x.sources !== undefined) {
    const sp = join(path, 'sources');
    if (!isPlainObject(x.sources)) {
      out.add(`${sp}: expected an object of citations { field: "document, URL" }, got ${describe(x.sources)}`);
    } else {
      const sk = keysOf(x.sources, sp, out);
      if (sk) {
        for (const k of sk) {
          if (k.length > MAX_STRING) {
            out.add(`${sp}: key too long (${k.length} characters; at most ${MAX_STRING})`);
            continue;
          }
          const s = checkString(x.sources[k], join(sp, k.length > 40 ? `${k.slice(0, 37)}…` : k), out, {
            required: false,
            what: 'a citation string',
          });
          if (s !== undefined) sources[k] = s;
        }
      }
    }
  }

  // notes
  const notes: string[] = [];
  if (x.notes !== undefined) {
    const np = join(path, 'notes');
    if (!Array.isArray(x.notes)) {
      out.add(`${np}: expected an array of strings, got ${describe(x.notes)}`);
    } else if (x.notes.length > MAX_KEYS) {
      out.add(`${np}: too many notes (${x.notes.length}; at most ${MAX_KEYS})`);
    } else {
      x.notes.forEach((n: unknown, i: number) => {
        const s = checkString(n, `${np}[${i}]`, out, { required: false, what: 'a string' });
        if (s !== undefined) notes.push(s);
        else if (n === undefined) out.add(`${np}[${i}]: expected a string, got nothing`);
      });
    }
  }

  if (out.errors.length > 0 || id === undefined || name === undefined || memoryBandwidth === undefined || !peaksOk) {
    return undefined;
  }
  const gpu: GpuSpec = {
    id,
    name,
    vendor,
    architecture,
    memoryBandwidth,
    l2Bandwidth,
    peaks: { tensor, vector },
    sources,
  };
  if (notes.length) gpu.notes = notes;
  return gpu;
}

/**
 * Checks a user-supplied GPU (same shape as GpuSpec; `vendor`, `architecture`,
 * `l2Bandwidth`, `sources` and `notes` optional, vendor defaulting to
 * "custom"). Returns the GPU when valid, else undefined, plus messages naming
 * each bad field under `path` (e.g. "customGpus[0].memoryBandwidth: expected
 * bytes/s as a number > 0, got \"3.35 TB/s\""). Never throws.
 */
export function validateCustomGpu(x: unknown, path = ''): { gpu?: GpuSpec; errors: string[] } {
  const prefix = typeof path === 'string' && path.length <= 200 ? path : '';
  const out = new Collector();
  try {
    const gpu = validateInner(x, prefix, out);
    if (gpu && out.errors.length === 0) return { gpu, errors: [] };
    if (out.errors.length === 0) out.add(`${prefix || 'gpu'}: not a valid GPU`);
    return { errors: out.errors };
  } catch (e) {
    let why = 'unknown error';
    try {
      why = e instanceof Error ? e.message.slice(0, 200) : describe(e);
    } catch {
      /* keep the default */
    }
    return { errors: [...out.errors, `${prefix || 'gpu'}: could not read the object (${why})`] };
  }
}
