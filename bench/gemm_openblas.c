/* gemm_openblas.c - ktune's CPU SGEMM (kernels/gemm/gemm.c) against OpenBLAS
 * cblas_sgemm, side by side in one process.
 *
 *   usage: gemm_openblas M N K [reps]        (reps >= 10, default 20)
 *
 * Compiled together with gemm.c and one configuration's -D values (the same
 * values must reach both files: THREADS also sets OpenBLAS's thread count).
 * Both libraries get the same random A and B (uniform in [-1, 1]) and the
 * same number of threads: OpenMP num_threads(THREADS) inside gemm.c,
 * openblas_set_num_threads(THREADS) here (the header line says so).
 *
 * Timing: after a warm-up (which also measures each library's time per
 * call), the two libraries alternate, `reps` samples each, so that clock,
 * cache and neighbour drift hit both alike.  One sample is a batch of calls
 * lasting about 20 ms (one call from ~1 ms up), preceded by one untimed call
 * that wakes the library's threads; its time / calls is one time per call.
 * Prints, per library, the median over samples of the time per call and its
 * GFLOP/s (2*M*N*K / t), then the ratio of ktune's throughput to OpenBLAS's,
 * and checks ktune's C (from one more call on a C poisoned with NaN) against
 * OpenBLAS's: the largest |ktune - openblas| relative to the largest
 * |openblas| entry; exit status 1 above 1e-4 or on any NaN.
 *
 * Idle threads: after a call, both libraries' worker threads busy-wait for
 * the next one (libgomp: GOMP_SPINCOUNT = 300000 pauses, several ms here;
 * OpenBLAS: 2^28 TSC cycles, about 0.1 s), so with alternating calls on a
 * 2-core machine each library would run against the other's spinning
 * thread (measured at 1024^3 with 2 threads: OpenBLAS drops from ~210 to
 * ~120 GFLOP/s, ktune about as much).  So, unless the variables are already
 * set, the program re-executes itself with GOMP_SPINCOUNT=10000 (~0.3 ms)
 * and OPENBLAS_THREAD_TIMEOUT=20 (2^20 cycles, ~0.4 ms), and sleeps 3 ms
 * before each sample, by when the other library's threads are asleep.  Both
 * only shorten how long an idle thread spins; within a batch, and at a
 * barrier inside one call, threads spin as usual.  The header line shows the
 * values used.
 *
 * OpenBLAS: Debian's libopenblas-dev 0.3.21 (pthread flavour, DYNAMIC_ARCH).
 * It does not know this CPU (AMD family 0x1A, Zen 5) and picks its Haswell
 * (AVX2) kernels; OPENBLAS_CORETYPE=SkylakeX forces its AVX-512 kernels,
 * which are about 1.7x faster here.  The header line shows the core used.
 * Run one benchmark at a time; the machine should be otherwise idle.
 *
 * Build and run (from the repository root; D is the configuration, here the
 * best one found at 1024^3 on the 2-core EPYC):
 *
 *   D="-DMR=6 -DNR=64 -DVEC=16 -DMC=192 -DKC=256 -DNC=1536 -DUNROLL=4 -DTHREADS=2"
 *   mkdir -p /tmp/gemm-build
 *   gcc -std=c11 -D_GNU_SOURCE -O3 -march=native -fopenmp -Wall -Wextra -Werror \
 *       $D -o /tmp/gemm-build/gemm_openblas bench/gemm_openblas.c \
 *       kernels/gemm/gemm.c -lopenblas -lm
 *   /tmp/gemm-build/gemm_openblas 1024 1024 1024 30
 *   OPENBLAS_CORETYPE=SkylakeX /tmp/gemm-build/gemm_openblas 1024 1024 1024 30
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef THREADS
#define THREADS 1
#endif

void gemm(int M, int N, int K, const float *A, const float *B, float *C);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Shorten idle spinning (see the header), once, by re-executing. */
static void set_spin_env(char **argv)
{
    if (getenv("GEMM_BENCH_REEXEC"))
        return;
    int changed = 0;
    if (!getenv("GOMP_SPINCOUNT") && !getenv("OMP_WAIT_POLICY"))
        changed |= setenv("GOMP_SPINCOUNT", "10000", 1) == 0;
    if (!getenv("OPENBLAS_THREAD_TIMEOUT"))
        changed |= setenv("OPENBLAS_THREAD_TIMEOUT", "20", 1) == 0;
    if (!changed || setenv("GEMM_BENCH_REEXEC", "1", 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    /* If that fails, measure anyway; the header shows the settings. */
}

/* Calls per timed sample: enough for about 20 ms, at least 1. */
static int batch_size(double t_call)
{
    double n = 0.02 / (t_call > 1e-9 ? t_call : 1e-9);
    return n < 1 ? 1 : n > 100000 ? 100000 : (int)n;
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v ? v : dflt;
}

static void run_openblas(int M, int N, int K, const float *A, const float *B, float *C)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A, K, B, N,
                0.0f, C, N);
}

