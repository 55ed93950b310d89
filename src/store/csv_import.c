/* csv_import.c - rows of ktune's CSV export stored as measurements. */
#include "store/csv_import.h"
#include "core/csv.h"
#include "core/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns an export has; the first six are required. */
enum {
    C_DEVICE, C_KERNEL, C_HASH, C_PROBLEM, C_CONFIG, C_STATUS, C_TIME, C_MIN,
    C_SPREAD, C_REPS, C_COMPILE, C_ENERGY, C_POWER, C_CLOCK, C_DETAIL, C_CREATED,
    C_N
};
#define C_REQUIRED (C_STATUS + 1)

static const char *const COLUMNS[C_N] = {
    "device", "kernel", "source_hash", "problem", "config", "status", "time_ms",
    "min_ms", "spread", "reps", "compile_ms", "energy_j", "power_w",
    "sm_clock_mhz", "detail", "created"};

typedef struct importer {
    kt_db *db;             /* where rows go; NULL: to fn */
    kt_db_row_fn fn;
    void *user;
    const char *path;
    int col[C_N];          /* field index of each column, -1 when absent */
    size_t nfields;        /* fields per record, from the header */
    int64_t ref_kernel;    /* the kernel ref_problem and ref_config are of */
    char *ref_problem;     /* keys of a row of that kernel, stored or earlier */
    char *ref_config;      /* in this file: every row's must name the same */
    kt_csv_import_stats *st;
    kt_diag *diag;
} importer;

/* ------------------------------------------------------------- header */

static int header(importer *im, char **f, size_t n, size_t line)
{
    for (int c = 0; c < C_N; c++)
        im->col[c] = -1;
    for (size_t i = 0; i < n; i++) {
        int c = 0;
        while (c < C_N && strcmp(COLUMNS[c], f[i]) != 0)
            c++;
        if (c == C_N)
            return kt_fail(im->diag, KT_EFORMAT, "%s:%zu: unknown column '%s' (a "
                           "ktune CSV export has device, kernel, source_hash, "
                           "problem, config, status, time_ms, ...)", im->path, line, f[i]);
        if (im->col[c] >= 0)
            return kt_fail(im->diag, KT_EFORMAT, "%s:%zu: column '%s' appears twice",
                           im->path, line, f[i]);
        im->col[c] = (int)i;
    }
    for (int c = 0; c < C_REQUIRED; c++)
        if (im->col[c] < 0)
            return kt_fail(im->diag, KT_EFORMAT, "%s:%zu: no column '%s'", im->path,
                           line, COLUMNS[c]);
    im->nfields = n;
    return KT_OK;
}

/* --------------------------------------------------------------- rows */

/* Column c of the record, "" when the file has no such column. */
static const char *get(const importer *im, char **f, int c)
{
    return im->col[c] >= 0 ? f[im->col[c]] : "";
}

/* A number, NAN when empty. */
static int number(const importer *im, char **f, int c, size_t line, double *out)
{
    const char *s = get(im, f, c);
    char *end;
    errno = 0;
    *out = *s ? strtod(s, &end) : NAN;
    if (*s && (*end || errno == ERANGE))
        return kt_fail(im->diag, KT_EFORMAT, "%s:%zu: column '%s': '%s' is not a "
                       "number", im->path, line, COLUMNS[c], s);
    return KT_OK;
}

