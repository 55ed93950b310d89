/* online_gemm.c - online tuning of the CPU SGEMM from an empty database.
 *
 * The application calls its GEMM through ktune_online_run: ktune compiles
 * candidate configurations in the background, verifies each once in its
 * isolated worker, and explores within the bounds given while the
 * application's own calls run.  This program makes a stream of calls of
 * one shape, then a few of other shapes, checks a sample of its results
 * against a plain loop of its own, and reports what the exploration cost.
 *
 *   online_gemm SPEC DB [CALLS [SIZE [wait|nowait [AGAINST]]]]
 *     SPEC    kernels/gemm/gemm-c.json (installed under share/ktune/)
 *     DB      the results database (created; online rows go there)
 *     CALLS   calls of the main shape (2000), SIZE its M = N = K (256)
 *     wait    compile and verify every candidate of a shape at its first
 *             call (ktune_online_wait) instead of while the calls go on:
 *             for short streams of small shapes, which end before the
 *             background compiler does
 *     AGAINST a configuration key, the offline optimum (`ktune db best`
 *             after `ktune tune` at this shape): the same stream served
 *             by it alone, before and after the online stream, so that
 *             both are measured in one run
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

/* calls calls of shape s; figures about them into the report.  With
 * trace, a line each time another configuration starts serving. */
static int stream(ktune_online *on, shape *s, int calls, double *last_ms, int last,
                  bool wait, bool trace)
{
    ktune_diag d = {{0}};
    ktune_online_call call;
    char serving[256] = "";
    double sum = 0;
    *last_ms = 0;
    for (int i = 0; i < calls; i++) {
        int rc = ktune_online_run(on, s->problem, s->args, &call, &d);
        if (rc != 0) {
            fprintf(stderr, "online_gemm: call %d: %s\n", i, d.msg);
            return rc;
        }
        sum += call.time_ms;
        if (trace && !call.explored && strcmp(serving, call.config) != 0) {
            snprintf(serving, sizeof serving, "%s", call.config);
            printf("  call %d (%.0f ms in): serving %s, %.3f ms\n", i, sum, serving,
                   call.time_ms);
        }
        if (i == 0 && wait)
            ktune_online_wait(on);
        if (i >= calls - last)
            *last_ms += call.time_ms;
        if (i % 97 == 0 && check_row(s, i % s->m) != 0) {
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

/* One handle on db with policy, serving calls calls of shapes[0] (then a
 * quarter as many of each other shape); the main shape's whole time and
 * its last calls' time.  With policy "none", one candidate only: db's
 * best, else the configuration fixed (trusted: not verified again). */
static int session(const ktune_spec *spec, const char *db, const char *policy,
                   const char *fixed, shape *shapes, int nshapes, int calls, bool wait,
                   double *total, double *last)
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
    }
    ktune_online *on = NULL;
    ktune_diag d = {{0}};
    if (ktune_online_open(spec, &o, &on, &d) != 0) {
        fprintf(stderr, "online_gemm: %s\n", d.msg);
        return 1;
    }
    int rc = stream(on, &shapes[0], calls, last, calls / 4, wait,
                    strcmp(policy, "none") != 0);
    ktune_online_state st;
    if (rc == 0 && ktune_online_report(on, shapes[0].problem, &st, &d) == 0)
        *total = st.time_ms;
    if (rc == 0 && strcmp(policy, "none") != 0)
        report(on, &shapes[0], calls);
    /* Other shapes: each is a problem of its own, tuned the same way. */
    for (int i = 1; i < nshapes && rc == 0; i++) {
        double l;
        rc = stream(on, &shapes[i], calls / 4, &l, 1, wait, false);
        if (rc == 0)
            report(on, &shapes[i], calls / 4);
    }
    ktune_online_close(on);  /* stores what was not stored yet */
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: online_gemm SPEC DB [CALLS [SIZE [wait]]]\n");
        return 2;
    }
    int calls = argc > 3 ? atoi(argv[3]) : 2000, size = argc > 4 ? atoi(argv[4]) : 256;
    bool wait = argc > 5 && strcmp(argv[5], "wait") == 0;
    const char *against = argc > 6 ? argv[6] : NULL;
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
    /* Online tuning from the database as it is (empty the first time),
     * then the same stream served by the winner alone ("none": the
     * database's best serves every call), for the comparison. */
    double online = 0, online_last = 0, fixed = 0, fixed_last = 0, opt[2] = {0},
           opt_last[2] = {0};
    if (rc == 0 && against)
        rc = session(spec, NULL, "none", against, shapes, 1, calls, false, &opt[0],
                     &opt_last[0]);
    if (rc == 0)
        rc = session(spec, argv[2], "halving", NULL, shapes, 3, calls, wait, &online,
                     &online_last);
    if (rc == 0 && against)
        rc = session(spec, NULL, "none", against, shapes, 1, calls, false, &opt[1],
                     &opt_last[1]);
    if (rc == 0)
        rc = session(spec, argv[2], "none", NULL, shapes, 1, calls, false, &fixed,
                     &fixed_last);
    if (rc == 0)
        printf("online stream %.1f ms = %.3fx the winner's alone (%.1f ms); last %d "
               "calls %.3fx\n", online, online / fixed, fixed, calls / 4,
               online_last / fixed_last);
    if (rc == 0 && against)
        printf("offline optimum %s alone: %.1f ms before, %.1f ms after (last %d calls "
               "%.1f, %.1f ms): the online stream is %.3fx its mean, its last %d calls "
               "%.3fx\n", against, opt[0], opt[1], calls / 4, opt_last[0], opt_last[1],
               online / (0.5 * (opt[0] + opt[1])), calls / 4,
               online_last / (0.5 * (opt_last[0] + opt_last[1])));
    for (int i = 0; i < 3; i++)
        shape_clear(&shapes[i]);
    ktune_spec_free(spec);
    return rc == 0 ? 0 : 1;
}
