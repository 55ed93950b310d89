/* online_gemm.c - online tuning of the CPU SGEMM from an empty database.
 *
 * The application calls its GEMM through ktune_online_run: ktune compiles
 * candidate configurations in the background, verifies each once in its
 * isolated worker, and explores within the bounds given while the
 * application's own calls run.  This program makes a stream of calls of
 * one shape, then a few of other shapes, checks a sample of its results
 * against a plain loop of its own, and reports what the exploration cost
 * against the winner's stream alone (or, given AGAINST, against the
 * offline optimum in alternating blocks).
 *
 *   online_gemm SPEC DB [CALLS [SIZE [wait|nowait [AGAINST [BLOCK]]]]]
 *     SPEC    kernels/gemm/gemm-c.json (installed under share/ktune/)
 *     DB      the results database (created; online rows go there)
 *     CALLS   calls of the main shape (2000), SIZE its M = N = K (256)
 *     wait    compile and verify every candidate of a shape at its first
 *             call (ktune_online_wait) instead of while the calls go on:
 *             for short streams of small shapes, which end before the
 *             background compiler does
 *     AGAINST a configuration key, the offline optimum (`ktune db best`
 *             after `ktune tune` at this shape): then blocks of BLOCK (50)
 *             calls served by it alone alternate with blocks of the online
 *             stream, which goes on where it stopped, in one process, and
 *             each pair is compared (paired() says how); no other shapes
 *
 * Built against an installed ktune with `pkg-config --cflags --libs ktune`
 * alone (examples/Makefile).
 */
#include <ktune.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The application's own data for one shape. */
typedef struct shape {
    int m, n, k;
    float *a, *b, *c;
    void *pa, *pb, *pc;
    void *args[6];          /* as the spec's Arguments: M, N, K, A, B, C */
    ktune_problem *problem;
} shape;

static int shape_init(shape *s, const ktune_spec *spec, int m, int n, int k)
{
    char text[96];
    ktune_diag d = {{0}};
    *s = (shape){.m = m, .n = n, .k = k};
    s->a = malloc(sizeof(float) * (size_t)m * k);
    s->b = malloc(sizeof(float) * (size_t)k * n);
    s->c = malloc(sizeof(float) * (size_t)m * n);
    if (!s->a || !s->b || !s->c)
        return KTUNE_ENOMEM;
    for (size_t i = 0; i < (size_t)m * k; i++)
        s->a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (size_t i = 0; i < (size_t)k * n; i++)
        s->b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    s->pa = s->a, s->pb = s->b, s->pc = s->c;
    void *args[6] = {&s->m, &s->n, &s->k, &s->pa, &s->pb, &s->pc};
    memcpy(s->args, args, sizeof args);
    snprintf(text, sizeof text, "M=%d,N=%d,K=%d", m, n, k);
    int rc = ktune_problem_parse(spec, text, 0, &s->problem, &d);
    if (rc != 0)
        fprintf(stderr, "online_gemm: %s\n", d.msg);
    return rc;
}

static void shape_clear(shape *s)
{
    ktune_problem_free(s->problem);
    free(s->a);
    free(s->b);
    free(s->c);
}

/* The application checks a few of its results itself: C = A B, row-major. */
static int check_row(const shape *s, int row)
{
    for (int j = 0; j < s->n; j++) {
        double want = 0;
        for (int p = 0; p < s->k; p++)
            want += (double)s->a[(size_t)row * s->k + p] * s->b[(size_t)p * s->n + j];
        if (fabs(want - s->c[(size_t)row * s->n + j]) > 1e-3 * (1 + fabs(want)))
            return -1;
    }
    return 0;
}

/* Where a stream stands between its blocks of calls. */
typedef struct trace {
    int done;               /* calls made */
    double ms;              /* their time */
    char serving[256];      /* the configuration serving lately */
    bool on;                /* print a line when another starts serving */
    double *times;          /* NULL, or each call's time by its number */
} trace;

/* calls more calls of shape s through on, continuing t; their time into
 * *ms.  With wait, the compilation is paid up front at the first call. */
