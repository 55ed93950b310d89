/* bench_select.c - how fast runtime selection answers (ktune_select_values).
 *
 * 1. A database of 100,000 tuned problems of the CPU SGEMM (one stored
 *    configuration each; M, N, K from 47 sizes 16..4096): nanoseconds per
 *    hit lookup, as the median over batches of 100 lookups of random
 *    stored problems, on 1 and on 2 threads (random problems of a large
 *    index: each lookup misses the caches; 1,000 of them stay in cache);
 *    microseconds per nearest answer (the linear scan), first and cached.
 * 2. A model ("tree", and "knn" with k = 5) trained on 2,000 of those
 *    problems: microseconds per model answer for an untuned shape (the
 *    constrained beam search, width 4), first and cached.
 * 3. The MIOpen import of data/miopen (148,096 rows; the largest solver,
 *    ConvMlirIgemmFwd, holds 27,518 problems of 24 parameters, three of
 *    them text): the time to open a selector on it, to refresh after one
 *    new row, and hit lookups there (1 and 2 threads).
 * Files go under a temporary folder, removed at the end.
 *
 *   make bench   (or: build/bench/bench_select, from the repository root)
 */
#include "ktune.h"
#include "core/spec.h"
#include "core/util.h"
#include "ml/model.h"
#include "store/db.h"
#include "store/miopen.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPEC "kernels/gemm/gemm-c.json"
#define DEVICE "bench-cpu"
#define NPROBLEMS 100000
#define BATCH 100
#define BATCHES 20000

static const char *const CONFIGS[] = {
    "MR=4,NR=16,VEC=8,MC=48,KC=128,NC=768,UNROLL=1,THREADS=2",
    "MR=6,NR=16,VEC=8,MC=96,KC=256,NC=768,UNROLL=4,THREADS=2",
    "MR=4,NR=16,VEC=8,MC=96,KC=128,NC=768,UNROLL=4,THREADS=1",
    "MR=8,NR=32,VEC=16,MC=192,KC=128,NC=1536,UNROLL=1,THREADS=2",
};

static char tmpdir[] = "/tmp/ktune-bench-select-XXXXXX";

static void die(const char *what, const kt_diag *d)
{
    fprintf(stderr, "bench_select: %s: %s\n", what, d ? d->msg : "");
    exit(1);
}

static const char *tmp(const char *name)
{
    static char buf[4][512];
    static unsigned next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
    return p;
}

static void cleanup(void)
{
    static const char *const FILES[] = {"big.db", "small.db", "miopen.db"};
    char path[600];
    for (size_t i = 0; i < KT_ARRAY_LEN(FILES); i++) {
        static const char *const EXT[] = {"", "-wal", "-shm", "-journal"};
        for (size_t e = 0; e < KT_ARRAY_LEN(EXT); e++) {
            snprintf(path, sizeof path, "%s%s", tmp(FILES[i]), EXT[e]);
            remove(path);
        }
    }
    remove(tmp("tree.ktm"));
    remove(tmp("knn.ktm"));
    rmdir(tmpdir);
}

static double now_s(void) { return kt_now(); }

/* Problem i of the grid: 47 sizes per dimension, 16 * 2^(j/6). */
static void problem_of(size_t i, int64_t v[3])
{
    for (int d = 0; d < 3; d++, i /= 47)
        v[d] = (int64_t)(16.0 * pow(2.0, (double)(i % 47) / 6.0));
}

/* A database of the first n grid problems, one configuration each (a rule
 * of the problem, so that a model has something to learn). */
static void make_db(const char *path, size_t n, size_t stride)
{
    kt_diag d = {{0}};
    kt_db *db = NULL;
    kt_spec *spec = NULL;
    if (kt_spec_load(SPEC, NULL, NULL, &spec, &d) || kt_db_open(path, &db, &d))
        die("setup", &d);
    kt_device_info dev = {.name = DEVICE, .backend = "cpu", .fingerprint = "bench|cpu"};
    int64_t device, kernel, prob;
    if (kt_db_device(db, &dev, &device, &d) ||
        kt_db_kernel(db, spec->name, spec->source_hash, &kernel, &d) || kt_db_begin(db, &d))
        die("setup", &d);
    for (size_t i = 0; i < n; i++) {
        int64_t v[3];
        problem_of(i * stride, v);
        char key[96];
        snprintf(key, sizeof key, "M=%lld,N=%lld,K=%lld", (long long)v[0],
                 (long long)v[1], (long long)v[2]);
        size_t c = (size_t)((v[0] > 256) + 2 * (v[2] > 512));
        kt_result r = {.status = KT_STATUS_OK, .time_ms = 1e-6 * (double)(v[0] * v[1] * v[2]),
                       .reps = 10};
        if (kt_db_problem(db, kernel, key, &prob, &d) ||
            kt_db_record(db, device, kernel, prob, CONFIGS[c], &r, &d))
            die("insert", &d);
    }
    if (kt_db_commit(db, &d))
        die("commit", &d);
    kt_db_close(db);
    kt_spec_free(spec);
}

