/* tune_select.c - tune a kernel offline for a few shapes, then serve a
 * stream of calls of mixed shapes through runtime selection.
 *
 * The tuning stores every measurement in the results database; the
 * selector then answers each call's shape from there: the shape's own
 * winner, else the nearest tuned shape's, else the spec's default, with
 * where the answer came from.  The CPU SGEMM by default; with a CUDA spec
 * (examples/cuda_select.sh runs it so) the same on the GPU, and a machine
 * without one says so and stops with status 0 ("skip").
 *
 *   tune_select SPEC DB [BUDGET [SIZE]]
 *     SPEC    kernels/gemm/gemm-c.json (installed under share/ktune/)
 *     DB      the results database (created)
 *     BUDGET  configurations measured per tuned shape (8)
 *     SIZE    the largest tuned M = N = K (256)
 *
 * Built against an installed ktune with `pkg-config --cflags --libs ktune`
 * alone (examples/Makefile).
 */
#include <ktune.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tune one shape; the winner goes to the database.  A missing GPU is
 * KTUNE_EBACKEND, which the caller turns into a skip. */
static int tune_shape(const ktune_spec *spec, const char *db, int size, double budget)
{
    char problem[96];
    snprintf(problem, sizeof problem, "M=%d,N=%d,K=%d", size, size, size);
    ktune_tune_opts o;
    ktune_tune_opts_init(&o);
    o.problem = problem;
    o.db_path = db;
    o.strategy = "random";
    o.budget_kind = KTUNE_BUDGET_COUNT;
    o.budget = budget;
    ktune_run *run = NULL;
    ktune_diag d = {{0}};
    int rc = ktune_tune(spec, &o, &run, &d);
    const char *best;
    ktune_result r;
    if (rc == 0 && ktune_run_best(run, &best, &r) == 0)
        printf("tuned %s: %s, %.3f ms (%.2fx the default)\n", problem, best, r.time_ms,
               ktune_run_speedup(run));
    else if (rc == 0)
        printf("tuned %s: no configuration ran correctly\n", problem);
    else
        fprintf(stderr, "tune_select: %s\n", d.msg);
    ktune_run_free(run);
    return rc;
}

/* A stream of calls of mixed shapes, tuned and not, each asking the
 * selector which configuration to run. */
static int serve(const char *db, const char *spec_path, int size)
{
    ktune_selector *sel = NULL;
    ktune_diag d = {{0}};
    if (ktune_selector_open(db, spec_path, NULL, NULL, NULL, &sel, &d) != 0) {
        fprintf(stderr, "tune_select: %s\n", d.msg);
        return 1;
    }
    int counts[5] = {0};
    const int shapes[] = {size / 4, size, size / 2, 3 * size / 4, size / 4, 2 * size};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        char problem[96];
        ktune_choice c;
        snprintf(problem, sizeof problem, "M=%d,N=%d,K=%d", shapes[i], shapes[i], shapes[i]);
        if (ktune_select(sel, problem, &c, &d) != 0) {
            fprintf(stderr, "tune_select: %s: %s\n", problem, d.msg);
            ktune_selector_close(sel);
            return 1;
        }
        counts[c.source]++;
        printf("call %zu %s -> %s (%s%s%s)\n", i, problem, c.config, ktune_source_name(c.source),
               c.from[0] ? " " : "", c.from);
    }
    printf("answers: %d from the database, %d from the nearest shape, %d from the "
           "default\n", counts[KTUNE_FROM_DATABASE], counts[KTUNE_FROM_NEAREST],
           counts[KTUNE_FROM_DEFAULT]);
    ktune_selector_close(sel);
    /* The tuned shapes are answered from the database. */
    return counts[KTUNE_FROM_DATABASE] >= 2 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tune_select SPEC DB [BUDGET [SIZE]]\n");
        return 2;
    }
    double budget = argc > 3 ? atof(argv[3]) : 8;
    int size = argc > 4 ? atoi(argv[4]) : 256;
    ktune_spec *spec = NULL;
    ktune_diag d = {{0}};
    if (ktune_spec_load(argv[1], NULL, NULL, &spec, &d) != 0) {
        fprintf(stderr, "tune_select: %s\n", d.msg);
        return 1;
    }
    int rc = 0;
    for (int s = size / 4; s <= size && rc == 0; s *= 2)
        rc = tune_shape(spec, argv[2], s, budget);
    ktune_spec_free(spec);
    if (rc == KTUNE_EBACKEND) {
        printf("skip: no device here runs this kernel\n");
        return 0;
    }
    return rc == 0 ? serve(argv[2], argv[1], size) : 1;
}
