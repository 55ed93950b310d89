/* bench_expr.c - how fast a compiled condition evaluates.
 *
 * Compiles typical T1 conditions once and evaluates each over a sweep of
 * parameter values (so branch outcomes vary as they do while a search space
 * is enumerated), summing the results into a volatile sink so the work
 * cannot be optimised away.  Prints nanoseconds per evaluation and
 * evaluations per second, best of 5 runs, single-threaded.
 *
 * Build and run (from the repository root):
 *   gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -Iinclude -Isrc \
 *       src/core/expr.c bench/bench_expr.c -lm -o /tmp/expr-build/bench_expr
 *   /tmp/expr-build/bench_expr
 * (or `make bench`, which links it against build/rel/libktune.a).
 *
 * Measured with that command on the development VM (2 vCPUs reported as
 * "AMD EPYC", ~3.5 GHz, Debian 12, gcc 12.2.0 -O2), best of 5, three runs:
 *      MC                                                   3.6 -  6.4 ns
 *      MC % MR == 0                                         7.0 - 11.9 ns
 *      MC % MR == 0 and NR % VEC == 0 and MR * NR // VEC <= 28
 *                                                          16.2 - 17.7 ns
 * The first line is the harness alone (one load per call, the sweep, the
 * call), so the typical 10-operator condition costs about 13 ns itself.
 * The VM is noisy: compare numbers taken in one sitting only.
 */
#include "core/expr.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define EVALS 20000000L
#define RUNS 5

static const char *const NAMES[] = {"MC", "MR", "NR", "VEC", "KC", "K"};
#define NNAMES (sizeof NAMES / sizeof NAMES[0])

static volatile double sink; /* keeps every result observable */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds for EVALS evaluations of e; MR and NR sweep 16 x 4 values. */
static double time_run(const kt_expr *e)
{
    double slots[NNAMES] = {96, 6, 32, 16, 256, 1024}, sum = 0;
    double t0 = now();
    for (long i = 0; i < EVALS; i++) {
        slots[1] = (double)(1 + (i & 15));
        slots[2] = (double)(16 << ((i >> 4) & 3));
        double v;
        if (kt_expr_eval(e, slots, &v) == KT_OK)
            sum += v;
    }
    double dt = now() - t0;
    sink = sum;
    return dt;
}

static void bench(const char *src)
{
    kt_expr *e;
    kt_diag d = {{0}};
    if (kt_expr_compile(src, NAMES, NNAMES, &e, &d) != KT_OK) {
        fprintf(stderr, "bench_expr: %s: %s\n", src, d.msg);
        exit(1);
    }
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        double dt = time_run(e);
        best = dt < best ? dt : best;
    }
    double ns = best / (double)EVALS * 1e9;
    printf("%7.2f ns/eval %8.1f M evals/s  %s\n", ns, 1e3 / ns, src);
    kt_expr_free(e);
}

int main(void)
{
    /* an empty-ish loop: the sweep and call overhead alone */
    bench("MC");
    bench("MC % MR == 0");
    /* the typical condition: 3 conjuncts, 10 operators */
    bench("MC % MR == 0 and NR % VEC == 0 and MR * NR // VEC <= 28");
    bench("MR * (NR // VEC) + NR // VEC + 1 <= 32");
    bench("KC < K + 128 and min(MC, KC) >= 2 ** 5 if MR > 2 else False");
    bench("1 <= MR <= 8 and NR % VEC == 0 and max(MR, NR // VEC) < 16");
    return 0;
}
