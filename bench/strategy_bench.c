/* strategy_bench.c - every registered search strategy, replayed on one
 * recorded exhaustive space over many seeds and budgets (docs/SEARCH.md).
 *
 * Each run is a real tuning run (kt_tune, the CLI's batch size) whose
 * evaluations come from the recording (--replay), so a run costs well
 * under a millisecond of the strategy's own time.  The quality of a run
 * after n evaluations is the fraction of the optimum it reached:
 * optimum time / best time found so far (0 before a success).  Written to
 * OUT.*.tsv:
 *   curve   strategy, n, quartiles of the fraction over seeds after n
 *           evaluations of a run with the largest budget
 *   budget  strategy, budget (% of the valid space and evaluations),
 *           quartiles of the final fraction of runs with that budget
 *   reach   strategy, target (0.95, 0.99), quartiles of the evaluations a
 *           largest-budget run needed to reach it ("inf" where it did not),
 *           and how many of the seeds reached it
 *
 *   build/bench/strategy_bench SPEC RECORDING.db PROBLEM OUT
 *       [--seeds N] [--budgets P,P,...] [--strategies NAME,...] [--warm N]
 *
 * --warm N starts each run from the winners of up to N other problems the
 * recording's database holds (kt_tune_opts.warm); the default, 0, compares
 * the strategies from scratch.
 */
#include "core/util.h"
#include "tune/tuner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BUDGETS 16
#define MAX_STRATEGIES 64

typedef struct bench {
    const kt_spec *spec;
    const kt_replay *replay;
    const char *problem;
    uint64_t space;           /* valid configurations */
    double optimum;           /* ms */
    int seeds;
    double budgets[MAX_BUDGETS]; /* fractions of the space, ascending */
    int nbudgets;
    const char *strategies[MAX_STRATEGIES];
    int nstrategies;
    size_t warm;              /* kt_tune_opts.warm */
} bench;

/* The trace of one run: fraction of the optimum after each evaluation. */
typedef struct trace {
    double optimum;
    double *frac;             /* [limit] */
    uint64_t n, limit;
} trace;

static void on_progress(void *user, const kt_progress *p)
{
    trace *t = user;
    if (t->n < t->limit)
        t->frac[t->n++] = isfinite(p->best_ms) ? t->optimum / p->best_ms : 0;
}

static uint64_t budget_count(const bench *b, double fraction)
{
    return (uint64_t)ceil(fraction * (double)b->space);
}

/* One replayed run; t->frac holds its trace, carried forward past its end
 * (a strategy that stops early spends nothing more and finds nothing). */
static void run(const bench *b, const char *strategy, double fraction, int seed,
                trace *t)
{
    kt_tune_opts o = kt_tune_defaults();
    o.problem = b->problem;
    o.strategy = strategy;
    o.seed = (uint64_t)seed;
    o.replay = b->replay;
    o.budget = (kt_budget){KT_BUDGET_FRACTION, fraction};
    o.progress = on_progress;
    o.progress_user = t;
    o.warm = b->warm;
    t->n = 0;
    t->limit = budget_count(b, fraction);
    t->optimum = b->optimum;
    kt_tune_report rep;
    kt_diag d = {{0}};
    if (kt_tune(b->spec, &o, &rep, &d) != KT_OK) {
        fprintf(stderr, "strategy_bench: %s seed %d: %s\n", strategy, seed, d.msg);
        exit(1);
    }
    kt_tune_report_clear(&rep);
    for (uint64_t i = t->n; i < t->limit; i++)
        t->frac[i] = i ? t->frac[i - 1] : 0;
}

/* ----------------------------------------------------------- statistics */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quartiles of n values (sorted in place), linear interpolation. */
static void quartiles(double *v, size_t n, double q[3])
{
    qsort(v, n, sizeof *v, by_value);
    for (int k = 0; k < 3; k++) {
        double pos = (double)(k + 1) / 4 * (double)(n - 1);
        size_t lo = (size_t)pos;
        double w = pos - (double)lo;
        q[k] = v[lo];
        if (w > 0 && lo + 1 < n) /* inf (not reached) stays inf */
            q[k] = isinf(v[lo + 1]) ? INFINITY : v[lo] * (1 - w) + v[lo + 1] * w;
    }
}

