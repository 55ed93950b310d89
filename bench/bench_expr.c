/* bench_expr.c - how long one evaluation of a compiled condition takes.
 *
 * Compiles a typical T1 condition once and evaluates it over a sweep of
 * parameter values, summing the results so the work cannot be skipped.
 * Prints nanoseconds per evaluation (best of 5 runs).  Single-threaded.
 *
 *   make bench        (or: build/bench/bench_expr)
 */
#include "core/expr.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>

static void run(const char *src)
{
    static const char *const NAMES[] = {"MC", "MR", "NR", "VEC", "KC", "K"};
    kt_expr *e;
    kt_diag d = {{0}};
    if (kt_expr_compile(src, NAMES, 6, &e, &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    const long n = 20000000;
    double best = 1e30, sum = 0;
    for (int rep = 0; rep < 5; rep++) {
        double slots[6] = {96, 6, 32, 16, 256, 1024};
        double t0 = kt_now();
        for (long i = 0; i < n; i++) {
            slots[1] = (double)(1 + (i & 15));
            slots[2] = (double)(16 << (i & 3));
            double v;
            if (kt_expr_eval(e, slots, &v) == KT_OK)
                sum += v;
        }
        double dt = kt_now() - t0;
        best = dt < best ? dt : best;
    }
    printf("%-62s %6.2f ns/eval  (checksum %.0f)\n", src, best / (double)n * 1e9, sum);
    kt_expr_free(e);
}

int main(void)
{
    run("MC % MR == 0");
    run("MC % MR == 0 and NR % VEC == 0 and MR * NR // VEC <= 28");
    run("MR * (NR // VEC) + NR // VEC + 1 <= 32");
    run("KC < K + 128 and min(MC, KC) >= 2 ** 5 if MR > 2 else False");
    return 0;
}
