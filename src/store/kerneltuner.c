/* kerneltuner.c - a Kernel Tuner cache file stored as measurements. */
#include "store/kerneltuner.h"
#include "core/stats.h"
#include "core/util.h"
#include "store/import_names.h"
#include "store/json_file.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct importer {
    kt_db *db;
    const char *path;
    json_object *keys;      /* tune_params_keys */
    kt_import_names names;  /* those of the kernel's stored rows */
    int64_t device, kernel, problem;
    kt_kerneltuner_stats *st;
    kt_diag *diag;
} importer;

/* ------------------------------------------------------------- parsing */

/* The top-level member name of type t, NULL (with the error) if absent. */
static json_object *member(const char *path, json_object *root, const char *name,
                           json_type t, kt_diag *diag)
{
    json_object *v = NULL;
    if (json_object_object_get_ex(root, name, &v) && json_object_is_type(v, t))
        return v;
    kt_fail(diag, KT_EFORMAT, "%s: not a Kernel Tuner cache: %s '%s'", path,
            v ? "wrong type of" : "no", name);
    return NULL;
}

int kt_kerneltuner_head_read(const char *path, json_object *root, kt_kerneltuner_head *out,
                             kt_diag *diag)
{
    *out = (kt_kerneltuner_head){0};
    json_object *device = member(path, root, "device_name", json_type_string, diag);
    json_object *kernel = device ? member(path, root, "kernel_name", json_type_string, diag)
                                 : NULL;
    out->keys = kernel ? member(path, root, "tune_params_keys", json_type_array, diag)
                       : NULL;
    out->cache = out->keys ? member(path, root, "cache", json_type_object, diag) : NULL;
    if (!out->cache)
        return KT_EFORMAT;
    out->device = json_object_get_string(device);
    out->kernel = json_object_get_string(kernel);
    return KT_OK;
}

/* A problem or configuration key, checked; KT_EFORMAT naming where. */
static int checked_key(importer *im, kt_buf *b, const char *where, char **out)
{
    *out = kt_buf_take(b);
    if (!*out)
        return kt_fail(im->diag, KT_ENOMEM, "out of memory");
    if (kt_db_key_check(*out, im->diag) == KT_OK)
        return KT_OK;
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s: %s", im->path, where);
    kt_diag_prefix(im->diag, prefix);
    return KT_EFORMAT;
}

/* problem_size (a number, a string or a list of them) as a key. */
static int problem_key(importer *im, json_object *root, char **out)
{
    json_object *ps = NULL;
    kt_buf b = {0};
    kt_buf_append(&b, "");
    if (json_object_object_get_ex(root, "problem_size", &ps) && ps) {
        bool list = json_object_is_type(ps, json_type_array);
        size_t n = list ? json_object_array_length(ps) : 1;
        for (size_t i = 0; i < n; i++) {
            json_object *v = list ? json_object_array_get_idx(ps, i) : ps;
            kt_buf_appendf(&b, "%sProblemSize_%zu=%s", i ? "," : "", i,
                           json_object_get_string(v));
        }
    }
    return checked_key(im, &b, "problem_size", out);
}

/* The source hash: of kernel_string where the file has it (the kernel
 * source), else of the tuning parameters and their values. */
static void source_hash(json_object *root, char out[17])
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(root, "kernel_string", &v) ||
        !json_object_is_type(v, json_type_string))
        json_object_object_get_ex(root, "tune_params", &v);
    const char *s = v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN) : "";
    if (v && json_object_is_type(v, json_type_string))
        s = json_object_get_string(v);
    snprintf(out, 17, "%016llx", (unsigned long long)kt_hash_str(KT_HASH_INIT, s));
}

/* ------------------------------------------------------------- entries */

/* The entry's status, from a marker string in any of its fields (the
 * marker goes to detail). */
static kt_status entry_status(json_object *entry, char *detail, size_t size)
{
    static const struct { const char *marker; kt_status status; } MARKERS[] = {
        {"InvalidConfig", KT_STATUS_INVALID},
        {"CompilationFailedConfig", KT_STATUS_COMPILE_ERROR},
        {"RuntimeFailedConfig", KT_STATUS_RUNTIME_ERROR},
        {"ErrorConfig", KT_STATUS_RUNTIME_ERROR},
    };
    json_object_object_foreach(entry, k, v) {
        (void)k;
        if (!json_object_is_type(v, json_type_string))
            continue;
        for (size_t i = 0; i < sizeof MARKERS / sizeof *MARKERS; i++)
            if (strcmp(json_object_get_string(v), MARKERS[i].marker) == 0) {
                snprintf(detail, size, "Kernel Tuner: %s", MARKERS[i].marker);
                return MARKERS[i].status;
            }
    }
    return KT_STATUS_OK;
}

/* The first of names that the entry has as a number; NAN if none. */
static double number_of(json_object *entry, const char *const *names)
{
    for (; *names; names++) {
        json_object *v = NULL;
        if (json_object_object_get_ex(entry, *names, &v) &&
            (json_object_is_type(v, json_type_double) ||
             json_object_is_type(v, json_type_int)))
            return json_object_get_double(v);
    }
    return NAN;
}

