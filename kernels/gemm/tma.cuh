// tma.cuh - the device helpers of the kernels that load with TMA and run
// in thread-block clusters (kernels/gemm/gemm_tma.cu,
// kernels/conv/conv_igemm_tma.cu): the tensor map's type, mbarrier
// arrivals that announce bytes or reach another block of the cluster, the
// cluster's rank and barrier, the ring's mbarriers, setmaxnreg, and the
// epilogue's swizzled staging of a warp's accumulators.  The including
// kernel defines CLUSTER (1 or 2), STAGES and WGS (consumer warpgroups)
// first and includes hopper.cuh before it.  ktune
// hashes this file with the kernel (nested includes are part of the
// CUBIN's key).
#pragma once

#ifndef CLUSTER
#error "tma.cuh: define CLUSTER before including it"
#endif

// cuda.h's CUtensorMap, which NVRTC lacks: 128 opaque bytes, 64-aligned.
struct __align__(64) CUtensorMap {
    unsigned long long opaque[16];
};

// One arrival that also announces the bytes the copy engine will deliver.
__device__ __forceinline__ void mbar_expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
}

// One arrival on the mbarrier at bar in another block (`rank`) of the
// cluster.  The wgmma that read the stage has finished (wait_group), so
// no data needs ordering: a plain (CTA-scope) arrival, not a release at
// cluster scope, which would wait for this warp's stores of C.
__device__ __forceinline__ void mbar_arrive_remote(unsigned bar, unsigned rank)
{
    asm volatile("{\n"
                 ".reg .b32 remote;\n"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
                 "}\n" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}

__device__ __forceinline__ unsigned cluster_rank()
{
#if CLUSTER > 1
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
#else
    return 0;
#endif
}

// Every thread of every block of the cluster (a block's barrier without one).
__device__ __forceinline__ void cluster_sync()
{
#if CLUSTER > 1
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    __syncthreads();
#endif
}

// The consumer warpgroups that read each stage: all WGS, unless the kernel
// says fewer (a ping-pong schedule, where each reads its own tiles).
#ifndef RING_WGS
#define RING_WGS WGS
#endif

// The ring's mbarriers, set up by thread 0 before any block of the cluster
// uses them: full[s] (bars + 8 s) completes on the producer's one arrival
// and the bytes it announced, empty[s] (after STAGES of them) on one
// arrival of each warp of the RING_WGS consumer warpgroups that read the
// stage in every block of the cluster.  Every thread calls it.
__device__ __forceinline__ void ring_init(unsigned bars)
{
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(bars + 8 * s, 1);
            mbar_init(bars + 8 * (STAGES + s), 4 * RING_WGS * CLUSTER);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    cluster_sync();
}

template <int N> __device__ __forceinline__ void set_regs_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

template <int N> __device__ __forceinline__ void set_regs_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

// A warp's 16 x 64 strip of accumulators (wgmma's fragment layout, d) as
// elem pairs into the warp's own 2 KB of shared memory at stage: 128-byte
// rows whose 16-byte chunks are swizzled by the row (chunk ^ row % 8), so
// that these stores and the row-wise reads after them spread over the
// banks.  The epilogues (EPI 1) then write the rows out to global memory.
__device__ __forceinline__ void stage_strip(const float *d, unsigned stage)
{
    int lane = threadIdx.x % 32;
    __syncwarp();
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int r = lane / 4 + h * 8, c = i * 8 + (lane % 4) * 2;
            unsigned v = to_elem(d[4 * i + 2 * h]) | ((unsigned)to_elem(d[4 * i + 2 * h + 1]) << 16);
            unsigned a = stage + r * 128 + ((((c / 8) ^ (r & 7)) << 4) | (c % 8) * 2);
            asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(a), "r"(v));
        }
    __syncwarp();
}
