// common.cuh - the device helpers that mma.cuh (the mma.sync kernels) and
// hopper.cuh (the wgmma kernels) share, included by both: 16-bit elements,
// shared-memory addresses, cp.async of 16 bytes and the conversion from
// float.  KT_BF16 (from the spec's CompilerOptions) picks bfloat16, else
// half; the includer defines it (or leaves it undefined: half).  A kernel
// in kernels/conv reaches it through the link there, since a kernel's
// local includes lie beside it; ktune hashes it with the kernel.
#pragma once

// Elements travel as 16-bit words; the conversions are PTX, so no header
// is needed.
typedef unsigned short elem;

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    unsigned r;
    asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
    return r;
}

// 16 bytes from global to shared memory, the last 16 - bytes zero-filled.
__device__ __forceinline__ void cp16(unsigned dst, const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(bytes));
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
