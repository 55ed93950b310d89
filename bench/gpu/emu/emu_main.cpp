// emu_main.cpp - runs kernels/gemm/gemm.cu (its PTX helpers replaced by
// emu.h, included as kernel.cu) on the CPU at M N K given as arguments, block
// by block, and compares C with a double-precision product: "ok" or "FAIL"
// and the relative error (norm of the difference over norm of the product),
// exit status 1 on failure.  Shared memory is NaN-poisoned before each block
// and C before the launch, so unwritten or unloaded elements fail.
#include "emu.h"
#include <stdio.h>
thread_local dim3 threadIdx, blockIdx; dim3 gridDim, blockDim;
pthread_barrier_t emu_bar; alignas(16) float emu_smem[64 * 1024];
thread_local unsigned emu_seed; thread_local std::vector<emu_cp> emu_q; thread_local int emu_group;
#include "kernel.cu"
struct arg { int M, N, K; const float *A, *B; float *C; unsigned tid, bx, by; };
static void *run(void *p) {
    arg *a = (arg *)p;
    threadIdx = {a->tid, 0, 0}; blockIdx = {a->bx, a->by, 0};
    emu_seed = a->tid * 7919u + a->bx * 31u + a->by; emu_q.clear(); emu_group = 0;
    gemm(a->M, a->N, a->K, a->A, a->B, a->C);
    if (!emu_q.empty()) { fprintf(stderr, "cp.async left pending\n"); }
    return 0;
}
int main(int argc, char **argv) {
    int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
    std::vector<float> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N, NAN);
    srand(M * 131 + N * 7 + K);
    for (auto &x : A) x = rand() / (float)RAND_MAX * 2 - 1;
    for (auto &x : B) x = rand() / (float)RAND_MAX * 2 - 1;
    gridDim = {(unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM), 1};
    pthread_barrier_init(&emu_bar, 0, THREADS);
    std::vector<pthread_t> th(THREADS); std::vector<arg> args(THREADS);
    for (unsigned by = 0; by < gridDim.y; by++)
        for (unsigned bx = 0; bx < gridDim.x; bx++) {
            memset(emu_smem, 0xff, sizeof emu_smem); // NaN poison
            for (unsigned t = 0; t < THREADS; t++) {
                args[t] = {M, N, K, A.data(), B.data(), C.data(), t, bx, by};
                pthread_create(&th[t], 0, run, &args[t]);
            }
            for (unsigned t = 0; t < THREADS; t++) pthread_join(th[t], 0);
        }
    double num = 0, den = 0;
    for (int i = 0; i < M; i++) for (int j = 0; j < N; j++) {
        double s = 0;
        for (int k = 0; k < K; k++) s += (double)A[(size_t)i * K + k] * B[(size_t)k * N + j];
        double d = C[(size_t)i * N + j] - s;
        if (!(d == d)) { printf("FAIL %dx%dx%d: C[%d][%d] NaN/unwritten\n", M, N, K, i, j); return 1; }
        num += d * d; den += s * s;
    }
    double rel = sqrt(num / den);
    printf("%s %dx%dx%d relerr %.2e\n", rel < 1e-5 ? "ok" : "FAIL", M, N, K, rel);
    return rel < 1e-5 ? 0 : 1;
}
