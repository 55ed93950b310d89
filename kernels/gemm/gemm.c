/* gemm.c - ktune's tunable CPU SGEMM: C = A * B, row-major, single precision.
 *
 *   void gemm(int M, int N, int K, const float *A, const float *B, float *C);
 *
 * A is M x K, B is K x N, C is M x N, all row-major and dense (lda = K,
 * ldb = N, ldc = N).  C is fully overwritten: its previous contents are never
 * read (ktune poisons outputs with NaN before each run).  Correct for any
 * M, N, K >= 1.
 *
 * Algorithm (Goto / BLIS):
 *
 *   for jc in N step NC:                      columns of C and B
 *     for pc in K step KC:                    the shared dimension
 *       pack B[pc:pc+KC, jc:jc+NC] into NR-column micro-panels (k-major,
 *         zero-padded to NR; the threads share it, each packs a part)
 *       for ic in this thread's rows, step MC:
 *         pack A[ic:ic+MC, pc:pc+KC] into MR-row micro-panels (k-major,
 *           zero-padded to MR; one buffer per thread)
 *         for jr in NC step NR:               one B micro-panel (KC x NR),
 *           for ir in MC step MR:               reused by every ir: L1 or L2
 *             MR x NR register tile += A micro-panel (MR x KC, from L2)
 *                                      * B micro-panel
 *
 * The micro-kernel keeps MR x (NR / VEC) vector accumulators: per k it loads
 * NR / VEC vectors of B and broadcasts MR scalars of A (FMA).  On the first
 * KC block it stores C, afterwards it adds to C.  Tiles cut by the edges of
 * M or N are computed in full (the packed panels are zero-padded) into a
 * scratch tile and only their valid part is written.
 *
 * Threads (THREADS > 1): one OpenMP team per call.  The rows of C (the MC
 * loop) are split into THREADS contiguous ranges, multiples of MR, one per
 * thread; the packed B panel is shared (packed cooperatively, with a barrier
 * before and after its use).  THREADS == 1 starts no team at all.
 *
 * Tuning parameters (each has a default below, so the file compiles alone):
 *
 *   MC, NC, KC  cache blocking: an MC x KC block of A, a KC x NC panel of B
 *   MR, NR      the register tile: MR rows x NR columns of C
 *   VEC         vector width in floats: 4 (SSE/xmm), 8 (AVX/ymm), 16 (AVX-512/zmm)
 *   UNROLL      unrolling of the micro-kernel's k loop: 1, 2, 4 or 8
 *   THREADS     OpenMP threads: 1 or 2
 *
 * Valid combinations (the file refuses to compile the hard ones):
 *
 *   VEC in {4, 8, 16}, UNROLL in {1, 2, 4, 8}, THREADS >= 1     (hard)
 *   MR >= 1, NR >= VEC, NR % VEC == 0                            (hard)
 *   MC % MR == 0, NC % NR == 0, KC >= 1                          (hard)
 *   MR * (NR / VEC) + NR / VEC + 1 <= 32                         (register
 *       budget: accumulators + one row of B + one broadcast; 32 vector
 *       registers with AVX-512, 16 without: beyond it the tile spills and
 *       is slow but still correct)
 *   VEC * 4 <= the widest vector the target has (16 needs AVX-512F, 8 AVX);
 *       a wider VEC still compiles and is correct, but GCC splits each vector
 *       into narrower ones (slow).
 *
 * Memory: the packed buffers (KC x NC for B, THREADS x MC x KC for A, both
 * clipped to the problem) are allocated per call with aligned_alloc and freed
 * before returning (if that fails, C is left as it was, which the tuner's
 * check catches).  No global mutable state.
 *
 * Measured (2-core AMD EPYC, Zen 5, AVX-512, gcc 12, M = N = K = 1024,
 * bench/gemm_openblas.c): the defaults below (a 4 x 16 AVX2-width tile,
 * one thread) run at about 79 GFLOP/s; MR=6 NR=64 VEC=16 MC=192 KC=256
 * NC=1536 UNROLL=4 THREADS=2 at about 435 GFLOP/s (~93% of the two cores'
 * FMA peak), on a par with OpenBLAS 0.3.21's AVX-512 (SkylakeX) kernels.
 */