static int parse_result(const importer *im, char **f, size_t line, kt_result *r)
{
    *r = (kt_result){0};
    const char *status = get(im, f, C_STATUS);
    if (kt_status_parse(status, &r->status) != KT_OK)
        return kt_fail(im->diag, KT_EFORMAT, "%s:%zu: unknown status '%s'", im->path,
                       line, status);
    double *nums[] = {&r->time_ms, &r->min_ms, &r->spread, NULL, &r->compile_ms,
                      &r->energy_j, &r->power_w, &r->sm_clock_mhz};
    double reps = NAN;
    nums[C_REPS - C_TIME] = &reps;
    for (int c = C_TIME; c <= C_CLOCK; c++)
        if (number(im, f, c, line, nums[c - C_TIME]) != KT_OK)
            return KT_EFORMAT;
    if (!isnan(reps) && (reps < 0 || reps > 1e9 || reps != floor(reps)))
        return kt_fail(im->diag, KT_EFORMAT, "%s:%zu: column 'reps': not a count",
                       im->path, line);
    r->reps = isnan(reps) ? 0 : (int)reps;
    if (isnan(r->sm_clock_mhz))
        r->sm_clock_mhz = 0;
    r->max_error = NAN;
    kt_strlcpy(r->detail, sizeof r->detail, get(im, f, C_DETAIL));
    if (r->status == KT_STATUS_OK && !(r->time_ms >= 0))
        return kt_fail(im->diag, KT_EFORMAT, "%s:%zu: an ok row without a time_ms",
                       im->path, line);
    return KT_OK;
}

/* A problem or configuration column that is not NAME=VALUE,...: a
 * file:line error. */
static int check_key(importer *im, char **f, int c, size_t line)
{
    if (kt_db_key_check(get(im, f, c), im->diag) == KT_OK)
        return KT_OK;
    char where[300];
    snprintf(where, sizeof where, "%s:%zu: column '%s'", im->path, line, COLUMNS[c]);
    kt_diag_prefix(im->diag, where);
    return KT_EFORMAT;
}

/* Whether the keys a and b (both checked) name the same parameters in the
 * same order. */
static bool same_names(const char *a, const char *b)
{
    for (;;) {
        size_t na = strcspn(a, "="), nb = strcspn(b, "=");
        if (na != nb || strncmp(a, b, na) != 0)
            return false;
        a += strcspn(a, ",");
        b += strcspn(b, ",");
        if (!*a || !*b)
            return !*a && !*b;
        a++, b++;
    }
}

/* The row's keys must name the parameters that the kernel's rows already
 * stored name (training reads a kernel's rows as one table); the first row
 * of a new kernel sets them. */
static int check_names(importer *im, char **f, int64_t kernel, size_t line)
{
    int rc = KT_OK;
    if (kernel != im->ref_kernel || !im->ref_config) {
        free(im->ref_problem);
        free(im->ref_config);
        im->ref_kernel = kernel;
        rc = kt_db_kernel_sample(im->db, kernel, &im->ref_problem, &im->ref_config,
                                 im->diag);
        if (rc == KT_OK && !im->ref_config)
            return KT_OK; /* the kernel's first row */
    }
    for (int c = C_PROBLEM; rc == KT_OK && c <= C_CONFIG; c++) {
        const char *ref = c == C_PROBLEM ? im->ref_problem : im->ref_config;
        if (!same_names(get(im, f, c), ref))
            rc = kt_fail(im->diag, KT_EFORMAT, "%s:%zu: column '%s': '%s' names other "
                         "parameters than the rows of kernel %s (as '%s')", im->path,
                         line, COLUMNS[c], get(im, f, c), get(im, f, C_KERNEL), ref);
    }
    return rc;
}

static int store(importer *im, char **f, const kt_result *r, size_t line)
{
    kt_device_info dev = {0};
    kt_strlcpy(dev.name, sizeof dev.name, get(im, f, C_DEVICE));
    kt_strlcpy(dev.backend, sizeof dev.backend, "imported");
    snprintf(dev.fingerprint, sizeof dev.fingerprint, "imported|%s", dev.name);
    int64_t device, kernel, problem;
    int rc = kt_db_device(im->db, &dev, &device, im->diag);
    if (rc == KT_OK)
        rc = kt_db_kernel(im->db, get(im, f, C_KERNEL), get(im, f, C_HASH), &kernel,
                          im->diag);
    if (rc == KT_OK)
        rc = check_names(im, f, kernel, line);
    if (rc == KT_OK)
        rc = kt_db_problem(im->db, kernel, get(im, f, C_PROBLEM), &problem, im->diag);
    int64_t before = kt_db_changes(im->db);
    const char *created = get(im, f, C_CREATED);
    if (rc == KT_OK)
        rc = kt_db_record_at(im->db, device, kernel, problem, get(im, f, C_CONFIG), r,
                             *created ? created : NULL, im->diag);
    im->st->added += rc == KT_OK && kt_db_changes(im->db) > before;
    return rc;
}

