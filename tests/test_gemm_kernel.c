/* test_gemm_kernel.c - the CPU SGEMM kernel (kernels/gemm/gemm.c) against its
 * reference (kernels/gemm/gemm_ref.c), for one configuration of its tuning
 * parameters.
 *
 * The parameters are compile-time macros, so the build compiles this file
 * once per line below (each line's flags added to the compiler's command
 * line; the file includes both kernel sources) and runs every binary:
 *
// CONFIG: -DTHREADS=1
// CONFIG: -DMC=48 -DNC=768 -DKC=128 -DMR=4 -DNR=16 -DVEC=8 -DUNROLL=1 -DTHREADS=2
// CONFIG: -DMC=12 -DNC=48 -DKC=7 -DMR=4 -DNR=16 -DVEC=8 -DUNROLL=4 -DTHREADS=1
// CONFIG: -DMC=30 -DNC=40 -DKC=33 -DMR=6 -DNR=8 -DVEC=4 -DUNROLL=1 -DTHREADS=2
// CONFIG: -DMC=24 -DNC=24 -DKC=5 -DMR=12 -DNR=8 -DVEC=8 -DUNROLL=2 -DTHREADS=2
// CONFIG: -DMC=42 -DNC=96 -DKC=64 -DMR=14 -DNR=32 -DVEC=16 -DUNROLL=8 -DTHREADS=2
// CONFIG: -DMC=48 -DNC=192 -DKC=128 -DMR=8 -DNR=48 -DVEC=16 -DUNROLL=2 -DTHREADS=1
// CONFIG: -DMC=5 -DNC=64 -DKC=16 -DMR=1 -DNR=64 -DVEC=16 -DUNROLL=8 -DTHREADS=2
// CONFIG: -DMC=192 -DNC=1536 -DKC=256 -DMR=6 -DNR=64 -DVEC=16 -DUNROLL=4 -DTHREADS=2
 *
 * (the first: every parameter at its default but THREADS; then the
 * defaults written out with two threads; edge-heavy tiny blocks with AVX
 * vectors and a KC that is not a multiple of UNROLL; SSE-width vectors with
 * two threads and UNROLL 1; a tall 12 x 8 tile with KC 5; the widest
 * register budget, 14 x 32; a 48-column tile; a one-row tile; the best
 * configuration found at 1024^3.)
 *
 * Every test compares against the reference on many shapes: 1 x 1 x 1,
 * 3 x 17 x 5, primes, and every size one below, at, and one above MR, NR,
 * MC, NC and KC (and multiples), so that every edge path runs.  Integer-
 * valued inputs make every product and sum exact in float, so there the
 * kernel must match the reference bit for bit; random inputs are checked
 * against a bound proportional to K * eps * sum |a| |b|.  The output is
 * poisoned (NaN) before each call, guarded by canaries on both sides, and
 * the inputs must be left untouched.
 *
 * Build by hand (from the repository root), one configuration:
 *   gcc -std=gnu11 -D_GNU_SOURCE -O2 -march=native -fopenmp -Wall -Wextra \
 *       -Werror -Iinclude -DMR=4 -DNR=16 -DVEC=8 -o /tmp/t tests/test_gemm_kernel.c -lm
 *   KT_TEST_SRCDIR=. /tmp/t
 */
#include "test.h"

#include "../kernels/gemm/gemm.c"
#include "../kernels/gemm/gemm_ref.c"

#include <float.h>
#include <stdint.h>

/* ---------------------------------------------------------------- helpers */

static uint64_t rng = 0x243F6A8885A308D3ull;

static uint32_t next_u32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 32);
}

/* Integers in [-4, 4] (exact arithmetic) or floats in [-1, 1). */
static void fill(float *x, size_t n, int integers)
{
    for (size_t i = 0; i < n; i++)
        x[i] = integers ? (float)((int)(next_u32() % 9) - 4)
                        : (float)((double)next_u32() / 2147483648.0 - 1.0);
}

#define CANARY 64 /* floats on each side of C */
#define CANARY_VALUE 12345.678f

/* Runs gemm on one shape and checks it; returns 0, or prints and returns 1.
 * offset shifts every matrix by that many floats off the allocator's
 * alignment. */
