/* benchmark.c - `ktune benchmark`: search strategies compared on a recorded
 * exhaustive space (ktune_benchmark): a table, --json, and an SVG of the
 * curves. */
#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 64

static const char USAGE[] =
    "usage: ktune benchmark SPEC --replay DB [options]\n"
    "       ktune benchmark --replay FILE [options]\n"
    "       ktune benchmark --transfer FILE,FILE,... [options]\n\n"
    "Compare search strategies on an exhaustive run recorded in DB: each\n"
    "strategy runs at each budget once per seed, every evaluation answered from\n"
    "the recording, and the table gives the fraction of the optimum reached\n"
    "(mean and median over the seeds), the share of runs that found the\n"
    "optimum, and the median number of evaluations to reach 95% and 99% of it.\n\n"
    "Without SPEC, FILE is the whole recording: a ktune database, a Kernel\n"
    "Tuner cache or a T4 results file (JSON, or JSON compressed with bzip2\n"
    "or gzip).\n"
    "Its recorded configurations are the space: those recorded as invalid are\n"
    "outside it, recorded failures are failed evaluations that cost budget\n"
    "(Kernel Tuner's simulation mode); see 'ktune tune --help'.\n\n"
    "With --transfer, the files are recordings of one kernel on different\n"
    "devices: each is held out in turn, the others predict its best\n"
    "configurations (their mean fraction of each device's optimum), and the\n"
    "table gives the fraction of its optimum reached with 0 and --budgets\n"
    "measurements on it: the prediction alone, the prediction's --top K then\n"
    "the default strategy (warm), and the default strategy from scratch\n"
    "(cold); see 'ktune tune --warm-from'.\n\n"
    "options:\n"
    "  --replay DB         the recording (a complete brute_force run; required);\n"
    "                      with SPEC also any FILE of SPEC's parameters\n"
    "  --problem K=V,...   the recorded problem (default: the spec's defaults;\n"
    "                      without SPEC: the one FILE holds)\n"
    "  --device NAME       the recorded device, when DB holds several\n"
    "  --kernel NAME       without SPEC: the recorded kernel, when the database\n"
    "                      FILE holds several\n"
    "  --strategies A,B    strategies to compare (default: every one)\n"
    "  --budgets N,N,...   evaluations, ascending (default 25,50,100,200,400;\n"
    "                      a budget past the space is the whole space; with\n"
    "                      --transfer: measurements, default 10,20)\n"
    "  --seeds N           runs per strategy and budget, 1 to 10000 (default 20)\n"
    "  --warm N            start from the winners of up to N other recorded\n"
    "                      problems (default 0: from scratch)\n"
    "  --transfer FILES    leave one device out over these recordings (comma-\n"
    "                      separated; no SPEC, --replay or --strategies)\n"
    "  --top K             with --transfer: the predictions a warm search\n"
    "                      measures first (default 10)\n"
    "  --svg FILE          also draw the mean fraction of the optimum against\n"
    "                      the evaluations of the largest budget's runs\n"
    "  --json              print one JSON object instead of the table\n"
    "  --help              this text\n\n"
    "exit status: 0 done; 1 an error; 2 bad usage.\n";

typedef struct bench_args {
    const char *spec, *replay, *problem, *device, *kernel, *svg;
    const char *transfer;  /* --transfer FILES */
    bool budgets_given;
    const char *strategies[MAX_LIST];
    double budgets[MAX_LIST];
    size_t nstrategies, nbudgets;
    uint64_t seeds, warm, top;
    bool json;
    char *list_text;       /* --strategies, split in place */
} bench_args;

static int parse_budgets(const char *text, bench_args *a)
{
    a->nbudgets = 0;
    for (const char *s = text; *s;) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || !(v >= 1 && v <= 1e7) || v != floor(v) || a->nbudgets == MAX_LIST ||
            (a->nbudgets && v <= a->budgets[a->nbudgets - 1]) || (*end && *end != ','))
            return cli_usage_error("benchmark", "--budgets wants ascending whole numbers "
                                   "of evaluations, like 25,50,100, not '%s'", text);
        a->budgets[a->nbudgets++] = v;
        s = *end ? end + 1 : end;
    }
    return a->nbudgets ? CLI_OK : cli_usage_error("benchmark", "--budgets is empty");
}

static int parse_strategies(const char *text, bench_args *a)
{
    free(a->list_text);
    if (!(a->list_text = strdup(text)))
        return cli_error("out of memory");
    a->nstrategies = 0;
    for (char *s = strtok(a->list_text, ","); s; s = strtok(NULL, ",")) {
        if (ktune_strategy_find(s, NULL, NULL) != KTUNE_OK)
            return cli_usage_error("benchmark", "unknown strategy '%s'", s);
        if (a->nstrategies == MAX_LIST)
            return cli_usage_error("benchmark", "at most %d strategies", MAX_LIST);
        a->strategies[a->nstrategies++] = s;
    }
    return a->nstrategies ? CLI_OK : cli_usage_error("benchmark", "--strategies is empty");
}

