/* t4.c - a T4 results file stored as measurements. */
#include "store/t4.h"
#include "core/util.h"
#include "store/import_names.h"
#include "store/json_file.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct importer {
    kt_db *db;
    const char *path;
    const kt_t4_options *o;
    double unit_ms;         /* the file's time unit (metadata.timeunit), in ms */
    size_t index;           /* of the result being read */
    kt_import_names names;  /* those of the kernel's stored rows */
    kt_t4_stats *st;
    kt_diag *diag;
} importer;

/* ms per unit named by text, in any case (T4 files write "ms", KTT's
 * "Microseconds", Kernel Tuner's metadata "milliseconds", and older Kernel
 * Tuner releases, whose T4 files the FAIR benchmark hub ships,
 * "miliseconds"); 0 when unknown. */
static double unit_ms(const char *text)
{
    static const struct { const char *name; double ms; } UNITS[] = {
        {"ms", 1},         {"milliseconds", 1}, {"miliseconds", 1}, {"s", 1e3}, {"seconds", 1e3},
        {"us", 1e-3},      {"microseconds", 1e-3}, {"ns", 1e-6},
        {"nanoseconds", 1e-6},
    };
    for (size_t i = 0; i < KT_ARRAY_LEN(UNITS); i++)
        if (strcasecmp(text, UNITS[i].name) == 0)
            return UNITS[i].ms;
    return 0;
}

static int bad(importer *im, const char *what)
{
    return kt_fail(im->diag, KT_EFORMAT, "%s: results[%zu]: %s", im->path, im->index,
                   what);
}

