/* tune.c - `ktune tune`: run the tuner and report the best configuration. */
#include "cli/cli.h"
#include "core/util.h"
#include "ml/predict.h"
#include "store/recording.h"
#include "tune/tuner.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char USAGE[] =
    "usage: ktune tune SPEC [options]\n"
    "       ktune tune --replay FILE [options]\n\n"
    "Measure configurations of the kernel described by the T1 spec SPEC, store\n"
    "every result in the database, and print the best.  Configurations already\n"
    "in the database (same device, kernel source and problem) are not measured\n"
    "again, so an interrupted run resumes where it stopped.\n\n"
    "With --replay FILE and no SPEC, replay a recording: FILE is a ktune\n"
    "database or CSV export, a Kernel Tuner cache or a T4 results file (JSON,\n"
    "or JSON compressed with bzip2 or gzip, whose rows --cache DIR keeps for\n"
    "the next replay of it); its recorded configurations are the space (those\n"
    "recorded as invalid excepted; recorded failures are failed evaluations),\n"
    "each parameter's values ordered as the file lists them, else sorted.\n\n"
    "options:\n"
    "  --problem K=V,...   problem sizes, every problem parameter of the spec\n"
    "                      once (default: the spec's defaults)\n"
    "  --strategy NAME     search strategy (default " KT_STRATEGY_DEFAULT "):\n%s"
    "                        predict      only the --top K configurations a\n"
    "                                     trained --model predicts (constrained\n"
    "                                     beam search: all valid)\n"
    "                        predict+search  those first, then the default\n"
    "                                     strategy within the budget\n"
    "  --model MODEL       with predict: a model from 'ktune train' on this kernel\n"
    "  --top K             with predict: how many predictions (default 10)\n"
    "  --warm N            first evaluate the fastest configurations of up to N\n"
    "                      other problems of this kernel that the database (or\n"
    "                      the --replay recording) holds for this device,\n"
    "                      nearest problem first, at most a quarter of the\n"
    "                      budget (default %d; 0: start from scratch; not with\n"
    "                      brute_force or predict)\n"
    "  --budget N          evaluate at most N configurations (N%% for a fraction\n"
    "                      of the space); default: the spec's Budget, else all\n"
    "  --time S            stop starting new measurements after S seconds\n"
    "                      (with --budget: whichever comes first)\n"
    "  --db FILE           results database (default ktune.db)\n"
    "  --seed N            seed for the strategy and the input data (default 1)\n"
    "  --jobs N            parallel compilations, 1 to 1024 (default: number of\n"
    "                      CPUs)\n"
    "  --timeout S         cap one configuration's whole evaluation at S seconds\n"
    "                      (default: no cap; a batch of kernel calls that uses\n"
    "                      100 times the reference's time per call plus 1 s of\n"
    "                      processor time is a timeout either way)\n"
    "  --max-memory GIB    the kernel's buffers may take at most GIB gibibytes\n"
    "                      (default: half of this machine's memory); a larger\n"
    "                      problem is refused before anything is allocated\n"
    "  --retry-failed      measure again the configurations the database holds\n"
    "                      as failures (crash, timeout, ...); the new result\n"
    "                      replaces the stored one\n"
    "  --cache DIR         compiled-kernel cache (default .ktune-cache)\n"
    "  --energy-window S   run each configuration at least S seconds for its\n"
    "                      energy reading, where energy is readable (default 0.3;\n"
    "                      0: no energy)\n"
    "  --no-overlap        compile each batch fully before measuring it (default:\n"
    "                      a GPU measures each configuration as soon as it is\n"
    "                      built while the others compile)\n"
    "  --replay DB         answer every evaluation from the exhaustive run\n"
    "                      recorded in DB (same device, kernel source and\n"
    "                      problem) instead of running the kernel; nothing is\n"
    "                      stored.  A configuration DB lacks is an error\n"
    "  --device NAME       with --replay: the recorded device, when DB holds\n"
    "                      several\n"
    "  --kernel NAME       with --replay FILE and no SPEC: the recorded kernel,\n"
    "                      when the database FILE holds several (--problem and\n"
    "                      --device choose among its problems and devices)\n"
    "  --map               also report the map: the fastest configuration in each\n"
    "                      cell of the spec's BehaviourDimensions among all the\n"
    "                      run evaluated (default with --strategy map_elites)\n"
    "  --json              print one JSON object on stdout instead of text\n"
    "  --help              this text\n\n"
    "Ctrl-C (SIGINT) or SIGTERM stops the run after the configuration in flight\n"
    "and prints what it found (under --json, the same object with \"interrupted\");\n"
    "a second one stops it at once.\n\n"
    "exit status: 0 at least one configuration ran correctly; 1 an error, or\n"
    "none ran correctly; 2 bad usage; 130 stopped by SIGINT, 143 by SIGTERM.\n";

