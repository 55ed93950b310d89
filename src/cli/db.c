/* db.c - `ktune db`: the best configurations, every row, the stored
 * time/energy fronts, an export (CSV,
 * Kernel Tuner's T4 results JSON, or a Kernel Tuner cache file),
 * databases merged into one (repeated readings as their mean), or two
 * recordings of the same configurations read against each other. */
#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: ktune db (best | list | front | export (csv | t4 | t4-metadata |\n"
    "                kerneltuner)) [options]\n"
    "       ktune db merge OUT.db IN.db... [--mean] [--json]\n"
    "       ktune db retest A.db B.db [--kernel NAME] [--problem KEY] [--device NAME]\n"
    "                [--json]\n\n"
    "  best                the fastest configuration per device, kernel, problem\n"
    "  list                every measurement, oldest first\n"
    "  front               the time/energy front that each pareto run stored\n"
    "                      (tune --objective pareto) per device, kernel,\n"
    "                      problem, fastest first, with each row's energy\n"
    "  export csv          every measurement as CSV on stdout\n"
    "  export t4           every measurement as T4 results JSON on stdout (Kernel\n"
    "                      Tuner's keys, times in ms, device and kernel per result)\n"
    "  export t4-metadata  the T4 metadata file of those results: the devices\n"
    "                      measured, the operating system, ktune's version\n"
    "  export kerneltuner  the measurements of one device, kernel and problem as a\n"
    "                      Kernel Tuner cache file (its simulation mode replays it)\n"
    "  retest              two recordings of the same configurations (a space tuned\n"
    "                      twice, into two databases) read against each other:\n"
    "                      for time, energy and power, the configurations ok in\n"
    "                      both, the pairs' relative difference (root mean\n"
    "                      square), the median offset of A's readings over B's,\n"
    "                      the spread over configurations, and the R-squared a\n"
    "                      perfect model of one reading would reach; the pairs\n"
    "                      must be of one device, kernel and problem\n\n"
    "options:\n"
    "  --db FILE           results database (default ktune.db)\n"
    "  --kernel NAME       only this kernel\n"
    "  --problem KEY       only this problem (as printed, e.g. M=256,N=256,K=256)\n"
    "  --device NAME       only this device\n"
    "  --json              best, list, front: the rows as a JSON array on stdout, with\n"
    "                      every column of 'export csv' (the exports t4,\n"
    "                      t4-metadata and kerneltuner are JSON already);\n"
    "                      merge: what each input added, as a JSON array (with\n"
    "                      --mean, a last object: what OUT averaged)\n"
    "  --mean              merge: store each configuration's successful readings\n"
    "                      (OUT's and each input's row) as one row of their\n"
    "                      mean time, energy, power and clock, and their least\n"
    "                      min_ms: repeated runs of the same space average out\n"
    "                      a noisy reading (NVML's energy); a database of means\n"
    "                      counts as one reading; rows of another source version\n"
    "                      of the kernel are other code and stay apart (counted)\n"
    "  --help              this text\n\n"
    CLI_EXIT_STATUS;

/* A row of 'best', 'list' and 'front' as text; energy too where user (a
 * bool) asks. */
static int row_text(void *user, const ktune_row *row)
{
    const bool *energy = user;
    const ktune_result *r = &row->result;
    printf("%s  %s  %s  %s  %s", row->kernel, row->problem, row->config,
           ktune_status_name(r->status), row->device);
    if (r->status == KTUNE_STATUS_OK && !isnan(r->time_ms))
        printf("  %.4g ms (spread %.1f%%)", r->time_ms, 100 * r->spread);
    if (r->status == KTUNE_STATUS_OK && *energy && !isnan(r->energy_j))
        printf("  %.4g J", r->energy_j);
    if (r->status != KTUNE_STATUS_OK && r->detail[0])
        printf("  %s", r->detail);
    printf("\n");
    return 0;
}

/* best, list and front as text, or (json) as the JSON export of the same
 * rows; the exports (format checked by the caller). */
static int run_query(ktune_db *db, const char *what, const char *format, bool json,
                     ktune_query *q, uint64_t *rows, ktune_diag *diag)
{
    ktune_export_format fmt = KTUNE_EXPORT_JSON;
    q->best = strcmp(what, "best") == 0;
    q->front = strcmp(what, "front") == 0;
    if (strcmp(what, "export") == 0)
        ktune_export_format_parse(format, &fmt);
    if (strcmp(what, "export") == 0 || json)
        return ktune_db_export(db, fmt, q, stdout, rows, diag);
    return ktune_db_query(db, q, row_text, &q->front, rows, diag);
}

