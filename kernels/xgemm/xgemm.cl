/* xgemm.cl - a GEMM in the parameter space of CLBlast's Xgemm kernel, one
 * source for OpenCL C and for CUDA (NVRTC), so that the same algorithm
 * and configuration is timed through both (xgemm-opencl.json,
 * xgemm-cuda.json).  Written for ktune from the description of the
 * parameters in Nugteren's CLTune and CLBlast papers; no code of theirs.
 *
 * Layout, as the public Xgemm recordings' kernel (bench/data/public/gemm):
 * C = A^T B with
 *   A  K x M, m contiguous: A[k M + m]
 *   B  K x N, n contiguous: B[k N + n]
 *   C  M x N column-major:  C[n M + m]
 * so every operand is read and written along its contiguous dimension
 * (m for A and C, n for B), in vectors of VWM and VWN floats.  The sizes
 * must be multiples of the tiles (M % MWG, N % NWG, K % KWG: the specs'
 * conditions), as CLBlast pads its matrices before calling Xgemm.
 *
 * A work-group of MDIMC x NDIMC work-items computes an MWG x NWG tile of
 * C, each work-item MWI x NWI of it (MWI = MWG / MDIMC, NWI = NWG /
 * NDIMC).  K advances KWG at a time; the loop over those KWG steps is
 * unrolled KWI times.  With SA (SB), the work-group first copies A's KWG x
 * MWG (B's KWG x NWG) tile into local memory, the work-items re-shaped as
 * MDIMA x KDIMA (NDIMB x KDIMB) so that neighbours read neighbouring
 * vectors; without it each work-item reads A (B) from global memory.
 * STRM (STRN) chooses which vectors of the tile's row a work-item owns:
 * 0 its own contiguous MWI floats, 1 every MDIMC-th vector (neighbours
 * then read neighbouring vectors).  PRECISION is 32 (FP32) only.
 */

/* ---- Portability: the few names OpenCL C and CUDA spell differently ---- */
#ifdef __CUDACC__ /* NVRTC, nvcc */
#define KERNEL(x, y) extern "C" __global__ void __launch_bounds__((x) * (y))
#define GLOBAL
#define LOCAL __shared__
#define LOCALP
#define RESTRICT __restrict__
#define SYNC() __syncthreads()
#define LID(d) ((int)((d) == 0 ? threadIdx.x : threadIdx.y))
#define GRP(d) ((int)((d) == 0 ? blockIdx.x : blockIdx.y))
#define GID(d) (GRP(d) * (int)((d) == 0 ? blockDim.x : blockDim.y) + LID(d))
#define F2 make_float2
#define F4 make_float4
#define FMA fmaf
#else /* OpenCL C */
#define KERNEL(x, y) __kernel __attribute__((reqd_work_group_size(x, y, 1))) void
#define GLOBAL __global   /* qualifier of a global pointer */
#define LOCAL __local     /* of a local array's declaration */
#define LOCALP __local    /* of a pointer into it */
#define RESTRICT restrict
#define SYNC() barrier(CLK_LOCAL_MEM_FENCE)
#define LID(d) ((int)get_local_id(d))
#define GRP(d) ((int)get_group_id(d))
#define GID(d) ((int)get_global_id(d))
#define F2(a, b) ((float2)((a), (b)))
#define F4(a, b, c, d) ((float4)((a), (b), (c), (d)))
#define FMA fma /* one rounding in both languages, whatever a compiler contracts */
#endif

/* v[0, W) = the W floats at p (W 1, 2, 4 or 8; p aligned to W floats),
 * read as vectors of up to 4; AS is p's address space. */
#define VLOAD(W, v, AS, p)                                                          \
    do {                                                                            \
        if ((W) == 1) {                                                             \
            (v)[0] = *(p);                                                          \
        } else if ((W) == 2) {                                                      \
            float2 t_ = *(AS const float2 *)(p);                                    \
            (v)[0] = t_.x, (v)[1] = t_.y;                                           \
        } else {                                                                    \
            for (int h_ = 0; h_ < (W); h_ += 4) {                                   \
                float4 t_ = *(AS const float4 *)((p) + h_);                         \
                (v)[h_] = t_.x, (v)[h_ + 1] = t_.y, (v)[h_ + 2] = t_.z,             \
                (v)[h_ + 3] = t_.w;                                                 \
            }                                                                       \
        }                                                                           \
    } while (0)