/* A deterministic xorshift generator: the same inputs on every run. */
static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static float rand_float(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)((double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s M N K [reps]\n", argv[0]);
        return 2;
    }
    int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
    int reps = argc > 4 ? atoi(argv[4]) : 20;
    if (M < 1 || N < 1 || K < 1 || reps < 10 || reps > 100000) {
        fprintf(stderr, "need M, N, K >= 1 and 10 <= reps <= 100000\n");
        return 2;
    }
    set_spin_env(argv);
    openblas_set_num_threads(THREADS);

    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A = malloc(sizeof *A * na), *B = malloc(sizeof *B * nb);
    float *C1 = malloc(sizeof *C1 * nc), *C2 = malloc(sizeof *C2 * nc);
    double *t1 = malloc(sizeof *t1 * (size_t)reps), *t2 = malloc(sizeof *t2 * (size_t)reps);
    if (!A || !B || !C1 || !C2 || !t1 || !t2) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < na; i++)
        A[i] = rand_float();
    for (size_t i = 0; i < nb; i++)
        B[i] = rand_float();

    /* Warm-up: page faults, OpenBLAS's buffers and thread pool, the OpenMP
     * team, clocks; and each library's time per call, to size its batches. */
    double best1 = 1e30, best2 = 1e30, w0 = now();
    for (int w = 0; w < 3 || (now() - w0 < 0.3 && w < 1000); w++) {
        double t0 = now();
        gemm(M, N, K, A, B, C1);
        double t = now() - t0;
        best1 = t < best1 ? t : best1;
        t0 = now();
        run_openblas(M, N, K, A, B, C2);
        t = now() - t0;
        best2 = t < best2 ? t : best2;
    }
    int n1 = batch_size(best1), n2 = batch_size(best2);

    for (int r = 0; r < reps; r++) {
        pause_ms(3);
        gemm(M, N, K, A, B, C1); /* wakes the team; not timed */
        double t0 = now();
        for (int i = 0; i < n1; i++)
            gemm(M, N, K, A, B, C1);
        t1[r] = (now() - t0) / n1;
        pause_ms(3);
        run_openblas(M, N, K, A, B, C2);
        t0 = now();
        for (int i = 0; i < n2; i++)
            run_openblas(M, N, K, A, B, C2);
        t2[r] = (now() - t0) / n2;
    }

    /* The output checked: one call on a C poisoned with NaN, as the tuner
     * does (C's previous contents must not matter). */
    for (size_t i = 0; i < nc; i++)
        C1[i] = NAN;
    gemm(M, N, K, A, B, C1);

    double maxref = 0, maxdiff = 0;
    int bad = 0;
    for (size_t i = 0; i < nc; i++) {
        double d = fabs((double)C1[i] - (double)C2[i]);
        if (isnan(d))
            bad = 1;
        else if (d > maxdiff)
            maxdiff = d;
        if (fabs((double)C2[i]) > maxref)
            maxref = fabs((double)C2[i]);
    }
    double relerr = maxref > 0 ? maxdiff / maxref : maxdiff;

    double flops = 2.0 * M * N * K, m1 = median(t1, reps), m2 = median(t2, reps);
    printf("gemm %dx%dx%d, %d thread(s) each (OpenMP num_threads(%d) for ktune, "
           "openblas_set_num_threads(%d), OpenBLAS reports %d, core %s), "
           "%d alternating samples of %d (ktune) and %d (OpenBLAS) calls each, medians; "
           "GOMP_SPINCOUNT=%s OMP_WAIT_POLICY=%s OPENBLAS_THREAD_TIMEOUT=%s\n",
           M, N, K, THREADS, THREADS, THREADS, openblas_get_num_threads(),
           openblas_get_corename(), reps, n1, n2, env_or("GOMP_SPINCOUNT", "(default)"),
           env_or("OMP_WAIT_POLICY", "(default)"),
           env_or("OPENBLAS_THREAD_TIMEOUT", "(default)"));
    printf("ktune    %11.5f ms %8.1f GFLOP/s\n", m1 * 1e3, flops / m1 / 1e9);
    printf("openblas %11.5f ms %8.1f GFLOP/s\n", m2 * 1e3, flops / m2 / 1e9);
    printf("ratio    %11.3f  (ktune / OpenBLAS throughput)  max rel err %.2e%s\n",
           m2 / m1, relerr, bad ? "  NaN in ktune's output!" : "");
    free(A);
    free(B);
    free(C1);
    free(C2);
    free(t1);
    free(t2);
    return bad || !(relerr < 1e-4) ? 1 : 0;
}