/* The row to fn, as a database would give it back. */
static int visit(importer *im, char **f, const kt_result *r)
{
    kt_db_row row = {.device = get(im, f, C_DEVICE), .kernel = get(im, f, C_KERNEL),
                     .source_hash = get(im, f, C_HASH), .problem = get(im, f, C_PROBLEM),
                     .config = get(im, f, C_CONFIG), .created = get(im, f, C_CREATED),
                     .result = *r};
    return im->fn(im->user, &row);
}

/* An export's created column: empty (now), or ISO 8601 UTC as ktune writes
 * it ("2026-11-24T00:46:18.420Z"). */
static bool is_utc_time(const char *t)
{
    int y, mo, d, h, mi, used = 0;
    double sec;
    return !*t || (sscanf(t, "%4d-%2d-%2dT%2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec,
                          &used) == 6 && strcmp(t + used, "Z") == 0 && mo >= 1 &&
                   mo <= 12 && d >= 1 && d <= 31 && h < 24 && mi < 60 && sec < 61);
}

static int on_record(void *user, char **f, size_t n, size_t line)
{
    importer *im = user;
    if (im->nfields == 0)
        return header(im, f, n, line);
    if (n != im->nfields)
        return kt_fail(im->diag, KT_EFORMAT, "%s:%zu: %zu fields, the header has %zu",
                       im->path, line, n, im->nfields);
    for (int c = 0; c < C_REQUIRED; c++)
        if (!*get(im, f, c))
            return kt_fail(im->diag, KT_EFORMAT, "%s:%zu: column '%s' is empty",
                           im->path, line, COLUMNS[c]);
    if (!is_utc_time(get(im, f, C_CREATED)))
        return kt_fail(im->diag, KT_EFORMAT, "%s:%zu: column 'created': '%s' is not a "
                       "UTC time like 2026-11-24T00:46:18.420Z", im->path, line,
                       get(im, f, C_CREATED));
    kt_result r;
    int rc = check_key(im, f, C_PROBLEM, line);
    if (rc == KT_OK)
        rc = check_key(im, f, C_CONFIG, line);
    if (rc == KT_OK)
        rc = parse_result(im, f, line, &r);
    if (rc == KT_OK)
        rc = im->db ? store(im, f, &r, line) : visit(im, f, &r);
    im->st->rows += rc == KT_OK;
    return rc;
}

/* Every record of the file to on_record; a file without even a header is
 * an error. */
static int read_records(importer *im)
{
    int rc = kt_csv_read(im->path, on_record, im, im->diag);
    free(im->ref_problem);
    free(im->ref_config);
    if (rc == KT_OK && im->nfields == 0)
        rc = kt_fail(im->diag, KT_EFORMAT, "%s: empty (no header)", im->path);
    return rc;
}

int kt_csv_import(const char *path, kt_db *db, kt_csv_import_stats *stats,
                  kt_diag *diag)
{
    *stats = (kt_csv_import_stats){0};
    importer im = {.db = db, .path = path, .ref_kernel = -1, .st = stats, .diag = diag};
    int rc = kt_db_begin(db, diag);
    if (rc != KT_OK)
        return rc;
    rc = read_records(&im);
    if (rc == KT_OK)
        return kt_db_commit(db, diag);
    kt_db_rollback(db);
    stats->added = 0;
    return rc;
}

int kt_csv_rows(const char *path, kt_db_row_fn fn, void *user, kt_diag *diag)
{
    kt_csv_import_stats stats = {0};
    importer im = {.path = path, .fn = fn, .user = user, .ref_kernel = -1, .st = &stats,
                   .diag = diag};
    return read_records(&im);
}
