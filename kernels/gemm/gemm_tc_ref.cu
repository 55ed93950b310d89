// gemm_tc_ref.cu - the reference for gemm_tc.cu and gemm_tma.cu: one thread
// per element of C, FP32 accumulation in k order, rounded once to the
// element type.  KT_FP8: A and B are E4M3, B stored transposed (N x K), as
// gemm_tma.cu's FP8 path takes them; C is bfloat16 with KT_BF16, else half.
#ifndef KT_BF16
#define KT_BF16 0
#endif
#ifndef KT_FP8
#define KT_FP8 0
#endif
typedef unsigned short elem;

#if KT_FP8
typedef unsigned char in_t;

// The hardware's own conversion (sm_89+): E4M3 to half is exact.
__device__ float to_float(in_t b)
{
    unsigned h2;
    float f;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"((unsigned short)b));
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)(h2 & 0xffff)));
    return f;
}
#define B_AT(k, c) B[(size_t)(c) * K + (k)]
#else
typedef elem in_t;

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
#define B_AT(k, c) B[(size_t)(k) * N + (c)]
#endif

extern "C" __global__ void gemm_tc_ref(int M, int N, int K, const in_t *A, const in_t *B,
                                       elem *C)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N)
        return;
    float s = 0.0f;
    for (int k = 0; k < K; k++)
        s += to_float(A[(size_t)r * K + k]) * to_float(B_AT(k, c));
    unsigned short h;
#if KT_BF16
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(s));
#else
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(s));
#endif
    C[(size_t)r * N + c] = h;
}
