/* benchmark.c - `ktune benchmark`: search strategies compared on a recorded
 * exhaustive space (tune/benchmark.h): a table, --json, and an SVG of the
 * curves. */
#include "cli/cli.h"
#include "core/util.h"
#include "store/recording.h"
#include "tune/benchmark.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 64

static const char USAGE[] =
    "usage: ktune benchmark SPEC --replay DB [options]\n"
    "       ktune benchmark --replay FILE [options]\n\n"
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
    "options:\n"
    "  --replay DB         the recording (a complete brute_force run; required)\n"
    "  --problem K=V,...   the recorded problem (default: the spec's defaults;\n"
    "                      without SPEC: the one FILE holds)\n"
    "  --device NAME       the recorded device, when DB holds several\n"
    "  --kernel NAME       without SPEC: the recorded kernel, when the database\n"
    "                      FILE holds several\n"
    "  --strategies A,B    strategies to compare (default: every one)\n"
    "  --budgets N,N,...   evaluations, ascending (default 25,50,100,200,400;\n"
    "                      a budget past the space is the whole space)\n"
    "  --seeds N           runs per strategy and budget, 1 to 10000 (default 20)\n"
    "  --warm N            start from the winners of up to N other recorded\n"
    "                      problems (default 0: from scratch)\n"
    "  --svg FILE          also draw the mean fraction of the optimum against\n"
    "                      the evaluations of the largest budget's runs\n"
    "  --json              print one JSON object instead of the table\n"
    "  --help              this text\n\n"
    "exit status: 0 done; 1 an error; 2 bad usage.\n";

typedef struct bench_args {
    const char *spec, *replay, *problem, *device, *kernel, *svg;
    const char *strategies[MAX_LIST];
    double budgets[MAX_LIST];
    size_t nstrategies, nbudgets;
    uint64_t seeds, warm;
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
    if (!(a->list_text = kt_strdup(text)))
        return cli_error("out of memory");
    a->nstrategies = 0;
    for (char *s = strtok(a->list_text, ","); s; s = strtok(NULL, ",")) {
        if (!kt_strategy_find(s))
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
    case 'b': return parse_budgets(optarg, a);
    case 'S': return cli_parse_range("benchmark", "--seeds", optarg, 1, 10000, &a->seeds);
    case 'w': return cli_parse_range("benchmark", "--warm", optarg, 0, 1000, &a->warm);
    case 'g': a->svg = optarg; return CLI_OK;
    case 'J': a->json = true; return CLI_OK;
    default: return CLI_USAGE;
    }
}

static int parse_args(int argc, char **argv, bench_args *a)
{
    static const struct option LONG[] = {
        {"replay", required_argument, 0, 'r'},     {"problem", required_argument, 0, 'p'},
        {"device", required_argument, 0, 'D'},     {"strategies", required_argument, 0, 's'},
        {"budgets", required_argument, 0, 'b'},    {"seeds", required_argument, 0, 'S'},
        {"warm", required_argument, 0, 'w'},       {"svg", required_argument, 0, 'g'},
        {"json", no_argument, 0, 'J'},             {"help", no_argument, 0, 'h'},
        {"kernel", required_argument, 0, 'K'},
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

static void print_table(const kt_spec *spec, const kt_bench_report *r, unsigned seeds)
{
    printf("%s: %llu recorded configurations, optimum %.6g ms (%s); %u seeds\n",
           spec->name, (unsigned long long)r->space, r->optimum_ms, r->optimum_config,
           seeds);
    printf("%-14s %7s %7s %7s %7s %8s %8s\n", "strategy", "budget", "mean", "median",
           "found", "to 95%", "to 99%");
    for (size_t i = 0; i < r->nrows; i++) {
        const kt_bench_row *w = &r->rows[i];
        printf("%-14s %7llu %7.3f %7.3f %7.2f %8.4g %8.4g\n", w->strategy,
               (unsigned long long)w->budget, w->fraction.mean, w->fraction.median,
               w->found, w->to95.median, w->to99.median);
    }
    printf("(fractions of the optimum at the end of the runs; 'found': share of runs\n"
           " that found it; 'to 95%%': median evaluations to 95%% of it, inf: not there)\n");
}

static json_object *row_json(const kt_bench_row *w)
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

static void print_json(const kt_spec *spec, const kt_bench_report *r, unsigned seeds)
{
    json_object *o = json_object_new_object(), *rows = json_object_new_array();
    json_object_object_add(o, "kernel", json_object_new_string(spec->name));
    json_object_object_add(o, "space_size", json_object_new_int64((int64_t)r->space));
    json_object_object_add(o, "optimum_ms", cli_json_double(r->optimum_ms));
    json_object_object_add(o, "optimum", cli_config_json(r->optimum_config));
    json_object_object_add(o, "seeds", json_object_new_int64(seeds));
    for (size_t i = 0; i < r->nrows; i++)
        json_object_array_add(rows, row_json(&r->rows[i]));
    json_object_object_add(o, "results", rows);
    cli_json_print(o);
}

/* The mean curves of the largest budget: x evaluations (log scale), y the
 * fraction of the optimum, one polyline per strategy. */
static int write_svg(const char *path, const kt_bench_report *r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return cli_error("cannot write '%s'", path);
    static const char *const COLORS[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                         "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
                                         "#7f7f7f", "#bcbd22"};
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
        const kt_bench_stat *c = r->curves + s * r->curve_len;
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" points=\"",
                COLORS[s % KT_ARRAY_LEN(COLORS)]);
        for (size_t n = 0; n < r->curve_len; n++)
            fprintf(f, "%.1f,%.1f ",
                    L + (lx > 0 ? log((double)n + 1) / lx : 0) * (W - L - 10),
                    10 + (1 - c[n].mean) * (H - B - 10));
        fprintf(f, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">%s</text>\n", W + 10,
                20 + 16.0 * (double)s, COLORS[s % KT_ARRAY_LEN(COLORS)],
                r->rows[s * r->nbudgets].strategy);
    }
    fputs("</svg>\n", f);
    return fclose(f) == 0 ? CLI_OK : cli_error("cannot write '%s'", path);
}

