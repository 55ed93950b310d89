// conv_igemm_tc.cu - FP16 2-D forward convolution on the tensor cores: an
// implicit GEMM with mma.sync m16n8k16, FP32 accumulation, FP16 out.
// Layouts are the tensor cores' (PyTorch's channels_last): X is NHWC, the
// filters Wt are KRSC, Y is NPQC (C = K there).  So the GEMM is
//   Y (NPQ x K) = A (NPQ x RSC) B (RSC x K),
// A's rows the input patches, gathered from X as they load (never built),
// B's columns the filters as they lie, both with the reduction contiguous,
// so that every 16-byte chunk of 8 channels is one cp.async.
//
// A block computes a BM (pixels) x BN (output channels) tile with WM x WN
// warps.  The reduction runs over (r, s, channel slice of BK) tiles, through
// a STAGES-deep ring of shared-memory tiles filled by cp.async (zero fill
// at the padding, past C and past the edges); ldmatrix feeds the mma
// fragments.  Rows are padded by 8 elements so that ldmatrix's eight
// addresses fall in distinct banks.  C not a multiple of 8 (the chunks
// misaligned) loads element by element.
//
// SPLIT > 1 splits the reduction's tiles across SPLIT blocks (grid z) for
// layers whose output tiles do not fill the GPU (conv.cuh).
#include "mma.cuh"

#define WTM (BM / WM)
#define WTN (BN / WN)
#define MI (WTM / 16)
#define NI (WTN / 8)
#define THREADS (32 * WM * WN)
#define LDS (BK + 8)
#define CPR (BK / 8)
#define A_IT (BM * CPR / THREADS)
#define B_IT (BN * CPR / THREADS)

#include "conv.cuh"

// 8 channels from src (valid ones: n) into shared memory at d; where none
// is valid, the copy reads nothing and its address is base.
__device__ __forceinline__ void load8(elem *d, const elem *src, const elem *base, int n,
                                      bool vec)
{
    if (vec) {
        cp16(smem_addr(d), n > 0 ? src : base, n > 0 ? 16 : 0);
    } else {
#pragma unroll
        for (int j = 0; j < 8; j++)
            d[j] = j < n ? src[j] : (elem)0;
    }
}

// One reduction tile into stage (As, Bs): A from the pixels' windows at
// tap t, B from the filters bn... of tap t.
__device__ __forceinline__ void load_stage(elem *As, elem *Bs, const elem *X, const elem *Wt,
                                           const window<A_IT> &a, const tap &t, int bn, int C, int H,
                                           int W, int K, int S, int RSC, bool vec)
{
    int cc = (threadIdx.x % CPR) * 8, c = t.c0 + cc, left = C - c;
#pragma unroll
    for (int i = 0; i < A_IT; i++) {
        int row = (threadIdx.x + i * THREADS) / CPR;
        int h = a.h0[i] + t.r, w = a.w0[i] + t.s;
        bool in = (unsigned)h < (unsigned)H && (unsigned)w < (unsigned)W;
        const elem *src = X + ((size_t)(a.pix[i] + t.r * W + t.s) * C + c);
        load8(As + row * LDS + cc, src, X, in ? left : 0, vec);
    }
#pragma unroll
    for (int i = 0; i < B_IT; i++) {
        int row = (threadIdx.x + i * THREADS) / CPR, k = bn + row;
        const elem *src = Wt + ((size_t)k * RSC + (t.r * S + t.s) * C + c);
        load8(Bs + row * LDS + cc, src, Wt, k < K ? left : 0, vec);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    conv_igemm_tc(int N, int C, int H, int W, int K, int R, int S, int stride, int pad, int P,
                  int Q, const elem *__restrict__ X, const elem *__restrict__ Wt,
                  elem *__restrict__ Y, float *__restrict__ ws, int *__restrict__ cnt)
{
    extern __shared__ __align__(16) elem smem[];
    elem *As = smem, *Bs = smem + STAGES * BM * LDS;
    int M = N * P * Q, RSC = R * S * C;
    int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    int warp = threadIdx.x / 32, wm = warp / WN, wn = warp % WN;
    bool vec = C % 8 == 0;
    window<A_IT> a;
    find_windows(a, threadIdx.x / CPR, THREADS / CPR, bm, M, P, Q, H, W, stride, pad);
    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
            acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;
    // this block's share of the R S ceil(C / BK) reduction tiles
    int ct = (C + BK - 1) / BK, all = R * S * ct;
    int t0 = blockIdx.z * all / SPLIT, tiles = (blockIdx.z + 1) * all / SPLIT - t0;
    tap t = tap_at(t0, C, S);
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < tiles) {
            load_stage(As + s * BM * LDS, Bs + s * BN * LDS, X, Wt, a, t, bn, C, H, W, K, S,
                       RSC, vec);
            next_tap(t, C, S);
        }
        cp_commit();
    }
    for (int i = 0; i < tiles; i++) {
        cp_wait<STAGES - 2>();
        __syncthreads();
        int next = i + STAGES - 1, s = next % STAGES;
        if (next < tiles) {
            load_stage(As + s * BM * LDS, Bs + s * BN * LDS, X, Wt, a, t, bn, C, H, W, K, S,
                       RSC, vec);
            next_tap(t, C, S);
        }
        cp_commit();
        compute_stage<MI, NI, BK, LDS, LDS, true>(As + (i % STAGES) * BM * LDS,
                                                  Bs + (i % STAGES) * BN * LDS, wm * WTM, wn * WTN, acc);
    }
    int m0 = bm + wm * WTM, n0 = bn + wn * WTN;
    if (SPLIT > 1 && !split_reduce(ws, cnt, &acc[0][0][0]))
        return;
    store_tile<MI, NI>(Y, M, K, m0, n0, acc);
}