/* The fastest of "times", how many and their spread as ktune's worker
 * computes it; reps 0 without them.  A trimmed copy that dropped the
 * repetitions may keep their spread as "spread" (bench/data/public). */
static int repetitions(json_object *entry, kt_result *r)
{
    static const char *const SPREAD[] = {"spread", NULL};
    json_object *times = NULL;
    r->min_ms = r->time_ms;
    double spread = number_of(entry, SPREAD);
    r->spread = spread >= 0 ? spread : NAN;
    if (!json_object_object_get_ex(entry, "times", &times) ||
        !json_object_is_type(times, json_type_array))
        return KT_OK;
    size_t n = json_object_array_length(times);
    double *t = malloc((n + 1) * sizeof *t);
    if (!t)
        return KT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        t[i] = json_object_get_double(json_object_array_get_idx(times, i));
    if (n > 0) {
        kt_summary s = kt_summarize(t, n);
        r->min_ms = s.min;
        r->spread = n > 1 ? s.spread : r->spread;
    }
    free(t);
    r->reps = n > 1000000000 ? 1000000000 : (int)n;
    return KT_OK;
}

static int entry_result(importer *im, const char *key, json_object *entry, kt_result *r)
{
    static const char *const TIME[] = {"time", NULL};
    static const char *const COMPILE[] = {"compile_time", NULL};
    static const char *const ENERGY[] = {"energy", "nvml_energy", "ps_energy",
                                         "pmt_energy", NULL};
    static const char *const POWER[] = {"nvml_power", "power", "ps_power",
                                        "pmt_power", NULL};
    static const char *const CLOCK[] = {"core_freq", "nvml_gr_clock", NULL};
    *r = (kt_result){.spread = NAN, .max_error = NAN};
    r->status = entry_status(entry, r->detail, sizeof r->detail);
    double compile = number_of(entry, COMPILE), clock = number_of(entry, CLOCK);
    r->compile_ms = isnan(compile) ? 0 : compile;
    r->energy_j = number_of(entry, ENERGY);
    r->power_w = number_of(entry, POWER);
    r->sm_clock_mhz = isnan(clock) ? 0 : clock;
    if (r->status != KT_STATUS_OK) {
        r->time_ms = r->min_ms = NAN;
        return KT_OK;
    }
    r->time_ms = number_of(entry, TIME);
    if (!(r->time_ms >= 0))
        return kt_fail(im->diag, KT_EFORMAT, "%s: cache entry '%s': no numeric 'time' "
                       "and no failure marker", im->path, key);
    return repetitions(entry, r) == KT_OK ? KT_OK
                                          : kt_fail(im->diag, KT_ENOMEM, "out of memory");
}

/* The configuration key of the entry "v1,v2,...": NAME=v1,... */
static int config_key(importer *im, const char *key, char **out)
{
    size_t n = json_object_array_length(im->keys), values = 1;
    for (const char *c = key; *c; c++)
        values += *c == ',';
    if (values != n)
        return kt_fail(im->diag, KT_EFORMAT, "%s: cache entry '%s': %zu values for %zu "
                       "tuning parameters (tune_params_keys)", im->path, key, values, n);
    kt_buf b = {0};
    kt_buf_append(&b, "");
    const char *v = key;
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(v, ",");
        kt_buf_appendf(&b, "%s%s=%.*s", i ? "," : "",
                       json_object_get_string(json_object_array_get_idx(im->keys, i)),
                       (int)len, v);
        v += len + (v[len] == ',');
    }
    char where[300];
    snprintf(where, sizeof where, "cache entry '%.200s'", key);
    return checked_key(im, &b, where, out);
}

/* The entry's timestamp as the database keeps it (ISO 8601 UTC with ms):
 * Kernel Tuner writes "2022-12-23 12:11:26.411558+00:00".  Into out, ""
 * when absent or not UTC (the row is dated when imported). */
