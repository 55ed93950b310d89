/* bench_space.c - how fast the search space checks candidate configurations.
 *
 * Counts the valid configurations of synthetic spaces (written as T1 specs
 * into /tmp) and of the shipped CPU SGEMM spec, and prints, per space: the
 * Cartesian size, the tree nodes visited (partial assignments checked),
 * condition evaluations, the time, and nodes per second.  Single-threaded.
 *
 *   make bench        (or: build/bench/bench_space)
 */
#include "core/space.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    uint64_t count = 0;
    for (int rep = 0; rep < 5; rep++) {
        kt_space_stats s = {0};
        double t0 = kt_now();
        kt_space_count(space, &count, &s);
        double dt = kt_now() - t0;
        if (dt < best) {
            best = dt;
            st = s;
        }
    }
    printf("%-34s cartesian %12llu  valid %10llu  nodes %12llu  evals %12llu  "
           "%9.3f ms  %7.1f M nodes/s  %7.1f M evals/s\n",
           label, (unsigned long long)kt_space_cartesian(space),
           (unsigned long long)count, (unsigned long long)st.nodes,
           (unsigned long long)st.evals, best * 1e3, (double)st.nodes / best / 1e6,
           (double)st.evals / best / 1e6);
    kt_space_free(space);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
}

#define P(n) "{\"Name\": \"" n "\", \"Type\": \"int\", \"Values\": \"[1, 2, 4, 8, 16, 32, 64, 128]\"}"
#define C(e) "{\"Parameters\": [], \"Expression\": \"" e "\"}"

int main(void)
{
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
    return 0;
}