#include <stdlib.h>
#if defined(__SSE__) || defined(__AVX__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

/* ------------------------------------------------------------ parameters */

#ifndef MC
#define MC 48
#endif
#ifndef NC
#define NC 768
#endif
#ifndef KC
#define KC 128
#endif
#ifndef MR
#define MR 4
#endif
#ifndef NR
#define NR 16
#endif
#ifndef VEC
#define VEC 8
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef THREADS
#define THREADS 1
#endif

#if VEC != 4 && VEC != 8 && VEC != 16
#error "VEC must be 4, 8 or 16"
#endif
#if UNROLL != 1 && UNROLL != 2 && UNROLL != 4 && UNROLL != 8
#error "UNROLL must be 1, 2, 4 or 8"
#endif
#if MR < 1 || NR < VEC || NR % VEC != 0
#error "need MR >= 1, NR >= VEC and NR % VEC == 0"
#endif
#if MC < 1 || NC < 1 || KC < 1 || MC % MR != 0 || NC % NR != 0
#error "need MC % MR == 0 and NC % NR == 0"
#endif
#if THREADS < 1
#error "THREADS must be >= 1"
#endif

#define NV (NR / VEC) /* vectors per row of the register tile */

/* ---------------------------------------------------------------- vectors */

/* vf: VEC floats, aligned (packed panels); vfu: the same, unaligned (C). */
typedef float vf __attribute__((vector_size(VEC * 4)));
typedef float vfu __attribute__((vector_size(VEC * 4), aligned(4), may_alias));

/* acc + a * b, fused.  Explicit intrinsics: GCC does not contract a * b + c
 * into an FMA under -std=c11 (ISO mode implies -ffp-contract=off). */
#if VEC == 16 && defined(__AVX512F__)
#define VFMA(acc, a, b) ((vf)_mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(acc)))
#define VBCAST(x) ((vf)_mm512_set1_ps(x))
#elif VEC == 8 && defined(__FMA__)
#define VFMA(acc, a, b) ((vf)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(acc)))
#define VBCAST(x) ((vf)_mm256_set1_ps(x))
#elif VEC == 4 && defined(__FMA__)
#define VFMA(acc, a, b) ((vf)_mm_fmadd_ps((__m128)(a), (__m128)(b), (__m128)(acc)))
#define VBCAST(x) ((vf)_mm_set1_ps(x))
#else
#define VFMA(acc, a, b) ((acc) + (a) * (b))
#define VBCAST(x) ((vf){0} + (x))
#endif

#define PRAGMA_(x) _Pragma(#x)
#define UNROLL_ALL PRAGMA_(GCC unroll 64)

#define ALIGN 64
#define ROUND_UP(x, m) (((x) + (m) - 1) / (m) * (m))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* --------------------------------------------------------------- packing */

/* B[0:kc, 0:nc] (row stride ldb) into ceil(nc / NR) micro-panels of kc x NR
 * floats each, k-major, zero-padded to NR columns.  Only panels [p0, p1)
 * are written (the threads share the work).  Full panels are copied row by
 * row of B (contiguous reads), the last, partial one on its own. */
static void pack_b(int kc, int nc, const float *restrict b, long ldb,
                   float *restrict bp, int p0, int p1)
{
    int pfull = MIN(p1, nc / NR); /* panels [p0, pfull) are full */
    for (int k = 0; k < kc; k++) {
        const float *restrict src = b + k * ldb;
        for (int p = p0; p < pfull; p++) {
            float *restrict dst = bp + ((long)p * kc + k) * NR;
            UNROLL_ALL
            for (int j = 0; j < NR; j++)
                dst[j] = src[p * NR + j];
        }
    }
    for (int p = (pfull > p0 ? pfull : p0); p < p1; p++) {
        int j0 = p * NR, n = nc - j0;
        float *restrict dst = bp + (long)p * kc * NR;
        const float *restrict src = b + j0;
        for (int k = 0; k < kc; k++) {
            int j = 0;
            for (; j < n; j++)
                dst[(long)k * NR + j] = src[k * ldb + j];
            for (; j < NR; j++)
                dst[(long)k * NR + j] = 0.0f;
        }
    }
}