static int check_shape(int M, int N, int K, int integers, int offset)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A = malloc(sizeof(float) * (na + (size_t)offset));
    float *B = malloc(sizeof(float) * (nb + (size_t)offset));
    float *Cbuf = malloc(sizeof(float) * (nc + 2 * CANARY + (size_t)offset));
    float *A0 = malloc(sizeof(float) * na), *B0 = malloc(sizeof(float) * nb);
    float *R = malloc(sizeof(float) * nc), *Rabs = malloc(sizeof(float) * nc);
    float *Aabs = malloc(sizeof(float) * na), *Babs = malloc(sizeof(float) * nb);
    CHECK(A && B && Cbuf && A0 && B0 && R && Rabs && Aabs && Babs);
    float *a = A + offset, *b = B + offset, *c = Cbuf + CANARY + offset;

    fill(a, na, integers);
    fill(b, nb, integers);
    memcpy(A0, a, sizeof(float) * na);
    memcpy(B0, b, sizeof(float) * nb);
    for (size_t i = 0; i < nc + 2 * CANARY + (size_t)offset; i++)
        Cbuf[i] = CANARY_VALUE;
    for (size_t i = 0; i < nc; i++)
        c[i] = NAN;
    for (size_t i = 0; i < nc; i++)
        R[i] = NAN;

    gemm(M, N, K, a, b, c);
    gemm_ref(M, N, K, a, b, R);
    if (!integers) {
        for (size_t i = 0; i < na; i++)
            Aabs[i] = fabsf(a[i]);
        for (size_t i = 0; i < nb; i++)
            Babs[i] = fabsf(b[i]);
        gemm_ref(M, N, K, Aabs, Babs, Rabs);
    }

    int bad = 0;
    for (int i = 0; i < CANARY + offset && !bad; i++)
        if (Cbuf[i] != CANARY_VALUE) {
            fprintf(stderr, "%dx%dx%d: wrote before C (canary %d)\n", M, N, K, i);
            bad = 1;
        }
    for (int i = 0; i < CANARY && !bad; i++)
        if (c[nc + (size_t)i] != CANARY_VALUE) {
            fprintf(stderr, "%dx%dx%d: wrote after C (canary %d)\n", M, N, K, i);
            bad = 1;
        }
    if (!bad && (memcmp(A0, a, sizeof(float) * na) || memcmp(B0, b, sizeof(float) * nb))) {
        fprintf(stderr, "%dx%dx%d: an input was modified\n", M, N, K);
        bad = 1;
    }
    /* float accumulation of K products: |error| <= ~K * eps * sum |a||b|
     * (a worst-case bound; an indexing error is off by O(sum |a||b| / K)). */
    double tol = ((double)K + 2.0) * FLT_EPSILON;
    for (size_t i = 0; i < nc && !bad; i++) {
        double err = fabs((double)c[i] - (double)R[i]);
        int ok = integers ? c[i] == R[i] : err <= tol * (double)Rabs[i] + 1e-30;
        if (!ok || isnan(c[i])) {
            fprintf(stderr,
                    "%dx%dx%d (%s inputs, offset %d): C[%zu][%zu] = %.9g, reference %.9g\n",
                    M, N, K, integers ? "integer" : "random", offset, i / (size_t)N,
                    i % (size_t)N, (double)c[i], (double)R[i]);
            bad = 1;
        }
    }
    free(A);
    free(B);
    free(Cbuf);
    free(A0);
    free(B0);
    free(R);
    free(Rabs);
    free(Aabs);
    free(Babs);
    return bad;
}

/* Sizes just around a block size s (and a multiple of it), at least 1. */
static int around(int s, int *out)
{
    int n = 0, cand[] = {s - 1, s, s + 1, 2 * s + 1};
    for (int i = 0; i < 4; i++)
        if (cand[i] >= 1)
            out[n++] = cand[i];
    return n;
}

/* Every combination of the given sizes whose work stays under a cap. */
static int check_product(const int *ms, int nm, const int *ns, int nn, const int *ks,
                         int nk, double cap, int integers)
{
    int failures = 0, ran = 0;
    for (int i = 0; i < nm; i++)
        for (int j = 0; j < nn; j++)
            for (int l = 0; l < nk; l++) {
                if ((double)ms[i] * ns[j] * ks[l] > cap)
                    continue;
                failures += check_shape(ms[i], ns[j], ks[l], integers, 0);
                ran++;
                if (failures > 5)
                    return failures;
            }
    CHECK(ran > 0);
    return failures;
}

/* ------------------------------------------------------------------ tests */

/* The reference itself, on a product worked out by hand. */
static void test_reference_by_hand(void)
{
    const float A[6] = {1, 2, 3, 4, 5, 6};          /* 2 x 3 */
    const float B[6] = {7, 8, 9, 10, 11, 12};       /* 3 x 2 */
    float C[4] = {NAN, NAN, NAN, NAN}, K4[4] = {NAN, NAN, NAN, NAN};
    gemm_ref(2, 2, 3, A, B, C);
    CHECK(C[0] == 58 && C[1] == 64 && C[2] == 139 && C[3] == 154);
    gemm(2, 2, 3, A, B, K4);
    CHECK(K4[0] == 58 && K4[1] == 64 && K4[2] == 139 && K4[3] == 154);
}

/* The shapes the brief names: tiny, odd, prime. */
static void test_small_and_prime_shapes(void)
{
    static const int S[][3] = {
        {1, 1, 1},    {1, 1, 7},     {1, 7, 1},     {7, 1, 1},    {3, 17, 5},
        {2, 3, 4},    {5, 3, 2},     {1, 100, 1},   {100, 1, 1},  {1, 1, 100},
        {7, 13, 31},  {31, 13, 7},   {13, 31, 7},   {17, 19, 23}, {37, 41, 43},
        {97, 89, 83}, {127, 131, 137}, {2, 2, 1000}, {1, 257, 129}, {257, 1, 129},
        {211, 223, 227}, {61, 509, 17}, {509, 61, 19},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof S / sizeof *S; i++)
        for (int integers = 0; integers < 2; integers++)
            failures += check_shape(S[i][0], S[i][1], S[i][2], integers, 0);
    CHECK_EQ_INT(failures, 0);
}