/* The W floats v[0, W) to p, as vectors of up to 4. */
#define VSTORE(W, AS, p, v)                                                         \
    do {                                                                            \
        if ((W) == 1)                                                               \
            *(p) = (v)[0];                                                          \
        else if ((W) == 2)                                                          \
            *(AS float2 *)(p) = F2((v)[0], (v)[1]);                                 \
        else                                                                        \
            for (int h_ = 0; h_ < (W); h_ += 4)                                     \
                *(AS float4 *)((p) + h_) =                                          \
                    F4((v)[h_], (v)[h_ + 1], (v)[h_ + 2], (v)[h_ + 3]);             \
    } while (0)

/* ---- Parameters (-DNAME=value from ktune; these defaults are the specs') ---- */
#ifndef MWG
#define MWG 64
#endif
#ifndef NWG
#define NWG 64
#endif
#ifndef KWG
#define KWG 32
#endif
#ifndef MDIMC
#define MDIMC 16
#endif
#ifndef NDIMC
#define NDIMC 16
#endif
#ifndef MDIMA
#define MDIMA 16
#endif
#ifndef NDIMB
#define NDIMB 16
#endif
#ifndef KWI
#define KWI 2
#endif
#ifndef VWM
#define VWM 2
#endif
#ifndef VWN
#define VWN 2
#endif
#ifndef STRM
#define STRM 0
#endif
#ifndef STRN
#define STRN 0
#endif
#ifndef SA
#define SA 1
#endif
#ifndef SB
#define SB 1
#endif
#ifndef PRECISION
#define PRECISION 32
#endif
#if PRECISION != 32
#error "xgemm.cl: only PRECISION=32 (FP32)"
#endif

#define MWI (MWG / MDIMC)             /* a work-item's rows of C */
#define NWI (NWG / NDIMC)             /* and columns */
#define KDIMA (MDIMC * NDIMC / MDIMA) /* A's loaders along k */
#define KDIMB (MDIMC * NDIMC / NDIMB) /* B's */
#define MWA (MWG / MDIMA)             /* floats of A a loader copies along m */
#define KWA (KWG / KDIMA)             /* and along k */
#define NWB (NWG / NDIMB)
#define KWB (KWG / KDIMB)

/* Offset in the tile of a work-item's j-th vector of A (B) and C. */
#if STRM
#define MOFF(j) (((j) * MDIMC + LID(0)) * VWM)
#else
#define MOFF(j) ((LID(0) * (MWI / VWM) + (j)) * VWM)
#endif
#if STRN
#define NOFF(j) (((j) * NDIMC + LID(1)) * VWN)
#else
#define NOFF(j) ((LID(1) * (NWI / VWN) + (j)) * VWN)
#endif

/* Copy the KWG x WG tile of a row-major matrix with row length LD, from
 * g (the tile's first float) into the local l (row length WG), the
 * MDIM x (MDIMC NDIMC / MDIM) loaders each KW rows of WW floats (constant
 * trip counts, which every compiler unrolls; a _Pragma in a macro is not
 * something all OpenCL compilers take). */
#define TILE_TO_LOCAL(l, g, LD, WG, MDIM, KW, WW, VW, tid)                          \
    do {                                                                            \
        for (int i_ = 0; i_ < (KW); i_++)                                           \
            for (int j_ = 0; j_ < (WW) / (VW); j_++) {                              \
                int k_ = i_ * (MDIMC * NDIMC / (MDIM)) + (tid) / (MDIM);            \
                int x_ = (j_ * (MDIM) + (tid) % (MDIM)) * (VW);                     \
                float v_[VW];                                                       \
                VLOAD(VW, v_, GLOBAL, (g) + k_ * (LD) + x_);                        \
                VSTORE(VW, LOCALP, (l) + k_ * (WG) + x_, v_);                       \
            }                                                                       \
    } while (0)