static void print_usage(void)
{
    char list[4096] = "";
    for (size_t i = 0; i < kt_strategy_count(); i++) {
        char line[160];
        snprintf(line, sizeof line, "                        %-12s %s\n",
                 kt_strategy_at(i)->name, kt_strategy_at(i)->summary);
        strncat(list, line, sizeof list - strlen(list) - 1);
    }
    printf(USAGE, list, KT_WARM_DEFAULT);
}

/* ------------------------------------------------------------ progress */

static void format_duration(double s, char *out, size_t n)
{
    if (!isfinite(s) || s < 0)
        snprintf(out, n, "--:--");
    else
        snprintf(out, n, "%d:%02d", (int)(s / 60), (int)fmod(s, 60));
}

/* A duration given in milliseconds, in the unit that suits it. */
static const char *format_time(double ms, char *out, size_t n)
{
    if (!isfinite(ms))
        snprintf(out, n, "none yet");
    else if (ms < 1e-3)
        snprintf(out, n, "%.4g ns", ms * 1e6);
    else if (ms < 1)
        snprintf(out, n, "%.4g us", ms * 1e3);
    else
        snprintf(out, n, "%.4g ms", ms);
    return out;
}

/* One line, redrawn in place: bar, done/total, best so far, ETA. */
static void draw_progress(void *user, const kt_progress *p)
{
    (void)user;
    enum { WIDTH = 24 };
    int filled = p->total ? (int)((double)WIDTH * (double)p->done / (double)p->total) : 0;
    char bar[WIDTH + 1], eta[16], best[32];
    format_time(p->best_ms, best, sizeof best);
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    format_duration(p->eta_s, eta, sizeof eta);
    fprintf(stderr, "\r[%s] %llu/%llu  best %s  failed %llu  ETA %s   ", bar,
            (unsigned long long)p->done, (unsigned long long)p->total, best,
            (unsigned long long)p->failed, eta);
    fflush(stderr);
}

/* -------------------------------------------------------------- report */

static double gflops(const kt_tune_report *r, double ms)
{
    return isfinite(r->flops) && ms > 0 ? r->flops / (ms * 1e-3) / 1e9 : NAN;
}

static json_object *result_json(const kt_tune_report *rep, const char *key,
                                const kt_result *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "config", cli_config_json(key));
    json_object_object_add(o, "key", json_object_new_string(key));
    json_object_object_add(o, "status", json_object_new_string(kt_status_name(r->status)));
    if (r->status == KT_STATUS_OK) {
        json_object_object_add(o, "time_ms", cli_json_double(r->time_ms));
        json_object_object_add(o, "min_ms", cli_json_double(r->min_ms));
        json_object_object_add(o, "spread", cli_json_double(r->spread));
        double g = gflops(rep, r->time_ms);
        if (isfinite(g))
            json_object_object_add(o, "gflops", json_object_new_double(g));
        if (isfinite(r->energy_j)) {
            json_object_object_add(o, "energy_j", json_object_new_double(r->energy_j));
            json_object_object_add(o, "power_w", json_object_new_double(r->power_w));
        }
        if (r->sm_clock_mhz > 0)
            json_object_object_add(o, "sm_clock_mhz",
                                   json_object_new_double(r->sm_clock_mhz));
    }
    return o;
}

