/* conv_igemm.cu - 2-D convolution, forward, NCHW, FP32, as an implicit
 * GEMM on the CUDA cores:
 *
 *   Y[n][k][p][q] = sum over c, r, s of
 *                   Wt[k][c][r][s] * X[n][c][p*stride - pad + r][q*stride - pad + s]
 *
 * seen as the product of the weights (K rows, C*R*S columns, row-major as
 * stored) and a matrix of input patches (C*R*S rows, N*P*Q columns) that is
 * never built: each block gathers the BK x BN slice it needs straight from
 * X (zeros outside the image).  The reduction runs over (r, s) outside and
 * c inside, so within one slice r and s are fixed and each thread's input
 * address only moves by H*W per channel: the division of a column into
 * (n, p, q) happens once per thread, not per element.
 *
 * Tuning parameters (macros, -DNAME=value from ktune):
 *   BM, BN     the block's tile: BM output channels x BN output pixels;
 *   BK         input channels per slice of the reduction;
 *   TM, TN     each thread's register tile (4 or 8 each; read from shared
 *              memory as float4, the columns of a thread split in groups of
 *              4 spread over the tile, so a warp's reads hit no bank twice);
 *   PREFETCH   0: load a slice, then compute it; 1: load the next slice
 *              into registers while this one is computed; 2: the same with
 *              two shared-memory buffers (one barrier per slice, not two);
 *   VEC        1: one input element per load; 4: float4 loads of four
 *              neighbouring pixels, only for 1x1, stride 1, no padding and
 *              H*W a multiple of 4 (the spec's condition): the case of
 *              interest where the convolution is a plain GEMM per image.
 * Launch: BM/TM * BN/TN threads in one dimension, grid
 * (ceil(N*P*Q / BN), ceil(K / BM)).  Indices are 32-bit: every tensor must
 * hold fewer than 2^31 elements.
 */
#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif
#ifndef PREFETCH
#define PREFETCH 0
#endif
#ifndef VEC
#define VEC 1
#endif

#define THREADS ((BM / TM) * (BN / TN))
/* B slice (BK x BN): groups of VEC columns, consecutive threads on
 * consecutive groups (coalesced), each thread on B_NCOLS groups and
 * B_NROWS channels. */
#define B_GROUPS (BN / VEC)
#define B_TPC (THREADS < B_GROUPS ? THREADS : B_GROUPS)
#define B_NCOLS (B_GROUPS / B_TPC)
#define B_RSTEP (THREADS / B_TPC)
#define B_NROWS (BK / B_RSTEP)
/* A slice (BM x BK): consecutive threads on consecutive channels. */
#define A_RSTEP (THREADS / BK)
#define A_NROWS (BM / A_RSTEP)
#define APAD 4 /* keeps float4 alignment, spreads the transposed stores */
#define NBUF (PREFETCH == 2 ? 2 : 1)

#if B_NROWS < 1 || A_NROWS < 1 || TM % 4 || TN % 4
#error "invalid configuration: see the spec's conditions"
#endif

/* Where a thread's slice of the reduction starts. */
struct step {
    int c0, r, s, rs;
};

/* Per thread, per column group: the input offset of (n, c = 0, ih0, iw0)
 * and the top-left input position of its window; ih0 is far negative for
 * a column past N*P*Q, so no (ih0 + r) lies inside the image. */
struct columns {
    int off[B_NCOLS], ih0[B_NCOLS], iw0[B_NCOLS];
};

static __device__ __forceinline__ void
column_setup(columns &col, int n0, int NPQ, int PQ, int Q, int C, int HW, int W, int stride,
             int pad)
{
    const int t = threadIdx.x % B_TPC;
#pragma unroll
    for (int j = 0; j < B_NCOLS; j++) {
        int npq = n0 + (t + j * B_TPC) * VEC;
        col.off[j] = 0;
        col.ih0[j] = -(1 << 29);
        col.iw0[j] = 0;
        if (npq < NPQ) {
            int n = npq / PQ, pq = npq - n * PQ, p = pq / Q, q = pq - p * Q;
            col.ih0[j] = p * stride - pad;
            col.iw0[j] = q * stride - pad;
            col.off[j] = n * C * HW + col.ih0[j] * W + col.iw0[j];
        }
    }
}

/* Global memory to registers: the weights' and the patches' slices. */
static __device__ __forceinline__ void
load_slice(const step &st, const columns &col, const float *__restrict__ X,
           const float *__restrict__ Wt, int m0, int K, int C, int H, int W, int RS,
           float (&ra)[A_NROWS], float (&rb)[B_NCOLS][B_NROWS][VEC])
{
    const int tid = threadIdx.x, HW = H * W;
    const int ac = st.c0 + tid % BK;
#pragma unroll
    for (int i = 0; i < A_NROWS; i++) {
        int m = m0 + tid / BK + i * A_RSTEP;
        ra[i] = m < K && ac < C ? Wt[(m * C + ac) * RS + st.rs] : 0.0f;
    }
    const int brow = st.c0 + tid / B_TPC;
#pragma unroll
    for (int j = 0; j < B_NCOLS; j++) {
#if VEC == 4
        bool ok = col.ih0[j] >= 0;
        const float *base = X + col.off[j];
#else
        int ih = col.ih0[j] + st.r, iw = col.iw0[j] + st.s;
        bool ok = (unsigned)ih < (unsigned)H && (unsigned)iw < (unsigned)W;
        const float *base = X + col.off[j] + st.r * W + st.s;
#endif
#pragma unroll
        for (int i = 0; i < B_NROWS; i++) {
            int c = brow + i * B_RSTEP;
#if VEC == 4
            float4 v = ok && c < C ? *reinterpret_cast<const float4 *>(base + c * HW)
                                   : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            rb[j][i][0] = v.x;
            rb[j][i][1] = v.y;
            rb[j][i][2] = v.z;
            rb[j][i][3] = v.w;
#else
            rb[j][i][0] = ok && c < C ? base[c * HW] : 0.0f;
#endif
        }
    }
}