static int stream(ktune_online *on, shape *s, int calls, trace *t, bool wait, double *ms)
{
    ktune_diag d = {{0}};
    ktune_online_call call;
    *ms = 0;
    for (int k = 0; k < calls; k++, t->done++) {
        int rc = ktune_online_run(on, s->problem, s->args, &call, &d);
        if (rc != 0) {
            fprintf(stderr, "online_gemm: call %d: %s\n", t->done, d.msg);
            return rc;
        }
        *ms += call.time_ms;
        t->ms += call.time_ms;
        if (t->times)
            t->times[t->done] = call.time_ms;
        if (t->on && !call.explored && strcmp(t->serving, call.config) != 0) {
            snprintf(t->serving, sizeof t->serving, "%s", call.config);
            printf("  call %d (%.0f ms in): serving %s, %.3f ms\n", t->done, t->ms,
                   t->serving, call.time_ms);
        }
        if (t->done == 0 && wait)
            ktune_online_wait(on);
        if (t->done % 97 == 0 && check_row(s, t->done % s->m) != 0) {
            fprintf(stderr, "online_gemm: wrong result from %s\n", call.config);
            return 1;
        }
    }
    return 0;
}

static void report(ktune_online *on, const shape *s, int calls)
{
    ktune_online_state st;
    ktune_diag d = {{0}};
    if (ktune_online_report(on, s->problem, &st, &d) != 0) {
        fprintf(stderr, "online_gemm: %s\n", d.msg);
        return;
    }
    printf("%s: %d calls, %llu exploring; %zu candidates, %zu failed, %s\n",
           ktune_problem_key(s->problem), calls, (unsigned long long)st.explored,
           st.candidates, st.failed, st.converged ? "converged" : "still exploring");
    printf("  serving %s at %.3f ms (median); exploring cost %.2f ms of %.2f ms\n",
           st.best, st.best_ms, st.extra_ms, st.time_ms);
}

/* A handle on db with policy.  With policy "none", one candidate only:
 * db's best, else the configuration fixed (trusted: not verified again). */
static ktune_online *handle_open(const ktune_spec *spec, const char *db,
                                 const char *policy, const char *fixed)
{
    ktune_online_opts o;
    ktune_online_opts_init(&o);
    o.db_path = db;
    o.policy = policy;
    o.explore_share = 0.25;    /* at most a quarter of the calls explore */
    o.explore_overhead = 0.1;  /* costing at most a tenth more time */
    o.candidates = 8;          /* and the winners' neighbours after them */
    if (strcmp(policy, "none") == 0)
        o.candidates = 1;      /* nothing compiles beside the stream */
    if (fixed) {
        o.seeds = &fixed;
        o.nseeds = 1;
        o.verify = KTUNE_ONLINE_VERIFY_NONE;
        o.cache_dir = ".ktune-cache-fixed"; /* the online handle's stays cold */
    }
    ktune_online *on = NULL;
    ktune_diag d = {{0}};
    if (ktune_online_open(spec, &o, &on, &d) != 0)
        fprintf(stderr, "online_gemm: %s\n", d.msg);
    return on;
}

/* One handle on db with policy, serving calls calls of shapes[0] (then a
 * quarter as many of each other shape); the main shape's whole time and
 * its last calls' time. */
static int session(const ktune_spec *spec, const char *db, const char *policy,
                   const char *fixed, shape *shapes, int nshapes, int calls, bool wait,
                   double *total, double *last)
{
    ktune_online *on = handle_open(spec, db, policy, fixed);
    if (!on)
        return 1;
    trace t = {.on = strcmp(policy, "none") != 0};
    double first;
    int rc = stream(on, &shapes[0], calls - calls / 4, &t, wait, &first);
    if (rc == 0)
        rc = stream(on, &shapes[0], calls / 4, &t, wait, last);
    *total = t.ms;
    if (rc == 0 && strcmp(policy, "none") != 0)
        report(on, &shapes[0], calls);
    /* Other shapes: each is a problem of its own, tuned the same way. */
    for (int i = 1; i < nshapes && rc == 0; i++) {
        trace ti = {.on = false};
        double l;
        rc = stream(on, &shapes[i], calls / 4, &ti, wait, &l);
        if (rc == 0)
            report(on, &shapes[i], calls / 4);
    }
    ktune_online_close(on);  /* stores what was not stored yet */
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The online stream's calls from..calls-1 against the optimum's: each
 * call's time against its pair's optimum block's mean (pair[c] is call
 * c's pair, opt[i] pair i's optimum mean per call); the ratio of the sums,
 * and the spread of the pairs' own ratios (median, least, most; their mean
 * with twice its standard error). */
