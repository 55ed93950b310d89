/* db.c - `ktune db`: the best configurations, every row, or an export
 * (CSV, Kernel Tuner's T4 results JSON, or a Kernel Tuner cache file). */
#include "cli/cli.h"
#include "core/util.h"
#include "store/db.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static const char USAGE[] =
    "usage: ktune db (best | list | export (csv | t4 | t4-metadata | kerneltuner))\n"
    "                [options]\n\n"
    "  best                the fastest configuration per device, kernel, problem\n"
    "  list                every measurement, oldest first\n"
    "  export csv          every measurement as CSV on stdout\n"
    "  export t4           every measurement as T4 results JSON on stdout (Kernel\n"
    "                      Tuner's keys, times in ms, device and kernel per result)\n"
    "  export t4-metadata  the T4 metadata file of those results: the devices\n"
    "                      measured, the operating system, ktune's version\n"
    "  export kerneltuner  the measurements of one device, kernel and problem as a\n"
    "                      Kernel Tuner cache file (its simulation mode replays it)\n\n"
    "options:\n"
    "  --db FILE           results database (default ktune.db)\n"
    "  --kernel NAME       only this kernel\n"
    "  --problem KEY       only this problem (as printed, e.g. M=256,N=256,K=256)\n"
    "  --device NAME       only this device\n"
    "  --json              best, list: the rows as a JSON array on stdout, with\n"
    "                      every column of 'export csv' (the exports t4,\n"
    "                      t4-metadata and kerneltuner are JSON already)\n"
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

/* A row as --json gives it: the columns of export csv, the configuration
 * also as an object; null for what is unknown.  user counts those printed. */
static int row_json(void *user, const kt_db_row *row)
{
    const kt_result *r = &row->result;
    json_object *o = json_object_new_object();
    const char *keys[] = {"created", "device", "kernel", "source_hash", "problem", "key"};
    const char *text[] = {row->created, row->device, row->kernel, row->source_hash,
                          row->problem, row->config};
    for (size_t i = 0; i < KT_ARRAY_LEN(keys); i++)
        json_object_object_add(o, keys[i], json_object_new_string(text[i]));
    json_object_object_add(o, "config", cli_config_json(row->config));
    json_object_object_add(o, "status", json_object_new_string(kt_status_name(r->status)));
    const char *nkeys[] = {"time_ms", "min_ms", "spread", "compile_ms", "energy_j",
                           "power_w", "sm_clock_mhz"};
    const double nums[] = {r->time_ms, r->min_ms, r->spread, r->compile_ms,
                           r->energy_j, r->power_w,
                           r->sm_clock_mhz > 0 ? r->sm_clock_mhz : NAN};
    for (size_t i = 0; i < KT_ARRAY_LEN(nkeys); i++)
        json_object_object_add(o, nkeys[i], cli_json_double(nums[i]));
    json_object_object_add(o, "reps", json_object_new_int(r->reps));
    json_object_object_add(o, "detail", json_object_new_string(r->detail));
    if (*(uint64_t *)user == 0)
        putchar('[');
    cli_json_element(user, o);
    return 0;
}

/* The end of the array that row_json streams; none printed: "[]", unless
 * a filter matched nothing (an error, with nothing on stdout). */