static int parse_option(int c, bench_args *a)
{
    switch (c) {
    case 'r': a->replay = optarg; return CLI_OK;
    case 'p': a->problem = optarg; return CLI_OK;
    case 'D': a->device = optarg; return CLI_OK;
    case 'K': a->kernel = optarg; return CLI_OK;
    case 's': return parse_strategies(optarg, a);
    case 'b': a->budgets_given = true; return parse_budgets(optarg, a);
    case 'T': a->transfer = optarg; return CLI_OK;
    case 'k': return cli_parse_range("benchmark", "--top", optarg, 1, 10000, &a->top);
    case 'S': return cli_parse_range("benchmark", "--seeds", optarg, 1, 10000, &a->seeds);
    case 'w': return cli_parse_range("benchmark", "--warm", optarg, 0, 1000, &a->warm);
    case 'g': a->svg = optarg; return CLI_OK;
    case 'J': a->json = true; return CLI_OK;
    default: return CLI_USAGE;
    }
}

/* --transfer: the recordings alone, measurements 10,20 unless given. */
static int check_transfer(int argc, bench_args *a)
{
    if (optind != argc || a->replay || a->nstrategies || a->warm || a->svg || a->problem ||
        a->device || a->kernel)
        return cli_usage_error("benchmark", "--transfer takes its recordings alone: no "
                               "SPEC, --replay, --strategies, --warm, --svg, --problem, "
                               "--device or --kernel");
    return a->budgets_given ? CLI_OK : parse_budgets("10,20", a);
}

static int parse_args(int argc, char **argv, bench_args *a)
{
    static const struct option LONG[] = {
        {"replay", required_argument, 0, 'r'},     {"problem", required_argument, 0, 'p'},
        {"device", required_argument, 0, 'D'},     {"strategies", required_argument, 0, 's'},
        {"budgets", required_argument, 0, 'b'},    {"seeds", required_argument, 0, 'S'},
        {"warm", required_argument, 0, 'w'},       {"svg", required_argument, 0, 'g'},
        {"json", no_argument, 0, 'J'},             {"help", no_argument, 0, 'h'},
        {"kernel", required_argument, 0, 'K'},     {"transfer", required_argument, 0, 'T'},
        {"top", required_argument, 0, 'k'},
        {0, 0, 0, 0}};
    int c, rc = parse_budgets("25,50,100,200,400", a);
    a->seeds = 20;
    optind = 1;
    while (rc == CLI_OK && (c = cli_getopt("benchmark", argc, argv, LONG)) != -1) {
        if (c == 'h') {
            fputs(USAGE, stdout);
            return -1;
        }
        rc = parse_option(c, a);
    }
    if (rc != CLI_OK)
        return rc;
    if (a->transfer)
        return check_transfer(argc, a);
    if (a->top)
        return cli_usage_error("benchmark", "--top is for --transfer");
    if (optind != argc - 1 && !(a->replay && optind == argc))
        return cli_usage_error("benchmark", "expected one spec file (or --replay FILE "
                               "alone)");
    if (!a->replay)
        return cli_usage_error("benchmark", "--replay DB is required");
    a->spec = optind < argc ? argv[optind] : NULL;
    if (a->spec && a->kernel)
        return cli_usage_error("benchmark", "--kernel chooses a recording of --replay "
                               "FILE without a SPEC");
    return CLI_OK;
}

/* ---------------------------------------------------------------- output */

static void print_table(const ktune_bench *b)
{
    const ktune_bench_info *r = ktune_bench_summary(b);
    printf("%s: %llu recorded configurations, optimum %.6g ms (%s); %u seeds\n",
           r->kernel, (unsigned long long)r->space, r->optimum_ms, r->optimum_config,
           r->seeds);
    printf("%-14s %7s %7s %7s %7s %8s %8s\n", "strategy", "budget", "mean", "median",
           "found", "to 95%", "to 99%");
    for (size_t i = 0; i < r->nrows; i++) {
        const ktune_bench_row *w = ktune_bench_row_at(b, i);
        printf("%-14s %7llu %7.3f %7.3f %7.2f %8.4g %8.4g\n", w->strategy,
               (unsigned long long)w->budget, w->fraction.mean, w->fraction.median,
               w->found, w->to95.median, w->to99.median);
    }
    printf("(fractions of the optimum at the end of the runs; 'found': share of runs\n"
           " that found it; 'to 95%%': median evaluations to 95%% of it, inf: not there)\n");
}

static json_object *row_json(const ktune_bench_row *w)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "strategy", json_object_new_string(w->strategy));
    json_object_object_add(o, "budget", json_object_new_int64((int64_t)w->budget));
    json_object_object_add(o, "mean", cli_json_double(w->fraction.mean));
    json_object_object_add(o, "q1", cli_json_double(w->fraction.q1));
    json_object_object_add(o, "median", cli_json_double(w->fraction.median));
    json_object_object_add(o, "q3", cli_json_double(w->fraction.q3));
    json_object_object_add(o, "found_optimum", cli_json_double(w->found));
    json_object_object_add(o, "evaluations_to_95", cli_json_double(w->to95.median));
    json_object_object_add(o, "evaluations_to_99", cli_json_double(w->to99.median));
    json_object_object_add(o, "seconds", cli_json_double(w->seconds));
    return o;
}