/* A[0:mc, 0:kc] (row stride lda) into ceil(mc / MR) micro-panels of kc x MR
 * floats each, k-major (the MR values of one k are contiguous), zero-padded
 * to MR rows. */
static void pack_a(int mc, int kc, const float *restrict a, long lda,
                   float *restrict ap)
{
    for (int i0 = 0; i0 < mc; i0 += MR) {
        int m = MIN(MR, mc - i0);
        float *restrict dst = ap + (long)i0 * kc;
        const float *restrict src = a + i0 * lda;
        if (m == MR) {
            for (int k = 0; k < kc; k++) {
                UNROLL_ALL
                for (int i = 0; i < MR; i++)
                    dst[(long)k * MR + i] = src[i * lda + k];
            }
        } else {
            for (int k = 0; k < kc; k++) {
                int i = 0;
                for (; i < m; i++)
                    dst[(long)k * MR + i] = src[i * lda + k];
                for (; i < MR; i++)
                    dst[(long)k * MR + i] = 0.0f;
            }
        }
    }
}

/* ---------------------------------------------------------- micro-kernel */

/* One k step of the register tile: NV vectors of B, MR broadcasts of A. */
#define STEP(ak, bk)                                                         \
    do {                                                                     \
        vf b_[NV];                                                           \
        UNROLL_ALL                                                           \
        for (int v = 0; v < NV; v++)                                         \
            b_[v] = *(const vf *)((bk) + v * VEC);                           \
        UNROLL_ALL                                                           \
        for (int i = 0; i < MR; i++) {                                       \
            vf a_ = VBCAST((ak)[i]);                                         \
            UNROLL_ALL                                                       \
            for (int v = 0; v < NV; v++)                                     \
                acc[i][v] = VFMA(acc[i][v], a_, b_[v]);                      \
        }                                                                    \
    } while (0)

/* C[0:m, 0:n] (row stride ldc) = (accumulate ? C : 0) + a * b, where a is
 * one packed kc x MR A micro-panel and b one packed kc x NR B micro-panel.
 * m <= MR, n <= NR. */
static inline __attribute__((always_inline)) void
micro_kernel(int kc, const float *restrict a, const float *restrict b,
             float *restrict c, long ldc, int m, int n, int accumulate)
{
    vf acc[MR][NV];
    UNROLL_ALL
    for (int i = 0; i < MR; i++) {
        UNROLL_ALL
        for (int v = 0; v < NV; v++)
            acc[i][v] = (vf){0};
    }
    /* C's tile is read (or written) after the k loop: fetch it now, so that
     * its misses overlap the k loop. */
    for (int i = 0; i < m; i++) {
        const char *row = (const char *)(c + i * ldc);
        for (int off = 0; off < n * 4; off += 64)
            __builtin_prefetch(row + off, 1, 3);
        __builtin_prefetch(row + n * 4 - 1, 1, 3);
    }

    int k = 0;
    for (; k + UNROLL <= kc; k += UNROLL) {
        UNROLL_ALL
        for (int u = 0; u < UNROLL; u++)
            STEP(a + (k + u) * MR, b + (k + u) * NR);
    }
    for (; k < kc; k++)
        STEP(a + k * MR, b + k * NR);

    if (m == MR && n == NR) {
        UNROLL_ALL
        for (int i = 0; i < MR; i++) {
            UNROLL_ALL
            for (int v = 0; v < NV; v++) {
                vfu *p = (vfu *)(c + i * ldc + v * VEC);
                vfu x = (vfu)acc[i][v];
                if (accumulate)
                    x += *p;
                *p = x;
            }
        }
    } else {
        vf tile[MR][NV];
        UNROLL_ALL
        for (int i = 0; i < MR; i++) {
            UNROLL_ALL
            for (int v = 0; v < NV; v++)
                tile[i][v] = acc[i][v];
        }
        const float *t = (const float *)tile;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
                c[i * ldc + j] = accumulate ? c[i * ldc + j] + t[i * NR + j]
                                            : t[i * NR + j];
    }
}