/* Registers to shared memory. */
static __device__ __forceinline__ void
store_slice(float (*As)[BM + APAD], float (*Bs)[BN], const float (&ra)[A_NROWS],
            const float (&rb)[B_NCOLS][B_NROWS][VEC])
{
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < A_NROWS; i++)
        As[tid % BK][tid / BK + i * A_RSTEP] = ra[i];
#pragma unroll
    for (int j = 0; j < B_NCOLS; j++)
#pragma unroll
        for (int i = 0; i < B_NROWS; i++)
#pragma unroll
            for (int v = 0; v < VEC; v++)
                Bs[tid / B_TPC + i * B_RSTEP][(tid % B_TPC + j * B_TPC) * VEC + v] =
                    rb[j][i][v];
}

/* One slice of the reduction on the thread's TM x TN tile. */
static __device__ __forceinline__ void
compute_slice(const float (*As)[BM + APAD], const float (*Bs)[BN], float (&acc)[TM][TN],
              int tx, int ty)
{
#pragma unroll
    for (int k = 0; k < BK; k++) {
        float a[TM], b[TN];
#pragma unroll
        for (int v = 0; v < TM / 4; v++) {
            float4 t = *reinterpret_cast<const float4 *>(&As[k][v * (4 * BM / TM) + ty * 4]);
            a[4 * v] = t.x;
            a[4 * v + 1] = t.y;
            a[4 * v + 2] = t.z;
            a[4 * v + 3] = t.w;
        }
#pragma unroll
        for (int v = 0; v < TN / 4; v++) {
            float4 t = *reinterpret_cast<const float4 *>(&Bs[k][v * (4 * BN / TN) + tx * 4]);
            b[4 * v] = t.x;
            b[4 * v + 1] = t.y;
            b[4 * v + 2] = t.z;
            b[4 * v + 3] = t.w;
        }
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j++)
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

static __device__ __forceinline__ void advance(step &st, int C, int S)
{
    st.c0 += BK;
    if (st.c0 >= C) {
        st.c0 = 0;
        st.rs++;
        if (++st.s == S) {
            st.s = 0;
            st.r++;
        }
    }
}

/* The thread's tile to Y (NCHW): float4 stores where four neighbouring
 * pixels of one image line up, scalar ones elsewhere. */
static __device__ __forceinline__ void
store_output(float *__restrict__ Y, const float (&acc)[TM][TN], int m0, int n0, int K, int PQ,
             int NPQ, int tx, int ty)
{
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int m = m0 + (i / 4) * (4 * BM / TM) + ty * 4 + i % 4;
        if (m >= K)
            continue;
#pragma unroll
        for (int v = 0; v < TN / 4; v++) {
            int col = n0 + v * (4 * BN / TN) + tx * 4;
            if ((PQ & 3) == 0 && col + 3 < NPQ) {
                int n = col / PQ, pq = col - n * PQ;
                *reinterpret_cast<float4 *>(&Y[(n * K + m) * PQ + pq]) =
                    make_float4(acc[i][4 * v], acc[i][4 * v + 1], acc[i][4 * v + 2],
                                acc[i][4 * v + 3]);
                continue;
            }
#pragma unroll
            for (int u = 0; u < 4; u++) {
                int npq = col + u;
                if (npq < NPQ) {
                    int n = npq / PQ, pq = npq - n * PQ;
                    Y[(n * K + m) * PQ + pq] = acc[i][4 * v + u];
                }
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
conv_igemm(int N, int C, int H, int W, int K, int R, int S, int stride, int pad, int P,
           int Q, const float *__restrict__ X, const float *__restrict__ Wt,
           float *__restrict__ Y)
{
    __shared__ __align__(16) float As[NBUF][BK][BM + APAD];
    __shared__ __align__(16) float Bs[NBUF][BK][BN];
    const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
    const int PQ = P * Q, NPQ = N * PQ, RS = R * S;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    columns col;
    column_setup(col, n0, NPQ, PQ, Q, C, H * W, W, stride, pad);
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
    float ra[A_NROWS], rb[B_NCOLS][B_NROWS][VEC];
    const int steps = RS * ((C + BK - 1) / BK);
    step st = {0, 0, 0, 0};
    load_slice(st, col, X, Wt, m0, K, C, H, W, RS, ra, rb);
    store_slice(As[0], Bs[0], ra, rb);
    __syncthreads();
    for (int t = 0; t < steps; t++) {
        const bool more = t + 1 < steps;
        const int buf = NBUF == 2 ? t & 1 : 0;
#if PREFETCH
        if (more) {
            advance(st, C, S);
            load_slice(st, col, X, Wt, m0, K, C, H, W, RS, ra, rb);
        }
        compute_slice(As[buf], Bs[buf], acc, tx, ty);
#if NBUF == 2
        if (more)
            store_slice(As[buf ^ 1], Bs[buf ^ 1], ra, rb);
        __syncthreads();
#else
        __syncthreads();
        if (more) {
            store_slice(As[0], Bs[0], ra, rb);
            __syncthreads();
        }
#endif
#else
        compute_slice(As[0], Bs[0], acc, tx, ty);
        __syncthreads();
        if (more) {
            advance(st, C, S);
            load_slice(st, col, X, Wt, m0, K, C, H, W, RS, ra, rb);
            store_slice(As[0], Bs[0], ra, rb);
            __syncthreads();
        }
#endif
    }
    store_output(Y, acc, m0, n0, K, PQ, NPQ, tx, ty);
}
