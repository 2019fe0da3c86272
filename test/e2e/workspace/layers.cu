// Two layers of scale_by → add over n floats (a pipeline of 4 launches).
#include <cuda_runtime.h>

__global__ void scale_by(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

__global__ void add(const float *x, const float *y, float *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}

void forward(float *x, float *h, float *out, int n) {
  for (int l = 0; l < 2; l++) {
    scale_by<<<(n + 255) / 256, 256>>>(x, h, 2.0f, n);
    add<<<(n + 255) / 256, 256>>>(x, h, out, n);
  }
}

int main() {
  const int n = 1 << 24;
  float *x, *h, *out;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&h, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  forward(x, h, out, n);
  return 0;
}
