// conv_igemm_tc_ref.cu - the reference for conv_igemm_tc.cu: one thread
// per output element of Y (NPQK, from X in NHWC and Wt in KRSC), the sum
// accumulated in FP32 in the order of the definition (r, s, then c) and
// rounded once to half, or bfloat16 with KT_BF16 (the spec's
// CompilerOptions).  Same arguments as the kernel; ws and cnt unused.
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

extern "C" __global__ void conv_igemm_tc_ref(int N, int C, int H, int W, int K, int R, int S,
                                             int stride, int pad, int P, int Q, const elem *X,
                                             const elem *Wt, elem *Y, float *ws, int *cnt)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)N * P * Q * K)
        return;
    int k = (int)(i % K), q = (int)(i / K % Q), p = (int)(i / ((long long)K * Q) % P);
    int n = (int)(i / ((long long)K * Q * P));
    float sum = 0.0f;
    for (int r = 0; r < R; r++)
        for (int s = 0; s < S; s++) {
            int h = p * stride - pad + r, w = q * stride - pad + s;
            if (h < 0 || h >= H || w < 0 || w >= W)
                continue;
            const elem *x = X + (((long long)n * H + h) * W + w) * C;
            const elem *f = Wt + (((long long)k * R + r) * S + s) * C;
            for (int c = 0; c < C; c++)
                sum += to_float(x[c]) * to_float(f[c]);
        }
    unsigned short h;
#if KT_BF16
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(sum));
#else
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(sum));
#endif
    Y[i] = h;
}
