// conv_igemm_tma.cu - FP16 (or BF16, with KT_BF16 from the spec's
// CompilerOptions) 2-D forward convolution with stride 1 on Hopper
// (sm_90a): the implicit GEMM of conv_igemm_wgmma.cu (X NHWC, filters
// KRSC, Y NPQK, FP32 accumulation, same arguments and reference) with the
// tensor memory accelerator gathering A instead of every thread.
//   - A block's output tile is BNI images x BP rows x BQ columns of pixels
//     (PIX of them, the tile's rows in that order; BM is PIX rounded up to
//     64, the rows past PIX multiplied and dropped) x BN channels.  With
//     stride 1, the inputs that filter tap (r, s) multiplies for the tile
//     are one box of X seen as (C, W, H, N), at (c0, q0 - pad + s, p0 - pad
//     + r, n0) and of the tile's extent, so a tiled tensor map gathers
//     them; its out-of-bounds elements (the padding, past C, past the
//     edges) read as zeros.  64 channels a box (BK): one 128-byte swizzled
//     row per pixel, the layout wgmma reads.  B's box: 64 channels x 1 tap
//     x BN filters of Wt seen as (C, R S, K).
//   - One producer thread issues both boxes of each reduction tile onto
//     its stage's `full` mbarrier; WGS consumer warpgroups multiply
//     (conv_wgmma.cuh) and free the stage (`empty`, one arrival per warp)
//     once their wgmma has read it, as kernels/gemm/gemm_tma.cu does.
//   - Clusters of CLUSTER blocks (1 or 2) take tiles that differ only in
//     their output channels (consecutive tiles: the spec asks for an even
//     number of channel tiles), so they share the A box: the cluster's
//     first block loads it into every block (multicast), each block its
//     own B, and the `empty` barriers count the consumers of the whole
//     cluster (slower on the ResNet-50 layers measured: each block then
//     waits for its peer's consumers at every stage; docs/PERFORMANCE.md).
//   - Epilogue: EPI 0 stores registers straight to Y (4 bytes a thread, 8
//     rows a warp); EPI 1 stages each warp's 16-row x 64-channel strips
//     through shared memory for 16-byte stores along the rows.
//   - Ping-pong (PP 1, with WGS 2): each consumer warpgroup takes a whole
//     tile of its own, the block's tiles alternately, so that one stores
//     its tile while the other multiplies the next.  Their main loops take
//     turns (named barriers 1 and 2: a warpgroup starts waiting on the
//     ring only once the other has waited on every stage of its tile, so
//     the stages are taken in the producer's order and no wait can see an
//     earlier phase of the same parity), and each stage is freed by the
//     one warpgroup that read it.  PP 0: both warpgroups split each tile's
//     rows and store together, the tensor cores idle meanwhile.
//   - Flat tiles (FLAT 1; 1x1 filters without padding): Y's rows are X's
//     rows, so the kernel sees the problem as one image of one row of N P
//     Q pixels and a tile is BQ consecutive ones (64, 128 or 256: no rows
//     lost to image edges), its A box from tmXf, X seen as (C, N H W).
//   - Persistent grid: GRID blocks (0: one per tile; 128 leaves SMs over
//     for clusters that cannot pair every SM) take tiles t, t +
//     gridDim.x, ...; output channels vary fastest, so the blocks sharing
//     an A tile run together (its other reads hit L2), and the producer
//     loads a block's next tile while its consumers store.
// Phases: the i-th reduction tile a block loads uses stage i % STAGES and
// phase (i / STAGES) & 1 of `full`; its refill waits for the phase before
// that of `empty`.  C must be a multiple of 8 (the maps' 16-byte row
// pitches) and the stride 1: the spec's conditions leave other problems
// an empty space.
#define BK 64
#define PIX (BQ * BP * BNI)
#define BM ((PIX + 63) / 64 * 64)
#define THREADS (128 * (WGS + 1))
#define WGM (PP ? BM : BM / WGS) /* rows per consumer warpgroup */
#define RING_WGS (PP ? 1 : WGS)   /* consumer warpgroups that read a stage */
#define MT (WGM / 64)      /* m64 tiles per warpgroup */
#define WN BN              /* one wgmma instruction spans the channels */
#define NT 1
#define ACC (WN / 2)       /* accumulators per thread per instruction */
#define A_BYTES (BM * 128) /* one stage of A */
#define B_BYTES (BN * 128)
#define EPI_BYTES (EPI ? WGS * 4 * 2048 : 0) /* per warp: 16 rows x 64 channels */
#ifndef KT_BF16
#define KT_BF16 0
#endif
#if KT_BF16
#define TY "bf16"
#else
#define TY "f16"
#endif

