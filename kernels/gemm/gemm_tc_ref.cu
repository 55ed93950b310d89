// gemm_tc_ref.cu - the reference for gemm_tc.cu: one thread per element of
// C, FP32 accumulation in k order, rounded once to the element type.
#ifndef KT_BF16
#define KT_BF16 0
#endif
typedef unsigned short elem;

__device__ float to_float(elem h)
{
#if KT_BF16
    return __uint_as_float((unsigned)h << 16);
#else
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#endif
}

extern "C" __global__ void gemm_tc_ref(int M, int N, int K, const elem *A, const elem *B,
                                       elem *C)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N)
        return;
    float s = 0.0f;
    for (int k = 0; k < K; k++)
        s += to_float(A[(size_t)r * K + k]) * to_float(B[(size_t)k * N + c]);
    unsigned short h;
#if KT_BF16
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(s));
#else
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(s));
#endif
    C[(size_t)r * N + c] = h;
}
