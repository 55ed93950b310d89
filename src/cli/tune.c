/* tune.c - `ktune tune`: run the tuner and report the best configuration. */
#include "cli.h"

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
    "  --strategy NAME     search strategy (default " KTUNE_STRATEGY_DEFAULT "):\n%s"
    "                        predict      only the --top K configurations a\n"
    "                                     trained --model predicts (constrained\n"
    "                                     beam search: all valid)\n"
    "                        predict+search  those first, then the default\n"
    "                                     strategy within the budget\n"
    "  --model MODEL       with predict: a model from 'ktune train' on this kernel\n"
    "  --top K             with predict: how many predictions (default 10);\n"
    "                      with --warm-from: how many of its configurations\n"
    "  --warm-from FILES   recordings of this kernel on other devices (comma-\n"
    "                      separated, as --replay takes): first evaluate the\n"
    "                      --top K configurations valid here of best mean\n"
    "                      fraction of each device's optimum (transfer across\n"
    "                      devices; replaces --warm; not with predict)\n"
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
    "  --shard K/N         evaluate only the K-th of N disjoint shares of the\n"
    "                      space (1 <= K <= N; every N-th valid configuration\n"
    "                      from the K-th): the N jobs of an array cover it\n"
    "                      once, each into its own --db, joined by 'ktune db\n"
    "                      merge'; the strategy and --budget work in the share\n"
    "  --rank-timeout S    under mpirun: a rank silent for S seconds is taken as\n"
    "                      dead and its configurations go to the others\n"
    "                      (default 30)\n"
    "  --seed N            seed for the strategy and the input data (default 1)\n"
    "  --jobs N            parallel compilations, 1 to 1024 (default: number of\n"
    "                      CPUs)\n"
    "  --timeout S         cap one configuration's whole evaluation at S seconds\n"
    "                      (default: no cap; a batch of kernel calls that uses\n"
    "                      100 times the reference's time per call plus 1 s of\n"
    "                      processor time is a timeout either way)\n"
    "  --hang-factor F     that 100 (1 to 1e9): raise it where calls run far slower\n"
    "                      than measured, as under a profiler that replays each\n"
    "                      kernel (Nsight Compute)\n"
    "  --max-memory GIB    the kernel's buffers may take at most GIB gibibytes\n"
    "                      (default: half of this machine's memory); a larger\n"
    "                      problem is refused before anything is allocated\n"
    "  --retry-failed      measure again the configurations the database holds\n"
    "                      as failures (crash, timeout, ...); the new result\n"
    "                      replaces the stored one\n"
    "  --cache DIR         compiled-kernel cache (default .ktune-cache)\n"
    "  --platform NAME     an OpenCL kernel runs on the first OpenCL platform\n"
    "                      whose name contains NAME, in any case (\"NVIDIA\",\n"
    "                      \"Portable\" for PoCL); default: the first platform\n"
    "                      with a device ('ktune devices' lists them)\n"
    "  --energy-window S   run each configuration at least S seconds for its\n"
    "                      energy reading, where energy is readable (default 1\n"
    "                      with an --objective that reads energy or a map along\n"
    "                      measured energy or power, else 0.3; 0: no energy)\n"
    "  --energy-warmup S   before the first energy reading on each device, run that\n"
    "                      configuration's kernel S seconds, so that the first\n"
    "                      configurations are read at the chip's working\n"
    "                      temperature like the later ones (default 15; 0: none)\n"
    "  --no-overlap        compile each batch fully before measuring it (default:\n"
    "                      a GPU measures each configuration as soon as it is\n"
    "                      built while the others compile)\n"
    "  --devices LIST      measure on these device ordinals (e.g. 0,1; each once,\n"
    "                      0 to 63): one worker per device, each taking the next\n"
    "                      built configuration as it frees up (default: one\n"
    "                      worker on device 0; on the CPU backend the workers\n"
    "                      share the machine: faster, noisier times)\n"
    "  --replay DB         answer every evaluation from the exhaustive run\n"
    "                      recorded in DB (same device, kernel source and\n"
    "                      problem) instead of running the kernel; nothing is\n"
    "                      stored.  A configuration DB lacks is an error.  DB\n"
    "                      may also be any file --replay FILE takes whose\n"
    "                      parameters are SPEC's, in SPEC's order (a Kernel\n"
    "                      Tuner cache of the same kernel's space)\n"
    "  --device NAME       with --replay: the recorded device, when DB holds\n"
    "                      several\n"
    "  --kernel NAME       with --replay FILE and no SPEC: the recorded kernel,\n"
    "                      when the database FILE holds several (--problem and\n"
    "                      --device choose among its problems and devices)\n"
    "  --objective NAME    what to minimise per kernel call: time (default),\n"
    "                      energy, edp (energy times time), or pareto (report\n"
    "                      the time/energy front of what the run evaluated,\n"
    "                      and mark it in the database; the search follows the\n"
    "                      EDP); all but time need every correct result's\n"
    "                      energy (NVML on NVIDIA GPUs, RAPL on CPUs)\n"
    "  --map               also report the map: the best configuration by the\n"
    "                      objective (the fastest for time and pareto) in each\n"
    "                      cell of the spec's BehaviourDimensions among all the\n"
    "                      run evaluated (default with --strategy map_elites)\n"
    "  --json              print one JSON object on stdout instead of text\n"
    "  --help              this text\n\n"
    "Under 'mpirun --enable-recovery -n N' (N > 1), rank 0 runs the strategy and\n"
    "stores every result in --db; ranks 1 to N-1 compile and measure what it\n"
    "hands them, each on its own device (README, \"On a cluster\").\n\n"
    "Ctrl-C (SIGINT) or SIGTERM stops the run after the configuration in flight\n"
    "and prints what it found (under --json, the same object with \"interrupted\");\n"
    "a second one stops it at once.\n\n"
    "exit status: 0 at least one configuration ran correctly; 1 an error, or\n"
    "none ran correctly; 2 bad usage; 130 stopped by SIGINT, 143 by SIGTERM.\n";

