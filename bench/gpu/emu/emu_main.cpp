// emu_main.cpp - runs kernels/gemm/gemm.cu (its PTX helpers replaced by
// emu.h, included as kernel.cu) on the CPU at M N K given as arguments, block
// by block in a random order, and compares C with a double-precision product:
// "ok" or "FAIL" and the relative error (norm of the difference over norm of
// the product),
// exit status 1 on failure.  Shared memory is NaN-poisoned before each block,
// C and stream K's partial sums (W) before each launch, so unwritten or
// unloaded elements fail.  The kernel is launched twice, and stream K's
// counters (Wc) must be back at 0 after each launch.
#include "emu.h"
#include <stdio.h>
thread_local dim3 threadIdx, blockIdx; dim3 gridDim, blockDim;
pthread_barrier_t emu_bar; alignas(16) float emu_smem[64 * 1024]; int emu_or;
thread_local unsigned emu_seed; thread_local std::vector<emu_cp> emu_q; thread_local int emu_group;
#include "kernel.cu"
struct arg { int M, N, K; const float *A, *B; float *C, *W; int *Wc; unsigned tid, bx, by; };
static void *run(void *p) {
    arg *a = (arg *)p;
    threadIdx = {a->tid, 0, 0}; blockIdx = {a->bx, a->by, 0};
    emu_seed = a->tid * 7919u + a->bx * 31u + a->by; emu_q.clear(); emu_group = 0;
    gemm(a->M, a->N, a->K, a->A, a->B, a->C, a->W, a->Wc);
    if (!emu_q.empty()) { fprintf(stderr, "cp.async left pending\n"); }
    return 0;
}
// One launch, its blocks one after another in a random order; false if a
// counter is left set.
static bool launch(int M, int N, int K, const float *A, const float *B, float *C,
                   std::vector<float> &W, std::vector<int> &Wc) {
    std::fill(C, C + (size_t)M * N, NAN);
    std::fill(W.begin(), W.end(), NAN);
    std::vector<pthread_t> th(THREADS); std::vector<arg> args(THREADS);
    std::vector<unsigned> order(gridDim.x * gridDim.y);
    for (unsigned i = 0; i < order.size(); i++) order[i] = i;
    for (unsigned i = order.size(); i > 1; i--) std::swap(order[i - 1], order[rand() % i]);
    for (unsigned o : order) {
        unsigned bx = o % gridDim.x, by = o / gridDim.x;
        memset(emu_smem, 0xff, sizeof emu_smem); // NaN poison
        for (unsigned t = 0; t < THREADS; t++) {
            args[t] = {M, N, K, A, B, C, W.data(), Wc.data(), t, bx, by};
            pthread_create(&th[t], 0, run, &args[t]);
        }
        for (unsigned t = 0; t < THREADS; t++) pthread_join(th[t], 0);
    }
    for (int c : Wc) if (c) { printf("FAIL %dx%dx%d: a stream K counter left at %d\n", M, N, K, c); return false; }
    return true;
}
int main(int argc, char **argv) {
    int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
    std::vector<float> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N);
    srand(M * 131 + N * 7 + K);
    for (auto &x : A) x = rand() / (float)RAND_MAX * 2 - 1;
    for (auto &x : B) x = rand() / (float)RAND_MAX * 2 - 1;
    // the spec's grid: with SK, the whole waves' tiles, then up to SK blocks sharing the rest
    // (TAIL: two blocks for each tile of the rest)
    unsigned tiles = (unsigned)(((N + BN - 1) / BN) * ((M + BM - 1) / BM)), kt = (K + BK - 1) / BK;
    unsigned rest = SK ? tiles % SK : 0, shared = TAIL ? 2 * rest : rest * kt < SK ? rest * kt : SK;
    gridDim = SK ? dim3{rest == 0 || kt < (TAIL ? 2 : 1) ? tiles : tiles - rest + shared, 1, 1}
                 : dim3{(unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM), 1};
    std::vector<float> W((size_t)2 * (SK ? SK : 1) * BM * BN);
    std::vector<int> Wc(SK ? SK : 1, 0);
    pthread_barrier_init(&emu_bar, 0, THREADS);
    for (int round = 0; round < 2; round++)
        if (!launch(M, N, K, A.data(), B.data(), C.data(), W, Wc)) return 1;
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