static ktune_selector *open_sel(const char *db, const char *kernel, const char *device,
                                const char *model, double max_distance)
{
    ktune_selector_opts o;
    ktune_selector_opts_init(&o);
    o.refresh_ms = 0;
    o.max_distance = max_distance;
    o.cache_size = 1 << 16;
    ktune_selector *sel = NULL;
    kt_diag d = {{0}};
    if (ktune_selector_open(db, kernel, device, model, &o, &sel, &d))
        die("open", &d);
    return sel;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------- hits */

typedef struct hit_job {
    ktune_selector *sel;
    const int64_t *problems;  /* n x np */
    size_t n, np;
    unsigned seed;
    double median_ns;
    int bad;
} hit_job;

static void *hit_loop(void *arg)
{
    hit_job *j = arg;
    double *ns = malloc(BATCHES * sizeof *ns);
    int64_t *batch = malloc(BATCH * j->np * sizeof *batch);
    ktune_choice c;
    uint64_t x = j->seed * 0x9e3779b97f4a7c15u + 1;
    for (size_t b = 0; ns && batch && b < BATCHES; b++) {
        /* the batch's problems side by side, as an application has its
         * problem at hand: the timing is the index's misses alone */
        for (size_t i = 0; i < BATCH; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            memcpy(batch + i * j->np, j->problems + (x % j->n) * j->np,
                   j->np * sizeof *batch);
        }
        double t = now_s();
        for (size_t i = 0; i < BATCH; i++)
            if (ktune_select_values(j->sel, batch + i * j->np, j->np, &c, NULL) ||
                c.source != KTUNE_FROM_DATABASE)
                j->bad++;
        ns[b] = (now_s() - t) * 1e9 / BATCH;
    }
    if (ns && batch) {
        qsort(ns, BATCHES, sizeof *ns, by_value);
        j->median_ns = ns[BATCHES / 2];
    }
    free(batch);
    free(ns);
    return NULL;
}

static void hits(const char *label, ktune_selector *sel, const int64_t *problems, size_t n,
                 size_t np, int threads)
{
    hit_job jobs[8];
    pthread_t t[8];
    for (int i = 0; i < threads; i++) {
        jobs[i] = (hit_job){.sel = sel, .problems = problems, .n = n, .np = np,
                            .seed = (unsigned)i + 1};
        pthread_create(&t[i], NULL, hit_loop, &jobs[i]);
    }
    double worst = 0;
    int bad = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        worst = fmax(worst, jobs[i].median_ns);
        bad += jobs[i].bad;
    }
    printf("%-44s %2d thread%s  %8.1f ns per lookup (median of %d batches of %d%s)\n",
           label, threads, threads > 1 ? "s" : " ", worst, BATCHES, BATCH,
           threads > 1 ? ", slowest thread" : "");
    if (bad)
        printf("  %d lookups failed\n", bad);
}

/* ----------------------------------------------------------- misses */

/* Microseconds per answer for n problems (first), then the same again
 * (cached), each call timed: the median, so that the other processes of a
 * shared machine count less; expect says where they should come from. */
static void misses(const char *label, ktune_selector *sel, size_t n, ktune_source expect)
{
    double med[2], *us = malloc(n * sizeof *us);
    int bad = 0;
    for (int pass = 0; us && pass < 2; pass++) {
        ktune_choice c;
        kt_diag d = {{0}};
        for (size_t i = 0; i < n; i++) {
            /* between the grid's sizes: tuned nowhere */
            int64_t v[3] = {(int64_t)(20 + 7 * i), (int64_t)(21 + 5 * i), (int64_t)(23 + 3 * i)};
            double t = now_s();
            if (ktune_select_values(sel, v, 3, &c, &d) || c.source != expect)
                bad++;
            us[i] = (now_s() - t) * 1e6;
        }
        qsort(us, n, sizeof *us, by_value);
        med[pass] = us[n / 2];
    }
    if (us)
        printf("%-44s %8.1f us first, %6.3f us cached (median of %zu shapes)\n", label,
               med[0], med[1], n);
    if (bad)
        printf("  %d answers not from the %s\n", bad, ktune_source_name(expect));
    free(us);
}

static void train(const char *db_path, const char *method, const char *out)
{
    kt_diag d = {{0}};
    kt_db *db = NULL;
    kt_dataset *ds = NULL;
    kt_model *m = NULL;
    kt_train_opts o = {.method = method, .k = 5, .seed = 1};
    if (kt_db_open(db_path, &db, &d) || kt_dataset_load(db, "gemm", NULL, &ds, &d) ||
        kt_model_train(ds, &o, &m, &d) || kt_model_save(m, out, &d))
        die("train", &d);
    kt_model_free(m);
    kt_dataset_free(ds);
    kt_db_close(db);
}

/* ----------------------------------------------------------- MIOpen */

/* Every stored problem of the solver, as the selector's values. */
typedef struct collect {
    ktune_selector *sel;
    int64_t *values;
    size_t n, cap, np;
} collect;