#include "hopper.cuh"
#include "conv.cuh"
#include "conv_wgmma.cuh"
#include "tma.cuh"

// Box (c, x, y, z) of a 4-D map, or (c, x, y) of a 3-D one, to shared
// memory at dst, completing on bar; the 4-D one, with CLUSTER > 1, into
// every block of the cluster at the same offsets (their bars too).
__device__ __forceinline__ void tma4(unsigned dst, const CUtensorMap *map, int c, int x, int y,
                                     int z, unsigned bar)
{
#if CLUSTER > 1
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3, %4, %5}], [%6], %7;\n" ::"r"(dst),
                 "l"(map), "r"(c), "r"(x), "r"(y), "r"(z), "r"(bar),
                 "h"((unsigned short)((1 << CLUSTER) - 1))
                 : "memory");
    return;
#endif
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
                 "l"(map), "r"(c), "r"(x), "r"(y), "r"(z), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ void tma3(unsigned dst, const CUtensorMap *map, int c, int x, int y,
                                     unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
                 "l"(map), "r"(c), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}

// The problem, as the block's threads use it.
struct shape {
    int N, C, K, R, S, pad, P, Q;
};

// An output tile: its first image, row, column and channel.
struct tile {
    int n0, p0, q0, k0;
};

__device__ __forceinline__ int tile_count(const shape &g)
{
    return (g.K + BN - 1) / BN * ((g.Q + BQ - 1) / BQ) * ((g.P + BP - 1) / BP) *
           ((g.N + BNI - 1) / BNI);
}

// This block's tiles: t = first_tile(), next_tile(t), ... while t <
// tile_count(g); a cluster's blocks take consecutive ones together.
__device__ __forceinline__ int first_tile()
{
    return blockIdx.x / CLUSTER * CLUSTER + (int)cluster_rank();
}

__device__ __forceinline__ int next_tile(int t)
{
    return t + gridDim.x / CLUSTER * CLUSTER;
}

__device__ __forceinline__ tile tile_at(int t, const shape &g)
{
    int kb = (g.K + BN - 1) / BN, qb = (g.Q + BQ - 1) / BQ, pb = (g.P + BP - 1) / BP;
    tile r;
    r.k0 = t % kb * BN;
    t /= kb;
    r.q0 = t % qb * BQ;
    t /= qb;
    r.p0 = t % pb * BP;
    r.n0 = t / pb * BNI;
    return r;
}

// The producer: one thread loads every reduction tile of the block's tiles.
__device__ __forceinline__ void produce(unsigned base, unsigned bars, const CUtensorMap *tx,
                                        const CUtensorMap *tw, const shape &g)
{
    int tiles = g.R * g.S * ((g.C + BK - 1) / BK), it = 0;
    for (int t = first_tile(); t < tile_count(g); t = next_tile(t)) {
        tile tl = tile_at(t, g);
        tap tp = {0, 0, 0};
        for (int kt = 0; kt < tiles; kt++, it++) {
            int s = it % STAGES, u = it / STAGES;
            unsigned full = bars + 8 * s;
            if (u > 0)
                mbar_wait(bars + 8 * (STAGES + s), (u - 1) & 1);
            mbar_expect(full, PIX * 128 + B_BYTES);
            if (cluster_rank() == 0)
                tma4(base + s * A_BYTES, tx, tp.c0, tl.q0 - g.pad + tp.s,
                     tl.p0 - g.pad + tp.r, tl.n0, full);
            tma3(base + STAGES * A_BYTES + s * B_BYTES, tw, tp.c0, tp.r * g.S + tp.s, tl.k0,
                 full);
            next_tap(tp, g.C, g.S);
        }
    }
}

