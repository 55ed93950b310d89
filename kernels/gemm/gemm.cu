/* gemm.cu - a tunable single-precision GEMM for NVIDIA GPUs: C = A * B,
 * row-major, any M, N, K.  The seed's story as one kernel family: each
 * block computes a BM x BN tile of C, staging BK-deep slices of A and B in
 * shared memory (coalesced loads: consecutive threads read consecutive
 * addresses), and each thread accumulates a TM x TN register tile.
 *
 * Tuning parameters (macros, -DNAME=value from ktune):
 *   BM, BN      the block's tile of C;
 *   BK          the depth of each shared-memory slice;
 *   TM, TN      each thread's register tile (BM/TM x BN/TN threads).
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

#define THREADS ((BM / TM) * (BN / TN))

extern "C" __global__ void __launch_bounds__(THREADS)
gemm(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
     float *__restrict__ C)
{
    __shared__ float As[BK][BM];  /* transposed: a column of A is contiguous */
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int e = tid; e < BM * BK; e += THREADS) { /* A tile, k fastest */
            int r = e / BK, k = e % BK;
            int gr = row0 + r, gk = k0 + k;
            As[k][r] = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.0f;
        }
#pragma unroll
        for (int e = tid; e < BK * BN; e += THREADS) { /* B tile, n fastest */
            int k = e / BN, c = e % BN;
            int gk = k0 + k, gc = col0 + c;
            Bs[k][c] = (gk < K && gc < N) ? B[(size_t)gk * N + gc] : 0.0f;
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
