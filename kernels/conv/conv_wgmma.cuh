// conv_wgmma.cuh - what the wgmma convolutions (conv_igemm_wgmma.cu,
// conv_igemm_tma.cu) share: the m64 x WN x k16 instruction with both
// operands K-major, one stage's multiplications and where a thread's
// accumulators sit in the tile.  Both kernels keep a stage as 128-byte
// rows (64 channels of one pixel, or of one output channel's filter tap)
// in wgmma's canonical 128-byte swizzle.  The including kernel defines TY,
// BK, WN, WGM, MT, NT and ACC and includes hopper.cuh first.
#pragma once

// d += A B for one m64 x WN x k16 step, A and B both K-major (hopper.cuh's
// wgmma() takes B MN-major).
#define WGMMA_KK(n, regs, ia, ib, outs)                                                 \
    asm volatile("wgmma.mma_async.sync.aligned.m64n" #n "k16.f32." TY "." TY " {" regs \
                 "}, %" #ia ", %" #ib ", 1, 1, 1, 0, 0;\n"                              \
                 : outs                                                                 \
                 : "l"(da), "l"(db))

__device__ __forceinline__ void wgmma_kk(float *d, unsigned long long da, unsigned long long db)
{
#if WN == 64
    WGMMA_KK(64, S32, 32, 33, R32(0));
#elif WN == 128
    WGMMA_KK(128, S64, 64, 65, R64(0));
#else
    WGMMA_KK(256, S128, 128, 129, R128(0));
#endif
}

// The wgmma work of one stage for warpgroup wg: 4 k16 steps, k16 being
// 32 bytes along the swizzled rows, 8-row groups 1024 bytes apart (SBO).
__device__ __forceinline__ void compute_stage(unsigned sa, unsigned sb, int wg,
                                              float (*acc)[NT][ACC])
{
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++)
#pragma unroll
        for (int mi = 0; mi < MT; mi++) {
            unsigned long long da = desc(sa + (wg * WGM + mi * 64) * 128 + kk * 32, 16, 1024);
#pragma unroll
            for (int ni = 0; ni < NT; ni++)
                wgmma_kk(acc[mi][ni], da, desc(sb + ni * WN * 128 + kk * 32, 16, 1024));
        }
}

// Thread t of a warpgroup holds, of each m64 x WN tile, rows 16 (t / 32) +
// (t % 32) / 4 (+ 8 for h = 1) and columns 8 i + 2 (t % 4) (+ 1): the row
// and column of its pair (mi, ni, i, h), from the warpgroup's corner.
__device__ __forceinline__ int acc_row(int mi, int h)
{
    int t = threadIdx.x % 128;
    return mi * 64 + (t / 32) * 16 + (t % 32) / 4 + h * 8;
}

__device__ __forceinline__ int acc_col(int ni, int i)
{
    return ni * WN + i * 8 + (threadIdx.x % 4) * 2;
}

