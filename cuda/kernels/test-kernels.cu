/* doradma — kernels for tests and benchmarks only (never in the plugin).
 *
 * Built with nvcc into a fatbin (sm_90 code + compute_75 PTX) that tests
 * load through the driver API (cuModuleLoadData), so test binaries link
 * neither libcudart nor libcuda. The byte pattern and the hash are also
 * computed on the CPU by tests/cuda/cuda-test.c: keep both in step.
 */
#include <stdint.h>

/* Byte i of pattern `seed`: cheap, position dependent, seed dependent. */
__device__ __forceinline__ static uint8_t
dr_pattern (uint64_t i, uint32_t seed)
{
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t) seed << 17);

  return (uint8_t) (x >> 56) ^ (uint8_t) (i >> 12);
}

/* dst[i] = pattern(i, seed) for i < n; grid-stride, 16 bytes per step where
 * aligned would be faster but tests favour simplicity. */
extern "C" __global__ void
dr_fill (uint8_t * dst, uint64_t n, uint32_t seed)
{
  uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;

  for (; i < n; i += stride)
    dst[i] = dr_pattern (i, seed);
}

/* out[r] = FNV-1a 64 of row r (row_bytes bytes at src + r * pitch). One
 * thread per row: slow but exact, and identical to the CPU loop. */
extern "C" __global__ void
dr_row_hash (const uint8_t * src, uint64_t rows, uint64_t row_bytes,
    uint64_t pitch, uint64_t * out)
{
  uint64_t r = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
  uint64_t h = 0xcbf29ce484222325ull;
  const uint8_t *p;

  if (r >= rows)
    return;
  p = src + r * pitch;
  for (uint64_t i = 0; i < row_bytes; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  out[r] = h;
}

/* Benchmark reader: *out += the sum of the n16 16-byte words at src taken
 * as pairs of little-endian uint64 (mod 2^64), so the loads cannot be
 * optimised away and the CPU can check the result. 16-byte loads, grid
 * stride, one atomic per warp. */
extern "C" __global__ void
dr_read_sum (const uint4 * src, uint64_t n16, unsigned long long *out)
{
  uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
  uint64_t stride = (uint64_t) gridDim.x * blockDim.x;
  unsigned long long s = 0;

  for (; i < n16; i += stride) {
    uint4 v = src[i];
    s += ((unsigned long long) v.y << 32 | v.x)
        + ((unsigned long long) v.w << 32 | v.z);
  }
  for (int off = 16; off > 0; off /= 2)
    s += __shfl_down_sync (0xffffffffu, s, off);
  if ((threadIdx.x & 31) == 0)
    atomicAdd (out, s);
}