/* What the benchmark works on: the spec at spec_path, or without one the
 * recording at replay (*rec) chosen by ro, whose spec is then the
 * recording's.  A CLI exit code, reported. */
static int cli_spec_or_recording(const char *spec_path, const char *replay,
                          const kt_recording_opts *ro, kt_spec **own, kt_recording **rec,
                          const kt_spec **spec)
{
    kt_diag diag = {{0}};
    int rc = spec_path ? kt_spec_load(spec_path, cli_warn, NULL, own, &diag)
                       : kt_recording_open(replay, ro, rec, &diag);
    if (rc != KT_OK)
        return cli_error("%s", diag.msg);
    *spec = spec_path ? *own : kt_recording_spec(*rec);
    return CLI_OK;
}

/* ------------------------------------------------------------------ run */

/* The benchmark on the recording: rec's replay, else the one DB holds for
 * spec. */
static int run_benchmark(const kt_spec *spec, const kt_recording *rec, bench_args *a)
{
    kt_problem *prob = NULL;
    kt_replay *rp = NULL;
    kt_diag d = {{0}};
    int rc = cli_problem_parse("benchmark", spec, a->problem, &prob);
    if (rc != CLI_OK)
        return rc;
    kt_bench_opts o = {.problem = a->problem, .strategies = a->nstrategies ? a->strategies
                                                                           : NULL,
                       .nstrategies = a->nstrategies, .budgets = a->budgets,
                       .nbudgets = a->nbudgets, .seeds = (unsigned)a->seeds,
                       .warm = (size_t)a->warm};
    kt_bench_report r;
    int krc = rec ? KT_OK
                  : kt_replay_open(a->replay, spec->name, spec->source_hash, prob->key,
                                   a->device, &rp, &d);
    o.replay = rec ? kt_recording_replay(rec) : rp;
    if (krc == KT_OK)
        krc = kt_benchmark(spec, &o, &r, &d);
    if (krc != KT_OK) {
        rc = cli_error("%s", d.msg);
    } else {
        if (a->json)
            print_json(spec, &r, o.seeds);
        else
            print_table(spec, &r, o.seeds);
        rc = a->svg ? write_svg(a->svg, &r) : CLI_OK;
        kt_bench_report_clear(&r);
    }
    kt_replay_free(rp);
    ktune_problem_free(prob);
    return rc;
}

int cli_benchmark(int argc, char **argv)
{
    bench_args a = {0};
    int rc = parse_args(argc, argv, &a);
    kt_spec *spec = NULL;
    kt_recording *rec = NULL;
    const kt_spec *used = NULL;
    kt_recording_opts ro = {.kernel = a.kernel, .problem = a.problem, .device = a.device};
    if (rc == CLI_OK)
        rc = cli_spec_or_recording(a.spec, a.replay, &ro, &spec, &rec, &used);
    if (rc == CLI_OK && rec)
        a.problem = NULL; /* the recorded one, chosen */
    if (rc == CLI_OK)
        rc = run_benchmark(used, rec, &a);
    kt_recording_free(rec);
    kt_spec_free(spec);
    free(a.list_text);
    return rc < 0 ? CLI_OK : rc;
}
