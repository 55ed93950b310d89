/* export.c - the results database in other tools' formats (store/export.h).
 * Rows are streamed from the query to the file, one at a time; only the
 * Kernel Tuner cache, one JSON document, is built whole. */
#include "core/util.h"
#include "store/export.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* What the exports write for each row: where to, and how many so far. */
typedef struct sink {
    FILE *out;
    uint64_t rows;      /* rows the query gave */
    uint64_t printed;   /* JSON elements written */
} sink;

static const char *json_text(json_object *o)
{
    return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                 JSON_C_TO_STRING_SPACED |
                                                 JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A document written whole, then released. */
static void json_write(FILE *out, json_object *doc)
{
    fprintf(out, "%s\n", json_text(doc));
    json_object_put(doc);
}

/* An element of an array streamed after its '[', then released. */
static void json_element(sink *s, json_object *o)
{
    fprintf(s->out, "%s%s", s->printed++ ? ",\n" : "\n", json_text(o));
    json_object_put(o);
}

/* A number, or null where it is not finite (JSON has no NaN). */
static json_object *json_double(double v)
{
    return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* A configuration value as Kernel Tuner has it: a number, a bool (Python
 * prints True, False), else a string; with bools false, True stays text. */
static json_object *value_json(const char *text, bool bools)
{
    char *end;
    double d = strtod(text, &end);
    if (bools && (strcmp(text, "True") == 0 || strcmp(text, "False") == 0))
        return json_object_new_boolean(text[0] == 'T');
    if (*end || end == text)
        return json_object_new_string(text);
    return d == (double)(long long)d ? json_object_new_int64((long long)d)
                                     : json_object_new_double(d);
}

/* A configuration key "A=1,B=x" as an object, numbers as numbers. */
static json_object *config_json(const char *key)
{
    json_object *obj = json_object_new_object();
    char **names, **values;
    size_t n;
    if (!obj || kt_key_fields(key, &names, &values, &n) != KT_OK)
        return obj;
    for (size_t i = 0; i < n; i++)
        json_object_object_add(obj, names[i], value_json(values[i], false));
    kt_key_fields_free(names, values, n);
    return obj;
}

/* --------------------------------------------------------- CSV and JSON */

static void print_number(FILE *f, double v)
{
    if (!isnan(v))
        fprintf(f, "%.6g", v);
}

/* RFC 4180 quoting for fields that may hold commas or quotes. */
static void csv_field(FILE *f, const char *s)
{
    putc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            putc('"', f);
        putc(*s, f);
    }
    putc('"', f);
}

/* The numeric columns of the CSV and JSON rows, in order. */
#define NUMBER_COLUMNS "time_ms", "min_ms", "spread", "compile_ms", "energy_j", \
                       "power_w", "sm_clock_mhz"
static void row_numbers(const kt_result *r, double out[7])
{
    const double v[] = {r->time_ms,  r->min_ms,  r->spread, r->compile_ms,
                        r->energy_j, r->power_w, r->sm_clock_mhz > 0 ? r->sm_clock_mhz : NAN};
    memcpy(out, v, sizeof v);
}

static int row_csv(void *user, const kt_db_row *row)
{
    sink *s = user;
    const kt_result *r = &row->result;
    const char *text[] = {row->created, row->device, row->kernel, row->source_hash,
                          row->problem, row->config, kt_status_name(r->status)};
    for (size_t i = 0; i < KT_ARRAY_LEN(text); i++) {
        csv_field(s->out, text[i]);
        putc(',', s->out);
    }
    double nums[7];
    row_numbers(r, nums);
    for (size_t i = 0; i < KT_ARRAY_LEN(nums); i++) {
        print_number(s->out, nums[i]);
        putc(',', s->out);
    }
    fprintf(s->out, "%d,", r->reps);
    csv_field(s->out, r->detail);
    putc('\n', s->out);
    return 0;
}

static int row_json(void *user, const kt_db_row *row)
{
    sink *s = user;
    const kt_result *r = &row->result;
    json_object *o = json_object_new_object();
    const char *keys[] = {"created", "device", "kernel", "source_hash", "problem", "key"};
    const char *text[] = {row->created, row->device, row->kernel, row->source_hash,
                          row->problem, row->config};
    for (size_t i = 0; i < KT_ARRAY_LEN(keys); i++)
        json_object_object_add(o, keys[i], json_object_new_string(text[i]));
    json_object_object_add(o, "config", config_json(row->config));
    json_object_object_add(o, "status", json_object_new_string(kt_status_name(r->status)));
    static const char *const NKEYS[] = {NUMBER_COLUMNS};
    double nums[7];
    row_numbers(r, nums);
    for (size_t i = 0; i < KT_ARRAY_LEN(NKEYS); i++)
        json_object_object_add(o, NKEYS[i], json_double(nums[i]));
    json_object_object_add(o, "reps", json_object_new_int(r->reps));
    json_object_object_add(o, "detail", json_object_new_string(r->detail));
    if (s->printed == 0)
        putc('[', s->out);
    json_element(s, o);
    return 0;
}

/* ------------------------------------------------------------------- T4 */

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
    sink *s = user;
    json_object *o = json_object_new_object();
    const kt_result *r = &row->result;
    const char *keys[] = {"device", "kernel", "source_hash", "problem"};
    const char *values[] = {row->device, row->kernel, row->source_hash, row->problem};
    /* which measurements belong together: the schema has no place for it */
    for (size_t i = 0; i < KT_ARRAY_LEN(keys); i++)
        json_object_object_add(o, keys[i], json_object_new_string(values[i]));
    json_object_object_add(o, "timestamp", json_object_new_string(row->created));
    json_object_object_add(o, "configuration", config_json(row->config));
    json_object_object_add(o, "times", t4_times(r));
    json_object_object_add(o, "invalidity",
                           json_object_new_string(t4_invalidity(r->status)));
    json_object_object_add(o, "correctness",
                           json_object_new_int(r->status != KT_STATUS_WRONG_RESULT));
    json_object_object_add(o, "measurements", t4_measurements(r));
    json_object *obj = json_object_new_array();
    json_object_array_add(obj, json_object_new_string("time"));
    json_object_object_add(o, "objectives", obj);
    json_element(s, o);
    return 0;
}

