// conv.cuh - what the FP16 convolution kernels (conv_igemm_tc.cu,
// conv_igemm_wgmma.cu) share: the walk over the reduction's tiles, the
// input windows of a thread's output pixels, and the split reduction.
// The including kernel defines BM, BN, BK and THREADS first, and SPLIT
// where it uses the split reduction.
#pragma once

// Where the loads of a reduction tile start: filter tap (r, s), channel c0.
struct tap {
    int r, s, c0;
};

// Tile t of the reduction (taps in (r, s) order, BK channels each).
__device__ __forceinline__ tap tap_at(int t, int C, int S)
{
    int ct = (C + BK - 1) / BK;
    tap p = {t / ct / S, t / ct % S, t % ct * BK};
    return p;
}

__device__ __forceinline__ void next_tap(tap &t, int C, int S)
{
    t.c0 += BK;
    if (t.c0 >= C) {
        t.c0 = 0;
        if (++t.s == S) {
            t.s = 0;
            t.r++;
        }
    }
}

// The IT output pixels (rows of A) whose chunks a thread loads, rows row0
// + i step of the block's tile at bm: each input window's corner (h0, w0)
// and its index n H W + h0 W + w0 among X's pixels; rows past the output
// get a corner no tap reaches.
template <int IT> struct window {
    int pix[IT], h0[IT], w0[IT];
};

template <int IT>
__device__ __forceinline__ void find_windows(window<IT> &a, int row0, int step, int bm, int M,
                                             int P, int Q, int H, int W, int stride, int pad)
{
#pragma unroll
    for (int i = 0; i < IT; i++) {
        int m = bm + row0 + i * step;
        int n = m / (P * Q), p = m % (P * Q) / Q, q = m % Q;
        a.h0[i] = p * stride - pad;
        a.w0[i] = q * stride - pad;
        a.pix[i] = (n * H + a.h0[i]) * W + a.w0[i];
        if (m >= M)
            a.h0[i] = -(1 << 30);
    }
}

#ifdef SPLIT
// The split reduction (SPLIT > 1): the reduction's tiles are shared among
// SPLIT blocks (grid z) of each output tile; each writes its FP32
// accumulators to its own region of ws (BM x BN floats, in register order:
// element e of thread t at e THREADS + t, coalesced, every address a
// constant offset from one pointer), and the last of the tile's blocks to
// arrive (cnt, which it sets back to 0 for the next call) adds the SPLIT
// regions in z order, so the sum does not depend on the order of arrival.
// acc: this thread's BM BN / THREADS accumulators.  True in the tile's last
// block, whose acc then holds the sum over all SPLIT blocks.
__device__ __forceinline__ bool split_reduce(float *ws, int *cnt, float *acc)
{
    const int nacc = BM * BN / THREADS;
    const size_t region = (size_t)BM * BN;
    __shared__ int last;
    int tile = blockIdx.y * gridDim.x + blockIdx.x;
    float *w = ws + tile * SPLIT * region + threadIdx.x, *mine = w + blockIdx.z * region;
#pragma unroll
    for (int e = 0; e < nacc; e++)
        mine[e * THREADS] = acc[e];
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(cnt + tile, 1) == SPLIT - 1;
        if (last)
            cnt[tile] = 0;
    }
    __syncthreads();
    if (!last)
        return false;
    __threadfence();
#pragma unroll
    for (int e = 0; e < nacc; e++) {
        float s = 0.0f;
        for (int z = 0; z < SPLIT; z++)
            s += __ldcg(w + z * region + e * THREADS);
        acc[e] = s;
    }
    return true;
}
#endif
