/* space.c - `ktune space`: count or list the valid configurations.
 *
 * Counting is exact at any size (the library multiplies independent groups
 * of parameters).  Long work reports progress on stderr, stops at a bound
 * on condition evaluations, and stops on Ctrl-C. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char USAGE[] =
    "usage: ktune space SPEC [--problem K=V,...] [--count | --list] [--stats]\n"
    "                        [--progress] [--max-evals N] [--json]\n\n"
    "  --problem K=V,...   problem sizes (default: the spec's defaults)\n"
    "  --count             print the number of valid configurations (default),\n"
    "                      exact at any size: parameters that share no condition\n"
    "                      are counted apart and their counts multiplied\n"
    "  --list              print every valid configuration, one per line\n"
    "  --stats             also print the Cartesian size, the groups of linked\n"
    "                      parameters, the tree nodes visited, the condition\n"
    "                      evaluations and the time taken\n"
    "  --progress          report progress on stderr (default: only when stderr\n"
    "                      is a terminal)\n"
    "  --max-evals N       stop with an error past N condition evaluations\n"
    "                      (default 50000000, a few seconds; 0: no bound)\n"
    "  --json              print one JSON object (the count; with --stats the\n"
    "                      figures too) or, with --list, an array of the\n"
    "                      configurations as objects\n"
    "  --help              this text\n\n"
    "Ctrl-C (SIGINT) or SIGTERM stops the work within milliseconds.\n\n"
    "exit status: 0 done; 1 an error, or the --max-evals bound reached; 2 bad\n"
    "usage; 130 stopped by SIGINT, 143 by SIGTERM.\n";

/* The signal that asked to stop.  A handler can only reach a static; the
 * library polls it through ktune_space_opts.cancel. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

/* Seconds on the monotonic clock. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What the progress line needs between calls. */
typedef struct progress_ctx {
    double start, last;  /* now() at the start and at the last line */
    bool tty;            /* stderr is a terminal: rewrite one line */
    bool shown;          /* a line was printed */
} progress_ctx;

static void print_progress(void *user, const ktune_space_progress *p)
{
    progress_ctx *pc = user;
    double t = now();
    if (t - pc->start < 0.5 || t - pc->last < (pc->tty ? 0.2 : 1.0))
        return;
    pc->last = t;
    pc->shown = true;
    char group[48] = "", bound[48] = "no bound";
    if (p->ngroups)
        snprintf(group, sizeof group, "group %zu of %zu, ", p->group, p->ngroups);
    if (p->max_evals != UINT64_MAX)
        snprintf(bound, sizeof bound, "at most %.0f M", (double)p->max_evals / 1e6);
    fprintf(stderr, "%sktune: space: %s%zu parameters, %.0f%% of the tree, %.1f M "
            "condition evaluations (%s), %.1f s%s", pc->tty ? "\r" : "", group,
            p->group_params, p->fraction * 100, (double)p->st.evals / 1e6, bound,
            t - pc->start, pc->tty ? "\033[K" : "\n");
}

/* What --list prints with: for --json the elements so far. */
typedef struct list_ctx {
    bool json;
    uint64_t printed;
} list_ctx;

static int print_config(void *user, const char *key)
{
    list_ctx *lc = user;
    if (!lc->json) {
        puts(key);
    } else {
        if (lc->printed == 0)
            putchar('[');
        cli_json_element(&lc->printed, cli_config_json(key));
    }
    return 0;
}

/* The parsed command line. */
typedef struct space_args {
    const char *path, *problem;
    bool list, stats, progress, json;
    uint64_t max_evals;  /* 0: no bound */
} space_args;

