/* db.c - `ktune db`: the best configurations, every row, or an export
 * (CSV, or Kernel Tuner's T4 results JSON). */
#include "cli/cli.h"
#include "core/util.h"
#include "store/db.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char USAGE[] =
    "usage: ktune db (best | list | export (csv | t4)) [options]\n\n"
    "  best                the fastest configuration per device, kernel, problem\n"
    "  list                every measurement, oldest first\n"
    "  export csv          every measurement as CSV on stdout\n"
    "  export t4           every measurement as T4 results JSON on stdout (Kernel\n"
    "                      Tuner's keys, times in ms, device and kernel per result)\n\n"
    "options:\n"
    "  --db FILE           results database (default ktune.db)\n"
    "  --kernel NAME       only this kernel\n"
    "  --problem KEY       only this problem (as printed, e.g. M=256,N=256,K=256)\n"
    "  --device NAME       only this device\n"
    "  --help              this text\n\n"
    CLI_EXIT_STATUS;

/* ------------------------------------------------------------ printers */

static void print_time(FILE *f, double v)
{
    if (isnan(v))
        fputs("", f);
    else
        fprintf(f, "%.6g", v);
}

static int row_text(void *user, const kt_db_row *row)
{
    (void)user;
    const kt_result *r = &row->result;
    printf("%s  %s  %s  %s  %s", row->kernel, row->problem, row->config,
           kt_status_name(r->status), row->device);
    if (r->status == KT_STATUS_OK && !isnan(r->time_ms))
        printf("  %.4g ms (spread %.1f%%)", r->time_ms, 100 * r->spread);
    else if (r->detail[0])
        printf("  %s", r->detail);
    printf("\n");
    return 0;
}