// Frees stage s for the producers of every block of the cluster: one
// arrival per warp, after its wgmma reading the stage finished.
__device__ __forceinline__ void release(unsigned bars, int s)
{
    if (threadIdx.x % 32 != 0)
        return;
    mbar_arrive(bars + 8 * (STAGES + s));
#pragma unroll
    for (int r = 1; r < CLUSTER; r++)
        mbar_arrive_remote(bars + 8 * (STAGES + s), (cluster_rank() + r) % CLUSTER);
}

// The output row of the tile's row r, pixel (n0 + r / (BP BQ), p0 + r / BQ
// % BP, q0 + r % BQ); null past PIX or the output.
__device__ __forceinline__ elem *out_row(elem *Y, const shape &g, const tile &tl, int r)
{
    int n = tl.n0 + r / (BP * BQ), p = tl.p0 + r / BQ % BP, q = tl.q0 + r % BQ;
    if (r >= PIX || n >= g.N || p >= g.P || q >= g.Q)
        return 0;
    return Y + ((size_t)(n * g.P + p) * g.Q + q) * g.K;
}

// EPI 1: a warp's 16 rows (from r0) x 64 channels (from c0; d, their
// accumulators) through its own 2 KB of shared memory (stage, 128-byte
// swizzled rows), then 16-byte stores, 8 lanes per row.
__device__ __forceinline__ void store_strip(elem *Y, const shape &g, const tile &tl, int r0,
                                            int c0, const float *d, unsigned stage)
{
    int lane = threadIdx.x % 32;
    stage_strip(d, stage);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int r = i * 4 + lane / 8, ch = lane % 8, c = c0 + ch * 8;
        uint4 v;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "r"(stage + r * 128 + ((ch ^ (r & 7)) << 4)));
        elem *y = out_row(Y, g, tl, r0 + r);
        if (!y)
            continue;
        if (c + 8 <= g.K && g.K % 8 == 0) {
            *(uint4 *)(y + c) = v;
        } else {
            unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int j = 0; j < 8; j++)
                if (c + j < g.K)
                    y[c + j] = (elem)(w[j / 2] >> (16 * (j % 2)));
        }
    }
}

// Warpgroup wg's accumulators to Y: EPI 0 straight from the registers,
// EPI 1 through shared memory (store_strip) at epi.
__device__ __forceinline__ void store_tile(elem *Y, const shape &g, const tile &tl, int wg,
                                           float (*acc)[NT][ACC], unsigned epi)
{
#pragma unroll
    for (int mi = 0; mi < MT; mi++) {
#if EPI
        int r0 = (PP ? 0 : wg * WGM) + mi * 64 + (threadIdx.x % 128 / 32) * 16;
#pragma unroll
        for (int s = 0; s < WN / 64; s++)
            store_strip(Y, g, tl, r0, tl.k0 + s * 64, acc[mi][0] + 32 * s,
                        epi + threadIdx.x / 32 * 2048);
#else
        (void)epi;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            elem *y = out_row(Y, g, tl, (PP ? 0 : wg * WGM) + acc_row(mi, h));
            if (!y)
                continue;
#pragma unroll
            for (int i = 0; i < WN / 8; i++)
                store_pair(y, g.K, tl.k0 + acc_col(0, i), acc[mi][0][4 * i + 2 * h],
                           acc[mi][0][4 * i + 2 * h + 1]);
        }
#endif
    }
}

// PP 1: the turn of the warpgroup whose tile is the block's j-th.  Named
// barrier 1 + j % 2 says that the j-th tile's main loop has waited on all
// its stages: its warpgroup's 128 threads arrive, the other's 128 wait
// (constant ids, so that ptxas counts only the barriers used).
template <int ID> __device__ __forceinline__ void named_sync()
{
    asm volatile("bar.sync %0, 256;\n" ::"n"(ID) : "memory");
}

