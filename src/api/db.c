/* db.c - the public results-database API (include/ktune.h) over store/:
 * the store's kt_db and kt_db_row are the public ktune_db and ktune_row
 * themselves; queries, the exports (store/export.c), the imports of
 * other tools' recordings, and merging databases (store/merge.c). */
#include "core/util.h"
#include "store/csv_import.h"
#include "store/export.h"
#include "store/kerneltuner.h"
#include "store/merge.h"
#include "store/miopen.h"
#include "store/retest.h"
#include "store/t4.h"

#include <string.h>

int ktune_db_open(const char *path, unsigned flags, ktune_db **out, ktune_diag *diag)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_db_open: %s is NULL", path ? "out" : "path");
    if (flags & ~KTUNE_DB_CREATE)
        return kt_fail(diag, KT_EINVAL, "ktune_db_open: unknown flags 0x%x", flags);
    return kt_db_open_mode(path, flags & KTUNE_DB_CREATE ? KT_DB_CREATE : KT_DB_EXISTING,
                           out, diag);
}

void ktune_db_close(ktune_db *db) { kt_db_close(db); }

void ktune_query_init(ktune_query *q)
{
    if (q)
        *q = (ktune_query){.size = sizeof *q};
}

/* What ktune_db_query and ktune_db_export check alike: *rows zeroed, db
 * and the other argument (what; given: it is not NULL) given, and q filled by this library's
 * ktune_query_init; then the store's filter of q (NULL: every row). */
static int prepare(const char *fn, ktune_db *db, bool given, const char *what,
                   const ktune_query *q, kt_db_filter *f, kt_db_rows *which, uint64_t *rows,
                   kt_diag *diag)
{
    if (rows)
        *rows = 0;
    if (!db || !given)
        return kt_fail(diag, KT_EINVAL, "%s: %s is NULL", fn, db ? what : "db");
    if (q && q->size != sizeof *q)
        return kt_fail(diag, KT_EINVAL, "%s: a ktune_query of %zu bytes, not %zu (fill it "
                       "with ktune_query_init)", fn, q->size, sizeof *q);
    if (q && q->best && q->front)
        return kt_fail(diag, KT_EINVAL, "%s: a ktune_query asks for both best and front", fn);
    *f = q ? (kt_db_filter){q->kernel, q->problem, q->device, q->ok_only} : (kt_db_filter){0};
    *which = !q ? KT_ROWS_ALL : q->best ? KT_ROWS_BEST : q->front ? KT_ROWS_FRONT : KT_ROWS_ALL;
    return KT_OK;
}

int ktune_db_query(ktune_db *db, const ktune_query *q, ktune_row_fn fn, void *user,
                   uint64_t *rows, ktune_diag *diag)
{
    kt_db_filter f = {0};
    kt_db_rows which = KT_ROWS_ALL;
    uint64_t n = 0;
    int rc = prepare("ktune_db_query", db, fn != NULL, "fn", q, &f, &which, rows, diag);
    if (rc == KT_OK)
        rc = kt_db_query(db, &f, which, fn, user, &n, diag);
    if (rows)
        *rows = n;
    return rc;
}

int ktune_export_format_parse(const char *name, ktune_export_format *out)
{
    kt_export_format fmt;
    int rc = kt_export_format_parse(name, &fmt);
    if (rc == KT_OK && out)
        *out = (ktune_export_format)fmt;
    return rc;
}

int ktune_db_export(ktune_db *db, ktune_export_format fmt, const ktune_query *q, FILE *out,
                    uint64_t *rows, ktune_diag *diag)
{
    kt_db_filter f = {0};
    kt_db_rows which = KT_ROWS_ALL;
    uint64_t n = 0;
    int rc = prepare("ktune_db_export", db, out != NULL, "out", q, &f, &which, rows, diag);
    if (rc == KT_OK)
        rc = kt_db_export(db, fmt, &f, which, out, &n, diag);
    if (rows)
        *rows = n;
    return rc;
}

int ktune_import_format_parse(const char *name, ktune_import_format *out)
{
    static const char *const NAMES[] = {"csv", "miopen", "kerneltuner", "t4"};
    for (size_t i = 0; name && i < KT_ARRAY_LEN(NAMES); i++)
        if (strcmp(name, NAMES[i]) == 0) {
            if (out)
                *out = (ktune_import_format)i;
            return KT_OK;
        }
    return KT_ENOTFOUND;
}

void ktune_import_opts_init(ktune_import_opts *o)
{
    if (o)
        *o = (ktune_import_opts){.size = sizeof *o};
}

static int import_miopen(ktune_db *db, const char *path, const ktune_import_opts *o,
                         ktune_import_stats *st, kt_diag *diag)
{
    kt_miopen_options mo = {.device = o->device, .spec_dir = o->spec_dir, .warn = o->warn,
                            .warn_user = o->warn_user};
    kt_import_stats s;
    int rc = kt_miopen_import_opts(path, db, &mo, &s, diag);
    if (rc != KT_OK)
        return rc;
    *st = (ktune_import_stats){.rows = s.rows, .added = s.added, .solvers = s.solvers,
                               .named = s.named, .rejected = s.rejected};
    snprintf(st->rejects, sizeof st->rejects, "%s", s.rejects);
    snprintf(st->device, sizeof st->device, "%s", s.device);
    return KT_OK;
}