/* One input's line of 'merge', or its JSON object. */
static void merge_print(const char *path, const ktune_merge_stats *st, json_object *list)
{
    if (!list) {
        printf("%s: %llu rows, %llu added, %llu failures replaced by successes\n", path,
               (unsigned long long)st->rows, (unsigned long long)st->added,
               (unsigned long long)st->replaced);
        return;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "input", json_object_new_string(path));
    json_object_object_add(o, "rows", json_object_new_int64((int64_t)st->rows));
    json_object_object_add(o, "added", json_object_new_int64((int64_t)st->added));
    json_object_object_add(o, "replaced", json_object_new_int64((int64_t)st->replaced));
    json_object_array_add(list, o);
}

/* merge --mean's last line, or its JSON object after the inputs'. */
static void mean_print(const char *out, const ktune_mean_stats *m, json_object *list)
{
    if (!list) {
        printf("averaged %llu configurations (%llu readings)\n",
               (unsigned long long)m->averaged, (unsigned long long)m->readings);
        if (m->versions)
            printf("%llu configurations are under two or more source versions of their kernel:"
                   " other code, kept apart, not averaged together\n",
                   (unsigned long long)m->versions);
        return;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "output", json_object_new_string(out));
    json_object_object_add(o, "averaged", json_object_new_int64((int64_t)m->averaged));
    json_object_object_add(o, "readings", json_object_new_int64((int64_t)m->readings));
    json_object_object_add(o, "versions", json_object_new_int64((int64_t)m->versions));
    json_object_array_add(list, o);
}

/* merge --mean of the n inputs at paths into db (at out): the inputs' lines
 * come once the means are stored (ktune_db_merge_mean checks every input
 * first), then the means'. */
static int merge_mean(ktune_db *db, const char *out, int n, char **paths,
                      json_object *list, ktune_diag *diag)
{
    ktune_merge_stats *st = calloc((size_t)n, sizeof *st);
    ktune_mean_stats m;
    if (!st)
        return snprintf(diag->msg, sizeof diag->msg, "out of memory"), KTUNE_ENOMEM;
    int rc = ktune_db_merge_mean(db, (const char *const *)paths, (size_t)n, st, &m, diag);
    for (int i = 0; rc == KTUNE_OK && i < n; i++)
        merge_print(paths[i], &st[i], list);
    if (rc == KTUNE_OK)
        mean_print(out, &m, list);
    free(st);
    return rc;
}

/* One reading's line of 'retest', or its JSON object in o. */
static void retest_print(const char *name, const ktune_retest_stat *s, json_object *o)
{
    if (o) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "pairs", json_object_new_int64((int64_t)s->pairs));
        json_object_object_add(e, "rms", cli_json_double(s->rms));
        json_object_object_add(e, "offset", cli_json_double(s->offset));
        json_object_object_add(e, "spread", cli_json_double(s->spread));
        json_object_object_add(e, "r2_ceiling", cli_json_double(s->r2_ceiling));
        json_object_object_add(o, name, e);
    } else if (s->pairs) {
        printf("%-7s %7llu %9.2f%% %+8.2f%% %8.2f%% %11.3f\n", name,
               (unsigned long long)s->pairs, 100 * s->rms, 100 * s->offset,
               100 * s->spread, s->r2_ceiling);
    } else {
        printf("%-7s %7d  (no pair has it)\n", name, 0);
    }
}

/* retest A B: the two recordings read against each other. */
static int retest(int n, char **paths, const ktune_query *f, bool json)
{
    if (n != 2)
        return cli_usage_error("db", "retest needs A.db and B.db");
    ktune_db *a = NULL, *b = NULL;
    ktune_retest r;
    ktune_diag diag = {{0}};
    int rc = ktune_db_open(paths[0], 0, &a, &diag);
    if (rc == KTUNE_OK)
        rc = ktune_db_open(paths[1], 0, &b, &diag);
    if (rc == KTUNE_OK)
        rc = ktune_db_retest(a, b, f, &r, &diag);
    ktune_db_close(a);
    ktune_db_close(b);
    if (rc != KTUNE_OK)
        return cli_error("retest %s %s: %s", paths[0], paths[1], diag.msg);
    json_object *o = json ? json_object_new_object() : NULL;
    if (o) {
        json_object_object_add(o, "a", json_object_new_string(paths[0]));
        json_object_object_add(o, "b", json_object_new_string(paths[1]));
    } else {
        printf("%s against %s\nreading   pairs  retest rms    offset    spread  R2 ceiling\n",
               paths[0], paths[1]);
    }
    retest_print("time", &r.time, o);
    retest_print("energy", &r.energy, o);
    retest_print("power", &r.power, o);
    if (o)
        cli_json_print(o);
    else if (r.time.pairs)
        printf("one time reading's noise: %.2g (ktune analyze --reading-noise)\n",
               r.time.rms / sqrt(2));
    return CLI_OK;
}