static void print_json(const ktune_bench *b)
{
    const ktune_bench_info *r = ktune_bench_summary(b);
    json_object *o = json_object_new_object(), *rows = json_object_new_array();
    json_object_object_add(o, "kernel", json_object_new_string(r->kernel));
    json_object_object_add(o, "space_size", json_object_new_int64((int64_t)r->space));
    json_object_object_add(o, "optimum_ms", cli_json_double(r->optimum_ms));
    json_object_object_add(o, "optimum", cli_config_json(r->optimum_config));
    json_object_object_add(o, "seeds", json_object_new_int64(r->seeds));
    for (size_t i = 0; i < r->nrows; i++)
        json_object_array_add(rows, row_json(ktune_bench_row_at(b, i)));
    json_object_object_add(o, "results", rows);
    cli_json_print(o);
}

/* The mean curves of the largest budget: x evaluations (log scale), y the
 * fraction of the optimum, one polyline per strategy. */
static int write_svg(const char *path, const ktune_bench *b)
{
    const ktune_bench_info *r = ktune_bench_summary(b);
    FILE *f = fopen(path, "w");
    if (!f)
        return cli_error("cannot write '%s'", path);
    static const char *const COLORS[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                         "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
                                         "#7f7f7f", "#bcbd22"};
    enum { NCOLORS = sizeof COLORS / sizeof *COLORS };
    const double W = 640, H = 400, L = 50, B = 40, lx = log((double)r->curve_len);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\""
            " font-family=\"sans-serif\" font-size=\"11\">\n", W + 150, H);
    fprintf(f, "<path d=\"M%.0f 10V%.0fH%.0f\" stroke=\"black\" fill=\"none\"/>\n", L,
            H - B, W);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">evaluations (1 to %zu, log scale)</text>\n",
            L + 150, H - 10, r->curve_len);
    fprintf(f, "<text x=\"5\" y=\"20\">1.0</text><text x=\"5\" y=\"%.0f\">0.0</text>\n",
            H - B);
    for (size_t s = 0; s < r->nstrategies; s++) {
        const ktune_bench_stat *c = ktune_bench_curve(b, s);
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" points=\"",
                COLORS[s % NCOLORS]);
        for (size_t n = 0; n < r->curve_len; n++)
            fprintf(f, "%.1f,%.1f ",
                    L + (lx > 0 ? log((double)n + 1) / lx : 0) * (W - L - 10),
                    10 + (1 - c[n].mean) * (H - B - 10));
        fprintf(f, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">%s</text>\n", W + 10,
                20 + 16.0 * (double)s, COLORS[s % NCOLORS],
                ktune_bench_row_at(b, s * r->nbudgets)->strategy);
    }
    fputs("</svg>\n", f);
    return fclose(f) == 0 ? CLI_OK : cli_error("cannot write '%s'", path);
}

/* ------------------------------------------------------------------ run */

int cli_benchmark(int argc, char **argv)
{
    bench_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc == CLI_OK && a.transfer) {
        free(a.list_text);
        return cli_transfer_bench(a.transfer, a.budgets, a.nbudgets, (unsigned)a.seeds,
                                  (size_t)a.top, a.json);
    }
    ktune_spec *spec = NULL;
    ktune_problem *prob = NULL;
    ktune_bench *b = NULL;
    ktune_diag d = {{0}};
    if (rc == CLI_OK && a.spec && ktune_spec_load(a.spec, cli_warn, NULL, &spec, &d) != 0)
        rc = cli_error("%s", d.msg);
    if (rc == CLI_OK && spec) /* a bad or partial problem is a usage error */
        rc = cli_problem_parse("benchmark", spec, a.problem, &prob);
    ktune_bench_opts o;
    ktune_bench_opts_init(&o);
    o.replay = a.replay;
    o.problem = a.problem;
    o.device = a.device;
    o.kernel = a.kernel;
    o.strategies = a.nstrategies ? a.strategies : NULL;
    o.nstrategies = a.nstrategies;
    o.budgets = a.budgets;
    o.nbudgets = a.nbudgets;
    o.seeds = (unsigned)a.seeds;
    o.warm = (size_t)a.warm;
    o.warn = cli_warn;
    if (rc == CLI_OK && ktune_benchmark(spec, &o, &b, &d) != KTUNE_OK)
        rc = cli_error("%s", d.msg);
    if (rc == CLI_OK) {
        if (a.json)
            print_json(b);
        else
            print_table(b);
        rc = a.svg ? write_svg(a.svg, b) : CLI_OK;
    }
    ktune_bench_free(b);
    ktune_problem_free(prob);
    ktune_spec_free(spec);
    free(a.list_text);
    return rc < 0 ? CLI_OK : rc;
}