static void print_usage(void)
{
    char list[4096] = "";
    ktune_strategy_info s;
    for (size_t i = 0; ktune_strategy_at(i, &s) == KTUNE_OK; i++) {
        char line[160];
        snprintf(line, sizeof line, "                        %-12s %s\n", s.name,
                 s.summary);
        if (!s.needs_model) /* USAGE says how those take --model and --top */
            strncat(list, line, sizeof list - strlen(list) - 1);
    }
    printf(USAGE, list, KTUNE_WARM_DEFAULT);
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
static void draw_progress(void *user, const ktune_progress *p)
{
    *(bool *)user = true; /* a line to end */
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

static double gflops(const ktune_run_info *r, double ms)
{
    return isfinite(r->flops) && ms > 0 ? r->flops / (ms * 1e-3) / 1e9 : NAN;
}

static json_object *result_json(const ktune_run_info *rep, const char *key,
                                const ktune_result *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "config", cli_config_json(key));
    json_object_object_add(o, "key", json_object_new_string(key));
    json_object_object_add(o, "status",
                           json_object_new_string(ktune_status_name(r->status)));
    if (r->status == KTUNE_STATUS_OK) {
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
static json_object *phases_json(const ktune_run *run)
{
    json_object *o = json_object_new_object();
    const char *name;
    double s;
    for (size_t i = 0; ktune_run_phase(run, i, &name, &s) == KTUNE_OK; i++)
        json_object_object_add(o, name, json_object_new_double(s));
    return o;
}

/* The front of a pareto run, fastest first; NULL with another objective. */
static json_object *front_json(const ktune_run *run)
{
    const ktune_run_info *r = ktune_run_summary(run);
    size_t n = ktune_run_front_count(run);
    json_object *a = n ? json_object_new_array() : NULL;
    const char *key;
    ktune_result res;
    for (size_t i = 0; i < n && ktune_run_front(run, i, &key, &res) == KTUNE_OK; i++)
        json_object_array_add(a, result_json(r, key, &res));
    return a;
}

static void print_json(const ktune_run *run, const char *replay, const char *stopped,
                       ktune_objective objective)
{
    const ktune_run_info *r = ktune_run_summary(run);
    const char *best_key, *def_key;
    ktune_result best, def;
    bool has_best = ktune_run_best(run, &best_key, &best) == KTUNE_OK;
    bool has_def = ktune_run_default(run, &def_key, &def) == KTUNE_OK;
    double compile_wait = 0;
    const char *name;
    ktune_run_phase(run, 0, &name, &compile_wait);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "kernel", json_object_new_string(r->kernel));
    json_object_object_add(o, "problem", json_object_new_string(r->problem));
    json_object_object_add(o, "device", json_object_new_string(r->device));
    json_object_object_add(o, "space_size", json_object_new_int64((int64_t)r->space_size));
    json_object_object_add(o, "space_sampled", json_object_new_boolean(r->space_sampled));
    json_object_object_add(o, "measured", json_object_new_int64((int64_t)r->measured));
    json_object_object_add(o, "cached", json_object_new_int64((int64_t)r->cached));
    json_object_object_add(o, "replay", replay ? json_object_new_string(replay) : NULL);
    json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
    json_object_object_add(o, "compile_wait_s", json_object_new_double(compile_wait));
    json_object_object_add(o, "seconds_by_phase", phases_json(run));
    json_object_object_add(o, "warm_starts", json_object_new_int64((int64_t)r->warm_starts));
    json_object_object_add(o, "interrupted",
                           stopped ? json_object_new_string(stopped) : NULL);
    json_object *counts = json_object_new_object();
    for (int s = 0; s < KTUNE_STATUS_COUNT; s++)
        json_object_object_add(counts, ktune_status_name((ktune_status)s),
                               json_object_new_int64((int64_t)r->by_status[s]));
    json_object_object_add(o, "statuses", counts);
    json_object_object_add(o, "best", has_best ? result_json(r, best_key, &best) : NULL);
    json_object_object_add(o, "default", has_def ? result_json(r, def_key, &def) : NULL);
    json_object_object_add(o, "speedup", cli_json_double(ktune_run_speedup(run)));
    json_object_object_add(o, "objective",
                           json_object_new_string(ktune_objective_name(objective)));
    json_object_object_add(o, "no_energy", json_object_new_int64((int64_t)r->no_energy));
    json_object_object_add(o, "energy_window_s", json_object_new_double(r->energy_window_s));
    if (objective == KTUNE_OBJECTIVE_PARETO)
        json_object_object_add(o, "front", front_json(run));
    if (ktune_run_map(run))
        json_object_object_add(o, "map", cli_map_json(ktune_run_map(run), r->flops));
    cli_json_print(o);
}

/* The best configuration's line after its key. */
static void print_best(const ktune_run_info *r, const ktune_result *best)
{
    char t1[32], t2[32];
    printf("         %s median (min %s", format_time(best->time_ms, t1, sizeof t1),
           format_time(best->min_ms, t2, sizeof t2));
    if (isfinite(best->spread)) /* an imported recording may not have it */
        printf(", spread %.1f%%", 100 * best->spread);
    printf(")");
    double g = gflops(r, best->time_ms);
    if (isfinite(g))
        printf(", %.1f GFLOP/s", g);
    if (isfinite(best->energy_j))
        printf(", %.4g J per call at %.0f W", best->energy_j, best->power_w);
    if (best->sm_clock_mhz > 0)
        printf(", SM clock %.0f MHz", best->sm_clock_mhz);
    printf("\n");
}

static void print_default(const ktune_run *run, const ktune_tune_opts *o)
{
    const ktune_run_info *r = ktune_run_summary(run);
    const char *key;
    ktune_result d;
    char t1[32];
    if (ktune_run_default(run, &key, &d) != KTUNE_OK) {
        if (key)
            printf("default  %s: not measured (only the predictions were)\n", key);
    } else if (d.status == KTUNE_STATUS_OK) {
        printf("default  %s\n         %s", key, format_time(d.time_ms, t1, sizeof t1));
        if (isfinite(gflops(r, d.time_ms)))
            printf(", %.1f GFLOP/s", gflops(r, d.time_ms));
        if (isfinite(d.energy_j))
            printf(", %.4g J per call", d.energy_j);
        printf("\nspeed-up %.2fx over the default configuration\n",
               ktune_run_speedup(run));
    } else if (o->shards > 1 && d.status == KTUNE_STATUS_INVALID) {
        printf("default  %s: not in this share\n", key);
    } else {
        printf("default  %s: %s%s%s\n", key, ktune_status_name(d.status),
               d.detail[0] ? ": " : "", d.detail);
    }
}

/* A pareto run's front, one line per point, fastest first. */
static void print_front(const ktune_run *run)
{
    size_t n = ktune_run_front_count(run);
    const char *key;
    ktune_result res;
    char t[32], e[32];
    printf("front    %zu configuration%s, none both faster and more frugal than "
           "another (fastest first):\n", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n && ktune_run_front(run, i, &key, &res) == KTUNE_OK; i++)
    {
        snprintf(e, sizeof e, "%.4g J", res.energy_j);
        printf("         %-10s %-12s %s\n", format_time(res.time_ms, t, sizeof t), e, key);
    }
}

static void print_text(const ktune_run *run, const ktune_tune_opts *o, const char *stopped)
{
    const ktune_run_info *r = ktune_run_summary(run);
    const char *replay = o->replay;
    ktune_objective objective = o->objective;
    printf("%s %s on %s: %llu valid configurations%s", r->kernel, r->problem,
           r->device, (unsigned long long)r->space_size,
           r->space_sampled ? ", a uniform sample of a space too large to list" : "");
    if (o->shards > 1)
        printf(" in share %u of %u", o->shard, o->shards);
    printf("\n");
    if (replay)
        printf("replayed %llu from the recording %s in %.3f s:",
               (unsigned long long)r->measured, replay, r->seconds);
    else
        printf("evaluated %llu (%llu measured now, %llu from the database) in %.1f s:",
               (unsigned long long)(r->measured + r->cached),
               (unsigned long long)r->measured, (unsigned long long)r->cached,
               r->seconds);
    for (int s = 0; s < KTUNE_STATUS_COUNT; s++)
        if (r->by_status[s])
            printf(" %llu %s", (unsigned long long)r->by_status[s],
                   ktune_status_name((ktune_status)s));
    printf("\n");
    if (stopped)
        printf("interrupted by %s: the budget was not spent\n", stopped);
    if (r->no_energy)
        printf("%llu correct without an energy reading: not ranked\n",
               (unsigned long long)r->no_energy);
    if (r->warm_starts)
        printf("started from the winners of %zu other problems of this kernel\n",
               r->warm_starts);
    const char *best_key;
    ktune_result best;
    if (ktune_run_best(run, &best_key, &best) != KTUNE_OK) {
        printf("no configuration ran correctly\n");
        return;
    }
    if (objective == KTUNE_OBJECTIVE_TIME)
        printf("best     %s\n", best_key);
    else
        printf("best     %s (least %s)\n", best_key,
               objective == KTUNE_OBJECTIVE_ENERGY ? "energy per call"
                                                   : "energy-delay product");
    print_best(r, &best);
    print_default(run, o);
    if (objective == KTUNE_OBJECTIVE_PARETO)
        print_front(run);
    if (ktune_run_map(run))
        cli_map_print(ktune_run_map(run), r->flops);
}

/* ------------------------------------------------------------- options */

static int parse_budget(const char *text, ktune_tune_opts *o)
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
        o->budget_kind = KTUNE_BUDGET_FRACTION;
        o->budget = v / 100;
        return CLI_OK;
    }
    uint64_t count;
    if (cli_parse_u64("tune", "--budget", text, &count) != CLI_OK)
        return CLI_USAGE;
    o->budget_kind = KTUNE_BUDGET_COUNT;
    o->budget = (double)count;
    return count > 0 ? CLI_OK : cli_usage_error("tune", "--budget must be positive");
}

