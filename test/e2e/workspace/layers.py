# Three elementwise Triton kernels over n = 2**20 fp32 values, BLOCK = 1024 values per program
# (grid = n / 1024 = 1024 programs). Per program, with masks true (interior tile):
#   add_kernel    x + y:                 1024 FLOP;  loads 2·4096 B, stores 4096 B → AI 1024 / 12288 = 0.0833
#   axpby_kernel  2·x + 3·y:             3072 FLOP;  loads 2·4096 B, stores 4096 B → AI 3072 / 12288 = 0.25
#   poly_kernel   ((x·0.5 + 1)·x + 2)·x + 3: 6144 FLOP; loads 4096 B, stores 4096 B → AI 6144 / 8192 = 0.75
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def axpby_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, 2.0 * x + 3.0 * y, mask=mask)


@triton.jit
def poly_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = ((x * 0.5 + 1.0) * x + 2.0) * x + 3.0
    tl.store(out_ptr + offs, y, mask=mask)


def launch(x, y, out):
    n = 1 << 20
    grid = (triton.cdiv(n, 1024),)
    add_kernel[grid](x, y, out, n, BLOCK=1024)
    axpby_kernel[grid](out, y, out, n, BLOCK=1024)
    poly_kernel[grid](x, out, n, BLOCK=1024)
