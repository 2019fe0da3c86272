/**
 * Generated kernel files for the benchmark and the robustness tests: realistic
 * kernels (elementwise, softmax, matmul) repeated with distinct names until
 * the file has the requested number of lines.
 */
export function tritonFile(lines: number): string {
  const out = ['import torch', 'import triton', 'import triton.language as tl', ''];
  let i = 0;
  while (out.length < lines) {
    const kind = i % 3;
    if (kind === 0)
      out.push(
        '@triton.jit',
        `def add_${i}(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 1024):`,
        '    pid = tl.program_id(0)',
        '    offs = pid * BLOCK + tl.arange(0, BLOCK)',
        '    mask = offs < n',
        '    x = tl.load(x_ptr + offs, mask=mask)',
        '    y = tl.load(y_ptr + offs, mask=mask)',
        '    tl.store(out_ptr + offs, x + y, mask=mask)',
        '',
      );
    else if (kind === 1)
      out.push(
        '@triton.jit',
        `def softmax_${i}(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr = 1024):`,
        '    row = tl.program_id(0)',
        '    cols = tl.arange(0, BLOCK)',
        '    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))',
        '    x = x - tl.max(x, axis=0)',
        '    num = tl.exp(x)',
        '    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)',
        '',
      );
    else
      out.push(
        '@triton.jit',
        `def matmul_${i}(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,`,
        '                BM: tl.constexpr = 128, BN: tl.constexpr = 128, BK: tl.constexpr = 64):',
        '    pid_m = tl.program_id(0)',
        '    pid_n = tl.program_id(1)',
        '    rm = pid_m * BM + tl.arange(0, BM)',
        '    rn = pid_n * BN + tl.arange(0, BN)',
        '    rk = tl.arange(0, BK)',
        '    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak',
        '    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn',
        '    acc = tl.zeros((BM, BN), dtype=tl.float32)',
        '    for k in range(0, tl.cdiv(K, BK)):',
        '        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))',
        '        a_ptrs += BK * sak',
        '        b_ptrs += BK * sbk',
        '    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))',
        '',
      );
    i++;
  }
  return out.slice(0, Math.max(lines, 4)).join('\n') + '\n';
}

/** CUDA: vector adds, shared-memory reductions and tiled SGEMMs with their launches. */
export function cudaFile(lines: number): string {
  const out = ['#include <cuda_runtime.h>', '#define TILE 32', ''];
  let i = 0;
  while (out.length < lines) {
    const kind = i % 3;
    if (kind === 0)
      out.push(
        `__global__ void add_${i}(const float* x, const float* y, float* out, int n) {`,
        '  int i = blockIdx.x * blockDim.x + threadIdx.x;',
        '  if (i < n) out[i] = x[i] * 2.0f + y[i];',
        '}',
        `void launch_add_${i}(const float* x, const float* y, float* out, int n) {`,
        `  add_${i}<<<(n + 1023) / 1024, 1024>>>(x, y, out, n);`,
        '}',
        '',
      );
    else if (kind === 1)
      out.push(
        `__global__ void reduce_${i}(const float* in, float* out) {`,
        '  __shared__ float s[256];',
        '  int tid = threadIdx.x;',
        '  s[tid] = in[blockIdx.x * 256 + tid];',
        '  __syncthreads();',
        '  for (int k = 128; k > 0; k >>= 1) {',
        '    if (tid < k) s[tid] += s[tid + k];',
        '    __syncthreads();',
        '  }',
        '  if (tid == 0) out[blockIdx.x] = s[0];',
        '}',
        '',
      );
    else
      out.push(
        `__global__ void sgemm_${i}(const float* A, const float* B, float* C, int M, int N, int K) {`,
        '  __shared__ float As[TILE][TILE];',
        '  __shared__ float Bs[TILE][TILE];',
        '  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;',
        '  float acc = 0.0f;',
        '  for (int t = 0; t < K; t += TILE) {',
        '    As[threadIdx.y][threadIdx.x] = A[row * K + t + threadIdx.x];',
        '    Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * N + col];',
        '    __syncthreads();',
        '    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];',
        '    __syncthreads();',
        '  }',
        '  C[row * N + col] = acc;',
        '}',
        `void launch_sgemm_${i}(const float* A, const float* B, float* C, int M, int N, int K) {`,
        '  dim3 block(TILE, TILE);',
        '  dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);',
        `  sgemm_${i}<<<grid, block>>>(A, B, C, M, N, K);`,
        '}',
        '',
      );
    i++;
  }
  return out.join('\n') + '\n';
}

/** WGSL: elementwise, workgroup reductions and tiled matmuls. */
export function wgslFile(lines: number): string {
  const out = [
    '@group(0) @binding(0) var<storage, read> a: array<f32>;',
    '@group(0) @binding(1) var<storage, read> b: array<f32>;',
    '@group(0) @binding(2) var<storage, read_write> c: array<f32>;',
    'struct Params { n: u32, k: u32 }',
    '@group(0) @binding(3) var<uniform> params: Params;',
    '',
  ];
  let i = 0;
  while (out.length < lines) {
    const kind = i % 2;
    if (kind === 0)
      out.push(
        `@compute @workgroup_size(256)`,
        `fn add_${i}(@builtin(global_invocation_id) gid: vec3<u32>) {`,
        '  let i = gid.x;',
        '  if (i >= params.n) { return; }',
        '  c[i] = a[i] * 2.0 + b[i];',
        '}',
        '',
      );
    else
      out.push(
        `var<workgroup> tile_${i}: array<f32, 256>;`,
        `@compute @workgroup_size(256)`,
        `fn sum_${i}(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {`,
        `  tile_${i}[lid] = a[wid.x * 256u + lid];`,
        '  workgroupBarrier();',
        '  for (var s = 128u; s > 0u; s = s >> 1u) {',
        `    if (lid < s) { tile_${i}[lid] = tile_${i}[lid] + tile_${i}[lid + s]; }`,
        '    workgroupBarrier();',
        '  }',
        `  if (lid == 0u) { c[wid.x] = tile_${i}[0]; }`,
        '}',
        '',
      );
    i++;
  }
  return out.join('\n') + '\n';
}