/* merge OUT IN...: each input in turn; the first that fails stops it (the
 * inputs before it stay merged); with mean, ktune_db_merge_mean's. */
static int merge(int n, char **paths, bool mean, bool json)
{
    if (n < 2)
        return cli_usage_error("db", "merge needs OUT.db and at least one IN.db");
    ktune_diag diag = {{0}};
    ktune_db *db = NULL;
    json_object *list = json ? json_object_new_array() : NULL;
    int rc = ktune_db_open(paths[0], KTUNE_DB_CREATE, &db, &diag);
    if (rc == KTUNE_OK && mean)
        rc = merge_mean(db, paths[0], n - 1, paths + 1, list, &diag);
    for (int i = 1; rc == KTUNE_OK && !mean && i < n; i++) {
        ktune_merge_stats st;
        if ((rc = ktune_db_merge(db, paths[i], &st, &diag)) == KTUNE_OK)
            merge_print(paths[i], &st, list);
    }
    ktune_db_close(db);
    if (rc != KTUNE_OK) {
        json_object_put(list);
        return cli_error("%s", diag.msg);
    }
    if (list)
        cli_json_print(list);
    return CLI_OK;
}

int cli_db(int argc, char **argv)
{
    static const struct option LONG[] = {
        {"db", required_argument, 0, 'd'},     {"kernel", required_argument, 0, 'k'},
        {"problem", required_argument, 0, 'p'}, {"device", required_argument, 0, 'D'},
        {"json", no_argument, 0, 'J'},          {"mean", no_argument, 0, 'M'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    static const char default_path[] = "ktune.db";
    const char *path = default_path;
    ktune_query f;
    ktune_query_init(&f);
    bool json = false, mean = false;
    int c;
    optind = 1;
    while ((c = cli_getopt("db", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'd': path = optarg; break;
        case 'k': f.kernel = optarg; break;
        case 'p': f.problem = optarg; break;
        case 'D': f.device = optarg; break;
        case 'J': json = true; break;
        case 'M': mean = true; break;
        case 'h': fputs(USAGE, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    const char *what = optind < argc ? argv[optind] : NULL;
    if (what && strcmp(what, "merge") == 0) {
        if (f.kernel || f.problem || f.device || path != default_path)
            return cli_usage_error("db", "merge takes OUT.db IN.db..., --mean and "
                                   "--json only");
        return merge(argc - optind - 1, argv + optind + 1, mean, json);
    }
    if (mean)
        return cli_usage_error("db", "--mean: only 'merge' averages");
    if (what && strcmp(what, "retest") == 0)
        return path != default_path
                   ? cli_usage_error("db", "retest reads A.db and B.db, not --db")
                   : retest(argc - optind - 1, argv + optind + 1, &f, json);
    const char *format = optind + 1 < argc ? argv[optind + 1] : "";
    bool query = what && (strcmp(what, "best") == 0 || strcmp(what, "list") == 0 ||
                          strcmp(what, "front") == 0);
    bool export = what && strcmp(what, "export") == 0 &&
                  (strcmp(format, "csv") == 0 || strcmp(format, "t4") == 0 ||
                   strcmp(format, "t4-metadata") == 0 ||
                   strcmp(format, "kerneltuner") == 0);
    if (!(query && optind + 1 == argc) && !(export && optind + 2 == argc))
        return cli_usage_error("db", "expected 'best', 'list', 'front', 'export csv', "
                               "'export t4', 'export t4-metadata', "
                               "'export kerneltuner', 'merge' or 'retest'");
    if (json && strcmp(format, "csv") == 0)
        return cli_usage_error("db", "--json: 'export csv' writes CSV; 'db list --json' "
                               "gives the same rows as JSON");
    ktune_diag diag = {{0}};
    ktune_db *db = NULL;
    uint64_t rows = 0;
    int rc = ktune_db_open(path, 0, &db, &diag); /* creates nothing */
    if (rc == KTUNE_OK)
        rc = run_query(db, what, format, json && query, &f, &rows, &diag);
    ktune_db_close(db);
    if (rc != KTUNE_OK)
        return cli_error("%s", diag.msg);
    if (rows == 0 && f.front)
        return cli_error("no time/energy front in '%s'%s (hint: 'ktune tune --objective "
                         "pareto' stores one)", path,
                         f.kernel || f.problem || f.device ? " for that filter" : "");
    if (rows == 0 && (f.kernel || f.problem || f.device))
        return cli_error("nothing in '%s' matches%s%s%s%s%s%s (hint: 'ktune db best "
                         "--db %s' lists what it holds)", path,
                         f.kernel ? " --kernel " : "", f.kernel ? f.kernel : "",
                         f.problem ? " --problem " : "", f.problem ? f.problem : "",
                         f.device ? " --device " : "", f.device ? f.device : "", path);
    return CLI_OK;
}