/* --shard K/N: two decimal numbers, 1 <= K <= N <= a million. */
static int parse_shard(const char *text, ktune_tune_opts *o)
{
    static const char DIGITS[] = "0123456789";
    size_t nk = strspn(text, DIGITS);
    size_t nn = text[nk] == '/' ? strspn(text + nk + 1, DIGITS) : 0;
    unsigned long k = nk && nk < 8 ? strtoul(text, NULL, 10) : 0;
    unsigned long n = nn && nn < 8 && !text[nk + 1 + nn] ? strtoul(text + nk + 1, NULL, 10)
                                                          : 0;
    if (k < 1 || k > n || n > 1000000)
        return cli_usage_error("tune", "--shard '%s': expected K/N, the K-th of N "
                               "shares of the space, with 1 <= K <= N <= 1000000", text);
    o->shard = (unsigned)k;
    o->shards = (unsigned)n;
    return CLI_OK;
}

/* What the command line asks for beyond the tuner's options. */
#define MAX_DEVICES 64   /* --devices: ordinals 0 to 63 */

typedef struct tune_args {
    ktune_tune_opts o;
    bool json;
    bool db_given;
    const char *spec;
    uint64_t top;           /* --top K */
    const char *warm_from;  /* --warm-from FILES */
    int devices[MAX_DEVICES]; /* --devices LIST */
    ktune_warn_fn warn;     /* the spec's and the run's warnings; NULL: none */
} tune_args;

