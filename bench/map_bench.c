/* map_bench.c - how good a map of diverse configurations each strategy
 * leaves, replayed on one recorded exhaustive space (the MAP-Elites goal;
 * strategy_bench measures the best configuration alone).
 *
 * The map of a run is the fastest configuration it evaluated in each cell
 * of the spec's behaviour dimensions (ktune tune --map).  Its quality is
 * the mean over the cells that hold a valid, working configuration of the
 * cell's optimum time / the run's time there (0 where the run left the
 * cell empty): 1 means every cell's optimum was found.  Written to stdout
 * as TSV, per strategy and budget (a percentage of the valid space), over
 * the seeds: the quartiles of the quality, the median number of cells
 * filled, and the median fraction of the overall optimum reached.
 *
 *   build/bench/map_bench SPEC RECORDING.db PROBLEM [--seeds N]
 *       [--budgets P,P,...] [--strategies NAME,...]
 */
#include "tune/tuner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 32

typedef struct bench {
    const kt_spec *spec;
    const kt_replay *replay;
    const char *problem;
    int seeds;
    double budgets[MAX_LIST];     /* percentages */
    int nbudgets;
    const char *strategies[MAX_LIST];
    int nstrategies;
    kt_map *full;                 /* the exhaustive map: each cell's optimum */
    double optimum;               /* ms */
    uint64_t space;
} bench;

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "map_bench: %s: %s\n", what, msg);
    exit(1);
}

/* One replayed run with its map; budget 0: the whole space. */
static void run(const bench *b, const char *strategy, uint64_t budget, int seed,
                kt_tune_report *rep)
{
    kt_tune_opts o = kt_tune_defaults();
    o.problem = b->problem;
    o.strategy = strategy;
    o.seed = (uint64_t)seed;
    o.replay = b->replay;
    o.map = true;
    o.warm = 0;   /* the strategy's own map, not other problems' winners */
    if (budget)
        o.budget = (kt_budget){KT_BUDGET_COUNT, (double)budget};
    kt_diag d = {{0}};
    if (kt_tune(b->spec, &o, rep, &d) != KT_OK || !rep->map)
        die(strategy, d.msg[0] ? d.msg : "no map");
}

/* The quality of map m against the exhaustive map (see the top). */
static double quality(const bench *b, const kt_map *m)
{
    double sum = 0;
    for (size_t i = 0, j = 0; i < b->full->nfilled; i++) {
        const kt_map_cell *c = &b->full->filled[i];
        while (j < m->nfilled && m->filled[j].cell < c->cell)
            j++;
        if (j < m->nfilled && m->filled[j].cell == c->cell)
            sum += c->time_ms / m->filled[j].time_ms;
    }
    return sum / (double)b->full->nfilled;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

/* The q-quantile of v[n] (sorted in place), linear interpolation. */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    double pos = q * (n - 1);
    int lo = (int)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

static void bench_one(const bench *b, const char *strategy, double percent)
{
    uint64_t budget = (uint64_t)ceil(percent / 100 * (double)b->space);
    double *q = calloc((size_t)b->seeds, sizeof *q), *filled = calloc((size_t)b->seeds, sizeof *q);
    double *best = calloc((size_t)b->seeds, sizeof *q);
    if (!q || !filled || !best)
        die(strategy, "out of memory");
    for (int s = 0; s < b->seeds; s++) {
        kt_tune_report rep;
        run(b, strategy, budget, s + 1, &rep);
        q[s] = quality(b, rep.map);
        filled[s] = (double)rep.map->nfilled;
        best[s] = rep.best_config ? b->optimum / rep.best.time_ms : 0;
        kt_tune_report_clear(&rep);
    }
    double q1 = quantile(q, b->seeds, 0.25), med = quantile(q, b->seeds, 0.5);
    double q3 = quantile(q, b->seeds, 0.75);
    printf("%s\t%g\t%llu\t%.3f\t%.3f\t%.3f\t%g\t%.3f\n", strategy, percent,
           (unsigned long long)budget, q1, med, q3, quantile(filled, b->seeds, 0.5),
           quantile(best, b->seeds, 0.5));
    free(q);
    free(filled);
    free(best);
}

/* ------------------------------------------------------------- options */

static void usage(void)
{
    fputs("usage: map_bench SPEC RECORDING.db PROBLEM [--seeds N] [--budgets P,...]\n"
          "                 [--strategies NAME,...]\n", stderr);
    exit(2);
}

static void parse_args(int argc, char **argv, bench *b)
{
    static const char *const STRATEGIES[] = {"random", "local_search", "genetic",
                                             "map_elites"};
    if (argc < 4 || (argc - 4) % 2)
        usage();
    b->problem = argv[3];
    b->seeds = 20;
    char defaults[] = "5,10,20", *budgets = defaults, *strategies = NULL;
    for (int i = 4; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seeds") == 0 && (b->seeds = atoi(argv[i + 1])) > 0)
            continue;
        if (strcmp(argv[i], "--budgets") == 0)
            budgets = argv[i + 1];
        else if (strcmp(argv[i], "--strategies") == 0)
            strategies = argv[i + 1];
        else
            usage();
    }
    for (char *s = strtok(budgets, ","); s && b->nbudgets < MAX_LIST; s = strtok(NULL, ","))
        if (!((b->budgets[b->nbudgets++] = atof(s)) > 0))
            usage();
    for (char *s = strategies ? strtok(strategies, ",") : NULL; s && b->nstrategies < MAX_LIST;
         s = strtok(NULL, ","))
        b->strategies[b->nstrategies++] = s;
    for (size_t i = 0; !strategies && i < sizeof STRATEGIES / sizeof *STRATEGIES; i++)
        b->strategies[b->nstrategies++] = STRATEGIES[i];
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
                       &d) != KT_OK)
        die(argv[2], d.msg);
    b.spec = spec;
    b.replay = rp;
    kt_tune_report full;
    run(&b, "brute_force", 0, 1, &full);
    if (!full.best_config || full.map->nfilled == 0)
        die("brute_force", "no configuration of the recording ran correctly");
    b.full = full.map;
    b.optimum = full.best.time_ms;
    b.space = full.space_size;
    printf("# %s %s: %llu valid configurations, %llu cells, %zu hold a working one\n",
           spec->name, full.problem, (unsigned long long)b.space,
           (unsigned long long)full.map->ncells, full.map->nfilled);
    printf("strategy\tpercent\tevaluations\tq1\tmedian\tq3\tfilled\tbest\n");
    for (int i = 0; i < b.nstrategies; i++)
        for (int k = 0; k < b.nbudgets; k++)
            bench_one(&b, b.strategies[i], b.budgets[k]);
    kt_tune_report_clear(&full);
    kt_replay_free(rp);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    return 0;
}