static void pairs_summary(const char *what, const double *times, const int *pair,
                          const double *opt, int from, int calls)
{
    int k = 0, n = pair[calls - 1] + 1;
    double son = 0, sopt = 0, mean = 0, var = 0, *r = calloc((size_t)n, sizeof *r),
           *pon = calloc((size_t)n, sizeof *pon), *popt = calloc((size_t)n, sizeof *popt);
    for (int c = from; c < calls && r && pon && popt; c++) {
        son += times[c], sopt += opt[pair[c]];
        pon[pair[c]] += times[c], popt[pair[c]] += opt[pair[c]];
    }
    for (int i = 0; i < n && r && pon && popt; i++)
        if (popt[i] > 0)
            r[k++] = pon[i] / popt[i];
    for (int i = 0; i < k; i++)
        mean += r[i] / k;
    for (int i = 0; i < k; i++)
        var += (r[i] - mean) * (r[i] - mean) / (k > 1 ? k - 1 : 1);
    qsort(r, (size_t)k, sizeof *r, cmp_double);
    if (k > 0)
        printf("%s (%d): online %.1f ms / optimum %.1f ms = %.3fx; %d pairs' ratios: "
               "median %.3f, least %.3f, most %.3f, mean %.3f +- %.3f (2 SE)\n", what,
               calls - from, son, sopt, son / sopt, k, r[k / 2], r[0], r[k - 1], mean,
               2 * sqrt(var / k));
    free(r);
    free(pon);
    free(popt);
}

/* Online calls of pair i: block calls, then more while the background
 * thread still works (as the stream would have gone on: its compilation
 * overlaps its own calls only), until it is idle and held or the stream
 * ends.  At the end the stream waits for it: nothing else is timed then. */
static int online_part(ktune_online *on, shape *s, int block, int calls, trace *t,
                       bool wait)
{
    double ms;
    int n = block < calls - t->done ? block : calls - t->done, rc = 0;
    if (n > 0)
        rc = stream(on, s, n, t, wait, &ms);
    while (rc == 0 && t->done < calls && !ktune_online_hold(on, false))
        rc = stream(on, s, 1, t, wait, &ms);
    ktune_online_hold(on, true);
    return rc;
}

/* Where the paired measurement's pairs stand. */
typedef struct pairs {
    double *times;   /* each online call's time */
    int *pair;       /* each online call's pair */
    double *opt;     /* each pair's optimum mean per call */
    int n;           /* pairs */
} pairs;

/* Every pair's online calls and optimum block, in the order AB BA AB ... */
static int run_pairs(ktune_online *on, ktune_online *opt, shape *s, int calls,
                     int block, bool wait, pairs *p)
{
    trace t_on = {.on = true, .times = p->times}, t_opt = {.on = false};
    int rc = 0;
    for (p->n = 0; t_on.done < calls && rc == 0; p->n++) {
        int first = t_on.done;
        double ms = 0;
        for (int half = 0; half < 2 && rc == 0; half++) {
            if ((half == 0) == (p->n % 2 == 0))
                rc = stream(opt, s, block, &t_opt, false, &ms);
            else
                rc = online_part(on, s, block, calls, &t_on, wait);
        }
        p->opt[p->n] = ms / block;
        for (int c = first; c < t_on.done; c++)
            p->pair[c] = p->n;
    }
    return rc;
}

/* The paired measurement: blocks of block calls of the offline optimum
 * alone (its own handle, policy "none", nothing to compile after its
 * first call) alternate with parts of the online stream (its handle going
 * on where it stopped), so that the machine's drift falls on both alike.
 * Before each optimum block the online handle's background thread is
 * held between two jobs (ktune_online_hold): the optimum is timed with no
 * compiler of ours running, and the online stream's compilation overlaps
 * its own calls only, as if the optimum's blocks were not there.  Both
 * handles open before the first call, so their background threads start
 * before any kernel loads. */