static int import_kerneltuner(ktune_db *db, const char *path, ktune_import_stats *st,
                              kt_diag *diag)
{
    kt_kerneltuner_stats s;
    int rc = kt_kerneltuner_import(path, db, &s, diag);
    if (rc != KT_OK)
        return rc;
    *st = (ktune_import_stats){.rows = s.rows, .added = s.added, .ok = s.ok};
    snprintf(st->device, sizeof st->device, "%s", s.device);
    snprintf(st->kernel, sizeof st->kernel, "%s", s.kernel);
    snprintf(st->problem, sizeof st->problem, "%s", s.problem);
    return KT_OK;
}

/* The one format's import; st is zeroed. */
static int import_as(ktune_db *db, ktune_import_format fmt, const char *path,
                     const ktune_import_opts *o, ktune_import_stats *st, kt_diag *diag)
{
    switch (fmt) {
    case KTUNE_IMPORT_CSV: {
        kt_csv_import_stats s;
        int rc = kt_csv_import(path, db, &s, diag);
        st->rows = s.rows;
        st->added = s.added;
        return rc;
    }
    case KTUNE_IMPORT_T4: {
        kt_t4_options to = {.device = o->device, .kernel = o->kernel, .problem = o->problem};
        kt_t4_stats s;
        int rc = kt_t4_import(path, db, &to, &s, diag);
        *st = (ktune_import_stats){.rows = s.rows, .added = s.added, .ok = s.ok};
        return rc;
    }
    case KTUNE_IMPORT_KERNELTUNER: return import_kerneltuner(db, path, st, diag);
    case KTUNE_IMPORT_MIOPEN: return import_miopen(db, path, o, st, diag);
    }
    return kt_fail(diag, KT_EINVAL, "ktune_db_import: unknown format %d", (int)fmt);
}

int ktune_db_import(ktune_db *db, ktune_import_format fmt, const char *path,
                    const ktune_import_opts *o, ktune_import_stats *stats, ktune_diag *diag)
{
    ktune_import_stats local, *st = stats ? stats : &local;
    ktune_import_opts defaults;
    memset(st, 0, sizeof *st);
    if (!db || !path)
        return kt_fail(diag, KT_EINVAL, "ktune_db_import: %s is NULL", db ? "path" : "db");
    if (o && o->size != sizeof *o)
        return kt_fail(diag, KT_EINVAL, "ktune_db_import: ktune_import_opts of %zu bytes, "
                       "not %zu (fill it with ktune_import_opts_init)", o->size, sizeof *o);
    if (!o) {
        ktune_import_opts_init(&defaults);
        o = &defaults;
    }
    int rc = import_as(db, fmt, path, o, st, diag);
    if (rc != KT_OK)
        memset(st, 0, sizeof *st);
    return rc;
}

int ktune_db_merge(ktune_db *db, const char *path, ktune_merge_stats *stats,
                   ktune_diag *diag)
{
    if (stats)
        *stats = (ktune_merge_stats){0};
    if (!db || !path)
        return kt_fail(diag, KT_EINVAL, "ktune_db_merge: %s is NULL", db ? "path" : "db");
    return kt_db_merge(db, path, stats, diag);
}

int ktune_db_retest(ktune_db *a, ktune_db *b, const ktune_query *q, ktune_retest *out,
                    ktune_diag *diag)
{
    kt_db_filter f = {0};
    kt_db_rows which = KT_ROWS_ALL;
    if (out)
        *out = (ktune_retest){0};
    int rc = prepare("ktune_db_retest", a, b && out, b ? "out" : "b", q, &f, &which, NULL,
                     diag);
    if (rc == KT_OK && which != KT_ROWS_ALL)
        rc = kt_fail(diag, KT_EINVAL, "ktune_db_retest: a ktune_query of best or front "
                     "rows: the pairs are of every ok row");
    return rc == KT_OK ? kt_db_retest(a, b, &f, out, diag) : rc;
}

int ktune_db_merge_mean(ktune_db *db, const char *const *paths, size_t n,
                        ktune_merge_stats *stats, ktune_mean_stats *mean, ktune_diag *diag)
{
    for (size_t i = 0; stats && i < n; i++)
        stats[i] = (ktune_merge_stats){0};
    if (mean)
        *mean = (ktune_mean_stats){0};
    if (!db || (!paths && n > 0))
        return kt_fail(diag, KT_EINVAL, "ktune_db_merge_mean: %s is NULL",
                       db ? "paths" : "db");
    for (size_t i = 0; i < n; i++)
        if (!paths[i])
            return kt_fail(diag, KT_EINVAL, "ktune_db_merge_mean: paths[%zu] is NULL", i);
    return kt_db_merge_mean(db, paths, n, stats, mean, diag);
}