/* RFC 4180 quoting for fields that may hold commas or quotes. */
static void csv_field(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

static int row_csv(void *user, const kt_db_row *row)
{
    (void)user;
    const kt_result *r = &row->result;
    const char *text[] = {row->created, row->device, row->kernel, row->source_hash,
                          row->problem, row->config, kt_status_name(r->status)};
    for (size_t i = 0; i < KT_ARRAY_LEN(text); i++) {
        csv_field(text[i]);
        putchar(',');
    }
    const double nums[] = {r->time_ms, r->min_ms, r->spread, r->compile_ms,
                           r->energy_j, r->power_w,
                           r->sm_clock_mhz > 0 ? r->sm_clock_mhz : NAN};
    for (size_t i = 0; i < KT_ARRAY_LEN(nums); i++) {
        print_time(stdout, nums[i]);
        putchar(',');
    }
    printf("%d,", r->reps);
    csv_field(r->detail);
    putchar('\n');
    return 0;
}

static const char *t4_invalidity(kt_status s)
{
    switch (s) {
    case KT_STATUS_OK: return "correct";
    case KT_STATUS_COMPILE_ERROR: return "compile";
    case KT_STATUS_TIMEOUT: return "timeout";
    case KT_STATUS_WRONG_RESULT: return "correctness";
    case KT_STATUS_INVALID: return "constraints";
    default: return "runtime";
    }
}

/* The objective's value of a failed row, as Kernel Tuner writes it (its
 * methodology tool reads these strings as "no value"). */
static const char *t4_failure(kt_status s)
{
    switch (s) {
    case KT_STATUS_INVALID: return "InvalidConfig";
    case KT_STATUS_COMPILE_ERROR: return "CompilationFailedConfig";
    default: return "RuntimeFailedConfig";
    }
}

static json_object *measurement(const char *name, json_object *value, const char *unit)
{
    json_object *m = json_object_new_object();
    json_object_object_add(m, "name", json_object_new_string(name));
    json_object_object_add(m, "value", value);
    json_object_object_add(m, "unit", json_object_new_string(unit));
    return m;
}

/* Kernel Tuner's time keys, all in ms (the metadata says so): the
 * methodology tool sums those its experiment names.  ktune keeps neither
 * the repetitions nor its own overheads: runtimes is empty, benchmark is
 * the timed repetitions' total, the overheads 0. */
static json_object *t4_times(const kt_result *r)
{
    bool ok = r->status == KT_STATUS_OK;
    const double v[] = {isnan(r->compile_ms) ? 0 : r->compile_ms,
                        ok ? r->time_ms * r->reps : 0, 0, 0, 0};
    static const char *const KEYS[] = {"compilation", "benchmark", "framework",
                                       "search_algorithm", "validation"};
    json_object *times = json_object_new_object();
    for (size_t i = 0; i < KT_ARRAY_LEN(KEYS); i++)
        json_object_object_add(times, KEYS[i], json_object_new_double(v[i]));
    json_object_object_add(times, "runtimes", json_object_new_array());
    return times;
}

/* time (the objective: a failure's marker when there is none), energy,
 * power and clock where known. */
static json_object *t4_measurements(const kt_result *r)
{
    json_object *ms = json_object_new_array();
    bool ok = r->status == KT_STATUS_OK;
    json_object_array_add(ms, measurement("time", ok ? json_object_new_double(r->time_ms)
                                                     : json_object_new_string(
                                                           t4_failure(r->status)),
                                          "ms"));
    if (ok && !isnan(r->energy_j))
        json_object_array_add(ms, measurement("energy", json_object_new_double(r->energy_j),
                                              "J"));
    if (ok && !isnan(r->power_w))
        json_object_array_add(ms, measurement("power", json_object_new_double(r->power_w),
                                              "W"));
    if (ok && r->sm_clock_mhz > 0)
        json_object_array_add(ms, measurement("sm_clock",
                                              json_object_new_double(r->sm_clock_mhz),
                                              "MHz"));
    return ms;
}

static int row_t4(void *user, const kt_db_row *row)
{
    json_object *results = user, *o = json_object_new_object();
    const kt_result *r = &row->result;
    const char *keys[] = {"device", "kernel", "source_hash", "problem"};
    const char *values[] = {row->device, row->kernel, row->source_hash, row->problem};
    /* which measurements belong together: the schema has no place for it */
    for (size_t i = 0; i < KT_ARRAY_LEN(keys); i++)
        json_object_object_add(o, keys[i], json_object_new_string(values[i]));
    json_object_object_add(o, "timestamp", json_object_new_string(row->created));
    json_object_object_add(o, "configuration", cli_config_json(row->config));
    json_object_object_add(o, "times", t4_times(r));
    json_object_object_add(o, "invalidity",
                           json_object_new_string(t4_invalidity(r->status)));
    json_object_object_add(o, "correctness",
                           json_object_new_int(r->status != KT_STATUS_WRONG_RESULT));
    json_object_object_add(o, "measurements", t4_measurements(r));
    json_object *obj = json_object_new_array();
    json_object_array_add(obj, json_object_new_string("time"));
    json_object_object_add(o, "objectives", obj);
    json_object_array_add(results, o);
    return 0;
}

/* ------------------------------------------------------------- command */

/* A printer that counts its rows, so a filter nothing matches is told. */
typedef struct counted {
    kt_db_row_fn print;
    void *user;
    uint64_t rows;
} counted;

static int row_counted(void *user, const kt_db_row *row)
{
    counted *c = user;
    c->rows++;
    return c->print(c->user, row);
}

static int run_query(kt_db *db, const char *what, const char *format,
                     kt_db_filter *f, uint64_t *rows, kt_diag *diag)
{
    counted c = {row_text, NULL, 0};
    int rc;
    if (strcmp(what, "best") == 0) {
        rc = kt_db_best(db, f, row_counted, &c, diag);
        *rows = c.rows;
        return rc;
    }
    if (strcmp(format, "csv") == 0) {
        puts("created,device,kernel,source_hash,problem,config,status,time_ms,"
             "min_ms,spread,compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail");
        c.print = row_csv;
    }
    if (strcmp(what, "list") == 0 || strcmp(format, "csv") == 0) {
        rc = kt_db_list(db, f, row_counted, &c, diag);
        *rows = c.rows;
        return rc;
    }
    json_object *doc = json_object_new_object(), *results = json_object_new_array();
    json_object_object_add(doc, "schema_version", json_object_new_string("1.0.0"));
    json_object *meta = json_object_new_object();
    json_object_object_add(meta, "timeunit", json_object_new_string("milliseconds"));
    json_object_object_add(doc, "metadata", meta);
    json_object_object_add(doc, "results", results);
    c = (counted){row_t4, results, 0};
    rc = kt_db_list(db, f, row_counted, &c, diag);
    *rows = c.rows;
    if (rc == KT_OK)
        puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                     JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(doc);
    return rc;
}

int cli_db(int argc, char **argv)
{
    static const struct option LONG[] = {
        {"db", required_argument, 0, 'd'},     {"kernel", required_argument, 0, 'k'},
        {"problem", required_argument, 0, 'p'}, {"device", required_argument, 0, 'D'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    const char *path = "ktune.db";
    kt_db_filter f = {0};
    int c;
    optind = 1;
    while ((c = cli_getopt("db", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'd': path = optarg; break;
        case 'k': f.kernel = optarg; break;
        case 'p': f.problem = optarg; break;
        case 'D': f.device = optarg; break;
        case 'h': fputs(USAGE, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    const char *what = optind < argc ? argv[optind] : NULL;
    const char *format = optind + 1 < argc ? argv[optind + 1] : "";
    bool query = what && (strcmp(what, "best") == 0 || strcmp(what, "list") == 0);
    bool export = what && strcmp(what, "export") == 0 &&
                  (strcmp(format, "csv") == 0 || strcmp(format, "t4") == 0);
    if (!(query && optind + 1 == argc) && !(export && optind + 2 == argc))
        return cli_usage_error("db", "expected 'best', 'list', 'export csv' or "
                               "'export t4'");
    kt_diag diag = {{0}};
    kt_db *db = NULL;
    uint64_t rows = 0;
    int rc = kt_db_open_mode(path, KT_DB_EXISTING, &db, &diag); /* creates nothing */
    if (rc == KT_OK)
        rc = run_query(db, what, format, &f, &rows, &diag);
    kt_db_close(db);
    if (rc != KT_OK)
        return cli_error("%s", diag.msg);
    if (rows == 0 && (f.kernel || f.problem || f.device))
        return cli_error("nothing in '%s' matches%s%s%s%s%s%s (hint: 'ktune db best "
                         "--db %s' lists what it holds)", path,
                         f.kernel ? " --kernel " : "", f.kernel ? f.kernel : "",
                         f.problem ? " --problem " : "", f.problem ? f.problem : "",
                         f.device ? " --device " : "", f.device ? f.device : "", path);
    return CLI_OK;
}
