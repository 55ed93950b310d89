/* bench_space.c - how fast the search space checks candidate configurations.
 *
 * Counts the valid configurations of synthetic spaces (written as T1 specs
 * into /tmp, removed after) and of the shipped CPU SGEMM spec, and prints,
 * per space: the Cartesian size, the tree nodes visited (partial
 * assignments checked), condition evaluations, the time, and nodes per
 * second.  Single-threaded.  The large spaces show what counting by groups
 * of linked parameters buys (2^70 and 10^20 configurations), and how long
 * the default bound on condition evaluations takes to stop a search that
 * nothing splits.
 *
 *   make bench        (or: build/bench/bench_space)
 */
#include "core/space.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The specs written under /tmp, removed at exit. */
static void remove_specs(void)
{
    static const char *const NAMES[] = {"late", "late3", "staged", "bin70", "linked",
                                        "empty", "unsplit"};
    char path[256];
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++) {
        snprintf(path, sizeof path, "/tmp/ktune-bench-%s.json", NAMES[i]);
        remove(path);
    }
}

static const char *write_spec(const char *name, const char *params, const char *conds)
{
    static char path[256];
    char kernel[4096];
    if (!realpath("tests/kernels/faulty.c", kernel)) {
        fprintf(stderr, "run from the repository root\n");
        exit(1);
    }
    snprintf(path, sizeof path, "/tmp/ktune-bench-%s.json", name);
    FILE *f = fopen(path, "w");
    if (!f)
        exit(1);
    fprintf(f,
            "{\"ConfigurationSpace\": {\"TuningParameters\": [%s], \"Conditions\": [%s],"
            " \"ProblemParameters\": [{\"Name\": \"N\", \"Default\": 4096}]},"
            " \"KernelSpecification\": {\"Language\": \"C\", \"KernelName\": \"scale\","
            " \"KernelFile\": \"%s\", \"Arguments\": []}}",
            params, conds, kernel);
    fclose(f);
    return path;
}

static void run(const char *label, const char *path, const char *problem)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *space;
    kt_diag d = {{0}};
    if (kt_spec_load(path, NULL, NULL, &spec, &d) != KT_OK ||
        kt_problem_parse(spec, problem, &prob, &d) != KT_OK ||
        kt_space_new(spec, &prob, &space, &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    double best = 1e30;
    kt_space_stats st = {0};
    char *count = NULL;
    int rc = KT_OK;
    for (int rep = 0; rep < 5 && rc == KT_OK; rep++) { /* a bound hit: once */
        kt_space_stats s = {0};
        free(count);
        double t0 = kt_now();
        rc = kt_space_count_text(space, &count, &s);
        double dt = kt_now() - t0;
        if (dt < best) {
            best = dt;
            st = s;
        }
    }
    double cartesian = 1;
    for (size_t i = 0; i < spec->nparams; i++)
        cartesian *= spec->params[i].nvalues;
    printf("%-34s cartesian %9.3g  valid %22s  nodes %10llu  evals %10llu  "
           "%9.3f ms  %7.1f M nodes/s  %7.1f M evals/s\n",
           label, cartesian, rc == KT_OK ? count : "(bound)",
           (unsigned long long)st.nodes, (unsigned long long)st.evals, best * 1e3,
           (double)st.nodes / best / 1e6, (double)st.evals / best / 1e6);
    free(count);
    kt_space_free(space);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
}

#define P(n) "{\"Name\": \"" n "\", \"Type\": \"int\", \"Values\": \"[1, 2, 4, 8, 16, 32, 64, 128]\"}"
#define C(e) "{\"Parameters\": [], \"Expression\": \"" e "\"}"

/* n parameters P0.. with the given values, as TuningParameters text. */
static const char *many_params(size_t n, const char *values)
{
    static char buf[16384];
    size_t at = 0;
    for (size_t i = 0; i < n; i++)
        at += (size_t)snprintf(buf + at, sizeof buf - at,
                               "%s{\"Name\": \"P%zu\", \"Type\": \"int\", \"Values\": \"%s\"}",
                               i ? ", " : "", i, values);
    return buf;
}

/* "[0, 1, ..., n-1]" */
static const char *range_values(int n)
{
    static char buf[1024];
    size_t at = (size_t)snprintf(buf, sizeof buf, "[0");
    for (int v = 1; v < n; v++)
        at += (size_t)snprintf(buf + at, sizeof buf - at, ", %d", v);
    snprintf(buf + at, sizeof buf - at, "]");
    return buf;
}

/* Spaces that searching the whole tree never finished (issue 10). */
static void run_large(void)
{
    run("70 binary params, no condition", write_spec("bin70", many_params(70, "[0, 1]"), ""),
        NULL);
    char v100[1024];
    snprintf(v100, sizeof v100, "%s", range_values(100));
    run("10 x 100 values, 3 pair conditions",
        write_spec("linked", many_params(10, v100),
                   C("P0 * P1 <= N") "," C("P2 % (P3 + 1) == 0") "," C("P9 < P4")),
        NULL);
    char v10[64];
    snprintf(v10, sizeof v10, "%s", range_values(10));
    run("20 x 10 values, an empty pair", write_spec("empty", many_params(20, v10),
                                                    C("P0 + P19 > 100")), NULL);
    run("20 x 10 values, unsplit, empty",
        write_spec("unsplit", many_params(20, v10),
                   C("P0 + P1 + P2 + P3 + P4 + P5 + P6 + P7 + P8 + P9 + P10 + P11 + "
                     "P12 + P13 + P14 + P15 + P16 + P17 + P18 + P19 > 1000")),
        NULL);
}

int main(void)
{
    atexit(remove_specs);
    const char *params8 = P("A") "," P("B") "," P("C") "," P("D") "," P("E") ","
                          P("F") "," P("G") "," P("H");
    /* Every condition reads the last parameter: no pruning at all, so
     * nodes/s is the raw rate of checking candidate tuples. */
    run("8 params, 1 late condition",
        write_spec("late", params8, C("A * H <= 256 or B == C")), NULL);
    run("8 params, 3 late conditions",
        write_spec("late3", params8,
                   C("(A * B) % H != 3") "," C("C * D * H <= N") "," C("E // H <= G + F")),
        NULL);
    /* Conditions spread over the levels prune whole subtrees. */
    run("8 params, 6 staged conditions",
        write_spec("staged", params8,
                   C("A * B <= 256") "," C("C % A == 0 or C == 1") "," C("D * C <= 512") ","
                   C("E <= D * 4") "," C("F * G <= N") "," C("H >= A")),
        NULL);
    run("shipped CPU SGEMM, 1024^3", "kernels/gemm/gemm-c.json", "M=1024,N=1024,K=1024");
    run("shipped CPU SGEMM, 256^3", "kernels/gemm/gemm-c.json", "M=256,N=256,K=256");
    run_large();
    return 0;
}