/* Evaluations a trace needed to reach target, +inf if it never did. */
static double needed(const trace *t, double target)
{
    for (uint64_t i = 0; i < t->limit; i++)
        if (t->frac[i] >= target - 1e-12)
            return (double)(i + 1);
    return INFINITY;
}

/* --------------------------------------------------------------- output */

static FILE *open_out(const char *out, const char *what, const char *header)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%s.tsv", out, what);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "strategy_bench: cannot write '%s'\n", path);
        exit(1);
    }
    fprintf(f, "%s\n", header);
    return f;
}

/* The largest-budget runs of one strategy: curve and reach rows. */
static void curve_and_reach(const bench *b, const char *s, trace *runs, FILE *curve,
                            FILE *reach)
{
    double *v = malloc((size_t)b->seeds * sizeof *v), q[3];
    uint64_t limit = runs[0].limit;
    for (uint64_t n = 0; n < limit; n++) {
        for (int i = 0; i < b->seeds; i++)
            v[i] = runs[i].frac[n];
        quartiles(v, (size_t)b->seeds, q);
        fprintf(curve, "%s\t%llu\t%.6f\t%.6f\t%.6f\n", s, (unsigned long long)n + 1, q[0],
                q[1], q[2]);
    }
    static const double TARGETS[] = {0.95, 0.99};
    for (size_t k = 0; k < KT_ARRAY_LEN(TARGETS); k++) {
        int reached = 0;
        for (int i = 0; i < b->seeds; i++)
            reached += isfinite(v[i] = needed(&runs[i], TARGETS[k]));
        quartiles(v, (size_t)b->seeds, q);
        fprintf(reach, "%s\t%.2f\t%g\t%g\t%g\t%d\t%d\t%llu\n", s, TARGETS[k], q[0], q[1],
                q[2], reached, b->seeds, (unsigned long long)limit);
    }
    free(v);
}

static void bench_strategy(const bench *b, const char *s, FILE *curve, FILE *budget,
                           FILE *reach)
{
    trace *runs = calloc((size_t)b->seeds, sizeof *runs);
    double *v = malloc((size_t)b->seeds * sizeof *v), q[3];
    uint64_t most = budget_count(b, b->budgets[b->nbudgets - 1]);
    for (int i = 0; i < b->seeds; i++)
        runs[i].frac = malloc(most * sizeof *runs[i].frac);
    double t0 = kt_now();
    for (int k = 0; k < b->nbudgets; k++) {
        for (int i = 0; i < b->seeds; i++) {
            run(b, s, b->budgets[k], i + 1, &runs[i]);
            v[i] = runs[i].frac[runs[i].limit - 1];
        }
        quartiles(v, (size_t)b->seeds, q);
        fprintf(budget, "%s\t%g\t%llu\t%.6f\t%.6f\t%.6f\n", s, 100 * b->budgets[k],
                (unsigned long long)budget_count(b, b->budgets[k]), q[0], q[1], q[2]);
    }
    curve_and_reach(b, s, runs, curve, reach); /* the last budget's runs */
    fprintf(stderr, "%-14s %d seeds x %d budgets in %.2f s\n", s, b->seeds, b->nbudgets,
            kt_now() - t0);
    for (int i = 0; i < b->seeds; i++)
        free(runs[i].frac);
    free(runs);
    free(v);
}

/* ------------------------------------------------------------- options */

static void usage(void)
{
    fputs("usage: strategy_bench SPEC RECORDING.db PROBLEM OUT [--seeds N]\n"
          "                      [--budgets PERCENT,...] [--strategies NAME,...] [--warm N]\n",
          stderr);
    exit(2);
}

