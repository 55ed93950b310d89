// emu.h - the CUDA subset kernels/gemm/gemm.cu uses, on the CPU, for checking
// its indexing and pipeline on machine A (no GPU there): one pthread per CUDA
// thread, __syncthreads a pthread barrier, and each cp.async copy landing
// either at once or at the wait that must complete it (at random), so a
// missing wait or barrier shows as a wrong result.  sgemm_emu.sh uses it.
#include <pthread.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include <stddef.h>
#include <vector>
#include <algorithm>

struct alignas(16) float4 { float x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
struct dim3 { unsigned x, y, z; };
extern thread_local dim3 threadIdx, blockIdx;
extern dim3 gridDim, blockDim;
extern pthread_barrier_t emu_bar;
extern float emu_smem[];
extern thread_local unsigned emu_seed;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(a, b)
#define __maxnreg__(n)
#define __restrict__ __restrict
#define __align__(n)
static inline void __syncthreads() { pthread_barrier_wait(&emu_bar); }
// the block-wide OR, the fence and the memory operations stream K uses
extern int emu_or;
static inline int __syncthreads_or(int p) {
    if (p) __atomic_fetch_or(&emu_or, 1, __ATOMIC_SEQ_CST);
    pthread_barrier_wait(&emu_bar);
    int r = __atomic_load_n(&emu_or, __ATOMIC_SEQ_CST);
    pthread_barrier_wait(&emu_bar);
    if (threadIdx.x == 0) __atomic_store_n(&emu_or, 0, __ATOMIC_SEQ_CST);
    pthread_barrier_wait(&emu_bar);
    return r;
}
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline float __ldcg(const float *p) { return *p; }
static inline void __stcg(float *p, float v) { *p = v; }
// cp.async: each copy lands now or at a later wait, at random
struct emu_cp { float *dst; const float *src; int bytes; int group; };
extern thread_local std::vector<emu_cp> emu_q;
extern thread_local int emu_group;
static inline void emu_do(const emu_cp &c) {
    for (int i = 0; i < 4; i++) c.dst[i] = i * 4 < c.bytes ? c.src[i] : 0.0f;
}
static inline unsigned smem_addr(const void *p) { return (unsigned)((const char *)p - (const char *)emu_smem); }
static inline void cp16(float *dst, const float *src, int bytes) {
    emu_cp c = {dst, src, bytes, emu_group};
    emu_seed = emu_seed * 1103515245u + 12345u;
    if ((emu_seed >> 16) & 1) emu_do(c); else emu_q.push_back(c);
}
static inline void cp_commit() { emu_group++; }
template <int N> static inline void cp_wait() {
    std::vector<emu_cp> keep;
    for (auto &c : emu_q) if (c.group < emu_group - N) emu_do(c); else keep.push_back(c);
    emu_q.swap(keep);
}
