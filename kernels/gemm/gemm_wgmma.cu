// gemm_wgmma.cu - FP16 / BF16 GEMM on Hopper's warpgroup tensor-core
// instructions (wgmma, sm_90a), FP32 accumulation: C = A B, all row-major,
// A (M x K), B (K x N), C (M x N) in the input type.  KT_BF16 (from the
// spec's CompilerOptions) picks bfloat16, else half.
//
// A block computes a BM x BN tile with WGS warpgroups (128 threads each);
// warpgroup g owns rows [g BM/WGS, (g+1) BM/WGS) and all BN columns, as
// m64 x WN x k16 wgmma instructions whose accumulators stay in registers.
// K advances 64 at a time through a STAGES-deep ring of shared-memory
// tiles that every thread fills with cp.async (16 bytes, zero fill past
// the edges).  The tiles are in wgmma's canonical 128-byte-swizzled
// layouts, read by the tensor cores straight from shared memory:
//   A: K-major, one 128-byte row (64 elements of k) per row of A; the
//      16-byte chunk c of row r is stored at chunk c ^ (r % 8);
//   B: MN-major (B is row-major K x N), in 64-column slabs of 64 rows x
//      128 bytes; chunk c of row k at chunk c ^ (k % 8).
// Tile t + STAGES - 2 is loaded while tile t multiplies and tile t - 1
// may still be in the tensor cores (wgmma.wait_group 1), so a stage is
// overwritten only after every warpgroup has finished with it.
// Any M, N, K: rows whose 8-element chunks are misaligned (K or N not a
// multiple of 8) are loaded element by element.  GM groups GM block rows
// together so that neighbouring blocks share tiles of A and B in L2.
#ifndef KT_BF16
#define KT_BF16 0
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 256
#endif
#ifndef WGS
#define WGS 2
#endif
#ifndef WN
#define WN 256
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef GM
#define GM 8
#endif

#define BK 64
#define THREADS (128 * WGS)
#define WGM (BM / WGS)       /* rows per warpgroup */
#define MT (WGM / 64)        /* m64 tiles per warpgroup */
#define NT (BN / WN)         /* wgmma instructions along N */
#define ACC (WN / 2)         /* accumulators per thread per instruction */
#define A_BYTES (BM * 128)   /* one stage of A */
#define B_BYTES (BN * 128)   /* one stage of B */
#define SLAB 8192            /* 64 rows x 128 bytes: one 64-column slab of B */

#if KT_BF16
#define TY "bf16"
#else
#define TY "f16"
#endif

#include "hopper.cuh"

__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n"); }

