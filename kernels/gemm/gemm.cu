/* gemm.cu - a tunable single-precision GEMM for NVIDIA GPUs: C = A * B,
 * row-major, any M, N, K.  The seed's story as one kernel family: each
 * block computes a BM x BN tile of C, staging BK-deep slices of A and B in
 * shared memory (coalesced loads: consecutive threads read consecutive
 * addresses), and each thread accumulates a TM x TN register tile.
 *
 * Tuning parameters (macros, -DNAME=value from ktune):
 *   BM, BN      the block's tile of C;
 *   BK          the depth of each shared-memory slice;
 *   TM, TN      each thread's register tile (BM/TM x BN/TN threads);
 *   VEC         1: scalar global loads; 4: float4 loads where the rows are
 *               16-byte aligned (K or N a multiple of 4) and inside the
 *               matrix, scalar ones at the edges.
 * Launch: block (BN/TN, BM/TM), grid (ceil(N/BN), ceil(M/BM)).
 * Valid: BM % TM == 0, BN % TN == 0, the loads divide evenly among the
 * threads, and 4 * BK * (BM + BN) bytes of shared memory fit 48 KiB.
 */
#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif
#ifndef VEC
#define VEC 1
#endif

#define THREADS ((BM / TM) * (BN / TN))

extern "C" __global__ void __launch_bounds__(THREADS)
gemm(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
     float *__restrict__ C)
{
    __shared__ float As[BK][BM];  /* transposed: a column of A is contiguous */
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        /* A tile, k fastest: VEC consecutive k per load */
        for (int g = tid; g < BM * BK / VEC; g += THREADS) {
            int r = g / (BK / VEC), k = (g % (BK / VEC)) * VEC;
            int gr = row0 + r, gk = k0 + k;
#if VEC == 4
            if (gr < M && gk + 3 < K && (K & 3) == 0) {
                float4 v = *reinterpret_cast<const float4 *>(&A[(size_t)gr * K + gk]);
                As[k][r] = v.x;
                As[k + 1][r] = v.y;
                As[k + 2][r] = v.z;
                As[k + 3][r] = v.w;
                continue;
            }
#endif
#pragma unroll
            for (int v = 0; v < VEC; v++)
                As[k + v][r] = (gr < M && gk + v < K) ? A[(size_t)gr * K + gk + v] : 0.0f;
        }
        /* B tile, n fastest: VEC consecutive columns per load */
        for (int g = tid; g < BK * BN / VEC; g += THREADS) {
            int k = g / (BN / VEC), c = (g % (BN / VEC)) * VEC;
            int gk = k0 + k, gc = col0 + c;
#if VEC == 4
            if (gk < K && gc + 3 < N && (N & 3) == 0) {
                *reinterpret_cast<float4 *>(&Bs[k][c]) =
                    *reinterpret_cast<const float4 *>(&B[(size_t)gk * N + gc]);
                continue;
            }
#endif
#pragma unroll
            for (int v = 0; v < VEC; v++)
                Bs[k][c + v] = (gk < K && gc + v < N) ? B[(size_t)gk * N + gc + v] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; i++)
                a[i] = As[k][threadIdx.y * TM + i];
#pragma unroll
            for (int j = 0; j < TN; j++)
                b[j] = Bs[k][threadIdx.x * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int r = row0 + threadIdx.y * TM + i;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int c = col0 + threadIdx.x * TN + j;
            if (r < M && c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
}
