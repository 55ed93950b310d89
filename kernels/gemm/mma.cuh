// mma.cuh - the device helpers of the mma.sync tensor-core kernels
// (gemm_tc.cu here, kernels/conv/conv_igemm_tc.cu through the link
// kernels/conv/mma.cuh): cp.async groups, ldmatrix, the m16n8k16 FP16 /
// BF16 instruction with FP32 accumulation, a warp's fragments and mma work
// of one shared-memory stage, and the converted, edge-guarded store of a
// warp's accumulators to a row-major matrix, over common.cuh's element
// type, shared-memory addresses, cp16 and to_elem, which hopper.cuh
// shares.  KT_BF16 (from the spec's CompilerOptions) picks bfloat16, else
// half.  ktune passes NVRTC the kernel's directory and hashes this file and
// common.cuh with it.
#pragma once

#ifndef KT_BF16
#define KT_BF16 0
#endif

#include "common.cuh"

__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n"); }

template <int N> __device__ __forceinline__ void cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Four 8 x 8 matrices of 16-bit words; lane i gives the row address of
// matrix i / 8.
__device__ __forceinline__ void ldsm4(const elem *p, unsigned &r0, unsigned &r1, unsigned &r2,
                                      unsigned &r3)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(smem_addr(p)));
}

// The same, each matrix transposed.
__device__ __forceinline__ void ldsm4t(const elem *p, unsigned &r0, unsigned &r1, unsigned &r2,
                                       unsigned &r3)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(smem_addr(p)));
}

// d += a b for one m16n8k16 tile.  A pure register operation: not
// volatile, so that the compiler may interleave the next step's ldmatrix
// with these.
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

// The fragments of k-step kk of a stage for a warp: TMI of A, from rows a0
// on of a row-major tile of row stride LDA, and TNI of B, from columns b0
// on.  B_KMAJOR: B's tile holds a row of LDB per column of B (the reduction
// contiguous: ldmatrix as it is), else a row per k (row-major: .trans).
template <int TMI, int TNI, int LDA, int LDB, bool B_KMAJOR>
__device__ __forceinline__ void load_frags(const elem *As, const elem *Bs, int a0, int b0,
                                           int kk, unsigned (*a)[4], unsigned (*b)[2])
{
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < TMI; i++) {
        const elem *p = As + (a0 + i * 16 + lane % 16) * LDA + kk + (lane / 16) * 8;
        ldsm4(p, a[i][0], a[i][1], a[i][2], a[i][3]);
    }
#pragma unroll
    for (int j = 0; j < TNI; j += 2) {
        if (B_KMAJOR) {
            const elem *p = Bs + (b0 + j * 8 + (lane / 16) * 8 + lane % 8) * LDB + kk +
                            (lane / 8 % 2) * 8;
            ldsm4(p, b[j][0], b[j][1], b[j + 1][0], b[j + 1][1]);
        } else {
            const elem *p = Bs + (kk + lane % 16) * LDB + b0 + j * 8 + (lane / 16) * 8;
            ldsm4t(p, b[j][0], b[j][1], b[j + 1][0], b[j + 1][1]);
        }
    }
}

// The mma work of one stage of TBK k for a warp (its tiles as in
// load_frags), the fragments of step kk + 16 loaded while step kk
// multiplies.
template <int TMI, int TNI, int TBK, int LDA, int LDB, bool B_KMAJOR>
__device__ __forceinline__ void compute_stage(const elem *As, const elem *Bs, int a0, int b0,
                                              float (*acc)[TNI][4])
{
    unsigned a[2][TMI][4], b[2][TNI][2];
    load_frags<TMI, TNI, LDA, LDB, B_KMAJOR>(As, Bs, a0, b0, 0, a[0], b[0]);
#pragma unroll
    for (int kk = 0; kk < TBK; kk += 16) {
        int cur = (kk / 16) % 2;
        if (kk + 16 < TBK)
            load_frags<TMI, TNI, LDA, LDB, B_KMAJOR>(As, Bs, a0, b0, kk + 16, a[cur ^ 1],
                                                     b[cur ^ 1]);
#pragma unroll
        for (int i = 0; i < TMI; i++)
#pragma unroll
            for (int j = 0; j < TNI; j++)
                mma(acc[i][j], a[cur][i], b[cur][j]);
    }
}

// A warp's TMI x TNI accumulator tiles, its corner at (m0, n0) of the
// row-major M x N matrix C, converted; rows and columns past the edges are
// left alone.
template <int TMI, int TNI>
__device__ __forceinline__ void store_tile(elem *C, int M, int N, int m0, int n0,
                                           float (*acc)[TNI][4])
{
    int lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < TMI; i++)
#pragma unroll
        for (int j = 0; j < TNI; j++)
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
