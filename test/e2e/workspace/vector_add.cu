// c = a + b over n floats, 256 threads per block.
#include <cuda_runtime.h>

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}

void launch(const float *a, const float *b, float *c, cudaStream_t stream) {
  const int n = 1 << 24;
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