/* Where the run's time went: the tuner's waits, and the worker's
 * evaluations phase by phase (inside "measure"). */
static json_object *phases_json(const kt_tune_report *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "compile_wait", json_object_new_double(r->compile_wait_s));
    json_object_object_add(o, "start", json_object_new_double(r->start_s));
    json_object_object_add(o, "measure", json_object_new_double(r->measure_s));
    json_object_object_add(o, "record", json_object_new_double(r->record_s));
    for (int p = 0; p < KT_PHASE_COUNT; p++)
        json_object_object_add(o, kt_worker_phase_name((kt_worker_phase)p),
                               json_object_new_double(r->phase_s[p]));
    return o;
}

static void print_json(const kt_spec *spec, const kt_tune_report *r, const char *replay,
                       const char *stopped)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "kernel", json_object_new_string(spec->name));
    json_object_object_add(o, "problem", json_object_new_string(r->problem));
    json_object_object_add(o, "device", json_object_new_string(r->device));
    json_object_object_add(o, "space_size", json_object_new_int64((int64_t)r->space_size));
    json_object_object_add(o, "space_sampled", json_object_new_boolean(r->space_sampled));
    json_object_object_add(o, "measured", json_object_new_int64((int64_t)r->measured));
    json_object_object_add(o, "cached", json_object_new_int64((int64_t)r->cached));
    json_object_object_add(o, "replay", replay ? json_object_new_string(replay) : NULL);
    json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
    json_object_object_add(o, "compile_wait_s", json_object_new_double(r->compile_wait_s));
    json_object_object_add(o, "seconds_by_phase", phases_json(r));
    json_object_object_add(o, "warm_starts", json_object_new_int64((int64_t)r->warm_starts));
    json_object_object_add(o, "interrupted",
                           stopped ? json_object_new_string(stopped) : NULL);
    json_object *counts = json_object_new_object();
    for (int s = 0; s < KT_STATUS_COUNT; s++)
        json_object_object_add(counts, kt_status_name((kt_status)s),
                               json_object_new_int64((int64_t)r->by_status[s]));
    json_object_object_add(o, "statuses", counts);
    json_object_object_add(o, "best", r->best_config
                                          ? result_json(r, r->best_config, &r->best)
                                          : NULL);
    json_object_object_add(o, "default",
                           r->default_skipped ? NULL
                                              : result_json(r, r->default_config,
                                                            &r->default_result));
    bool both = r->best_config && r->default_result.status == KT_STATUS_OK;
    json_object_object_add(o, "speedup",
                           both ? json_object_new_double(r->default_result.time_ms /
                                                         r->best.time_ms)
                                : NULL);
    if (r->map)
        json_object_object_add(o, "map", cli_map_json(r->map, r->flops));
    cli_json_print(o);
}

