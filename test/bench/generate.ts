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
