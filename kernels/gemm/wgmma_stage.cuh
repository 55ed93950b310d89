// wgmma_stage.cuh - what the two cp.async-fed wgmma GEMMs (gemm_wgmma.cu,
// gemm_wgmma_ws.cu) share: one stage's loads into the 128-byte-swizzled
// tiles, element-exact at the edges or by the fast path inside, and one
// stage's multiplications (hopper.cuh's store_acc stores to C).  The kernels
// differ only in who loads (every thread, or a producer warpgroup) and how
// the ring is synchronised.  The including kernel defines BM, BN, BK, WN,
// WGM, MT, NT, ACC, SLAB and LOADERS (the threads that load) and includes
// hopper.cuh first.
#pragma once

// One stage: A rows [bm, bm + BM) x k [k0, k0 + 64) and B k rows x
// columns [bn, bn + BN), into the swizzled layouts of gemm_wgmma.cu's
// header, by the LOADERS threads that load (lt: 0 to LOADERS - 1); each
// copies BM * 8 / LOADERS 16-byte chunks of A (always the same chunk
// column) and BN * 8 / LOADERS of B.
__device__ __forceinline__ void load_stage(int lt, unsigned sa, unsigned sb, const elem *A,
                                           const elem *B, int M, int N, int K, int bm, int bn,
                                           int k0, bool va, bool vb)
{
#pragma unroll
    for (int i = 0; i < BM * 8 / LOADERS; i++) {
        int c = lt + i * LOADERS, r = c >> 3, ch = c & 7, gr = bm + r, gk = k0 + ch * 8;
        unsigned dst = sa + r * 128 + ((ch ^ (r & 7)) << 4);
        if (va) {
            bool in = gr < M && gk < K;
            cp16(dst, in ? A + (size_t)gr * K + gk : A, in ? 16 : 0);
        } else {
            for (int j = 0; j < 8; j++)
                st16(dst + 2 * j, gr < M && gk + j < K ? A[(size_t)gr * K + gk + j] : 0);
        }
    }
#pragma unroll
    for (int i = 0; i < BN * 8 / LOADERS; i++) {
        int c = lt + i * LOADERS, k = c / (BN / 8), n8 = c % (BN / 8), ch = n8 & 7;
        int gk = k0 + k, gn = bn + n8 * 8;
        unsigned dst = sb + (n8 >> 3) * SLAB + k * 128 + ((ch ^ (k & 7)) << 4);
        if (vb) {
            bool in = gk < K && gn < N;
            cp16(dst, in ? B + (size_t)gk * N + gn : B, in ? 16 : 0);
        } else {
            for (int j = 0; j < 8; j++)
                st16(dst + 2 * j, gk < K && gn + j < N ? B[(size_t)gk * N + gn + j] : 0);
        }
    }
}

// Blocks whose tiles lie wholly inside A and B (all but the edge blocks,
// with K and N multiples of 8) take a faster path: each loading thread's
// chunks keep their places from one k-tile to the next, so their
// addresses are worked out once, and a k-tile costs one cp.async and an
// address add per chunk, without bounds tests.  (Issuing the loads sits
// between two wgmma issues of every warp: its length bounds the rate.)
#define A_STEP (LOADERS / 8)        /* rows of A between a thread's chunks */
#define B_STEP (LOADERS / (BN / 8)) /* k rows of B between a thread's chunks */

struct feed {
    const elem *a, *b; /* the thread's first chunk of A (k 0) and of B (k row bk) */
    unsigned da, db;   /* their offsets in a stage */
    int bk, n8;
    size_t sb;         /* B_STEP rows of B, in elements */
};

__device__ __forceinline__ feed feed_make(int lt, const elem *A, const elem *B, int N, int K,
                                          int bm, int bn)
{
    feed f;
    int ar = lt >> 3, ach = lt & 7;
    f.a = A + (size_t)(bm + ar) * K + ach * 8;
    f.da = ar * 128 + ((ach ^ (ar & 7)) << 4);
    f.bk = lt / (BN / 8);
    f.n8 = lt % (BN / 8);
    f.b = B + (size_t)f.bk * N + bn + f.n8 * 8;
    f.db = (f.n8 >> 3) * SLAB + f.bk * 128 + (((f.n8 & 7) ^ (f.bk & 7)) << 4);
    f.sb = (size_t)B_STEP * N;
    return f;
}

// One k-tile (k0, a multiple of 64 with k0 + 64 <= K) by the fast path;
// a thread's rows are A_STEP apart, a multiple of 8, so they share its
// swizzle, and so do its k rows of B when B_STEP is.
__device__ __forceinline__ void feed_stage(const feed &f, unsigned sa, unsigned sb, int N, int K,
                                           int k0)
{
    const elem *a = f.a + k0;
    size_t sk = (size_t)A_STEP * K;
#pragma unroll
    for (int i = 0; i < BM / A_STEP; i++)
        cp16(sa + f.da + i * A_STEP * 128, a + i * sk, 16);
    const elem *b = f.b + (size_t)k0 * N;
#pragma unroll
    for (int i = 0; i < BK / B_STEP; i++) {
#if B_STEP % 8 == 0
        unsigned db = f.db + i * B_STEP * 128;
#else
        int k = f.bk + i * B_STEP;
        unsigned db = (f.n8 >> 3) * SLAB + k * 128 + (((f.n8 & 7) ^ (k & 7)) << 4);
#endif
        cp16(sb + db, b + i * f.sb, 16);
    }
}

// The wgmma work of one stage for warpgroup wg: 4 k16 steps.
__device__ __forceinline__ void compute_stage(unsigned sa, unsigned sb, int wg,
                                              float (*acc)[NT][ACC])
{
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++)
#pragma unroll
        for (int mi = 0; mi < MT; mi++) {
            // A: 8-row groups 1024 bytes apart (SBO); k16 is 32 bytes along the row
            unsigned long long da = desc(sa + (wg * WGM + mi * 64) * 128 + kk * 32, 16, 1024);
#pragma unroll
            for (int ni = 0; ni < NT; ni++) {
                // B: 64-column slabs SLAB apart (LBO), 8-row k groups 1024 apart (SBO)
                unsigned long long db =
                    desc(sb + ni * (WN / 64) * SLAB + kk * 2048, SLAB, 1024);
                wgmma(acc[mi][ni], da, db);
            }
        }
}