static void print_text(const kt_spec *spec, const kt_tune_report *r, const char *replay,
                       const char *stopped)
{
    printf("%s %s on %s: %llu valid configurations%s\n", spec->name, r->problem,
           r->device, (unsigned long long)r->space_size,
           r->space_sampled ? ", a uniform sample of a space too large to list" : "");
    if (replay)
        printf("replayed %llu from the recording %s in %.3f s:",
               (unsigned long long)r->measured, replay, r->seconds);
    else
        printf("evaluated %llu (%llu measured now, %llu from the database) in %.1f s:",
               (unsigned long long)(r->measured + r->cached),
               (unsigned long long)r->measured, (unsigned long long)r->cached,
               r->seconds);
    for (int s = 0; s < KT_STATUS_COUNT; s++)
        if (r->by_status[s])
            printf(" %llu %s", (unsigned long long)r->by_status[s],
                   kt_status_name((kt_status)s));
    printf("\n");
    if (stopped)
        printf("interrupted by %s: the budget was not spent\n", stopped);
    if (r->warm_starts)
        printf("started from the winners of %zu other problems of this kernel\n",
               r->warm_starts);
    if (!r->best_config) {
        printf("no configuration ran correctly\n");
        return;
    }
    char t1[32], t2[32];
    printf("best     %s\n         %s median (min %s", r->best_config,
           format_time(r->best.time_ms, t1, sizeof t1),
           format_time(r->best.min_ms, t2, sizeof t2));
    if (isfinite(r->best.spread)) /* an imported recording may not have it */
        printf(", spread %.1f%%", 100 * r->best.spread);
    printf(")");
    double g = gflops(r, r->best.time_ms);
    if (isfinite(g))
        printf(", %.1f GFLOP/s", g);
    if (isfinite(r->best.energy_j))
        printf(", %.4g J per call at %.0f W", r->best.energy_j, r->best.power_w);
    if (r->best.sm_clock_mhz > 0)
        printf(", SM clock %.0f MHz", r->best.sm_clock_mhz);
    printf("\n");
    const kt_result *d = &r->default_result;
    if (r->default_skipped) {
        printf("default  %s: not measured (only the predictions were)\n",
               r->default_config);
    } else if (d->status == KT_STATUS_OK) {
        printf("default  %s\n         %s", r->default_config,
               format_time(d->time_ms, t1, sizeof t1));
        if (isfinite(gflops(r, d->time_ms)))
            printf(", %.1f GFLOP/s", gflops(r, d->time_ms));
        printf("\nspeed-up %.2fx over the default configuration\n",
               d->time_ms / r->best.time_ms);
    } else {
        printf("default  %s: %s%s%s\n", r->default_config, kt_status_name(d->status),
               d->detail[0] ? ": " : "", d->detail);
    }
    if (r->map)
        cli_map_print(r->map, r->flops);
}

/* ------------------------------------------------------------- options */

static int parse_budget(const char *text, kt_budget *b)
{
    size_t n = strlen(text);
    double v;
    if (n > 1 && text[n - 1] == '%') {
        char num[64];
        snprintf(num, sizeof num, "%.*s", (int)(n - 1), text);
        if (cli_parse_double("tune", "--budget", num, &v) != CLI_OK)
            return CLI_USAGE;
        if (v > 100)
            return cli_usage_error("tune", "--budget %s is more than the whole space: "
                                   "give at most 100%%", text);
        *b = (kt_budget){KT_BUDGET_FRACTION, v / 100};
        return CLI_OK;
    }
    uint64_t count;
    if (cli_parse_u64("tune", "--budget", text, &count) != CLI_OK)
        return CLI_USAGE;
    *b = (kt_budget){KT_BUDGET_COUNT, (double)count};
    return count > 0 ? CLI_OK : cli_usage_error("tune", "--budget must be positive");
}

/* What the command line asks for beyond the tuner's options. */
typedef struct tune_args {
    kt_tune_opts o;
    bool json;
    bool db_given;
    const char *spec;
    const char *replay;     /* --replay DB */
    const char *device;     /* --device NAME */
    const char *kernel;     /* --kernel NAME */
    const char *model;      /* --model MODEL */
    uint64_t top;           /* --top K */
    bool strategy_given;    /* --strategy: else the spec's Search.Name */
} tune_args;

/* --energy-window: 0 (no energy) or up to a minute. */
static int parse_window(const char *text, double *out)
{
    if (strcmp(text, "0") == 0) {
        *out = 0;
        return CLI_OK;
    }
    int rc = cli_parse_double("tune", "--energy-window", text, out);
    if (rc == CLI_OK && *out > 60)
        rc = cli_usage_error("tune", "--energy-window must be 0 to 60 seconds");
    return rc;
}

/* --max-memory: gibibytes, from a mebibyte up to a pebibyte. */
static int parse_memory(const char *text, uint64_t *bytes)
{
    double gib = 0;
    int rc = cli_parse_double("tune", "--max-memory", text, &gib);
    if (rc == CLI_OK && !(gib >= 1.0 / 1024 && gib <= 1024 * 1024))
        rc = cli_usage_error("tune", "--max-memory must be 0.001 to 1048576 GiB");
    *bytes = (uint64_t)(gib * 1024 * 1024 * 1024);
    return rc;
}