static int parse_args(int argc, char **argv, space_args *a)
{
    static const struct option LONG[] = {
        {"problem", required_argument, 0, 'p'}, {"count", no_argument, 0, 'c'},
        {"list", no_argument, 0, 'l'},          {"stats", no_argument, 0, 's'},
        {"progress", no_argument, 0, 'g'},      {"max-evals", required_argument, 0, 'm'},
        {"json", no_argument, 0, 'j'},          {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    *a = (space_args){.max_evals = KTUNE_SPACE_MAX_EVALS, .progress = isatty(2)};
    int c, rc = CLI_OK;
    optind = 1;
    while (rc == CLI_OK && (c = cli_getopt("space", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'p': a->problem = optarg; break;
        case 'c': a->list = false; break;
        case 'l': a->list = true; break;
        case 's': a->stats = true; break;
        case 'g': a->progress = true; break;
        case 'j': a->json = true; break;
        case 'm': rc = cli_parse_u64("space", "--max-evals", optarg, &a->max_evals); break;
        case 'h': fputs(USAGE, stdout); return -1;
        default: return CLI_USAGE;
        }
    }
    if (rc == CLI_OK && optind + 1 != argc)
        return cli_usage_error("space", "expected one SPEC file");
    a->path = argv[optind];
    return rc;
}

/* count: the exact count, or NULL when listing (st->valid then is). */
static void print_stats(const ktune_space *s, const ktune_space_stats *st,
                        const char *count, double dt)
{
    char cart[32], valid[24];
    ktune_space_cartesian(s, cart, sizeof cart);
    snprintf(valid, sizeof valid, "%llu", (unsigned long long)st->valid);
    fprintf(stderr, "cartesian %s, groups %zu, valid %s, nodes %llu, condition "
            "evaluations %llu, %.3f ms (%.1f M nodes/s)\n", cart, ktune_space_ngroups(s),
            count ? count : valid, (unsigned long long)st->nodes,
            (unsigned long long)st->evals, dt * 1e3, (double)st->nodes / dt / 1e6);
}

/* A count as a JSON number where it fits in 64 bits, else its digits as a
 * string (JSON numbers have no size limit, json-c's do). */
static json_object *count_json(const char *text)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    return errno || *end ? json_object_new_string(text) : json_object_new_uint64(n);
}

/* --json without --list: the count, and with --stats the figures. */
static void print_count_json(const space_args *a, const ktune_space *s,
                             const ktune_space_stats *st, const char *count, double dt)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "file", json_object_new_string(a->path));
    json_object_object_add(o, "count", count_json(count));
    if (a->stats) {
        char cart[32];
        ktune_space_cartesian(s, cart, sizeof cart);
        json_object_object_add(o, "cartesian", count_json(cart));
        json_object_object_add(o, "groups",
                               json_object_new_uint64(ktune_space_ngroups(s)));
        json_object_object_add(o, "nodes", json_object_new_uint64(st->nodes));
        json_object_object_add(o, "condition_evaluations",
                               json_object_new_uint64(st->evals));
        json_object_object_add(o, "seconds", json_object_new_double(dt));
    }
    cli_json_print(o);
}

/* Count or list (the bound, the cancel flag and progress are set on the
 * space, its progress lines drawn with pc). */
static int run_space(const space_args *a, ktune_space *space, progress_ctx *pc)
{
    pc->start = now();
    ktune_space_stats st = {0};
    ktune_diag diag = {{0}};
    char *count = NULL;
    list_ctx lc = {.json = a->json};
    int rc = a->list ? ktune_space_list(space, print_config, &lc, &st, &diag)
                     : ktune_space_count(space, &count, &st, &diag);
    double dt = now() - pc->start;
    if (pc->shown && pc->tty)
        fputs("\r\033[K", stderr);
    if (a->json && a->list && rc == KTUNE_OK)
        puts(lc.printed ? "\n]" : "[]");
    if (a->json && count)
        print_count_json(a, space, &st, count, dt);
    else if (count)
        puts(count);
    fflush(stdout);
    if (rc == KTUNE_OK && a->stats && !(a->json && count))
        print_stats(space, &st, count, dt);
    ktune_free(count);
    if (rc == KTUNE_ECANCELED) {
        cli_error("%s: interrupted by %s: %s", a->path,
                  stop_signal == SIGTERM ? "SIGTERM" : "SIGINT", diag.msg);
        return 128 + stop_signal; /* the shell's status for a death by signal */
    }
    if (rc == KTUNE_ERANGE)
        return cli_error("%s: %s, or raise the bound with --max-evals", a->path,
                         diag.msg);
    if (rc != KTUNE_OK)
        return cli_error("%s: %s", a->path, diag.msg);
    return CLI_OK;
}

/* Run the space with Ctrl-C and SIGTERM stopping it.  SA_RESETHAND: a
 * second Ctrl-C ends the process at once.  A SIGINT ignored on entry (a
 * background job) stays ignored. */
static int run_caught(const space_args *a, ktune_space *space, progress_ctx *pc)
{
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESETHAND}, old_int,
                     old_term;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, NULL, &old_int);
    if (old_int.sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, &old_term);
    int rc = run_space(a, space, pc);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}

int cli_space(int argc, char **argv)
{
    space_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    ktune_diag diag = {{0}};
    ktune_spec *spec = NULL;
    ktune_problem *prob = NULL;
    ktune_space *space = NULL;
    progress_ctx pc = {.tty = isatty(2)};
    ktune_space_opts so;
    ktune_space_opts_init(&so);
    so.max_evals = a.max_evals ? a.max_evals : UINT64_MAX;
    so.cancel = &stop_signal;
    so.progress = a.progress ? print_progress : NULL;
    so.user = &pc;
    /* a file without a kernel (BAT's MD, Reduction) still has a space */
    if (ktune_spec_load_space(a.path, cli_warn, NULL, &spec, &diag) != KTUNE_OK ||
        ktune_problem_parse(spec, a.problem, KTUNE_PROBLEM_PARTIAL, &prob, &diag) !=
            KTUNE_OK ||
        ktune_space_new(spec, prob, &so, &space, &diag) != KTUNE_OK)
        rc = cli_error("%s", diag.msg);
    else
        rc = run_caught(&a, space, &pc);
    ktune_space_free(space);
    ktune_problem_free(prob);
    ktune_spec_free(spec);
    return rc;
}
