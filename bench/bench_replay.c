/* bench_replay.c - what one replay from a recording file costs, load
 * included (the goal: under 20 ms on 20,000 configurations).
 *
 *   build/bench/bench_replay [--runs N] [--budget B] [--cache DIR] FILE...
 *
 * For each FILE (a ktune database, a Kernel Tuner cache or a T4 file, as
 * `ktune tune --replay FILE` takes), N times: open the recording, run the
 * default strategy with budget B (seed = run), free it.  Prints the median
 * milliseconds of the load (and, for JSON, of json-c's parse of the whole
 * file into a tree, for comparison), of the run and of both, the fastest
 * of both, the least processor time of both (the figure least disturbed
 * by other work on a shared machine), and the processor time of the first
 * run.
 * With --cache DIR, JSON files are kept in DIR as `ktune tune --replay
 * FILE --cache DIR` keeps them (store/recording_cache.h): from an empty
 * DIR, the first run parses the file and keeps it, the others read it
 * back.
 */
#include "core/util.h"
#include "store/json_file.h"
#include "store/recording.h"
#include "tune/tuner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds of processor time this thread has used. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

/* One load and run; false (with the message printed) on an error. */
static bool once(const char *path, const kt_recording_opts *ro, int seed, double budget,
                 double *load, double *run, double *cpu, uint64_t *size)
{
    kt_diag d = {{0}};
    kt_recording *r = NULL;
    double c0 = cpu_now(), t0 = kt_now();
    int rc = kt_recording_open(path, ro, &r, &d);
    double t1 = kt_now();
    kt_tune_report rep = {0};
    if (rc == KT_OK) {
        kt_tune_opts o = kt_tune_defaults();
        o.replay = kt_recording_replay(r);
        o.seed = (uint64_t)seed;
        o.budget = (kt_budget){KT_BUDGET_COUNT, budget};
        rc = kt_tune(kt_recording_spec(r), &o, &rep, &d);
        *size = rep.space_size;
        kt_tune_report_clear(&rep);
    }
    kt_recording_free(r);
    *load = (t1 - t0) * 1e3;
    *run = (kt_now() - t1) * 1e3;
    *cpu = (cpu_now() - c0) * 1e3;
    if (rc != KT_OK)
        fprintf(stderr, "bench_replay: %s\n", d.msg);
    return rc == KT_OK;
}

/* json-c's parse of the file alone, ms; 0 for a database. */
static double parse_ms(const char *path)
{
    json_object *root = NULL;
    double t0 = kt_now();
    if (kt_json_file_load(path, "JSON", true, &root, NULL) != KT_OK)
        return 0;
    double ms = (kt_now() - t0) * 1e3;
    json_object_put(root);
    return ms;
}

int main(int argc, char **argv)
{
    int runs = 11, i = 1;
    double budget = 100;
    kt_recording_opts ro = {0};
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2)
        if (strcmp(argv[i], "--runs") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--budget") == 0)
            budget = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--cache") == 0)
            ro.cache_dir = argv[i + 1];
    if (i >= argc || runs < 1) {
        fprintf(stderr, "usage: bench_replay [--runs N] [--budget B] [--cache DIR] "
                "FILE...\n");
        return 2;
    }
    printf("%-32s %8s %9s %9s %9s %9s %9s %9s %9s\n", "file", "configs", "parse ms",
           "load ms", "run ms", "total ms", "min ms", "cpu ms", "1st cpu");
    for (; i < argc; i++) {
        double *load = malloc((size_t)runs * sizeof *load);
        double *run = malloc((size_t)runs * sizeof *run);
        double *total = malloc((size_t)runs * sizeof *total);
        double *cpu = malloc((size_t)runs * sizeof *cpu);
        uint64_t size = 0;
        bool ok = load && run && total && cpu;
        for (int k = 0; ok && k < runs; k++) {
            ok = once(argv[i], &ro, k + 1, budget, &load[k], &run[k], &cpu[k], &size);
            total[k] = ok ? load[k] + run[k] : 0;
        }
        if (ok) {
            double first = cpu[0];
            double mid = median(total, runs); /* sorts total: total[0] is the least */
            median(cpu, runs);
            printf("%-32s %8llu %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n", argv[i],
                   (unsigned long long)size, parse_ms(argv[i]), median(load, runs),
                   median(run, runs), mid, total[0], cpu[0], first);
        }
        free(load);
        free(run);
        free(total);
        free(cpu);
        if (!ok)
            return 1;
    }
    return 0;
}