static int json_close(int rc, uint64_t printed, const kt_db_filter *f)
{
    if (rc == KT_OK && printed)
        puts("\n]");
    else if (rc == KT_OK && !(f->kernel || f->problem || f->device))
        puts("[]");
    return rc;
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

/* A T4 result, streamed as row_json's rows. */
static int row_t4(void *user, const kt_db_row *row)
{
    json_object *o = json_object_new_object();
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
    cli_json_element(user, o);
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

/* ---------------------------------------------------- Kernel Tuner cache */

/* A cache file is of one device, kernel and problem: the first row's. */
typedef struct kt_cache {
    json_object *doc, *params, *cache;
    char *device, *kernel, *problem;
    bool mixed;             /* a row of another group was met */
} kt_cache;

/* A configuration value as Kernel Tuner has it: a number, a bool (Python
 * prints True, False), else a string. */
static json_object *value_json(const char *text)
{
    char *end;
    double d = strtod(text, &end);
    if (strcmp(text, "True") == 0 || strcmp(text, "False") == 0)
        return json_object_new_boolean(text[0] == 'T');
    if (*end || end == text)
        return json_object_new_string(text);
    return d == (double)(long long)d ? json_object_new_int64((long long)d)
                                     : json_object_new_double(d);
}

/* problem_size: the problem key's values (one: a number). */
static void cache_header(kt_cache *c, const kt_db_row *row, char **names, size_t n)
{
    c->device = kt_strdup(row->device);
    c->kernel = kt_strdup(row->kernel);
    c->problem = kt_strdup(row->problem);
    json_object_object_add(c->doc, "device_name", json_object_new_string(row->device));
    json_object_object_add(c->doc, "kernel_name", json_object_new_string(row->kernel));
    char **pn, **pv;
    size_t np;
    if (*row->problem && kt_key_fields(row->problem, &pn, &pv, &np) == KT_OK) {
        json_object *ps = np == 1 ? value_json(pv[0]) : json_object_new_array();
        for (size_t i = 0; np > 1 && i < np; i++)
            json_object_array_add(ps, value_json(pv[i]));
        json_object_object_add(c->doc, "problem_size", ps);
        kt_key_fields_free(pn, pv, np);
    }
    json_object *keys = json_object_new_array();
    c->params = json_object_new_object();
    for (size_t i = 0; i < n; i++) {
        json_object_array_add(keys, json_object_new_string(names[i]));
        json_object_object_add(c->params, names[i], json_object_new_array());
    }
    json_object_object_add(c->doc, "tune_params_keys", keys);
    json_object_object_add(c->doc, "tune_params", c->params);
    json_object_object_add(c->doc, "objective", json_object_new_string("time"));
    c->cache = json_object_new_object();
    json_object_object_add(c->doc, "cache", c->cache);
}

/* Add value to the parameter's list of values unless it is there. */
static void add_param_value(kt_cache *c, const char *name, const char *value)
{
    json_object *list = NULL;
    if (!json_object_object_get_ex(c->params, name, &list))
        return;
    json_object *v = value_json(value);
    for (size_t i = 0; i < json_object_array_length(list); i++)
        if (json_object_equal(json_object_array_get_idx(list, i), v)) {
            json_object_put(v);
            return;
        }
    json_object_array_add(list, v);
}

/* A stored date "2022-12-23T12:11:26.411Z" as Kernel Tuner writes its
 * entries' (Python's str() of a UTC datetime), which its import reads back:
 * "2022-12-23 12:11:26.411000+00:00".  Any other text is kept. */
static json_object *kerneltuner_time(const char *created)
{
    char out[40];
    if (strlen(created) != 24 || created[10] != 'T' || created[23] != 'Z')
        return json_object_new_string(created);
    snprintf(out, sizeof out, "%.10s %.12s000+00:00", created, created + 11);
    return json_object_new_string(out);
}

/* An entry as Kernel Tuner writes it: the parameters, time (or a
 * failure's marker) and its overheads in ms, the clock as its NVML
 * observer names it. */
static json_object *cache_entry(const kt_db_row *row, char **names, char **values,
                                size_t n)
{
    const kt_result *r = &row->result;
    bool ok = r->status == KT_STATUS_OK;
    json_object *e = json_object_new_object();
    for (size_t i = 0; i < n; i++)
        json_object_object_add(e, names[i], value_json(values[i]));
    json_object_object_add(e, "time", ok ? json_object_new_double(r->time_ms)
                                         : json_object_new_string(t4_failure(r->status)));
    json_object_object_add(e, "times", json_object_new_array());
    if (ok && !isnan(r->energy_j))
        json_object_object_add(e, "energy", json_object_new_double(r->energy_j));
    if (ok && !isnan(r->power_w))
        json_object_object_add(e, "power", json_object_new_double(r->power_w));
    if (ok && r->sm_clock_mhz > 0)
        json_object_object_add(e, "core_freq", json_object_new_double(r->sm_clock_mhz));
    const char *keys[] = {"compile_time", "verification_time", "benchmark_time",
                          "strategy_time", "framework_time"};
    const double v[] = {isnan(r->compile_ms) ? 0 : r->compile_ms, 0,
                        ok ? r->time_ms * r->reps : 0, 0, 0};
    for (size_t i = 0; i < KT_ARRAY_LEN(keys); i++)
        json_object_object_add(e, keys[i], json_object_new_double(v[i]));
    json_object_object_add(e, "timestamp", kerneltuner_time(row->created));
    return e;
}

static int row_cache(void *user, const kt_db_row *row)
{
    kt_cache *c = user;
    char **names, **values;
    size_t n;
    if (c->device && (strcmp(c->device, row->device) != 0 ||
                      strcmp(c->kernel, row->kernel) != 0 ||
                      strcmp(c->problem, row->problem) != 0))
        return c->mixed = true;
    if (kt_key_fields(row->config, &names, &values, &n) != KT_OK)
        return 0; /* stored keys are checked: not reached */
    if (!c->device)
        cache_header(c, row, names, n);
    kt_buf key = {0};
    kt_buf_append(&key, "");
    for (size_t i = 0; i < n; i++) {
        kt_buf_appendf(&key, "%s%s", i ? "," : "", values[i]);
        add_param_value(c, names[i], values[i]);
    }
    char *k = kt_buf_take(&key);
    if (k)
        json_object_object_add(c->cache, k, cache_entry(row, names, values, n));
    free(k);
    kt_key_fields_free(names, values, n);
    return 0;
}

static int export_cache(kt_db *db, kt_db_filter *f, uint64_t *rows, kt_diag *diag)
{
    kt_cache cache = {.doc = json_object_new_object()};
    counted c = {row_cache, &cache, 0};
    int rc = kt_db_list(db, f, row_counted, &c, diag);
    *rows = c.rows;
    if (rc == KT_OK && cache.mixed)
        rc = kt_fail(diag, KT_EINVAL, "the rows are of more than one device, kernel or "
                     "problem, and a Kernel Tuner cache holds one: choose with --device, "
                     "--kernel and --problem (ktune db best lists them)");
    if (rc == KT_OK && cache.device)
        cli_json_print(json_object_get(cache.doc));
    json_object_put(cache.doc);
    free(cache.device);
    free(cache.kernel);
    free(cache.problem);
    return rc;
}

/* ------------------------------------------------------------ T4 metadata */

/* Each device's name once, in the order first measured. */
static int row_device(void *user, const kt_db_row *row)
{
    json_object *devices = user, *d;
    for (size_t i = 0; i < json_object_array_length(devices); i++) {
        json_object_object_get_ex(json_object_array_get_idx(devices, i), "name", &d);
        if (strcmp(json_object_get_string(d), row->device) == 0)
            return 0;
    }
    d = json_object_new_object();
    json_object_object_add(d, "name", json_object_new_string(row->device));
    json_object_array_add(devices, d);
    return 0;
}

/* The T4 metadata file: what the schema asks for that ktune knows. */
static int export_t4_metadata(kt_db *db, kt_db_filter *f, uint64_t *rows,
                              kt_diag *diag)
{
    json_object *devices = json_object_new_array();
    counted c = {row_device, devices, 0};
    int rc = kt_db_list(db, f, row_counted, &c, diag);
    *rows = c.rows;
    struct utsname u;
    json_object *hw = json_object_new_object(), *env = json_object_new_object();
    json_object_object_add(hw, "operating_system",
                           json_object_new_string(uname(&u) == 0 ? u.sysname : "unknown"));
    json_object_object_add(hw, "hardware_description", devices);
    json_object *query = json_object_new_object(), *reqs = json_object_new_array();
    json_object_object_add(query, "devices", json_object_get(devices));
    json_object_object_add(env, "device_query", query);
    char version[64];
    snprintf(version, sizeof version, "ktune==%s", kt_version());
    json_object_array_add(reqs, json_object_new_string(version));
    json_object_object_add(env, "requirements", reqs);
    json_object *meta = json_object_new_object(), *doc = json_object_new_object();
    json_object_object_add(meta, "hardware", hw);
    json_object_object_add(meta, "environment", env);
    json_object_object_add(doc, "schema_version", json_object_new_string("1.0.0"));
    json_object_object_add(doc, "metadata", meta);
    if (rc == KT_OK)
        cli_json_print(json_object_get(doc));
    json_object_put(doc);
    return rc;
}

/* json: best and list as a JSON array. */
static int run_query(kt_db *db, const char *what, const char *format, bool json,
                     kt_db_filter *f, uint64_t *rows, kt_diag *diag)
{
    uint64_t printed = 0;
    counted c = {json ? row_json : row_text, &printed, 0};
    int rc;
    if (strcmp(what, "best") == 0) {
        rc = kt_db_best(db, f, row_counted, &c, diag);
        *rows = c.rows;
        return json ? json_close(rc, printed, f) : rc;
    }
    if (strcmp(format, "csv") == 0) {
        puts("created,device,kernel,source_hash,problem,config,status,time_ms,"
             "min_ms,spread,compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail");
        c.print = row_csv;
    }
    if (strcmp(format, "kerneltuner") == 0)
        return export_cache(db, f, rows, diag);
    if (strcmp(format, "t4-metadata") == 0)
        return export_t4_metadata(db, f, rows, diag);
    if (strcmp(what, "list") == 0 || strcmp(format, "csv") == 0) {
        rc = kt_db_list(db, f, row_counted, &c, diag);
        *rows = c.rows;
        return json ? json_close(rc, printed, f) : rc;
    }
    fputs("{\n  \"schema_version\": \"1.0.0\",\n  \"metadata\": {\n    \"timeunit\": "
          "\"milliseconds\"\n  },\n  \"results\": [", stdout);
    c = (counted){row_t4, &printed, 0};
    rc = kt_db_list(db, f, row_counted, &c, diag);
    *rows = c.rows;
    if (rc == KT_OK)
        puts(printed ? "\n  ]\n}" : "]\n}");
    return rc;
}

int cli_db(int argc, char **argv)
{
    static const struct option LONG[] = {
        {"db", required_argument, 0, 'd'},     {"kernel", required_argument, 0, 'k'},
        {"problem", required_argument, 0, 'p'}, {"device", required_argument, 0, 'D'},
        {"json", no_argument, 0, 'J'},          {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *path = "ktune.db";
    kt_db_filter f = {0};
    bool json = false;
    int c;
    optind = 1;
    while ((c = cli_getopt("db", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'd': path = optarg; break;
        case 'k': f.kernel = optarg; break;
        case 'p': f.problem = optarg; break;
        case 'D': f.device = optarg; break;
        case 'J': json = true; break;
        case 'h': fputs(USAGE, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    const char *what = optind < argc ? argv[optind] : NULL;
    const char *format = optind + 1 < argc ? argv[optind + 1] : "";
    bool query = what && (strcmp(what, "best") == 0 || strcmp(what, "list") == 0);
    bool export = what && strcmp(what, "export") == 0 &&
                  (strcmp(format, "csv") == 0 || strcmp(format, "t4") == 0 ||
                   strcmp(format, "t4-metadata") == 0 ||
                   strcmp(format, "kerneltuner") == 0);
    if (!(query && optind + 1 == argc) && !(export && optind + 2 == argc))
        return cli_usage_error("db", "expected 'best', 'list', 'export csv', "
                               "'export t4', 'export t4-metadata' or "
                               "'export kerneltuner'");
    if (json && strcmp(format, "csv") == 0)
        return cli_usage_error("db", "--json: 'export csv' writes CSV; 'db list --json' "
                               "gives the same rows as JSON");
    kt_diag diag = {{0}};
    kt_db *db = NULL;
    uint64_t rows = 0;
    int rc = kt_db_open_mode(path, KT_DB_EXISTING, &db, &diag); /* creates nothing */
    if (rc == KT_OK)
        rc = run_query(db, what, format, json && query, &f, &rows, &diag);
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
