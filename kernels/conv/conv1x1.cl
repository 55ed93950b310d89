/* conv1x1.cl - a direct 1x1 convolution, forward, NCHW, FP32, in OpenCL C,
 * tuned by the nine parameters of MIOpen's ConvOclDirectFwd1x1 solver with
 * their names and legal values (conv1x1-opencl.json), so that the
 * configurations a model trained on MIOpen's database predicts for a
 * problem can be run and timed here.  Our own kernel, written from the
 * parameters' description (data/miopen/SOLVERS.md section 2 of the
 * project's notes), not from MIOpen's source.
 *
 *   y[n][k][p] = sum_c w[k][c] x[n][c][q(p)]
 * with p an output pixel (oy, ox) of the OH x OW plane and q(p) its input
 * pixel (oy s_h - p_h, ox s_w - p_w), zero where that falls in the padding.
 *
 * What each parameter does here (MIOpen's meaning where it has one):
 *   grp_tile0        the work-group size, or 64 when out_pix_tile1 = 1
 *                    (MIOpen's "v1" configurations, whose work-group is 64);
 *   out_pix_tile0    output pixels per work-item (0 counts as 1);
 *   n_out_pix_tiles  output channels per work-item (and work-group);
 *   n_in_data_tiles  input channels per step of the reduction: the
 *                    work-group stages those channels' weights for its
 *                    output channels in local memory, at most 16 KiB
 *                    (min(n_in_data_tiles, 4096 / n_out_pix_tiles));
 *   grp_tile1, in_tile1, in_tile0, out_pix_tile1 (but for the work-group
 *   size), n_stacks: legal values only, as in MIOpen, whose kernel does not
 *   read them either (one image per work-item).
 * A work-group covers WG OPIX consecutive output pixels of one image and
 * NOUT output channels; the grid is (pixels, channel groups, images).
 */
#ifndef grp_tile0
#define grp_tile0 64
#endif
#ifndef out_pix_tile1
#define out_pix_tile1 0
#endif
#ifndef out_pix_tile0
#define out_pix_tile0 1
#endif
#ifndef n_out_pix_tiles
#define n_out_pix_tiles 8
#endif
#ifndef n_in_data_tiles
#define n_in_data_tiles 4
#endif

#define WG (out_pix_tile1 ? 64 : grp_tile0)
#define OPIX (out_pix_tile0 > 1 ? out_pix_tile0 : 1)
#define NOUT n_out_pix_tiles
#define CH (n_in_data_tiles < 4096 / NOUT ? n_in_data_tiles : 4096 / NOUT)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
conv1x1_fwd(const int N, const int C, const int H, const int W, const int K, const int OH,
            const int OW, const int sh, const int sw, const int ph, const int pw,
            __global const float *restrict x, __global const float *restrict w,
            __global float *restrict y)
{
    __local float wl[NOUT * CH]; /* wl[o CH + c]: the step's weights */
    const int lid = get_local_id(0), img = get_group_id(2), k0 = get_group_id(1) * NOUT;
    const int p0 = get_global_id(0) * OPIX, ohw = OH * OW, hw = H * W;
    (void)N;

    int off[OPIX]; /* each pixel's input in a channel's plane, -1: none */
#pragma unroll
    for (int i = 0; i < OPIX; i++) {
        int p = p0 + i, iy = p / OW * sh - ph, ix = p % OW * sw - pw;
        off[i] = p < ohw && iy >= 0 && iy < H && ix >= 0 && ix < W ? iy * W + ix : -1;
    }
    float acc[NOUT][OPIX];
#pragma unroll
    for (int o = 0; o < NOUT; o++)
#pragma unroll
        for (int i = 0; i < OPIX; i++)
            acc[o][i] = 0.0f;

    const __global float *xn = x + (size_t)img * C * hw;
    for (int c0 = 0; c0 < C; c0 += CH) {
        const int nc = min(CH, C - c0);
        barrier(CLK_LOCAL_MEM_FENCE); /* the last step's weights are read */
        for (int t = lid; t < NOUT * CH; t += WG) {
            int o = t / CH, c = t % CH;
            wl[t] = k0 + o < K && c < nc ? w[(size_t)(k0 + o) * C + c0 + c] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll 4
        for (int c = 0; c < nc; c++) {
            const __global float *plane = xn + (size_t)(c0 + c) * hw;
            float xv[OPIX];
#pragma unroll
            for (int i = 0; i < OPIX; i++)
                xv[i] = off[i] >= 0 ? plane[off[i]] : 0.0f;
#pragma unroll
            for (int o = 0; o < NOUT; o++) {
                const float wv = wl[o * CH + c];
#pragma unroll
                for (int i = 0; i < OPIX; i++)
                    acc[o][i] += wv * xv[i];
            }
        }
    }

    __global float *yn = y + (size_t)img * K * ohw;
#pragma unroll
    for (int o = 0; o < NOUT; o++)
#pragma unroll
        for (int i = 0; i < OPIX; i++)
            if (k0 + o < K && p0 + i < ohw)
                yn[(size_t)(k0 + o) * ohw + p0 + i] = acc[o][i];
}

/* The reference: one work-item per output element, c in order. */
__kernel void conv1x1_ref(const int N, const int C, const int H, const int W, const int K,
                          const int OH, const int OW, const int sh, const int sw, const int ph,
                          const int pw, __global const float *restrict x,
                          __global const float *restrict w, __global float *restrict y)
{
    const int p = get_global_id(0), k = get_global_id(1), img = get_global_id(2);
    if (p >= OH * OW || k >= K || img >= N)
        return;
    const int iy = p / OW * sh - ph, ix = p % OW * sw - pw;
    float s = 0.0f;
    if (iy >= 0 && iy < H && ix >= 0 && ix < W)
        for (int c = 0; c < C; c++)
            s += w[(size_t)k * C + c] * x[((size_t)img * C + c) * H * W + iy * W + ix];
    y[((size_t)img * K + k) * OH * OW + p] = s;
}
