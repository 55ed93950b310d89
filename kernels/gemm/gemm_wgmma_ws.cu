// gemm_wgmma_ws.cu - FP16 / BF16 GEMM on Hopper's wgmma (sm_90a), warp
// specialised: C = A B, all row-major, FP32 accumulation, any M, N, K;
// KT_BF16 picks bfloat16, else half.  gemm_wgmma.cu's tiles, layouts and
// instructions, with the work split by role instead of shared by all:
//   - WGS consumer warpgroups (0 .. WGS-1) only multiply: warpgroup g owns
//     rows [g BM/WGS, (g+1) BM/WGS) of the BM x BN tile, m64 x WN x k16
//     wgmma instructions, accumulators in registers;
//   - one producer warpgroup (the last) only loads: cp.async into a
//     STAGES-deep ring of 128-byte-swizzled tiles.
// Each stage s has two mbarriers in shared memory: full[s] completes when
// the producer's 128 threads' copies into it have landed
// (cp.async.mbarrier.arrive.noinc), empty[s] when every consumer thread
// is done with it (after wgmma.wait_group 1 shows that the instructions
// reading it have finished).  No block-wide barrier in the main loop: the
// producer refills a stage as soon as it is released, one k-tile earlier
// than gemm_wgmma.cu's ring, and the consumers never wait on a load issue.
// Use u of stage s (tile t = u STAGES + s) waits for phase u of full[s]
// (parity u & 1); the producer's refill for use u waits for phase u - 1 of
// empty[s].
#ifndef KT_BF16
#define KT_BF16 0
#endif
#ifndef BM
#define BM 256
#endif
#ifndef BN
#define BN 128
#endif
#ifndef WGS
#define WGS 2
#endif
#ifndef WN
#define WN 128
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef GM
#define GM 8
#endif

#define BK 64
#define THREADS (128 * (WGS + 1))
#define WGM (BM / WGS)       /* rows per consumer warpgroup */
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

// One arrival on bar once this thread's earlier cp.async copies have landed.
__device__ __forceinline__ void cp_arrive(unsigned bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar)
                 : "memory");
}

__device__ __forceinline__ void cp_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// One stage: A rows [bm, bm + BM) x k [k0, k0 + 64) and B k rows x
// columns [bn, bn + BN), into the swizzled layouts above, by the 128
// threads of the producer warpgroup (pt: 0 to 127).
__device__ __forceinline__ void load_stage(int pt, unsigned sa, unsigned sb, const elem *A,
                                           const elem *B, int M, int N, int K, int bm, int bn,
                                           int k0, bool va, bool vb)
{
#pragma unroll
    for (int i = 0; i < BM * 8 / 128; i++) {
        int c = pt + i * 128, r = c >> 3, ch = c & 7, gr = bm + r, gk = k0 + ch * 8;
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
    for (int i = 0; i < BN * 8 / 128; i++) {
        int c = pt + i * 128, k = c / (BN / 8), n8 = c % (BN / 8), ch = n8 & 7;
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
#define LOADERS 128 /* threads that load */
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

// The producer warpgroup: every tile of the block's k range into the ring.
// Rows with misaligned chunks (K or N not a multiple of 8) are stored by
// plain st.shared: those wait for the thread's copies, fence and arrive.
__device__ __forceinline__ void produce(unsigned base, unsigned bars, const elem *A,
                                        const elem *B, int M, int N, int K, int bm, int bn)
{
    int pt = threadIdx.x - 128 * WGS, tiles = (K + BK - 1) / BK;
    bool va = K % 8 == 0, vb = N % 8 == 0;
    bool inside = va && vb && bm + BM <= M && bn + BN <= N;
    feed f = feed_make(pt, A, B, N, K, bm, bn);
    for (int t = 0; t < tiles; t++) {
        int s = t % STAGES, u = t / STAGES;
        if (u > 0)
            mbar_wait(bars + 8 * (STAGES + s), (u - 1) & 1);
        unsigned sa = base + s * A_BYTES, sb = base + STAGES * A_BYTES + s * B_BYTES;
        if (inside && (t + 1) * BK <= K)
            feed_stage(f, sa, sb, N, K, t * BK);
        else
            load_stage(pt, sa, sb, A, B, M, N, K, bm, bn, t * BK, va, vb);
        if (va && vb) {
            cp_arrive(bars + 8 * s);
        } else {
            cp_wait_all();
            fence_async();
            mbar_arrive(bars + 8 * s);
        }
    }
}

// A consumer warpgroup: wait for each tile, multiply it, release the one
// before it once its instructions have finished, then store.
__device__ __forceinline__ void consume(unsigned base, unsigned bars, elem *C, int M, int N,
                                        int K, int bm, int bn, int wg)
{
    float acc[MT][NT][ACC];
#pragma unroll
    for (int mi = 0; mi < MT; mi++)
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
#pragma unroll
            for (int i = 0; i < ACC; i++)
                acc[mi][ni][i] = 0.0f;
    int tiles = (K + BK - 1) / BK;
    for (int t = 0; t < tiles; t++) {
        int s = t % STAGES;
        mbar_wait(bars + 8 * s, (t / STAGES) & 1);
        fence_async();
#pragma unroll
        for (int mi = 0; mi < MT; mi++)
#pragma unroll
            for (int ni = 0; ni < NT; ni++)
                pin(acc[mi][ni]);
        wg_fence();
        compute_stage(base + s * A_BYTES, base + STAGES * A_BYTES + s * B_BYTES, wg, acc);
        wg_commit();
        wg_wait<1>();
        if (t > 0)
            mbar_arrive(bars + 8 * (STAGES + (t - 1) % STAGES));
    }
    wg_wait<0>();
#pragma unroll
    for (int mi = 0; mi < MT; mi++)
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
            pin(acc[mi][ni]);
    store_tile(C, M, N, bm + wg * WGM, bn, acc);
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
    gemm_wgmma_ws(int M, int N, int K, const elem *__restrict__ A, const elem *__restrict__ B,
                  elem *__restrict__ C)
{
    extern __shared__ __align__(16) unsigned char smem[];
    // the swizzle pattern repeats every 1024 bytes: stages start on a multiple;
    // the 2 STAGES mbarriers (full, then empty) follow the tiles
    unsigned base = (smem_addr(smem) + 1023) & ~1023u;
    unsigned bars = base + STAGES * (A_BYTES + B_BYTES);
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(bars + 8 * s, 128);
            mbar_init(bars + 8 * (STAGES + s), 128 * WGS);
        }
    }
    __syncthreads();
    // grouped raster: GM block rows sweep the columns together
    int gx = gridDim.x, id = blockIdx.y * gx + blockIdx.x;
    int rows = (M + BM - 1) / BM, first = id / (GM * gx) * GM;
    int group = rows - first < GM ? rows - first : GM;
    int bm = (first + (id % (GM * gx)) % group) * BM, bn = (id % (GM * gx)) / group * BN;
    int wg = threadIdx.x / 128;
    if (wg == WGS)
        produce(base, bars, A, B, M, N, K, bm, bn);
    else
        consume(base, bars, C, M, N, K, bm, bn, wg);
}
