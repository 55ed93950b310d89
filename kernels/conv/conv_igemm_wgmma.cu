// conv_igemm_wgmma.cu - FP16 2-D forward convolution on Hopper's warpgroup
// tensor-core instructions (wgmma, sm_90a), FP32 accumulation, FP16 out:
// the implicit GEMM of conv_igemm_tc.cu (X NHWC, filters KRSC, Y NPQK;
// Y (NPQ x K) = A (NPQ x RSC) B (RSC x K), A's rows the input patches
// gathered as they load), with wgmma reading both operands from shared
// memory.  Same arguments, so the same reference checks it.
//
// A block computes a BM (pixels) x BN (output channels) tile with WGS
// warpgroups; warpgroup g owns rows [g BM/WGS, (g+1) BM/WGS) and all BN
// columns, as m64 x WN x k16 instructions whose accumulators stay in
// registers.  The reduction runs over (r, s, 64-channel slice) tiles
// through a STAGES-deep ring that every thread fills with cp.async (zero
// fill at the padding, past C and past the edges).  A and B tiles are both
// K-major in wgmma's canonical 128-byte-swizzled layout: one 128-byte row
// (64 channels) per pixel or output channel, the 16-byte chunk c of row r
// stored at chunk c ^ (r % 8).  Tile t + STAGES - 2 loads while tile t
// multiplies and tile t - 1 may still be in the tensor cores
// (wgmma.wait_group 1).  SPLIT > 1 splits the reduction across blocks
// (grid z, conv.cuh).
#define BK 64
#define THREADS (128 * WGS)
#define WGM (BM / WGS)     /* rows per warpgroup */
#define MT (WGM / 64)      /* m64 tiles per warpgroup */
#define NT (BN / WN)       /* wgmma instructions along N */
#define ACC (WN / 2)       /* accumulators per thread per instruction */
#define A_BYTES (BM * 128) /* one stage of A */
#define B_BYTES (BN * 128) /* one stage of B */
#define ROWS (THREADS / 8) /* rows between a thread's chunks */
#define A_IT (BM / ROWS)
#define B_IT (BN / ROWS)
#define TY "f16"

#include "hopper.cuh"
#include "conv.cuh"
#include "conv_wgmma.cuh"

__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n"); }

template <int N> __device__ __forceinline__ void cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// This thread's chunks: always chunk column ch of rows row0 + i ROWS, all
// with the same swizzle (ROWS is a multiple of 8), A's rows' input windows
// in win.
struct feed {
    window<A_IT> win;
    int ch, row0;
    unsigned off; /* the first chunk's byte offset in a stage */
};

__device__ __forceinline__ void feed_make(feed &f, int bm, int M, int P, int Q, int H, int W,
                                          int stride, int pad)
{
    f.ch = threadIdx.x & 7;
    f.row0 = threadIdx.x >> 3;
    f.off = f.row0 * 128 + ((f.ch ^ (f.row0 & 7)) << 4);
    find_windows(f.win, f.row0, ROWS, bm, M, P, Q, H, W, stride, pad);
}

// 8 channels (valid ones: n) to the stage at byte address dst; where none
// is valid, the copy reads nothing and its address is base.
__device__ __forceinline__ void load8(unsigned dst, const elem *src, const elem *base, int n,
                                      bool vec)
{
    if (vec) {
        cp16(dst, n > 0 ? src : base, n > 0 ? 16 : 0);
    } else {
        for (int j = 0; j < 8; j++)
            st16(dst + 2 * j, j < n ? src[j] : (elem)0);
    }
}

// One reduction tile at tap t into the stage at (sa, sb).
__device__ __forceinline__ void load_stage(unsigned sa, unsigned sb, const elem *X,
                                           const elem *Wt, const feed &f, const tap &t, int bn,
                                           int C, int H, int W, int K, int S, int RSC, bool vec)
{
    int c = t.c0 + f.ch * 8, left = C - c;
#pragma unroll
    for (int i = 0; i < A_IT; i++) {
        int h = f.win.h0[i] + t.r, w = f.win.w0[i] + t.s;
        bool in = (unsigned)h < (unsigned)H && (unsigned)w < (unsigned)W;
        const elem *src = X + ((size_t)(f.win.pix[i] + t.r * W + t.s) * C + c);
        load8(sa + f.off + i * ROWS * 128, src, X, in ? left : 0, vec);
    }
#pragma unroll
    for (int i = 0; i < B_IT; i++) {
        int k = bn + f.row0 + i * ROWS;
        const elem *src = Wt + ((size_t)k * RSC + (t.r * S + t.s) * C + c);
        load8(sb + f.off + i * ROWS * 128, src, Wt, k < K ? left : 0, vec);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    conv_igemm_wgmma(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                     int P, int Q, const elem *__restrict__ X, const elem *__restrict__ Wt,
                     elem *__restrict__ Y, float *__restrict__ ws, int *__restrict__ cnt)
{
    extern __shared__ __align__(16) unsigned char smem[];
    // the swizzle pattern repeats every 1024 bytes: stages start on a multiple
    unsigned base = (smem_addr(smem) + 1023) & ~1023u, bbase = base + STAGES * A_BYTES;
    int M = N * P * Q, RSC = R * S * C;
    int bm = blockIdx.y * BM, bn = blockIdx.x * BN, wg = threadIdx.x / 128;
    bool vec = C % 8 == 0;
    feed f;
    feed_make(f, bm, M, P, Q, H, W, stride, pad);
    float acc[MT][NT][ACC];
    acc_zero(acc);
    // this block's share of the R S ceil(C / 64) reduction tiles
    int ct = (C + BK - 1) / BK, all = R * S * ct;
    int t0 = blockIdx.z * all / SPLIT, tiles = (blockIdx.z + 1) * all / SPLIT - t0;
    tap tp = tap_at(t0, C, S);
#pragma unroll
    for (int s = 0; s < STAGES - 2; s++) {
        if (s < tiles) {
            load_stage(base + s * A_BYTES, bbase + s * B_BYTES, X, Wt, f, tp, bn, C, H, W, K, S,
                       RSC, vec);
            next_tap(tp, C, S);
        }
        cp_commit();
    }
    for (int t = 0; t < tiles; t++) {
        cp_wait<STAGES - 3>();
        fence_async();
        __syncthreads();
        int s = t % STAGES;
        acc_pin(acc);
        wg_fence();
        compute_stage(base + s * A_BYTES, bbase + s * B_BYTES, wg, acc);
        wg_commit();
        int next = t + STAGES - 2, ns = next % STAGES;
        if (next < tiles) {
            load_stage(base + ns * A_BYTES, bbase + ns * B_BYTES, X, Wt, f, tp, bn, C, H, W, K,
                       S, RSC, vec);
            next_tap(tp, C, S);
        }
        cp_commit();
        wg_wait<1>();
    }
    wg_wait<0>();
    acc_pin(acc);
    int m0 = bm + wg * WGM;
    if (SPLIT > 1 && !split_reduce(ws, cnt, &acc[0][0][0]))
        return;
    store_acc(Y, M, K, m0, bn, acc); // Y is M x K, row-major
}