/* An mc x nc block of C from packed A (mc x kc) and packed B (kc x nc). */
static void macro_kernel(int mc, int nc, int kc, const float *restrict ap,
                         const float *restrict bp, float *restrict c, long ldc,
                         int accumulate)
{
    for (int j = 0; j < nc; j += NR) {
        int n = MIN(NR, nc - j);
        const float *bj = bp + (long)j * kc;
        for (int i = 0; i < mc; i += MR) {
            int m = MIN(MR, mc - i);
            float *cij = c + i * ldc + j;
            if (m == MR && n == NR)
                micro_kernel(kc, ap + (long)i * kc, bj, cij, ldc, MR, NR, accumulate);
            else
                micro_kernel(kc, ap + (long)i * kc, bj, cij, ldc, m, n, accumulate);
        }
    }
}

/* ------------------------------------------------------------ the driver */

/* Thread tid of nt: rows [m0, m1) of C; its own A buffer; the shared B one. */
static void gemm_part(int M, int N, int K, const float *restrict A,
                      const float *restrict B, float *restrict C,
                      float *restrict bp, float *restrict ap, int tid, int nt)
{
    int chunk = ROUND_UP((M + nt - 1) / nt, MR);
    int m0 = MIN(M, tid * chunk), m1 = MIN(M, m0 + chunk);
    for (int jc = 0; jc < N; jc += NC) {
        int nc = MIN(NC, N - jc);
        int npanels = (nc + NR - 1) / NR;
        for (int pc = 0; pc < K; pc += KC) {
            int kc = MIN(KC, K - pc);
            int p0 = (int)((long)npanels * tid / nt);
            int p1 = (int)((long)npanels * (tid + 1) / nt);
            pack_b(kc, nc, B + (long)pc * N + jc, N, bp, p0, p1);
#if THREADS > 1 && defined(_OPENMP)
#pragma omp barrier
#endif
            for (int ic = m0; ic < m1; ic += MC) {
                int mc = MIN(MC, m1 - ic);
                pack_a(mc, kc, A + (long)ic * K + pc, K, ap);
                macro_kernel(mc, nc, kc, ap, bp, C + (long)ic * N + jc, N, pc > 0);
            }
#if THREADS > 1 && defined(_OPENMP)
#pragma omp barrier
#endif
        }
    }
}

void gemm(int M, int N, int K, const float *restrict A, const float *restrict B,
          float *restrict C)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0) {
        for (long i = 0; i < (long)M * N; i++)
            C[i] = 0.0f;
        return;
    }
    int kcmax = MIN(KC, K);
    int ncmax = MIN(NC, ROUND_UP(N, NR));
    int mcmax = MIN(MC, ROUND_UP(M, MR)); /* also right if the team is smaller */
    size_t bsize = ROUND_UP((size_t)kcmax * ncmax * sizeof(float), ALIGN);
    size_t asize = ROUND_UP((size_t)mcmax * kcmax * sizeof(float), ALIGN);
    float *bp = aligned_alloc(ALIGN, bsize);
    float *ap = aligned_alloc(ALIGN, asize * THREADS);
    if (!bp || !ap) {
        free(bp);
        free(ap);
        return;
    }
#if THREADS > 1 && defined(_OPENMP)
#pragma omp parallel num_threads(THREADS)
    {
        int tid = omp_get_thread_num(), nt = omp_get_num_threads();
        gemm_part(M, N, K, A, B, C, bp, ap + asize / sizeof(float) * tid, tid, nt);
    }
#else
    gemm_part(M, N, K, A, B, C, bp, ap, 0, 1);
#endif
    free(bp);
    free(ap);
}
