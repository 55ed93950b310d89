/* conv_direct.cu - 2-D convolution, forward, NCHW, FP32, computed directly:
 * each block produces a TILE_K x TILE_P x TILE_Q tile of one image's
 * output.  For each group of CHUNK input channels it stages in shared
 * memory the input window the tile needs ((TILE_P-1)*stride + R rows by
 * (TILE_Q-1)*stride + S columns) and the matching weights, then every
 * thread accumulates PER_K output channels x PER_Q pixels of one output
 * row in registers.
 *
 *   Y[n][k][p][q] = sum over c, r, s of
 *                   Wt[k][c][r][s] * X[n][c][p*stride - pad + r][q*stride - pad + s]
 *
 * Tuning parameters (macros, -DNAME=value from ktune):
 *   TILE_Q, TILE_P, TILE_K   the block's output tile;
 *   PER_Q, PER_K             each thread's pixels (strided by TILE_Q/PER_Q,
 *                            so a warp reads neighbouring words) and its
 *                            consecutive output channels;
 *   CHUNK                    input channels staged per round.
 * Launch: block (TILE_Q/PER_Q, TILE_P, TILE_K/PER_K), grid (ceil(Q/TILE_Q),
 * ceil(P/TILE_P), N * ceil(K/TILE_K)), dynamic shared memory
 * 4 * CHUNK * (window + R*S*TILE_K) bytes (the spec computes it).  Indices
 * are 32-bit: every tensor must hold fewer than 2^31 elements.
 */
#ifndef TILE_Q
#define TILE_Q 16
#endif
#ifndef TILE_P
#define TILE_P 4
#endif
#ifndef TILE_K
#define TILE_K 16
#endif
#ifndef PER_Q
#define PER_Q 2
#endif
#ifndef PER_K
#define PER_K 4
#endif
#ifndef CHUNK
#define CHUNK 4
#endif

#define TX (TILE_Q / PER_Q)
#define TZ (TILE_K / PER_K)
#define THREADS (TX * TILE_P * TZ)

/* Stage channels [c0, c0 + CHUNK) of the input window and the weights. */
static __device__ __forceinline__ void
stage(float *sx, float *sw, const float *__restrict__ X, const float *__restrict__ Wt, int n,
      int c0, int k0, int C, int H, int W, int K, int RS, int ih0, int iw0, int IH, int IW)
{
    const int tid = (threadIdx.z * TILE_P + threadIdx.y) * TX + threadIdx.x;
    for (int g = tid; g < CHUNK * IH * IW; g += THREADS) {
        int c = g / (IH * IW), y = g / IW - c * IH, x = g - (g / IW) * IW;
        int h = ih0 + y, w = iw0 + x;
        bool ok = c0 + c < C && (unsigned)h < (unsigned)H && (unsigned)w < (unsigned)W;
        sx[g] = ok ? X[((n * C + c0 + c) * H + h) * W + w] : 0.0f;
    }
    /* weights as [c][r][s][k]: the CHUNK * RS values of one k are contiguous
     * in Wt, so consecutive threads read consecutive words */
    for (int g = tid; g < TILE_K * CHUNK * RS; g += THREADS) {
        int k = g / (CHUNK * RS), crs = g - k * (CHUNK * RS);
        bool ok = k0 + k < K && c0 + crs / RS < C;
        sw[crs * TILE_K + k] = ok ? Wt[(k0 + k) * C * RS + c0 * RS + crs] : 0.0f;
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
conv_direct(int N, int C, int H, int W, int K, int R, int S, int stride, int pad, int P,
            int Q, const float *__restrict__ X, const float *__restrict__ Wt,
            float *__restrict__ Y)
{
    extern __shared__ float smem[];
    const int IH = (TILE_P - 1) * stride + R, IW = (TILE_Q - 1) * stride + S;
    float *sx = smem, *sw = smem + CHUNK * IH * IW;
    const int kblocks = (K + TILE_K - 1) / TILE_K;
    const int n = blockIdx.z / kblocks, k0 = (blockIdx.z - n * kblocks) * TILE_K;
    const int p0 = blockIdx.y * TILE_P, q0 = blockIdx.x * TILE_Q;
    const int RS = R * S;
    (void)N;
    float acc[PER_K][PER_Q];
#pragma unroll
    for (int i = 0; i < PER_K; i++)
#pragma unroll
        for (int j = 0; j < PER_Q; j++)
            acc[i][j] = 0.0f;
    for (int c0 = 0; c0 < C; c0 += CHUNK) {
        stage(sx, sw, X, Wt, n, c0, k0, C, H, W, K, RS, p0 * stride - pad,
              q0 * stride - pad, IH, IW);
        __syncthreads();
        for (int c = 0; c < CHUNK; c++)
            for (int r = 0; r < R; r++) {
                const float *xrow = sx + (c * IH + threadIdx.y * stride + r) * IW;
                const float *wrs = sw + (c * RS + r * S) * TILE_K + threadIdx.z * PER_K;
                for (int s = 0; s < S; s++) {
                    float wv[PER_K], xv[PER_Q];
#pragma unroll
                    for (int i = 0; i < PER_K; i++)
                        wv[i] = wrs[s * TILE_K + i];
#pragma unroll
                    for (int j = 0; j < PER_Q; j++)
                        xv[j] = xrow[(threadIdx.x + j * TX) * stride + s];
#pragma unroll
                    for (int i = 0; i < PER_K; i++)
#pragma unroll
                        for (int j = 0; j < PER_Q; j++)
                            acc[i][j] = fmaf(wv[i], xv[j], acc[i][j]);
                }
            }
        __syncthreads();
    }
    const int p = p0 + threadIdx.y;
    if (p >= P)
        return;
#pragma unroll
    for (int i = 0; i < PER_K; i++) {
        int k = k0 + threadIdx.z * PER_K + i;
#pragma unroll
        for (int j = 0; j < PER_Q; j++) {
            int q = q0 + threadIdx.x + j * TX;
            if (k < K && q < Q)
                Y[((n * K + k) * P + p) * Q + q] = acc[i][j];
        }
    }
}