/* --devices: comma-separated ordinals, each once. */
static int parse_devices(const char *text, tune_args *a)
{
    ktune_tune_opts *o = &a->o;
    o->ndevices = 0;
    o->devices = a->devices;
    for (const char *p = text;; p++) {
        size_t len = strcspn(p, ",");
        char one[32];
        uint64_t u = 0;
        if (len == 0 || len >= sizeof one)
            return cli_usage_error("tune", "--devices expects device ordinals separated "
                                   "by commas (e.g. 0,1), not '%s'", text);
        memcpy(one, p, len);
        one[len] = '\0';
        int rc = cli_parse_range("tune", "--devices", one, 0, MAX_DEVICES - 1, &u);
        if (rc != CLI_OK)
            return rc;
        for (size_t i = 0; i < o->ndevices; i++)
            if (a->devices[i] == (int)u)
                return cli_usage_error("tune", "--devices lists device %d twice",
                                       (int)u);
        a->devices[o->ndevices++] = (int)u;
        p += len;
        if (!*p)
            return CLI_OK;
    }
}

/* --energy-window (0: no energy, up to a minute) and --energy-warmup (0:
 * none, up to ten minutes): 0, or positive seconds up to max. */
static int parse_seconds(const char *option, const char *text, double max, double *out)
{
    if (strcmp(text, "0") == 0) {
        *out = 0;
        return CLI_OK;
    }
    int rc = cli_parse_double("tune", option, text, out);
    if (rc == CLI_OK && *out > max)
        rc = cli_usage_error("tune", "%s must be 0 to %g seconds", option, max);
    return rc;
}

