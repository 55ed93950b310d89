// gemm_tc.cu - FP16 / BF16 GEMM on the tensor cores (mma.sync m16n8k16,
// FP32 accumulation): C = A B, all row-major, A (M x K), B (K x N), C
// (M x N) in the input type.  KT_BF16 (from the spec's CompilerOptions)
// picks bfloat16, else half.  Elements travel as 16-bit words; the few
// conversions are PTX, so no header is needed.
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
#ifndef KT_BF16
#define KT_BF16 0
#endif

#define WTM (BM / WM)
#define WTN (BN / WN)
#define MI (WTM / 16)
#define NI (WTN / 8)
#define THREADS (32 * WM * WN)
#define AS (BK + 8)
#define BS (BN + 8)

typedef unsigned short elem;

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    unsigned r;
    asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
    return r;
}

__device__ __forceinline__ void cp16(unsigned dst, const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(bytes));
}

__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n"); }

template <int N> __device__ __forceinline__ void cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ elem to_elem(float f)
{
    unsigned short h;
#if KT_BF16
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
#else
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
#endif
    return h;
}

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

// A pure register operation: not volatile, so that the compiler may
// interleave the next step's ldmatrix with these.
__device__ __forceinline__ void mma(float *d, const unsigned *a, const unsigned *b)
{
#if KT_BF16
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
#else
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
#endif
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The fragments of k-step kk of a stage: MI of A, NI of B.
__device__ __forceinline__ void load_frags(const elem *As, const elem *Bs, int wm, int wn,
                                           int kk, unsigned (*a)[4], unsigned (*b)[2])
{
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < MI; i++) {
        const elem *p = As + (wm * WTM + i * 16 + lane % 16) * AS + kk + (lane / 16) * 8;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3])
                     : "r"(smem_addr(p)));
    }
#pragma unroll
    for (int j = 0; j < NI; j += 2) {
        const elem *p = Bs + (kk + lane % 16) * BS + wn * WTN + j * 8 + (lane / 16) * 8;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j + 1][0]), "=r"(b[j + 1][1])
                     : "r"(smem_addr(p)));
    }
}

// The mma work of one stage: BK / 16 steps of MI x NI tiles per warp, the
// fragments of step kk + 16 loaded while step kk multiplies.
__device__ __forceinline__ void compute_stage(const elem *As, const elem *Bs, int wm, int wn,
                                              float (*acc)[NI][4])
{
    unsigned a[2][MI][4], b[2][NI][2];
    load_frags(As, Bs, wm, wn, 0, a[0], b[0]);
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
        int cur = (kk / 16) % 2;
        if (kk + 16 < BK)
            load_frags(As, Bs, wm, wn, kk + 16, a[cur ^ 1], b[cur ^ 1]);
#pragma unroll
        for (int i = 0; i < MI; i++)
#pragma unroll
            for (int j = 0; j < NI; j++)
                mma(acc[i][j], a[cur][i], b[cur][j]);
    }
}

// The accumulators to C, converted, edges guarded.
__device__ __forceinline__ void store_tile(elem *C, int M, int N, int m0, int n0,
                                           float (*acc)[NI][4])
{
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int r = m0 + i * 16 + lane / 4 + h * 8, c = n0 + j * 8 + (lane % 4) * 2;
                if (r >= M)
                    continue;
                elem lo = to_elem(acc[i][j][2 * h]), hi = to_elem(acc[i][j][2 * h + 1]);
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
        compute_stage(As + (t % STAGES) * BM * AS, Bs + (t % STAGES) * BK * BS, wm, wn, acc);
    }
    store_tile(C, M, N, bm + wm * WTM, bn + wn * WTN, acc);
}
