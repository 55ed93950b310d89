/* gemm_ref.c - the trusted reference for gemm.c: C = A * B, row-major,
 * single precision in and out, M x K times K x N.
 *
 *   void gemm_ref(int M, int N, int K, const float *A, const float *B, float *C);
 *
 * A plain loop nest with no tuning parameters and no blocking.  Each row of
 * C is accumulated in double, so the reference's own rounding is negligible
 * next to the tuned kernel's float accumulation; the i-p-j order streams
 * through rows of B, which keeps it fast enough to run once per tuning run
 * even at 2048^3.  C is fully overwritten (its previous contents are never
 * read).  It must not share names with gemm.c: the kernel test includes
 * both into one translation unit.
 */
#include <stddef.h>
#include <stdlib.h>

void gemm_ref(int M, int N, int K, const float *A, const float *B, float *C)
{
    double *row = malloc(sizeof *row * (size_t)(N > 0 ? N : 1));
    if (!row)
        return; /* C stays poisoned (NaN): the tuner refuses such a reference */
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++)
            row[j] = 0.0;
        for (int p = 0; p < K; p++) {
            double a = A[(size_t)i * K + p];
            const float *b = B + (size_t)p * N;
            for (int j = 0; j < N; j++)
                row[j] += a * (double)b[j];
        }
        for (int j = 0; j < N; j++)
            C[(size_t)i * N + j] = (float)row[j];
    }
    free(row);
}