/* --hang-factor: 1 to a billion. */
static int parse_hang_factor(const char *text, double *out)
{
    int rc = cli_parse_double("tune", "--hang-factor", text, out);
    if (rc == CLI_OK && !(*out >= 1 && *out <= 1e9))
        rc = cli_usage_error("tune", "--hang-factor must be 1 to 1e9, not %s", text);
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

/* --strategy: one of the library's table. */
static int check_strategy(const char *name)
{
    ktune_diag diag;
    if (ktune_strategy_find(name, NULL, &diag) == KTUNE_OK)
        return CLI_OK;
    return cli_usage_error("tune", "%s", diag.msg);
}

static int parse_option(int c, tune_args *a)
{
    ktune_tune_opts *o = &a->o;
    uint64_t u = 0;
    int rc = CLI_OK;
    switch (c) {
    case 'p': o->problem = optarg; break;
    case 's':
        rc = check_strategy(optarg);
        o->strategy = optarg;
        break;
    case 'b': rc = parse_budget(optarg, o); break;
    case 't':
        rc = cli_parse_double("tune", "--time", optarg, &o->time_limit_s);
        if (rc == CLI_OK && !(o->time_limit_s > 0))
            rc = cli_usage_error("tune", "--time must be positive");
        break;
    case 'd': o->db_path = optarg; a->db_given = true; break;
    case 'S': rc = cli_parse_u64("tune", "--seed", optarg, &o->seed); break;
    case 'j':
        rc = cli_parse_range("tune", "--jobs", optarg, 1, 1024, &u);
        o->jobs = (int)u;
        break;
    case 'T':
        rc = cli_parse_double("tune", "--timeout", optarg, &o->timeout_s);
        if (rc == CLI_OK && !(o->timeout_s > 0))
            rc = cli_usage_error("tune", "--timeout must be positive");
        break;
    case 'X': rc = parse_memory(optarg, &o->max_memory); break;
    case 'R': o->retry_failed = true; break;
    case 'c': o->cache_dir = optarg; break;
    case 'P': o->platform = optarg; break;
    case 'O': o->no_overlap = true; break;
    case 'E': rc = parse_seconds("--energy-window", optarg, 60, &o->energy_window_s); break;
    case 'U': rc = parse_seconds("--energy-warmup", optarg, 600, &o->energy_warmup_s); break;
    case 'A': rc = parse_hang_factor(optarg, &o->hang_factor); break;
    case 'r': o->replay = optarg; break;
    case 'D': o->device = optarg; break;
    case 'K': o->kernel = optarg; break;
    case 'm': o->model = optarg; break;
    case 'k': rc = cli_parse_u64("tune", "--top", optarg, &a->top); break;
    case 'w':
        rc = cli_parse_u64("tune", "--warm", optarg, &u);
        if (rc == CLI_OK && u > 1000)
            rc = cli_usage_error("tune", "--warm must be 0 to 1000");
        o->warm = (size_t)u;
        break;
    case 'F': a->warm_from = optarg; break;
    case 'H': rc = parse_shard(optarg, o); break;
    case 'G': rc = parse_devices(optarg, a); break;
    case 'W':
        rc = cli_parse_double("tune", "--rank-timeout", optarg, &o->rank_timeout_s);
        if (rc == CLI_OK && !(o->rank_timeout_s >= 1 && o->rank_timeout_s <= 86400))
            rc = cli_usage_error("tune", "--rank-timeout must be 1 to 86400 seconds");
        break;
    case 'J': a->json = true; break;
    case 'M': o->map = true; break;
    case 'o':
        if (ktune_objective_parse(optarg, &o->objective) != KTUNE_OK)
            rc = cli_usage_error("tune", "unknown objective '%s' (time, energy, edp "
                                 "or pareto)", optarg);
        break;
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
        {"objective", required_argument, 0, 'o'}, {"warm-from", required_argument, 0, 'F'},
        {"shard", required_argument, 0, 'H'},   {"devices", required_argument, 0, 'G'},
        {"platform", required_argument, 0, 'P'},
        {"rank-timeout", required_argument, 0, 'W'},
        {"energy-warmup", required_argument, 0, 'U'},
        {"hang-factor", required_argument, 0, 'A'},
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
    if (optind + 1 != argc && !(a->o.replay && optind == argc))
        return cli_usage_error("tune", "expected one SPEC file (or --replay FILE)");
    if (a->o.kernel && (optind != argc))
        return cli_usage_error("tune", "--kernel chooses a recording of --replay FILE "
                               "without a SPEC");
    if (a->o.replay && a->db_given)
        return cli_usage_error("tune", "--replay answers from its database and "
                               "stores nothing: drop --db");
    if (a->o.device && !a->o.replay)
        return cli_usage_error("tune", "--device chooses a recorded device: it "
                               "needs --replay");
    ktune_strategy_info info = {0};
    bool predict = a->o.strategy &&
                   ktune_strategy_find(a->o.strategy, &info, NULL) == KTUNE_OK &&
                   info.needs_model;
    if (predict != (a->o.model != NULL))
        return cli_usage_error("tune", "--strategy predict and predict+search need "
                               "--model, and --model needs one of them");
    if (predict && optind == argc)
        return cli_usage_error("tune", "--strategy predict needs the SPEC that the "
                               "model was trained for");
    if (predict && a->warm_from)
        return cli_usage_error("tune", "--warm-from starts a search: not with --strategy "
                               "predict or predict+search");
    if (a->top != 0 && !predict && !a->warm_from)
        return cli_usage_error("tune", "--top is for --strategy predict or --warm-from");
    if ((predict || a->warm_from) && (a->top == 0 ? (a->top = 10) : a->top) > 10000)
        return cli_usage_error("tune", "--top must be 1 to 10000");
    a->o.top = (size_t)a->top;
    a->spec = optind < argc ? argv[optind] : NULL;
    return CLI_OK;
}

/* SPEC, with a complete --problem (a usage error otherwise); NULL
 * without SPEC: the recording is the spec.  A CLI exit code, reported. */
static int load_spec(const tune_args *a, ktune_spec **spec)
{
    ktune_diag diag = {{0}};
    ktune_problem *prob = NULL;
    if (!a->spec)
        return CLI_OK;
    if (ktune_spec_load(a->spec, a->warn, NULL, spec, &diag) != KTUNE_OK)
        return cli_error("%s", diag.msg);
    int rc = cli_problem_parse("tune", *spec, a->o.problem, &prob);
    ktune_problem_free(prob);
    return rc;
}

/* ------------------------------------------------------------- signals */

/* The signal that asked the run to stop, 0 while none has.  A handler can
 * reach only static storage, so this is the CLI's one mutable global; the
 * tuner reads it through ktune_tune_opts.cancel before each evaluation. */
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
static int report(const tune_args *a, const ktune_run *run)
{
    const char *stopped = stop_signal ? signal_name(stop_signal) : NULL;
    const ktune_run_info *rep = ktune_run_summary(run);
    const char *key;
    ktune_result best;
    if (a->json)
        print_json(run, a->o.replay, stopped, a->o.objective);
    else
        print_text(run, &a->o, stopped);
    if (ktune_run_best(run, &key, &best) == KTUNE_OK || stopped)
        return CLI_OK;
    char counts[256] = "";
    for (int s = 0; s < KTUNE_STATUS_COUNT; s++)
        if (rep->by_status[s])
            snprintf(counts + strlen(counts), sizeof counts - strlen(counts), "%s%llu %s",
                     counts[0] ? ", " : "", (unsigned long long)rep->by_status[s],
                     ktune_status_name((ktune_status)s));
    return cli_error("no configuration ran correctly (%s)", counts[0] ? counts : "none "
                     "evaluated");
}

/* The run of this process, one rank of mpi's job or alone (mpi NULL). */
static int tune_in_job(tune_args *a, ktune_mpi *mpi)
{
    ktune_diag diag = {{0}};
    ktune_spec *spec = NULL;
    int rc = load_spec(a, &spec);
    if (rc != CLI_OK) {
        ktune_spec_free(spec);
        return rc;
    }
    bool bar = isatty(STDERR_FILENO), drawn = false;
    a->o.progress = bar ? draw_progress : NULL;
    a->o.user = &drawn;
    a->o.cancel = &stop_signal;
    a->o.warn = a->warn;
    a->o.mpi = mpi;
    catch_stop_signals();
    ktune_transfer *transfer = NULL;
    if (a->warm_from && (rc = cli_transfer_open("tune", "--warm-from", a->warm_from,
                                                a->o.cache_dir, &transfer)) != CLI_OK) {
        ktune_spec_free(spec);
        return rc;
    }
    a->o.transfer = transfer;
    ktune_run *run = NULL;
    int trc = ktune_tune(spec, &a->o, &run, &diag);
    if (drawn)
        fputc('\n', stderr);
    if (trc == KTUNE_OK && ktune_mpi_rank(mpi) > 0)
        fprintf(stderr, "ktune: rank %d measured %llu configurations on %s\n",
                ktune_mpi_rank(mpi), (unsigned long long)ktune_run_summary(run)->measured,
                ktune_run_summary(run)->device);
    else if (trc == KTUNE_OK)
        rc = report(a, run);
    else if (ktune_mpi_size(mpi) > 1)
        rc = cli_error("rank %d: %s", ktune_mpi_rank(mpi), diag.msg);
    else
        rc = cli_error("%s", diag.msg);
    ktune_run_free(run);
    ktune_transfer_free(transfer);
    ktune_spec_free(spec);
    return rc;
}

int cli_tune(int argc, char **argv)
{
    tune_args a = {0};
    ktune_tune_opts_init(&a.o);
    int rc = parse_options(argc, argv, &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    ktune_diag diag = {{0}};
    ktune_mpi *mpi = NULL;
    if (ktune_mpi_open(&mpi, &diag) != KTUNE_OK)
        return cli_error("%s", diag.msg);
    /* Every rank runs the same command: rank 0 alone says what the spec
     * and the run warn of, once. */
    a.warn = ktune_mpi_rank(mpi) > 0 ? NULL : cli_warn;
    rc = tune_in_job(&a, mpi);
    ktune_mpi_close(mpi);
    return stop_signal ? 128 + stop_signal : rc;
}