static int add_problem(void *user, const kt_db_row *row)
{
    collect *c = user;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        if (!(c->values = realloc(c->values, c->cap * c->np * sizeof *c->values)))
            return 1;
    }
    kt_diag d = {{0}};
    if (ktune_selector_problem(c->sel, row->problem, c->values + c->n * c->np, c->np, &d))
        die("parse", &d);
    c->n++;
    return 0;
}

static void miopen(void)
{
    kt_diag d = {{0}};
    kt_db *db = NULL;
    kt_import_stats stats = {0};
    if (kt_db_open(tmp("miopen.db"), &db, &d) ||
        kt_miopen_import("data/miopen/gfx906_60.db.bz2", db, NULL, &stats, &d))
        die("import", &d);
    double t = now_s();
    ktune_selector *sel = open_sel(tmp("miopen.db"), "ConvMlirIgemmFwd", "gfx906_60", NULL,
                                   1.0);
    double open_ms = (now_s() - t) * 1e3;
    collect c = {.sel = sel, .np = ktune_selector_nproblem(sel)};
    kt_db_filter f = {.kernel = "ConvMlirIgemmFwd", .device = "gfx906_60"};
    if (kt_db_best_unsorted(db, &f, add_problem, &c, &d) || !c.values)
        die("problems", &d);
    /* one row more, from another connection, then the refresh it causes */
    kt_device_info dev = {.name = "gfx906_60", .backend = "miopen-perfdb",
                          .fingerprint = "gfx906_60"};
    int64_t device, kernel, prob;
    char *problem = NULL, *config = NULL;
    kt_result r = {.status = KT_STATUS_OK, .time_ms = 1e-3, .reps = 1};
    if (kt_db_device(db, &dev, &device, &d) ||
        kt_db_kernel(db, "ConvMlirIgemmFwd", "miopen-perfdb", &kernel, &d) ||
        kt_db_kernel_sample(db, kernel, &problem, &config, &d) || !config ||
        kt_db_problem(db, kernel, "layout=NCHW,data_type=FP32,direction=F,spatial_dim=2,"
                      "in_channels=3,in_h=7,in_w=7,in_d=1,fil_h=1,fil_w=1,fil_d=1,"
                      "out_channels=5,batchsize=1,pad_h=0,pad_w=0,pad_d=0,"
                      "conv_stride_h=1,conv_stride_w=1,conv_stride_d=0,dilation_h=1,"
                      "dilation_w=1,dilation_d=0,bias=0,group_count=1", &prob, &d) ||
        kt_db_record(db, device, kernel, prob, config, &r, &d))
        die("miopen row", &d);
    bool changed = false;
    t = now_s();
    if (ktune_selector_refresh(sel, &changed, &d) || !changed)
        die("refresh", &d);
    double refresh_ms = (now_s() - t) * 1e3;
    printf("MIOpen gfx906 ConvMlirIgemmFwd, %zu problems of %zu parameters: open %.0f ms,"
           " refresh after one new row %.0f ms\n", ktune_selector_size(sel), c.np, open_ms,
           refresh_ms);
    hits("hit, MIOpen ConvMlirIgemmFwd", sel, c.values, c.n, c.np, 1);
    hits("hit, MIOpen ConvMlirIgemmFwd", sel, c.values, c.n, c.np, 2);
    free(c.values);
    free(problem);
    free(config);
    ktune_selector_close(sel);
    kt_db_close(db);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!mkdtemp(tmpdir))
        return 1;
    atexit(cleanup);
    double t = now_s();
    make_db(tmp("big.db"), NPROBLEMS, 1);
    printf("database of %d problems written in %.1f s\n", NPROBLEMS, now_s() - t);
    t = now_s();
    ktune_selector *sel = open_sel(tmp("big.db"), SPEC, DEVICE, NULL, 1.0);
    printf("open (index of %zu problems) %.0f ms\n", ktune_selector_size(sel),
           (now_s() - t) * 1e3);
    int64_t *problems = malloc(NPROBLEMS * 3 * sizeof *problems);
    if (!problems)
        return 1;
    for (size_t i = 0; i < NPROBLEMS; i++)
        problem_of(i, problems + 3 * i);
    hits("hit, 100,000 problems", sel, problems, NPROBLEMS, 3, 1);
    hits("hit, 100,000 problems", sel, problems, NPROBLEMS, 3, 2);
    hits("hit, 1,000 of them (in cache)", sel, problems, 1000, 3, 1);
    misses("nearest (scan of 100,000)", sel, 200, KTUNE_FROM_NEAREST);
    ktune_selector_close(sel);
    free(problems);

    make_db(tmp("small.db"), 2000, 51);
    static const char *const METHODS[] = {"tree", "knn"};
    for (size_t m = 0; m < KT_ARRAY_LEN(METHODS); m++) {
        const char *path = tmp(m ? "knn.ktm" : "tree.ktm");
        train(tmp("small.db"), METHODS[m], path);
        sel = open_sel(tmp("small.db"), SPEC, DEVICE, path, 0.0);
        char label[64];
        snprintf(label, sizeof label, "model miss (%s, beam 4, constrained)", METHODS[m]);
        misses(label, sel, 200, KTUNE_FROM_MODEL);
        ktune_selector_close(sel);
    }
    miopen();
    return 0;
}
