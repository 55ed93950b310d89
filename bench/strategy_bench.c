/* strategy_bench.c - every registered search strategy, replayed on one
 * recorded exhaustive space over many seeds and budgets (docs/SEARCH.md).
 *
 * The runs are kt_benchmark's (tune/benchmark.h, also `ktune benchmark`):
 * real tuning runs answered from the recording.  This program writes their
 * quartiles for docs/SEARCH.md's tables and curves, with budgets as shares
 * of the space.  Written to OUT.*.tsv:
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
#include "core/util.h"
#include "tune/benchmark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BUDGETS 16
#define MAX_STRATEGIES 64

typedef struct bench {
    const char *strategies[MAX_STRATEGIES];
    double budgets[MAX_BUDGETS];  /* fractions of the space, ascending */
    kt_bench_opts o;
} bench;

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

/* Strategy s's rows: one per budget, then its largest budget's curve and
 * the evaluations those runs needed to reach 95% and 99%. */
static void write_strategy(const kt_bench_report *r, size_t s, unsigned seeds,
                           const double *budgets, FILE *curve, FILE *budget, FILE *reach)
{
    const kt_bench_row *rows = &r->rows[s * r->nbudgets], *last = &rows[r->nbudgets - 1];
    double seconds = 0;
    for (size_t k = 0; k < r->nbudgets; k++) {
        fprintf(budget, "%s\t%g\t%llu\t%.6f\t%.6f\t%.6f\n", rows[k].strategy,
                100 * budgets[k], (unsigned long long)rows[k].budget, rows[k].fraction.q1,
                rows[k].fraction.median, rows[k].fraction.q3);
        seconds += rows[k].seconds;
    }
    const kt_bench_stat *c = r->curves + s * r->curve_len;
    for (size_t n = 0; n < r->curve_len; n++)
        fprintf(curve, "%s\t%zu\t%.6f\t%.6f\t%.6f\n", last->strategy, n + 1, c[n].q1,
                c[n].median, c[n].q3);
    const kt_bench_stat *to[] = {&last->to95, &last->to99};
    const unsigned reached[] = {last->reached95, last->reached99};
    for (int k = 0; k < 2; k++)
        fprintf(reach, "%s\t%.2f\t%g\t%g\t%g\t%u\t%u\t%zu\n", last->strategy,
                k ? 0.99 : 0.95, to[k]->q1, to[k]->median, to[k]->q3, reached[k], seeds,
                r->curve_len);
    fprintf(stderr, "%-14s %u seeds x %zu budgets in %.2f s\n", last->strategy, seeds,
            r->nbudgets, seconds);
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
    b->o.nbudgets = 0;
    for (const char *s = text; *s && b->o.nbudgets < MAX_BUDGETS;) {
        char *end;
        double p = strtod(s, &end);
        if (end == s || !(p > 0 && p <= 100) ||
            (b->o.nbudgets && p / 100 <= b->budgets[b->o.nbudgets - 1]))
            usage();
        b->budgets[b->o.nbudgets++] = p / 100;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            usage();
    }
}

static void parse_strategies(bench *b, char *text)
{
    b->o.nstrategies = 0;
    for (char *s = strtok(text, ","); s && b->o.nstrategies < MAX_STRATEGIES;
         s = strtok(NULL, ","))
        b->strategies[b->o.nstrategies++] = s;
}

static void parse_args(int argc, char **argv, bench *b)
{
    if (argc < 5)
        usage();
    b->o = (kt_bench_opts){.problem = argv[3], .seeds = 50, .fractions = true,
                           .budgets = b->budgets, .strategies = b->strategies};
    parse_budgets(b, "1,2,5,10,25,50");
    for (size_t i = 0; i < kt_strategy_count(); i++)
        b->strategies[b->o.nstrategies++] = kt_strategy_at(i)->name;
    for (int i = 5; i + 1 < argc; i += 2) {
        int seeds = 0;
        if (strcmp(argv[i], "--seeds") == 0 && (seeds = atoi(argv[i + 1])) > 0)
            b->o.seeds = (unsigned)seeds;
        else if (strcmp(argv[i], "--budgets") == 0)
            parse_budgets(b, argv[i + 1]);
        else if (strcmp(argv[i], "--strategies") == 0)
            parse_strategies(b, argv[i + 1]);
        else if (strcmp(argv[i], "--warm") == 0)
            b->o.warm = (size_t)strtoul(argv[i + 1], NULL, 10);
        else
            usage();
    }
    if ((argc - 5) % 2 || b->o.nbudgets == 0 || b->o.nstrategies == 0)
        usage();
}

int main(int argc, char **argv)
{
    bench b = {0};
    parse_args(argc, argv, &b);
    kt_diag d = {{0}};
    kt_spec *spec = NULL;
    kt_problem prob = {0};
    kt_replay *rp = NULL;
    kt_bench_report r;
    if (kt_spec_load(argv[1], NULL, NULL, &spec, &d) != KT_OK ||
        kt_problem_parse(spec, b.o.problem, &prob, &d) != KT_OK ||
        kt_replay_open(argv[2], spec->name, spec->source_hash, prob.key, NULL, &rp,
                       &d) != KT_OK ||
        (b.o.replay = rp, kt_benchmark(spec, &b.o, &r, &d)) != KT_OK) {
        fprintf(stderr, "strategy_bench: %s\n", d.msg);
        return 1;
    }
    printf("%s %s: %llu valid configurations, optimum %.6g ms (%s) on %s; "
           "ktune's default strategy: %s\n", spec->name, prob.key,
           (unsigned long long)r.space, r.optimum_ms, r.optimum_config,
           kt_replay_device(rp), kt_tune_defaults().strategy);
    FILE *curve = open_out(argv[4], "curve", "strategy\tn\tq1\tmedian\tq3");
    FILE *budget = open_out(argv[4], "budget",
                            "strategy\tpercent\tevaluations\tq1\tmedian\tq3");
    FILE *reach = open_out(argv[4], "reach",
                           "strategy\ttarget\tq1\tmedian\tq3\treached\tseeds\tlimit");
    for (size_t s = 0; s < r.nstrategies; s++)
        write_strategy(&r, s, b.o.seeds, b.budgets, curve, budget, reach);
    fclose(curve);
    fclose(budget);
    fclose(reach);
    kt_bench_report_clear(&r);
    kt_replay_free(rp);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    return 0;
}