static void created_of(json_object *entry, char out[96])
{
    json_object *v = NULL;
    int y, mo, d, h, mi, used = 0;
    double sec;
    out[0] = '\0';
    if (!json_object_object_get_ex(entry, "timestamp", &v) ||
        !json_object_is_type(v, json_type_string))
        return;
    const char *t = json_object_get_string(v);
    if (sscanf(t, "%4d-%2d-%2d %2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6 ||
        (strcmp(t + used, "+00:00") != 0 && strcmp(t + used, "Z") != 0) || mo < 1 ||
        mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || !(sec >= 0 && sec < 61))
        return;
    /* truncated: 59.9999 stays in its minute; the nanosecond added keeps
     * 1.001 (1000.999... in binary) at 1001 ms, and cannot carry a time
     * Kernel Tuner writes (whole microseconds) into the next ms */
    int ms = (int)(sec * 1000 + 1e-6);
    snprintf(out, 96, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, mo, d, h, mi, ms / 1000,
             ms % 1000);
}

static int store_entry(importer *im, const char *key, json_object *entry)
{
    if (!json_object_is_type(entry, json_type_object))
        return kt_fail(im->diag, KT_EFORMAT, "%s: cache entry '%s' is not an object",
                       im->path, key);
    char *config = NULL;
    kt_result r;
    char created[96];
    created_of(entry, created);
    int rc = config_key(im, key, &config);
    if (rc == KT_OK && im->st->rows == 0) /* every entry has the same names */
        rc = kt_import_names_check(&im->names, im->db, im->path, "tune_params_keys",
                                   im->st->kernel, config, im->diag);
    if (rc == KT_OK)
        rc = entry_result(im, key, entry, &r);
    int64_t before = kt_db_changes(im->db);
    if (rc == KT_OK)
        rc = kt_db_record_at(im->db, im->device, im->kernel, im->problem, config, &r,
                             created[0] ? created : NULL, im->diag);
    free(config);
    im->st->rows += rc == KT_OK;
    im->st->ok += rc == KT_OK && r.status == KT_STATUS_OK;
    im->st->added += rc == KT_OK && kt_db_changes(im->db) > before;
    return rc;
}

/* ------------------------------------------------------------- the file */

/* tune_params_keys: identifiers, at least one. */
static int check_param_names(importer *im)
{
    size_t n = json_object_array_length(im->keys);
    if (n == 0)
        return kt_fail(im->diag, KT_EFORMAT, "%s: not a Kernel Tuner cache: "
                       "tune_params_keys is empty", im->path);
    for (size_t i = 0; i < n; i++) {
        json_object *k = json_object_array_get_idx(im->keys, i);
        if (!json_object_is_type(k, json_type_string))
            return kt_fail(im->diag, KT_EFORMAT, "%s: tune_params_keys[%zu] is not a "
                           "string", im->path, i);
    }
    return KT_OK;
}

/* Device, kernel and problem ids of the file's measurements. */
static int store_keys(importer *im, json_object *root, const char *device,
                      const char *kernel)
{
    kt_device_info dev = {0};
    kt_strlcpy(dev.name, sizeof dev.name, device);
    kt_strlcpy(dev.backend, sizeof dev.backend, "imported");
    snprintf(dev.fingerprint, sizeof dev.fingerprint, "imported|%s", device);
    char hash[17], *problem = NULL;
    source_hash(root, hash);
    int rc = problem_key(im, root, &problem);
    if (rc == KT_OK)
        rc = kt_db_device(im->db, &dev, &im->device, im->diag);
    if (rc == KT_OK)
        rc = kt_db_kernel(im->db, kernel, hash, &im->kernel, im->diag);
    if (rc == KT_OK)
        rc = kt_db_problem(im->db, im->kernel, problem, &im->problem, im->diag);
    if (problem)
        kt_strlcpy(im->st->problem, sizeof im->st->problem, problem);
    free(problem);
    return rc;
}

static int import_root(void *user, json_object *root)
{
    importer *im = user;
    if (!json_object_is_type(root, json_type_object))
        return kt_fail(im->diag, KT_EFORMAT, "%s: not a Kernel Tuner cache: not a JSON "
                       "object", im->path);
    kt_kerneltuner_head head;
    if (kt_kerneltuner_head_read(im->path, root, &head, im->diag) != KT_OK)
        return KT_EFORMAT;
    im->keys = head.keys;
    json_object *cache = head.cache;
    kt_strlcpy(im->st->device, sizeof im->st->device, head.device);
    kt_strlcpy(im->st->kernel, sizeof im->st->kernel, head.kernel);
    int rc = check_param_names(im);
    if (rc == KT_OK)
        rc = store_keys(im, root, im->st->device, im->st->kernel);
    json_object_object_foreach(cache, key, entry) {
        if (rc != KT_OK)
            break;
        rc = store_entry(im, key, entry);
    }
    return rc;
}

int kt_kerneltuner_import(const char *path, kt_db *db, kt_kerneltuner_stats *stats,
                          kt_diag *diag)
{
    *stats = (kt_kerneltuner_stats){0};
    importer im = {.db = db, .path = path, .st = stats, .diag = diag};
    int rc = kt_json_file_import(path, "a Kernel Tuner cache", true, db, import_root, &im, diag);
    kt_import_names_clear(&im.names);
    if (rc != KT_OK)
        stats->added = 0;
    return rc;
}

/* ------------------------------------------------------------- readers */

int kt_kerneltuner_result(const char *path, const char *key, json_object *entry,
                          kt_result *r, kt_diag *diag)
{
    importer im = {.path = path, .diag = diag};
    return entry_result(&im, key, entry, r);
}

int kt_kerneltuner_problem(const char *path, json_object *root, char **out,
                           kt_diag *diag)
{
    importer im = {.path = path, .diag = diag};
    return problem_key(&im, root, out);
}

int kt_kerneltuner_config_key(const char *path, json_object *keys, const char *key,
                              char **out, kt_diag *diag)
{
    importer im = {.path = path, .keys = keys, .diag = diag};
    *out = NULL;
    return config_key(&im, key, out);
}