/* --strategy: a registered strategy, or predict / predict+search. */
static int check_strategy(const char *name)
{
    if (kt_strategy_find(name) || strcmp(name, "predict") == 0 ||
        strcmp(name, "predict+search") == 0)
        return CLI_OK;
    return cli_usage_error("tune", "unknown strategy '%s'", name);
}

static int parse_option(int c, tune_args *a)
{
    kt_tune_opts *o = &a->o;
    uint64_t u = 0;
    int rc = CLI_OK;
    switch (c) {
    case 'p': o->problem = optarg; break;
    case 's':
        rc = check_strategy(optarg);
        o->strategy = optarg;
        a->strategy_given = true;
        break;
    case 'b': rc = parse_budget(optarg, &o->budget); break;
    case 't':
        rc = cli_parse_double("tune", "--time", optarg, &o->time_limit_s);
        if (rc == CLI_OK && !(o->time_limit_s > 0))
            rc = cli_usage_error("tune", "--time must be positive");
        break;
    case 'd': o->db_path = optarg; a->db_given = true; break;
    case 'S': rc = cli_parse_u64("tune", "--seed", optarg, &o->seed);
              o->measure.seed = o->seed; break;
    case 'j':
        rc = cli_parse_range("tune", "--jobs", optarg, 1, 1024, &u);
        o->backend.jobs = (int)u;
        break;
    case 'T':
        rc = cli_parse_double("tune", "--timeout", optarg, &o->measure.timeout_s);
        if (rc == CLI_OK && !(o->measure.timeout_s > 0))
            rc = cli_usage_error("tune", "--timeout must be positive");
        break;
    case 'X': rc = parse_memory(optarg, &o->measure.max_memory); break;
    case 'R': o->retry_failed = true; break;
    case 'c': o->backend.cache_dir = optarg; break;
    case 'O': o->no_overlap = true; break;
    case 'E': rc = parse_window(optarg, &o->measure.energy_window_s); break;
    case 'r': a->replay = optarg; break;
    case 'D': a->device = optarg; break;
    case 'K': a->kernel = optarg; break;
    case 'm': a->model = optarg; break;
    case 'k': rc = cli_parse_u64("tune", "--top", optarg, &a->top); break;
    case 'w':
        rc = cli_parse_u64("tune", "--warm", optarg, &u);
        if (rc == CLI_OK && u > 1000)
            rc = cli_usage_error("tune", "--warm must be 0 to 1000");
        o->warm = (size_t)u;
        break;
    case 'J': a->json = true; break;
    case 'M': o->map = true; break;
    default: rc = CLI_USAGE;
    }
    return rc;
}