/* ------------------------------------------------------------ queries */

/* A row callback that counts the rows, so a filter nothing matches is
 * told. */
typedef struct counted {
    kt_db_row_fn fn;
    void *user;
    uint64_t rows;
} counted;

static int row_counted(void *user, const kt_db_row *row)
{
    counted *c = user;
    c->rows++;
    return c->fn(c->user, row);
}

int kt_db_query(kt_db *db, const kt_db_filter *f, kt_db_rows which, kt_db_row_fn fn,
                void *user, uint64_t *rows, kt_diag *diag)
{
    counted c = {fn, user, 0};
    int rc = (which == KT_ROWS_BEST    ? kt_db_best
              : which == KT_ROWS_FRONT ? kt_db_front
                                       : kt_db_list)(db, f, row_counted, &c, diag);
    *rows = c.rows;
    return rc;
}

/* ---------------------------------------------------- Kernel Tuner cache */

/* A cache file is of one device, kernel and problem: the first row's. */
typedef struct kt_cache {
    json_object *doc, *params, *cache;
    char *device, *kernel, *problem;
    bool mixed;             /* a row of another group was met */
} kt_cache;

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
        json_object *ps = np == 1 ? value_json(pv[0], true) : json_object_new_array();
        for (size_t i = 0; np > 1 && i < np; i++)
            json_object_array_add(ps, value_json(pv[i], true));
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
    json_object *v = value_json(value, true);
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
 * observer names it; and the spread of the repetitions, which Kernel
 * Tuner would keep as "times" and ktune keeps as one number. */
