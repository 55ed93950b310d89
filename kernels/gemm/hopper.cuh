// hopper.cuh - the device helpers the Hopper GEMMs (gemm_wgmma.cu,
// gemm_wgmma_ws.cu, gemm_tma.cu) and wgmma convolutions share: mbarriers,
// async-proxy fence, wgmma (fences, descriptors, the m64 x WN x k16
// instruction, k32 for FP8), the accumulators' set-up and the guarded
// store of a pair of them, over common.cuh's element type, shared-memory
// addresses, cp16 and conversion to half / bfloat16 (to_elem), which
// mma.cuh shares.  The including kernel defines TY, WN, MT, NT, ACC and
// KT_BF16 (and KT_FP8, default 0) first.  ktune passes NVRTC the kernel's
// directory and hashes this file and common.cuh with it.
#pragma once

#include "common.cuh"

__device__ __forceinline__ void st16(unsigned dst, elem v)
{
    asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(dst), "h"(v));
}

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}

// Spins until the phase of parity `parity` of the mbarrier has completed.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT;\n"
                 "}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}

__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// Shared memory written through the generic proxy (cp.async, st.shared)
// becomes visible to the tensor cores' async proxy.
__device__ __forceinline__ void fence_async() { asm volatile("fence.proxy.async.shared::cta;\n"); }

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n"); }

__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n"); }

template <int N> __device__ __forceinline__ void wg_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// A shared-memory matrix descriptor, 128-byte swizzle: start address,
// leading and stride byte offsets, all in 16-byte units.
__device__ __forceinline__ unsigned long long desc(unsigned addr, unsigned lbo, unsigned sbo)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4) |
           ((unsigned long long)(lbo >> 4) << 16) | ((unsigned long long)(sbo >> 4) << 32) |
           (1ull << 62);
}

// Operand lists for the accumulators of one instruction.
#define R8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), \
              "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define R32(i) R8(i), R8(i + 8), R8(i + 16), R8(i + 24)
#define R64(i) R32(i), R32(i + 32)
#define R128(i) R64(i), R64(i + 64)
#define S32 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20," \
            "%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31"
#define S64 S32 ",%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48," \
            "%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define S128 S64 ",%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80," \
             "%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98," \
             "%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113," \
             "%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
// d += A B for one m64 x WN step of 32 bytes of k.  16-bit: k16, A
// K-major, B MN-major (transposed: the last two immediates).  FP8: k32,
// both K-major, which is all it allows (no transpose operands).
#if defined(KT_FP8) && KT_FP8
#define WG_K "k32"
#define WG_LAYOUT ""
#else
#define WG_K "k16"
#define WG_LAYOUT ", 0, 1"
#endif
#define WGMMA(n, regs, ia, ib, outs)                                                        \
    asm volatile("wgmma.mma_async.sync.aligned.m64n" #n WG_K ".f32." TY "." TY " {" regs \
                 "}, %" #ia ", %" #ib ", 1, 1, 1" WG_LAYOUT ";\n"                           \
                 : outs                                                                     \
                 : "l"(da), "l"(db))

__device__ __forceinline__ void wgmma(float *d, unsigned long long da, unsigned long long db)
{
#if WN == 64
    WGMMA(64, S32, 32, 33, R32(0));
#elif WN == 128
    WGMMA(128, S64, 64, 65, R64(0));
#elif WN == 256
    WGMMA(256, S128, 128, 129, R128(0));
#else
#error "WN must be 64, 128 or 256"
#endif
}

// Keeps the compiler from moving the accumulators while wgmma owns them.
__device__ __forceinline__ void pin(float *d)
{
#pragma unroll
    for (int i = 0; i < ACC; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

// A warpgroup's MT x NT instructions' accumulators set to zero, and kept
// from the compiler's reordering while wgmma owns them (pin).
__device__ __forceinline__ void acc_zero(float (*acc)[NT][ACC])
{
#pragma unroll
    for (int mi = 0; mi < MT; mi++)
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
#pragma unroll
            for (int i = 0; i < ACC; i++)
                acc[mi][ni][i] = 0.0f;
}

__device__ __forceinline__ void acc_pin(float (*acc)[NT][ACC])
{
#pragma unroll
    for (int mi = 0; mi < MT; mi++)
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
            pin(acc[mi][ni]);
}

// An accumulator pair (lo, hi) to columns c and c + 1 of row y (n
// elements), converted, edges guarded: one 32-bit store where both fit and
// the row keeps them aligned.
__device__ __forceinline__ void store_pair(elem *y, int n, int c, float lo, float hi)
{
    elem a = to_elem(lo), b = to_elem(hi);
    if (c + 1 < n && n % 2 == 0) {
        *(unsigned *)(y + c) = a | ((unsigned)b << 16);
    } else {
        if (c < n)
            y[c] = a;
        if (c + 1 < n)
            y[c + 1] = b;
    }
}

// A warpgroup's accumulators to the row-major C of M rows and ldc columns,
// their corner at (m0, n0), converted, edges guarded.  Thread t of the
// warpgroup holds rows 16 (t / 32) + (t % 32) / 4 (+ 8) of each m64 tile,
// columns 8 i + 2 (t % 4) (+ 1).
__device__ __forceinline__ void store_acc(elem *C, int M, int ldc, int m0, int n0,
                                          float (*acc)[NT][ACC])
{
    int t = threadIdx.x % 128;
#pragma unroll
    for (int mi = 0; mi < MT; mi++)
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
#pragma unroll
            for (int i = 0; i < WN / 8; i++)
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    int r = m0 + mi * 64 + (t / 32) * 16 + (t % 32) / 4 + h * 8;
                    int c = n0 + ni * WN + i * 8 + (t % 4) * 2;
                    if (r < M)
                        store_pair(C + (size_t)r * ldc, ldc, c, acc[mi][ni][4 * i + 2 * h],
                                   acc[mi][ni][4 * i + 2 * h + 1]);
                }
}