/* One below, at and above the register tile and the cache blocks, in every
 * dimension, crossed (with the larger combinations left out). */
static void test_tile_and_block_edges(void)
{
    int ms[16], ns[16], ks[16], nm = 0, nn = 0, nk = 0;
    ms[nm++] = 1;
    nm += around(MR, ms + nm);
    nm += around(MC, ms + nm);
    ns[nn++] = 1;
    nn += around(NR, ns + nn);
    nn += around(NC, ns + nn);
    ns[nn++] = VEC + 1;
    ks[nk++] = 1;
    ks[nk++] = UNROLL + 1;
    nk += around(KC, ks + nk);
    int failures = check_product(ms, nm, ns, nn, ks, nk, 1.2e7, 1);
    CHECK_EQ_INT(failures, 0);
}

/* The same edges with random (inexact) inputs, checked to a tolerance. */
static void test_edges_random_inputs(void)
{
    int ms[] = {1, MR + 1, MC + MR - 1, 2 * MC + 1};
    int ns[] = {1, NR - 1 > 0 ? NR - 1 : 1, NR + 1, NC + 1};
    int ks[] = {1, KC - 1 > 0 ? KC - 1 : 1, KC + 1, 2 * KC + 3};
    int failures = check_product(ms, 4, ns, 4, ks, 4, 1.2e7, 0);
    CHECK_EQ_INT(failures, 0);
}

/* Several blocks in every dimension at once (every loop of the driver runs
 * more than once, with a partial last block), and a square power of two. */
static void test_multi_block(void)
{
    int M = 2 * MC + MR + 3, N = NC + NR + 5, K = 2 * KC + 7;
    while ((double)M * N * K > 1.5e8 && K > 3 * UNROLL)
        K = K / 2 + 1;
    int failures = check_shape(M, N, K, 1, 0) + check_shape(M, N, K, 0, 0) +
                   check_shape(256, 256, 256, 1, 0) + check_shape(256, 256, 256, 0, 0);
    CHECK_EQ_INT(failures, 0);
}

/* Matrices that start off the allocator's alignment: C's stores are
 * unaligned; the packed panels keep their own alignment. */
static void test_unaligned_pointers(void)
{
    int failures = 0;
    for (int off = 1; off < 4; off++) {
        failures += check_shape(2 * MR + 1, 2 * NR + 3, KC + 2, 1, off);
        failures += check_shape(33, 65, 17, 0, off);
    }
    CHECK_EQ_INT(failures, 0);
}

/* Nothing survives from one call to the next, and whatever C held before
 * (huge values, infinities, NaN) does not leak into the result. */
static void test_repeated_calls_and_dirty_output(void)
{
    int M = MR + 2, N = NR + 3, K = KC + 5;
    float *A = malloc(sizeof(float) * (size_t)M * K), *B = malloc(sizeof(float) * (size_t)K * N);
    float *C = malloc(sizeof(float) * (size_t)M * N), *R = malloc(sizeof(float) * (size_t)M * N);
    CHECK(A && B && C && R);
    fill(A, (size_t)M * K, 1);
    fill(B, (size_t)K * N, 1);
    gemm_ref(M, N, K, A, B, R);
    const float dirt[] = {NAN, INFINITY, -FLT_MAX, 1e30f, 0.0f};
    for (int rep = 0; rep < 5; rep++) {
        for (int i = 0; i < M * N; i++)
            C[i] = dirt[rep];
        gemm(M, N, K, A, B, C);
        CHECK(memcmp(C, R, sizeof(float) * (size_t)M * N) == 0);
    }
    free(A);
    free(B);
    free(C);
    free(R);
}

/* THREADS == 1 starts no thread; THREADS == n starts at most n - 1. */
static void test_thread_count(void)
{
    float A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, C[4];
    float *big = malloc(sizeof(float) * 64 * 64 * 3);
    CHECK(big);
    fill(big, 64 * 64 * 2, 1);
    gemm(2, 2, 2, A, B, C);
    gemm(64, 64, 64, big, big + 64 * 64, big + 2 * 64 * 64);
    CHECK(C[0] == 1 && C[1] == 2 && C[2] == 3 && C[3] == 4);
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) {
        free(big);
        return; /* no procfs: nothing to count */
    }
    char line[256];
    int threads = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &threads) == 1)
            break;
    fclose(f);
    free(big);
    if (threads < 0)
        return;
    if (THREADS == 1)
        CHECK_EQ_INT(threads, 1);
    else
        CHECK(threads >= 1 && threads <= THREADS);
}

static const kt_test TESTS[] = {
    KT_T(test_reference_by_hand),
    KT_T(test_small_and_prime_shapes),
    KT_T(test_tile_and_block_edges),
    KT_T(test_edges_random_inputs),
    KT_T(test_multi_block),
    KT_T(test_unaligned_pointers),
    KT_T(test_repeated_calls_and_dirty_output),
    KT_T(test_thread_count),
};

KT_TEST_MAIN(TESTS)