static bool is_number(json_object *v)
{
    return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

/* ------------------------------------------------------------- results */

/* The configuration object as a key, values as Python prints them (as
 * Kernel Tuner's cache keys have them). */
static int config_key(importer *im, json_object *config, char **out)
{
    kt_buf b = {0};
    kt_buf_append(&b, "");
    bool first = true;
    json_object_object_foreach(config, name, v) {
        const char *text = json_object_is_type(v, json_type_boolean)
                               ? (json_object_get_boolean(v) ? "True" : "False")
                               : json_object_get_string(v);
        kt_buf_appendf(&b, "%s%s=%s", first ? "" : ",", name, text ? text : "None");
        first = false;
    }
    *out = kt_buf_take(&b);
    if (!*out)
        return kt_fail(im->diag, KT_ENOMEM, "out of memory");
    if (kt_db_key_check(*out, im->diag) == KT_OK)
        return KT_OK;
    char where[300];
    snprintf(where, sizeof where, "%s: results[%zu]: configuration", im->path, im->index);
    kt_diag_prefix(im->diag, where);
    return KT_EFORMAT;
}

static int status_of(importer *im, json_object *res, kt_status *out)
{
    static const struct { const char *name; kt_status status; } CLASSES[] = {
        {"correct", KT_STATUS_OK},         {"compile", KT_STATUS_COMPILE_ERROR},
        {"runtime", KT_STATUS_RUNTIME_ERROR}, {"timeout", KT_STATUS_TIMEOUT},
        {"correctness", KT_STATUS_WRONG_RESULT}, {"constraints", KT_STATUS_INVALID},
    };
    const char *inv = kt_json_text(res, "invalidity", NULL);
    json_object *corr = NULL;
    if (!inv)
        return bad(im, "no 'invalidity' (correct, compile, runtime, timeout, "
                       "correctness or constraints)");
    json_object_object_get_ex(res, "correctness", &corr);
    for (size_t i = 0; i < KT_ARRAY_LEN(CLASSES); i++)
        if (strcmp(inv, CLASSES[i].name) == 0) {
            *out = CLASSES[i].status;
            if (*out == KT_STATUS_OK && json_object_get_double(corr) == 0)
                *out = KT_STATUS_WRONG_RESULT;
            return KT_OK;
        }
    return bad(im, "invalidity is not one of correct, compile, runtime, timeout, "
                   "correctness, constraints");
}

/* The value of the measurement named name, in ms; NAN when absent or not
 * a number (a failure's marker). */
static int objective_ms(importer *im, json_object *res, const char *name, double *out)
{
    json_object *ms = NULL;
    *out = NAN;
    if (!json_object_object_get_ex(res, "measurements", &ms))
        return KT_OK;
    if (!json_object_is_type(ms, json_type_array))
        return bad(im, "measurements is not an array");
    for (size_t i = 0; i < json_object_array_length(ms); i++) {
        json_object *m = json_object_array_get_idx(ms, i), *v = NULL;
        if (strcmp(kt_json_text(m, "name", ""), name) != 0 ||
            !json_object_object_get_ex(m, "value", &v) || !is_number(v))
            continue;
        const char *unit = kt_json_text(m, "unit", "");
        double scale = *unit ? unit_ms(unit) : im->unit_ms;
        if (scale == 0)
            return bad(im, "a measurement's unit is not a time unit (ms, s, us, ns)");
        *out = json_object_get_double(v) * scale;
    }
    return KT_OK;
}

/* The value of the first measurement named one of names, in unit (or
 * given without one); NAN when there is none.  Energy and power carry the
 * names of Kernel Tuner's observers or of ktune's export. */
static double measurement_in(json_object *res, const char *const *names,
                             const char *unit)
{
    json_object *ms = NULL;
    if (!json_object_object_get_ex(res, "measurements", &ms) ||
        !json_object_is_type(ms, json_type_array))
        return NAN;
    for (const char *const *n = names; *n; n++)
        for (size_t i = 0; i < json_object_array_length(ms); i++) {
            json_object *m = json_object_array_get_idx(ms, i), *v = NULL;
            const char *u = kt_json_text(m, "unit", "");
            if (strcmp(kt_json_text(m, "name", ""), *n) == 0 &&
                (!*u || strcmp(u, unit) == 0) &&
                json_object_object_get_ex(m, "value", &v) && is_number(v))
                return json_object_get_double(v);
        }
    return NAN;
}

static int result_of(importer *im, json_object *res, kt_result *r)
{
    static const char *const ENERGY[] = {"energy", "nvml_energy", "ps_energy",
                                         "pmt_energy", NULL};
    static const char *const POWER[] = {"power", "nvml_power", "ps_power",
                                        "pmt_power", NULL};
    *r = (kt_result){.spread = NAN, .energy_j = NAN, .power_w = NAN, .max_error = NAN};
    json_object *times = NULL, *objs = NULL, *c = NULL;
    if (!json_object_object_get_ex(res, "times", &times) ||
        !json_object_is_type(times, json_type_object))
        return bad(im, "no 'times' object");
    if ((json_object_object_get_ex(times, "compilation", &c) ||
         json_object_object_get_ex(times, "compilation_time", &c)) && is_number(c))
        r->compile_ms = json_object_get_double(c) * im->unit_ms;
    int rc = status_of(im, res, &r->status);
    const char *objective = "time";
    if (json_object_object_get_ex(res, "objectives", &objs) &&
        json_object_is_type(objs, json_type_array) && json_object_array_length(objs))
        objective = json_object_get_string(json_object_array_get_idx(objs, 0));
    if (rc == KT_OK)
        rc = objective_ms(im, res, objective, &r->time_ms);
    if (rc == KT_OK && r->status == KT_STATUS_OK && !(r->time_ms >= 0))
        return bad(im, "a correct result without a numeric time measurement");
    r->min_ms = r->time_ms;
    if (r->status == KT_STATUS_OK) {
        r->energy_j = measurement_in(res, ENERGY, "J");
        r->power_w = measurement_in(res, POWER, "W");
    }
    if (r->status != KT_STATUS_OK)
        snprintf(r->detail, sizeof r->detail, "T4: %s", kt_json_text(res, "invalidity", ""));
    return rc;
}

/* Device, kernel and problem ids of one result. */
static int keys_of(importer *im, json_object *res, int64_t ids[3])
{
    const char *device = kt_json_text(res, "device", im->o->device);
    const char *kernel = kt_json_text(res, "kernel", im->o->kernel);
    const char *problem = kt_json_text(res, "problem", im->o->problem ? im->o->problem : "");
    if (!device || !kernel)
        return bad(im, !device ? "no device (give --device NAME)"
                               : "no kernel (give --kernel NAME)");
    if (kt_db_key_check(problem, im->diag) != KT_OK)
        return bad(im, "problem is not a key like M=256,N=256");
    kt_device_info dev = {0};
    kt_strlcpy(dev.name, sizeof dev.name, device);
    kt_strlcpy(dev.backend, sizeof dev.backend, "imported");
    snprintf(dev.fingerprint, sizeof dev.fingerprint, "imported|%s", device);
    int rc = kt_db_device(im->db, &dev, &ids[0], im->diag);
    if (rc == KT_OK)
        rc = kt_db_kernel(im->db, kernel, kt_json_text(res, "source_hash", "t4"), &ids[1],
                          im->diag);
    if (rc == KT_OK)
        rc = kt_db_problem(im->db, ids[1], problem, &ids[2], im->diag);
    return rc;
}

static int store_result(importer *im, json_object *res)
{
    json_object *config = NULL;
    if (!json_object_is_type(res, json_type_object))
        return bad(im, "not an object");
    if (!json_object_object_get_ex(res, "configuration", &config) ||
        !json_object_is_type(config, json_type_object))
        return bad(im, "no 'configuration' object");
    if (!json_object_object_get_ex(res, "correctness", NULL))
        return bad(im, "no 'correctness'");
    kt_result r;
    int64_t ids[3];
    char *key = NULL;
    int rc = result_of(im, res, &r);
    if (rc == KT_OK)
        rc = keys_of(im, res, ids);
    if (rc == KT_OK)
        rc = config_key(im, config, &key);
    char where[48];
    snprintf(where, sizeof where, "results[%zu]", im->index);
    if (rc == KT_OK)
        rc = kt_import_names_check(&im->names, im->db, im->path, where,
                                   kt_json_text(res, "kernel", im->o->kernel), key, im->diag);
    int64_t before = kt_db_changes(im->db);
    if (rc == KT_OK)
        rc = kt_db_record_at(im->db, ids[0], ids[1], ids[2], key, &r, NULL, im->diag);
    free(key);
    im->st->rows += rc == KT_OK;
    im->st->ok += rc == KT_OK && r.status == KT_STATUS_OK;
    im->st->added += rc == KT_OK && kt_db_changes(im->db) > before;
    return rc;
}

static int import_root(void *user, json_object *root)
{
    importer *im = user;
    json_object *results = NULL, *meta = NULL, *unit = NULL;
    if (!json_object_is_type(root, json_type_object) ||
        !json_object_object_get_ex(root, "results", &results) ||
        !json_object_is_type(results, json_type_array))
        return kt_fail(im->diag, KT_EFORMAT, "%s: not a T4 results file: no 'results' "
                       "array", im->path);
    im->unit_ms = 1;
    if (json_object_object_get_ex(root, "metadata", &meta) &&
        json_object_object_get_ex(meta, "timeunit", &unit)) {
        im->unit_ms = unit_ms(json_object_get_string(unit));
        if (im->unit_ms == 0)
            return kt_fail(im->diag, KT_EFORMAT, "%s: metadata.timeunit '%s' is not a "
                           "time unit", im->path, json_object_get_string(unit));
    }
    int rc = KT_OK;
    for (im->index = 0; rc == KT_OK && im->index < json_object_array_length(results);
         im->index++)
        rc = store_result(im, json_object_array_get_idx(results, im->index));
    return rc;
}

int kt_t4_import(const char *path, kt_db *db, const kt_t4_options *o,
                 kt_t4_stats *stats, kt_diag *diag)
{
    *stats = (kt_t4_stats){0};
    importer im = {.db = db, .path = path, .o = o, .st = stats, .diag = diag};
    int rc = kt_json_file_import(path, "a T4 results file", false, db, import_root, &im,
                                 diag);
    kt_import_names_clear(&im.names);
    if (rc != KT_OK)
        stats->added = 0;
    return rc;
}

/* ------------------------------------------------------------- readers */

double kt_t4_unit_ms(const char *name) { return unit_ms(name); }

int kt_t4_result(const char *path, size_t index, double unit_ms, json_object *res,
                 kt_result *r, kt_diag *diag)
{
    importer im = {.path = path, .index = index, .unit_ms = unit_ms, .diag = diag};
    if (!json_object_is_type(res, json_type_object))
        return bad(&im, "not an object");
    if (!json_object_object_get_ex(res, "correctness", NULL))
        return bad(&im, "no 'correctness'");
    return result_of(&im, res, r);
}

int kt_t4_config_key(const char *path, size_t index, json_object *config, char **out,
                     kt_diag *diag)
{
    importer im = {.path = path, .index = index, .diag = diag};
    return config_key(&im, config, out);
}