KERNEL(MDIMC, NDIMC)
Xgemm(const int M, const int N, const int K, const GLOBAL float *RESTRICT A,
      const GLOBAL float *RESTRICT B, GLOBAL float *RESTRICT C)
{
    /* float4 accesses need 16-byte alignment, which a float array's
     * declaration alone does not promise in local memory */
#if SA
    LOCAL float alm[KWG * MWG] __attribute__((aligned(16)));
#endif
#if SB
    LOCAL float blm[KWG * NWG] __attribute__((aligned(16)));
#endif
#if SA || SB
    const int tid = LID(1) * MDIMC + LID(0); /* the loaders' number */
#endif
    const GLOBAL float *a_tile = A + GRP(0) * MWG; /* column m0 of A's rows */
    const GLOBAL float *b_tile = B + GRP(1) * NWG;
    float acc[NWI][MWI];
#pragma unroll
    for (int ni = 0; ni < NWI; ni++)
#pragma unroll
        for (int mi = 0; mi < MWI; mi++)
            acc[ni][mi] = 0.0f;

    for (int kwg = 0; kwg < K; kwg += KWG) {
#if SA
        TILE_TO_LOCAL(alm, a_tile, M, MWG, MDIMA, KWA, MWA, VWM, tid);
#endif
#if SB
        TILE_TO_LOCAL(blm, b_tile, N, NWG, NDIMB, KWB, NWB, VWN, tid);
#endif
#if SA || SB
        SYNC();
#endif
        for (int k0 = 0; k0 < KWG; k0 += KWI) {
#pragma unroll
            for (int ki = 0; ki < KWI; ki++) {
                const int k = k0 + ki;
                float a[MWI], b[NWI];
#pragma unroll
                for (int j = 0; j < MWI / VWM; j++)
#if SA
                    VLOAD(VWM, a + j * VWM, LOCALP, alm + k * MWG + MOFF(j));
#else
                    VLOAD(VWM, a + j * VWM, GLOBAL, a_tile + k * M + MOFF(j));
#endif
#pragma unroll
                for (int j = 0; j < NWI / VWN; j++)
#if SB
                    VLOAD(VWN, b + j * VWN, LOCALP, blm + k * NWG + NOFF(j));
#else
                    VLOAD(VWN, b + j * VWN, GLOBAL, b_tile + k * N + NOFF(j));
#endif
#pragma unroll
                for (int ni = 0; ni < NWI; ni++)
#pragma unroll
                    for (int mi = 0; mi < MWI; mi++)
                        acc[ni][mi] = FMA(a[mi], b[ni], acc[ni][mi]);
            }
        }
#if SA || SB
        SYNC();
#endif
        a_tile += KWG * M;
        b_tile += KWG * N;
    }

    /* Column n of C holds this work-item's rows in MWI / VWM vectors. */
    GLOBAL float *c_tile = C + GRP(0) * MWG;
#pragma unroll
    for (int jn = 0; jn < NWI / VWN; jn++)
#pragma unroll
        for (int e = 0; e < VWN; e++) {
            const int n = GRP(1) * NWG + NOFF(jn) + e;
#pragma unroll
            for (int j = 0; j < MWI / VWM; j++)
                VSTORE(VWM, GLOBAL, c_tile + n * M + MOFF(j), acc[jn * VWN + e] + j * VWM);
        }
}

/* The reference: one work-item per element of C, k in order. */
KERNEL(16, 16)
xgemm_ref(const int M, const int N, const int K, const GLOBAL float *RESTRICT A,
          const GLOBAL float *RESTRICT B, GLOBAL float *RESTRICT C)
{
    const int m = GID(0), n = GID(1);
    if (m >= M || n >= N)
        return;
    float s = 0.0f;
    for (int k = 0; k < K; k++)
        s += A[k * M + m] * B[k * N + n];
    C[n * M + m] = s;
}