static void parse_budgets(bench *b, const char *text)
{
    b->nbudgets = 0;
    for (const char *s = text; *s && b->nbudgets < MAX_BUDGETS;) {
        char *end;
        double p = strtod(s, &end);
        if (end == s || !(p > 0 && p <= 100) ||
            (b->nbudgets && p / 100 <= b->budgets[b->nbudgets - 1]))
            usage();
        b->budgets[b->nbudgets++] = p / 100;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            usage();
    }
}

static void parse_strategies(bench *b, char *text)
{
    b->nstrategies = 0;
    for (char *s = strtok(text, ","); s && b->nstrategies < MAX_STRATEGIES;
         s = strtok(NULL, ","))
        b->strategies[b->nstrategies++] = s;
}

static void parse_args(int argc, char **argv, bench *b)
{
    if (argc < 5)
        usage();
    b->problem = argv[3];
    b->seeds = 50;
    parse_budgets(b, "1,2,5,10,25,50");
    for (size_t i = 0; i < kt_strategy_count(); i++)
        b->strategies[b->nstrategies++] = kt_strategy_at(i)->name;
    for (int i = 5; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seeds") == 0 && (b->seeds = atoi(argv[i + 1])) > 0)
            continue;
        if (strcmp(argv[i], "--budgets") == 0)
            parse_budgets(b, argv[i + 1]);
        else if (strcmp(argv[i], "--strategies") == 0)
            parse_strategies(b, argv[i + 1]);
        else if (strcmp(argv[i], "--warm") == 0)
            b->warm = (size_t)strtoul(argv[i + 1], NULL, 10);
        else
            usage();
    }
    if ((argc - 5) % 2 || b->nbudgets == 0 || b->nstrategies == 0)
        usage();
}

/* The recording's optimum, by replaying every configuration. */
static void find_optimum(bench *b)
{
    kt_tune_opts o = kt_tune_defaults();
    o.problem = b->problem;
    o.replay = b->replay;
    kt_tune_report rep;
    kt_diag d = {{0}};
    if (kt_tune(b->spec, &o, &rep, &d) != KT_OK || !rep.best_config) {
        fprintf(stderr, "strategy_bench: %s\n", d.msg[0] ? d.msg : "nothing ran");
        exit(1);
    }
    b->space = rep.space_size;
    b->optimum = rep.best.time_ms;
    printf("%s %s: %llu valid configurations, optimum %.6g ms (%s) on %s; "
           "ktune's default strategy: %s\n", b->spec->name, rep.problem,
           (unsigned long long)b->space, b->optimum, rep.best_config, rep.device,
           kt_tune_defaults().strategy);
    kt_tune_report_clear(&rep);
}

int main(int argc, char **argv)
{
    bench b = {0};
    parse_args(argc, argv, &b);
    kt_diag d = {{0}};
    kt_spec *spec = NULL;
    kt_problem prob = {0};
    kt_replay *rp = NULL;
    if (kt_spec_load(argv[1], NULL, NULL, &spec, &d) != KT_OK ||
        kt_problem_parse(spec, b.problem, &prob, &d) != KT_OK ||
        kt_replay_open(argv[2], spec->name, spec->source_hash, prob.key, NULL, &rp,
                       &d) != KT_OK) {
        fprintf(stderr, "strategy_bench: %s\n", d.msg);
        return 1;
    }
    b.spec = spec;
    b.replay = rp;
    find_optimum(&b);
    FILE *curve = open_out(argv[4], "curve", "strategy\tn\tq1\tmedian\tq3");
    FILE *budget = open_out(argv[4], "budget",
                            "strategy\tpercent\tevaluations\tq1\tmedian\tq3");
    FILE *reach = open_out(argv[4], "reach",
                           "strategy\ttarget\tq1\tmedian\tq3\treached\tseeds\tlimit");
    for (int i = 0; i < b.nstrategies; i++)
        bench_strategy(&b, b.strategies[i], curve, budget, reach);
    fclose(curve);
    fclose(budget);
    fclose(reach);
    kt_replay_free(rp);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    return 0;
}
