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

#define LOADERS 128 /* the producer warpgroup loads */
#include "wgmma_stage.cuh"

// One arrival on bar once this thread's earlier cp.async copies have landed.
__device__ __forceinline__ void cp_arrive(unsigned bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar)
                 : "memory");
}

__device__ __forceinline__ void cp_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

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
    acc_zero(acc);
    int tiles = (K + BK - 1) / BK;
    for (int t = 0; t < tiles; t++) {
        int s = t % STAGES;
        mbar_wait(bars + 8 * s, (t / STAGES) & 1);
        fence_async();
        acc_pin(acc);
        wg_fence();
        compute_stage(base + s * A_BYTES, base + STAGES * A_BYTES + s * B_BYTES, wg, acc);
        wg_commit();
        wg_wait<1>();
        if (t > 0)
            mbar_arrive(bars + 8 * (STAGES + (t - 1) % STAGES));
    }
    wg_wait<0>();
    acc_pin(acc);
    store_acc(C, M, N, bm + wg * WGM, bn, acc);
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