template <int ID> __device__ __forceinline__ void named_arrive()
{
    asm volatile("bar.arrive %0, 256;\n" ::"n"(ID) : "memory");
}

__device__ __forceinline__ void turn_wait(int j)
{
    if (PP && j > 0 && j % 2 == 1)
        named_sync<1>();
    else if (PP && j > 0)
        named_sync<2>();
}

__device__ __forceinline__ void turn_pass(int j, int next_t, const shape &g)
{
    if (PP && next_t < tile_count(g) && j % 2 == 0)
        named_arrive<1>();
    else if (PP && next_t < tile_count(g))
        named_arrive<2>();
}

// A consumer warpgroup: for each of the block's tiles it takes (every one,
// or with PP every other), wait for each reduction tile, multiply it, free
// the one before once its wgmma finished, then store.
__device__ __forceinline__ void consume(unsigned base, unsigned bars, unsigned epi, elem *Y,
                                        const shape &g, int wg)
{
    float acc[MT][NT][ACC];
    int tiles = g.R * g.S * ((g.C + BK - 1) / BK), j = 0;
    for (int t = first_tile(); t < tile_count(g); t = next_tile(t), j++) {
        if (PP && j % WGS != wg)
            continue;
        int it = j * tiles; /* the block's reduction tiles before this one */
        acc_zero(acc);
        turn_wait(j);
        for (int kt = 0; kt < tiles; kt++, it++) {
            int s = it % STAGES;
            mbar_wait(bars + 8 * s, (it / STAGES) & 1);
            acc_pin(acc);
            wg_fence();
            compute_stage(base + s * A_BYTES, base + STAGES * A_BYTES + s * B_BYTES,
                          PP ? 0 : wg, acc);
            wg_commit();
            wg_wait<1>();
            if (kt > 0)
                release(bars, (it - 1) % STAGES);
        }
        turn_pass(j, next_tile(t), g);
        wg_wait<0>();
        release(bars, (it - 1) % STAGES);
        acc_pin(acc);
        store_tile(Y, g, tile_at(t, g), wg, acc, epi);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, 1)
#if CLUSTER > 1
    __cluster_dims__(CLUSTER, 1, 1)
#endif
    conv_igemm_tma(int N, int C, int H, int W, int K, int R, int S, int stride, int pad, int P,
                   int Q, const elem *__restrict__ X, const elem *__restrict__ Wt,
                   elem *__restrict__ Y, float *__restrict__ ws, int *__restrict__ cnt,
                   const __grid_constant__ CUtensorMap tmX, const __grid_constant__ CUtensorMap tmXf,
                   const __grid_constant__ CUtensorMap tmW)
{
    extern __shared__ __align__(16) unsigned char smem[];
    // the swizzle pattern repeats every 1024 bytes: stages start on a
    // multiple; then the epilogue's buffers, then 2 STAGES mbarriers
    // (full, empty)
    unsigned base = (smem_addr(smem) + 1023) & ~1023u;
    unsigned epi = base + STAGES * (A_BYTES + B_BYTES), bars = epi + EPI_BYTES;
#if FLAT
    shape g = {1, C, K, R, S, pad, 1, N * P * Q};
#else
    shape g = {N, C, K, R, S, pad, P, Q};
#endif
    ring_init(bars);
    int wg = threadIdx.x / 128;
    if (wg == WGS) {
#if WGS > 1
        set_regs_dec<40>();
#endif
        if (threadIdx.x == 128 * WGS)
            produce(base, bars, FLAT ? &tmXf : &tmX, &tmW, g);
    } else {
#if WGS > 1
        set_regs_inc<232>();
#endif
        consume(base, bars, epi, Y, g, wg);
    }
    // no block may leave while its cluster peers can still write its
    // shared memory or arrive on its barriers
    cluster_sync();
    (void)H, (void)W, (void)stride, (void)X, (void)Wt, (void)ws, (void)cnt;
}