static int paired(const ktune_spec *spec, const char *db, const char *against,
                  shape *s, int calls, int block, bool wait)
{
    ktune_online *opt = handle_open(spec, NULL, "none", against);
    ktune_online *on = opt ? handle_open(spec, db, "halving", NULL) : NULL;
    pairs p = {.times = calloc((size_t)calls, sizeof(double)),
               .pair = calloc((size_t)calls, sizeof(int)),
               .opt = calloc((size_t)calls, sizeof(double))};
    int rc = !on ? 1 : !p.times || !p.pair || !p.opt ? KTUNE_ENOMEM : 0;
    if (rc == 0)
        rc = run_pairs(on, opt, s, calls, block, wait, &p);
    if (rc == 0) {
        report(on, s, calls);
        printf("pairs (online calls: ms per call, optimum's %d: ms per call, ratio):",
               block);
        for (int i = 0, c = 0; i < p.n; i++) {
            double sum = 0;
            int n = 0;
            for (; c < calls && p.pair[c] == i; c++, n++)
                sum += p.times[c];
            printf("%s%d: %.3f %.3f %.3f", i % 5 ? "; " : "\n  ", n, sum / n, p.opt[i],
                   sum / n / p.opt[i]);
        }
        printf("\n");
        pairs_summary("all calls", p.times, p.pair, p.opt, 0, calls);
        pairs_summary("last calls", p.times, p.pair, p.opt, calls - calls / 4, calls);
    }
    free(p.times);
    free(p.pair);
    free(p.opt);
    ktune_online_close(on);
    ktune_online_close(opt);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: online_gemm SPEC DB [CALLS [SIZE [wait|nowait "
                        "[AGAINST [BLOCK]]]]]\n");
        return 2;
    }
    int calls = argc > 3 ? atoi(argv[3]) : 2000, size = argc > 4 ? atoi(argv[4]) : 256;
    bool wait = argc > 5 && strcmp(argv[5], "wait") == 0;
    const char *against = argc > 6 ? argv[6] : NULL;
    int block = argc > 7 ? atoi(argv[7]) : 50;
    if (calls < 1 || size < 2 || block < 1 || block > calls) {
        fprintf(stderr, "online_gemm: CALLS, SIZE or BLOCK out of range\n");
        return 2;
    }
    ktune_diag d = {{0}};
    ktune_spec *spec = NULL;
    if (ktune_spec_load(argv[1], NULL, NULL, &spec, &d) != 0) {
        fprintf(stderr, "online_gemm: %s\n", d.msg);
        return 1;
    }
    shape shapes[3] = {{0}};
    int rc = shape_init(&shapes[0], spec, size, size, size);
    for (int i = 1; i < 3 && rc == 0; i++)
        rc = shape_init(&shapes[i], spec, size / 2 * i, size, size / 2);
    if (rc == 0 && against) {
        rc = paired(spec, argv[2], against, &shapes[0], calls, block, wait);
    } else if (rc == 0) {
        /* Online tuning from the database as it is (empty the first
         * time), then the same stream served by the winner alone ("none":
         * the database's best serves every call), for the comparison. */
        double online = 0, online_last = 0, fixed = 0, fixed_last = 0;
        rc = session(spec, argv[2], "halving", NULL, shapes, 3, calls, wait, &online,
                     &online_last);
        if (rc == 0)
            rc = session(spec, argv[2], "none", NULL, shapes, 1, calls, false, &fixed,
                         &fixed_last);
        if (rc == 0)
            printf("online stream %.1f ms = %.3fx the winner's alone (%.1f ms); last "
                   "%d calls %.3fx\n", online, online / fixed, fixed, calls / 4,
                   online_last / fixed_last);
    }
    for (int i = 0; i < 3; i++)
        shape_clear(&shapes[i]);
    ktune_spec_free(spec);
    return rc == 0 ? 0 : 1;
}
