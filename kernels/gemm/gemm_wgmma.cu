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

#define LOADERS THREADS /* every thread loads */
#include "wgmma_stage.cuh"

__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n"); }

template <int N> __device__ __forceinline__ void cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// A stage by the fast path where it applies, else element-exact.
__device__ __forceinline__ void fill(const feed &f, bool inside, unsigned sa, unsigned sb,
                                     const elem *A, const elem *B, int M, int N, int K, int bm,
                                     int bn, int k0, bool va, bool vb)
{
    if (inside && k0 + BK <= K)
        feed_stage(f, sa, sb, N, K, k0);
    else
        load_stage(threadIdx.x, sa, sb, A, B, M, N, K, bm, bn, k0, va, vb);
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
    acc_zero(acc);
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
        acc_pin(acc);
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
    acc_pin(acc);
    store_acc(C, M, N, bm + wg * WGM, bn, acc);
}
