/* nn_common.c - what every layer shares: the matrix product, through
 * OpenBLAS or through the reference loops the tests compare it with, and
 * uniform initialisation. */
#include "ml/nn.h"

#include <cblas.h>

/* The reference: the textbook triple loop, one dot product per element of
 * C, so that nothing in it can share a bug with a blocked BLAS kernel. */
static void gemm_naive(bool ta, bool tb, int M, int N, int K, float alpha,
                       const float *A, int lda, const float *B, int ldb,
                       float beta, float *C, int ldc)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0;
            for (int k = 0; k < K; k++) {
                float a = ta ? A[(size_t)k * lda + i] : A[(size_t)i * lda + k];
                float b = tb ? B[(size_t)j * ldb + k] : B[(size_t)k * ldb + j];
                s += a * b;
            }
            float *c = &C[(size_t)i * ldc + j];
            *c = alpha * s + (beta == 0 ? 0 : beta * *c);
        }
}

void kt_nn_gemm(bool naive, bool ta, bool tb, int M, int N, int K, float alpha,
                const float *A, int lda, const float *B, int ldb, float beta,
                float *C, int ldc)
{
    if (M <= 0 || N <= 0)
        return;
    if (naive) {
        gemm_naive(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B, ldb,
                beta, C, ldc);
}

void kt_nn_uniform(float *p, size_t n, float scale, kt_rng *rng)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (float)((2 * kt_rng_unit(rng) - 1) * scale);
}