static json_object *cache_entry(const kt_db_row *row, char **names, char **values,
                                size_t n)
{
    const kt_result *r = &row->result;
    bool ok = r->status == KT_STATUS_OK;
    json_object *e = json_object_new_object();
    for (size_t i = 0; i < n; i++)
        json_object_object_add(e, names[i], value_json(values[i], true));
    json_object_object_add(e, "time", ok ? json_object_new_double(r->time_ms)
                                         : json_object_new_string(t4_failure(r->status)));
    json_object_object_add(e, "times", json_object_new_array());
    if (ok && isfinite(r->spread)) /* ktune's key: the repetitions' noise (kerneltuner.c) */
        json_object_object_add(e, "spread", json_object_new_double(r->spread));
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

static int export_cache(kt_db *db, const kt_db_filter *f, kt_db_rows which, FILE *out,
                        uint64_t *rows, kt_diag *diag)
{
    kt_cache cache = {.doc = json_object_new_object()};
    int rc = kt_db_query(db, f, which, row_cache, &cache, rows, diag);
    if (rc == KT_OK && cache.mixed)
        rc = kt_fail(diag, KT_EINVAL, "the rows are of more than one device, kernel or "
                     "problem, and a Kernel Tuner cache holds one: choose with --device, "
                     "--kernel and --problem (ktune db best lists them)");
    if (rc == KT_OK && cache.device)
        json_write(out, json_object_get(cache.doc));
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
static int export_t4_metadata(kt_db *db, const kt_db_filter *f, kt_db_rows which, FILE *out,
                              uint64_t *rows, kt_diag *diag)
{
    json_object *devices = json_object_new_array();
    int rc = kt_db_query(db, f, which, row_device, devices, rows, diag);
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
        json_write(out, json_object_get(doc));
    json_object_put(doc);
    return rc;
}


/* ---------------------------------------------------------------- export */

/* CSV, JSON and T4: a header, the rows as they come, an end. */
static int export_rows(kt_db *db, kt_export_format fmt, const kt_db_filter *f,
                       kt_db_rows which, FILE *out, uint64_t *rows, kt_diag *diag)
{
    sink s = {.out = out};
    kt_db_row_fn fn = fmt == KTUNE_EXPORT_CSV ? row_csv : fmt == KTUNE_EXPORT_JSON ? row_json
                                                                             : row_t4;
    if (fmt == KTUNE_EXPORT_CSV)
        fputs("created,device,kernel,source_hash,problem,config,status,time_ms,"
              "min_ms,spread,compile_ms,energy_j,power_w,sm_clock_mhz,reps,detail\n", out);
    if (fmt == KTUNE_EXPORT_T4)
        fputs("{\n  \"schema_version\": \"1.0.0\",\n  \"metadata\": {\n    "
              "\"timeunit\": \"milliseconds\"\n  },\n  \"results\": [", out);
    int rc = kt_db_query(db, f, which, fn, &s, rows, diag);
    bool filtered = (f && (f->kernel || f->problem || f->device)) || which == KT_ROWS_FRONT;
    if (rc == KT_OK && fmt == KTUNE_EXPORT_JSON && (s.printed || !filtered))
        fputs(s.printed ? "\n]\n" : "[]\n", out);
    if (rc == KT_OK && fmt == KTUNE_EXPORT_T4)
        fputs(s.printed ? "\n  ]\n}\n" : "]\n}\n", out);
    return rc;
}

int kt_db_export(kt_db *db, kt_export_format fmt, const kt_db_filter *f, kt_db_rows which,
                 FILE *out, uint64_t *rows, kt_diag *diag)
{
    *rows = 0;
    if (fmt == KTUNE_EXPORT_KERNELTUNER)
        return export_cache(db, f, which, out, rows, diag);
    if (fmt == KTUNE_EXPORT_T4_METADATA)
        return export_t4_metadata(db, f, which, out, rows, diag);
    if (fmt != KTUNE_EXPORT_CSV && fmt != KTUNE_EXPORT_JSON && fmt != KTUNE_EXPORT_T4)
        return kt_fail(diag, KT_EINVAL, "unknown export format %d", (int)fmt);
    return export_rows(db, fmt, f, which, out, rows, diag);
}

int kt_export_format_parse(const char *name, kt_export_format *out)
{
    static const char *const NAMES[] = {"csv", "json", "t4", "t4-metadata", "kerneltuner"};
    for (size_t i = 0; name && i < KT_ARRAY_LEN(NAMES); i++)
        if (strcmp(name, NAMES[i]) == 0) {
            *out = (kt_export_format)i;
            return KT_OK;
        }
    return KT_ENOTFOUND;
}