static int parse_options(int argc, char **argv, tune_args *a)
{
    static const struct option LONG[] = {
        {"problem", required_argument, 0, 'p'}, {"strategy", required_argument, 0, 's'},
        {"budget", required_argument, 0, 'b'},  {"time", required_argument, 0, 't'},
        {"db", required_argument, 0, 'd'},      {"seed", required_argument, 0, 'S'},
        {"jobs", required_argument, 0, 'j'},    {"timeout", required_argument, 0, 'T'},
        {"cache", required_argument, 0, 'c'},   {"json", no_argument, 0, 'J'},
        {"no-overlap", no_argument, 0, 'O'},    {"energy-window", required_argument, 0, 'E'},
        {"replay", required_argument, 0, 'r'},  {"device", required_argument, 0, 'D'},
        {"model", required_argument, 0, 'm'},   {"top", required_argument, 0, 'k'},
        {"warm", required_argument, 0, 'w'},    {"map", no_argument, 0, 'M'},
        {"max-memory", required_argument, 0, 'X'}, {"retry-failed", no_argument, 0, 'R'},
        {"kernel", required_argument, 0, 'K'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c, rc = CLI_OK;
    optind = 1;
    while (rc == CLI_OK && (c = cli_getopt("tune", argc, argv, LONG)) != -1) {
        if (c == 'h') {
            print_usage();
            return -1;
        }
        rc = parse_option(c, a);
    }
    if (rc != CLI_OK)
        return rc;
    if (optind + 1 != argc && !(a->replay && optind == argc))
        return cli_usage_error("tune", "expected one SPEC file (or --replay FILE)");
    if (a->kernel && (optind != argc))
        return cli_usage_error("tune", "--kernel chooses a recording of --replay FILE "
                               "without a SPEC");
    if (a->replay && a->db_given)
        return cli_usage_error("tune", "--replay answers from its database and "
                               "stores nothing: drop --db");
    if (a->device && !a->replay)
        return cli_usage_error("tune", "--device chooses a recorded device: it "
                               "needs --replay");
    bool predict = a->o.strategy && (strcmp(a->o.strategy, "predict") == 0 ||
                                     strcmp(a->o.strategy, "predict+search") == 0);
    if (predict != (a->model != NULL))
        return cli_usage_error("tune", "--strategy predict and predict+search need "
                               "--model, and --model needs one of them");
    if (predict && optind == argc)
        return cli_usage_error("tune", "--strategy predict needs the SPEC that the "
                               "model was trained for");
    if (a->top != 0 && !predict)
        return cli_usage_error("tune", "--top is for --strategy predict");
    if (predict && (a->top == 0 ? (a->top = 10) : a->top) > 10000)
        return cli_usage_error("tune", "--top must be 1 to 10000");
    a->spec = optind < argc ? argv[optind] : NULL;
    a->o.map |= a->o.strategy && strcmp(a->o.strategy, "map_elites") == 0;
    return CLI_OK;
}

/* --replay DB: the recording of this spec's kernel for the problem. */
static int load_replay(const kt_spec *spec, const tune_args *a, const char *problem,
                       kt_replay **out, kt_diag *diag)
{
    return kt_replay_open(a->replay, spec->name, spec->source_hash, problem, a->device,
                          out, diag);
}

/* --strategy predict[+search]: the model's top configurations go first
 * (*cfgs, the caller frees); predict evaluates nothing else. */
static int predict_start(const kt_spec *spec, tune_args *a, const char *problem,
                         uint16_t **cfgs, kt_diag *diag)
{
    kt_model *m = NULL;
    size_t found = 0;
    int rc = kt_model_load(a->model, &m, diag);
    if (rc == KT_OK && !(*cfgs = malloc(a->top * (spec->nparams + 1) * sizeof **cfgs)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = kt_predict_configs(m, spec->path, problem, (size_t)a->top, *cfgs, &found,
                                diag);
    if (rc == KT_OK && found == 0)
        rc = kt_fail(diag, KT_ENOTFOUND, "%s predicts no valid configuration for "
                     "problem %s", a->model, problem);
    kt_model_free(m);
    a->o.start = *cfgs;
    a->o.nstart = found;
    a->o.start_only = strcmp(a->o.strategy, "predict") == 0;
    a->o.strategy = kt_tune_defaults().strategy;
    return rc;
}

/* The spec: SPEC's, or with --replay FILE alone the recording's (*rec),
 * whose problem is the recorded one (--problem chose it).  A CLI exit code,
 * reported. */
static int load_spec(tune_args *a, kt_spec **own, kt_recording **rec,
                     const kt_spec **spec)
{
    kt_recording_opts ro = {.kernel = a->kernel, .problem = a->o.problem,
                            .device = a->device, .cache_dir = a->o.backend.cache_dir};
    int rc = cli_spec_or_recording(a->spec, a->replay, &ro, own, rec, spec);
    if (rc == CLI_OK && *rec)
        a->o.problem = NULL;
    return rc;
}

/* The problem, the replay and the predictions the options ask for; a CLI
 * exit code, reported. */
static int prepare(const kt_spec *spec, tune_args *a, const kt_recording *rec,
                   kt_replay **replay, uint16_t **cfgs)
{
    kt_problem prob = {0};
    kt_diag diag = {{0}};
    int crc = cli_problem_parse("tune", spec, a->o.problem, &prob);
    if (crc != CLI_OK)
        return crc;
    int rc = a->replay && !rec ? load_replay(spec, a, prob.key, replay, &diag) : KT_OK;
    if (rc == KT_OK && a->model)
        rc = predict_start(spec, a, prob.key, cfgs, &diag);
    a->o.replay = rec ? kt_recording_replay(rec) : *replay;
    kt_problem_clear(&prob);
    return rc == KT_OK ? CLI_OK : cli_error("%s", diag.msg);
}

/* ------------------------------------------------------------- signals */

/* The signal that asked the run to stop, 0 while none has.  A handler can
 * reach only static storage, so this is the CLI's one mutable global; the
 * tuner reads it through kt_tune_opts.cancel before each evaluation. */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    static const char msg[] = "\nktune: stopping after the configuration in flight "
                              "(again to stop at once)\n";
    stop_signal = sig;
    ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)n;
}

/* SIGINT and SIGTERM stop the run cleanly, once: SA_RESETHAND makes the
 * second one kill.  SA_RESTART keeps the worker's and the compilers' system
 * calls from failing with EINTR.  An ignored SIGINT (a background job of a
 * shell without job control, nohup) stays ignored. */
static void catch_stop_signals(void)
{
    struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART | SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    struct sigaction old;
    if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static const char *signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/* Print the run's report; CLI_FAIL when no configuration ran correctly. */
static int report(const kt_spec *spec, const tune_args *a, const kt_tune_report *rep)
{
    const char *stopped = stop_signal ? signal_name(stop_signal) : NULL;
    if (a->json)
        print_json(spec, rep, a->replay, stopped);
    else
        print_text(spec, rep, a->replay, stopped);
    if (rep->best_config || stopped)
        return CLI_OK;
    char counts[256] = "";
    for (int s = 0; s < KT_STATUS_COUNT; s++)
        if (rep->by_status[s])
            snprintf(counts + strlen(counts), sizeof counts - strlen(counts), "%s%llu %s",
                     counts[0] ? ", " : "", (unsigned long long)rep->by_status[s],
                     kt_status_name((kt_status)s));
    return cli_error("no configuration ran correctly (%s)", counts[0] ? counts : "none "
                     "evaluated");
}

int cli_tune(int argc, char **argv)
{
    tune_args a = {.o = kt_tune_defaults()};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    a.o.backend.jobs = cpus > 0 ? (int)cpus : 1;
    int rc = parse_options(argc, argv, &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    kt_diag diag = {{0}};
    kt_spec *own = NULL;
    kt_recording *rec = NULL;
    const kt_spec *spec = NULL;
    kt_replay *replay = NULL;
    uint16_t *start = NULL;
    if ((rc = load_spec(&a, &own, &rec, &spec)) != CLI_OK) {
        kt_recording_free(rec);
        kt_spec_free(own);
        return rc;
    }
    if (!a.strategy_given && spec->strategy)
        a.o.strategy = spec->strategy;
    if ((rc = prepare(spec, &a, rec, &replay, &start)) != CLI_OK) {
        free(start);
        kt_replay_free(replay);
        kt_recording_free(rec);
        kt_spec_free(own);
        return rc;
    }
    bool bar = isatty(STDERR_FILENO);
    a.o.progress = bar ? draw_progress : NULL;
    a.o.cancel = &stop_signal;
    catch_stop_signals();
    kt_tune_report rep;
    int trc = kt_tune(spec, &a.o, &rep, &diag);
    if (bar && rep.measured + rep.cached > 0)
        fputc('\n', stderr);
    if (trc == KT_OK)
        rc = report(spec, &a, &rep);
    else
        rc = cli_error("%s", diag.msg);
    if (stop_signal)
        rc = 128 + stop_signal;
    kt_tune_report_clear(&rep);
    free(start);
    kt_replay_free(replay);
    kt_recording_free(rec);
    kt_spec_free(own);
    return rc;
}