template <int N> __device__ __forceinline__ void cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// One stage: A rows [bm, bm + BM) x k [k0, k0 + 64) and B k rows x
// columns [bn, bn + BN), into the swizzled layouts above.  Each thread
// copies BM / (16 WGS) chunks of A (always the same chunk column) and
// BN / (16 WGS) of B.
__device__ __forceinline__ void load_stage(unsigned sa, unsigned sb, const elem *A,
                                           const elem *B, int M, int N, int K, int bm, int bn,
                                           int k0, bool va, bool vb)
{
#pragma unroll
    for (int i = 0; i < BM * 8 / THREADS; i++) {
        int c = threadIdx.x + i * THREADS, r = c >> 3, ch = c & 7, gr = bm + r, gk = k0 + ch * 8;
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
    for (int i = 0; i < BN * 8 / THREADS; i++) {
        int c = threadIdx.x + i * THREADS, k = c / (BN / 8), n8 = c % (BN / 8), ch = n8 & 7;
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
#define LOADERS THREADS /* threads that load */
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

// A stage by the fast path where it applies, else element-exact.
__device__ __forceinline__ void fill(const feed &f, bool inside, unsigned sa, unsigned sb,
                                     const elem *A, const elem *B, int M, int N, int K, int bm,
                                     int bn, int k0, bool va, bool vb)
{
    if (inside && k0 + BK <= K)
        feed_stage(f, sa, sb, N, K, k0);
    else
        load_stage(sa, sb, A, B, M, N, K, bm, bn, k0, va, vb);
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

// The accumulators to C, converted, edges guarded.  Thread t of a
// warpgroup holds rows 16 (t / 32) + (t % 32) / 4 (+ 8) of each m64 tile,
// columns 8 i + 2 (t % 4) (+ 1).
__device__ __forceinline__ void store_tile(elem *C, int M, int N, int m0, int n0,
                                           float (*acc)[NT][ACC])
{
    int t = threadIdx.x % 128;
#pragma unroll
    for (int mi = 0; mi < MT; mi++)
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
#pragma unroll
            for (int i = 0; i < WN / 8; i++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    int r = m0 + mi * 64 + (t / 32) * 16 + (t % 32) / 4 + h * 8;
                    int c = n0 + ni * WN + i * 8 + (t % 4) * 2;
                    if (r >= M)
                        continue;
                    elem lo = to_elem(acc[mi][ni][4 * i + 2 * h]);
                    elem hi = to_elem(acc[mi][ni][4 * i + 2 * h + 1]);
                    if (c + 1 < N && N % 2 == 0) {
                        *(unsigned *)(C + (size_t)r * N + c) = lo | ((unsigned)hi << 16);
                    } else {
                        if (c < N)
                            C[(size_t)r * N + c] = lo;
                        if (c + 1 < N)
                            C[(size_t)r * N + c + 1] = hi;
                    }
                }
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    gemm_wgmma(int M, int N, int K, const elem *__restrict__ A, const elem *__restrict__ B,
               elem *__restrict__ C)
{
    extern __shared__ __align__(16) unsigned char smem[];
    // the swizzle pattern repeats every 1024 bytes: stages start on a multiple
    unsigned base = (smem_addr(smem) + 1023) & ~1023u;
    // grouped raster: GM block rows sweep the columns together
    int gx = gridDim.x, id = blockIdx.y * gx + blockIdx.x;
    int rows = (M + BM - 1) / BM, first = id / (GM * gx) * GM;
    int group = rows - first < GM ? rows - first : GM;
    int bm = (first + (id % (GM * gx)) % group) * BM, bn = (id % (GM * gx)) / group * BN;
    int wg = threadIdx.x / 128;
    bool va = K % 8 == 0, vb = N % 8 == 0;
    bool inside = va && vb && bm + BM <= M && bn + BN <= N;
    feed f = feed_make(threadIdx.x, A, B, N, K, bm, bn);
    float acc[MT][NT][ACC];
#pragma unroll
    for (int mi = 0; mi < MT; mi++)
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
#pragma unroll
            for (int i = 0; i < ACC; i++)
                acc[mi][ni][i] = 0.0f;
    int tiles = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 2; s++) {
        if (s < tiles)
            fill(f, inside, base + s * A_BYTES, base + STAGES * A_BYTES + s * B_BYTES, A, B, M, N,
                 K, bm, bn, s * BK, va, vb);
        cp_commit();
    }
    for (int t = 0; t < tiles; t++) {
        cp_wait<STAGES - 3>();
        fence_async();
        __syncthreads();
        int s = t % STAGES;
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int ni = 0; ni < NT; ni++)
                pin(acc[mi][ni]);
        wg_fence();
        compute_stage(base + s * A_BYTES, base + STAGES * A_BYTES + s * B_BYTES, wg, acc);
        wg_commit();
        int next = t + STAGES - 2, ns = next % STAGES;
        if (next < tiles)
            fill(f, inside, base + ns * A_BYTES, base + STAGES * A_BYTES + ns * B_BYTES, A, B, M,
                 N, K, bm, bn, next * BK, va, vb);
        cp_commit();
        wg_wait<1>();
    }
    wg_wait<0>();
#pragma unroll
    for (int mi = 0; mi < MT; mi++)
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
            pin(acc[mi][ni]);
    store_tile(C, M, N, bm + wg * WGM, bn, acc);
}
