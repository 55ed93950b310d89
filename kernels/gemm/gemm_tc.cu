// gemm_tc.cu - FP16 / BF16 GEMM on the tensor cores (mma.sync m16n8k16,
// FP32 accumulation): C = A B, all row-major, A (M x K), B (K x N), C
// (M x N) in the input type.  KT_BF16 (from the spec's CompilerOptions)
// picks bfloat16, else half.  The PTX helpers (cp.async, ldmatrix, mma,
// the store of the accumulators) are mma.cuh's.
//
// A block computes a BM x BN tile with WM x WN warps, each a (BM/WM) x
// (BN/WN) warp tile of 16 x 8 mma tiles.  K advances BK at a time through a
// STAGES-deep ring of shared-memory tiles filled by cp.async (16 bytes, zero
// fill past the edges); ldmatrix (.trans for B) feeds the mma fragments.
// Rows of the tiles are padded by 8 elements so that ldmatrix's eight
// addresses fall in distinct banks.  Any M, N, K: rows or columns whose
// 8-element chunks are misaligned (K or N not a multiple of 8) are loaded
// element by element.  GM groups GM block rows together so that
// neighbouring blocks share tiles of A and B in L2.
#include "mma.cuh"

#define WTM (BM / WM)
#define WTN (BN / WN)
#define MI (WTM / 16)
#define NI (WTN / 8)
#define THREADS (32 * WM * WN)
#define AS (BK + 8)
#define BS (BN + 8)

// One tile of BR rows x BC columns from a row-major matrix of R x C
// (leading dimension C) at (r0, c0) into shared memory of row stride LD.
template <int BR, int BC, int LD>
__device__ __forceinline__ void load_tile(elem *s, const elem *g, int R, int C, int r0, int c0,
                                          bool vec)
{
    for (int c = threadIdx.x; c < BR * BC / 8; c += THREADS) {
        int r = c / (BC / 8), cc = (c % (BC / 8)) * 8, gr = r0 + r, gc = c0 + cc;
        elem *d = s + r * LD + cc;
        if (vec) {
            bool in = gr < R && gc < C;
            cp16(smem_addr(d), in ? g + (size_t)gr * C + gc : g, in ? 16 : 0);
        } else {
            for (int j = 0; j < 8; j++)
                d[j] = gr < R && gc + j < C ? g[(size_t)gr * C + gc + j] : (elem)0;
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    gemm_tc(int M, int N, int K, const elem *__restrict__ A, const elem *__restrict__ B,
            elem *__restrict__ C)
{
    extern __shared__ __align__(16) elem smem[];
    elem *As = smem, *Bs = smem + STAGES * BM * AS;
    // grouped raster: GM block rows sweep the columns together
    int gx = gridDim.x, id = blockIdx.y * gx + blockIdx.x;
    int rows = (M + BM - 1) / BM, first = id / (GM * gx) * GM;
    int group = rows - first < GM ? rows - first : GM;
    int by = first + (id % (GM * gx)) % group, bx = (id % (GM * gx)) / group;
    int bm = by * BM, bn = bx * BN;
    int warp = threadIdx.x / 32, wm = warp / WN, wn = warp % WN;
    bool va = K % 8 == 0, vb = N % 8 == 0;
    float acc[MI][NI][4];
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
            acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;
    int tiles = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < tiles) {
            load_tile<BM, BK, AS>(As + s * BM * AS, A, M, K, bm, s * BK, va);
            load_tile<BK, BN, BS>(Bs + s * BK * BS, B, K, N, s * BK, bn, vb);
        }
        cp_commit();
    }
    for (int t = 0; t < tiles; t++) {
        cp_wait<STAGES - 2>();
        __syncthreads();
        int next = t + STAGES - 1, s = next % STAGES;
        if (next < tiles) {
            load_tile<BM, BK, AS>(As + s * BM * AS, A, M, K, bm, next * BK, va);
            load_tile<BK, BN, BS>(Bs + s * BK * BS, B, K, N, next * BK, bn, vb);
        }
        cp_commit();
        compute_stage<MI, NI, BK, AS, BS, false>(As + (t % STAGES) * BM * AS,
                                                  Bs + (t % STAGES) * BK * BS, wm * WTM, wn * WTN, acc);
    }
    store_tile<MI, NI>(C, M, N, bm + wm * WTM, bn + wn * WTN, acc);
}
