/* merge.c - one results database merged into another (merge.h): the input
 * is attached to the output's connection, and each table is copied by one
 * INSERT ... SELECT that maps the input's ids to the output's through the
 * natural keys (fingerprint; name and source hash; kernel and key). */
#include "store/merge.h"
#include "core/util.h"

#include <sqlite3.h>
#include <sys/stat.h>

/* The input's measurements with the output's device and problem ids. */
#define MAPPED                                                                  \
    " FROM merge_in.measurement m"                                             \
    " JOIN merge_in.device d ON d.id = m.device_id"                            \
    " JOIN main.device md ON md.fingerprint = d.fingerprint"                   \
    " JOIN merge_in.problem p ON p.id = m.problem_id"                          \
    " JOIN merge_in.kernel k ON k.id = p.kernel_id"                            \
    " JOIN main.kernel mk ON mk.name = k.name AND mk.source_hash = k.source_hash" \
    " JOIN main.problem mp ON mp.kernel_id = mk.id AND mp.key = p.key"

#define COLUMNS                                                                 \
    "status, signal, detail, time_ms, min_ms, spread, reps, compile_ms,"        \
    " energy_j, power_w, max_error, sm_clock_mhz, created"

/* The copies, in order (the WHERE true of each INSERT ... SELECT keeps
 * SQLite from reading its ON CONFLICT as a join's ON). */
static const char *const COPY[] = {
    "INSERT INTO main.device(name, backend, fingerprint, created)"
    " SELECT name, backend, fingerprint, created FROM merge_in.device WHERE true"
    " ORDER BY id ON CONFLICT(fingerprint) DO NOTHING",
    "INSERT INTO main.kernel(name, source_hash) SELECT name, source_hash"
    " FROM merge_in.kernel WHERE true ORDER BY id"
    " ON CONFLICT(name, source_hash) DO NOTHING",
    "INSERT INTO main.problem(kernel_id, key) SELECT mk.id, p.key"
    " FROM merge_in.problem p JOIN merge_in.kernel k ON k.id = p.kernel_id"
    " JOIN main.kernel mk ON mk.name = k.name AND mk.source_hash = k.source_hash"
    " WHERE true ORDER BY p.id ON CONFLICT(kernel_id, key) DO NOTHING",
};

/* The measurements, in the input's order; a success replaces a failure
 * (merge.h).  sqlite3_changes counts the rows inserted and replaced. */
static const char MEASUREMENTS[] =
    "INSERT INTO main.measurement(device_id, problem_id, config, " COLUMNS ")"
    " SELECT md.id, mp.id, m.config, m.status, m.signal, m.detail, m.time_ms,"
    " m.min_ms, m.spread, m.reps, m.compile_ms, m.energy_j, m.power_w,"
    " m.max_error, m.sm_clock_mhz, m.created" MAPPED " WHERE true ORDER BY m.id"
    " ON CONFLICT(device_id, problem_id, config) DO UPDATE SET"
    " status = excluded.status, signal = excluded.signal, detail = excluded.detail,"
    " time_ms = excluded.time_ms, min_ms = excluded.min_ms, spread = excluded.spread,"
    " reps = excluded.reps, compile_ms = excluded.compile_ms,"
    " energy_j = excluded.energy_j, power_w = excluded.power_w,"
    " max_error = excluded.max_error, sm_clock_mhz = excluded.sm_clock_mhz,"
    " created = excluded.created"
    " WHERE measurement.status <> 'ok' AND excluded.status = 'ok'";

/* The front marks (db.c's table), as fronts (merge.h). */
static const char *const FRONT[] = {
    "CREATE TABLE IF NOT EXISTS main.front("
    "  measurement_id INTEGER PRIMARY KEY REFERENCES measurement(id))",
    "INSERT OR IGNORE INTO main.front(measurement_id) SELECT mm.id"
    " FROM merge_in.front f JOIN merge_in.measurement m ON m.id = f.measurement_id"
    " JOIN merge_in.device d ON d.id = m.device_id"
    " JOIN main.device md ON md.fingerprint = d.fingerprint"
    " JOIN merge_in.problem p ON p.id = m.problem_id"
    " JOIN merge_in.kernel k ON k.id = p.kernel_id"
    " JOIN main.kernel mk ON mk.name = k.name AND mk.source_hash = k.source_hash"
    " JOIN main.problem mp ON mp.kernel_id = mk.id AND mp.key = p.key"
    " JOIN main.measurement mm ON mm.device_id = md.id AND mm.problem_id = mp.id"
    " AND mm.config = m.config WHERE mm.status = 'ok'",
    /* A mark another mark of its (device, problem) dominates or equals
     * (the younger of equals) is no longer on the front. */
    "DELETE FROM main.front WHERE measurement_id IN (SELECT a.id"
    " FROM main.front fa JOIN main.measurement a ON a.id = fa.measurement_id"
    " JOIN main.measurement b ON b.device_id = a.device_id"
    " AND b.problem_id = a.problem_id AND b.id <> a.id"
    " JOIN main.front fb ON fb.measurement_id = b.id"
    " WHERE (b.time_ms <= a.time_ms AND b.energy_j <= a.energy_j"
    " AND (b.time_ms < a.time_ms OR b.energy_j < a.energy_j))"
    " OR (b.time_ms = a.time_ms AND b.energy_j = a.energy_j AND b.id < a.id))",
};

static int sql_error(sqlite3 *c, kt_diag *diag, const char *path, const char *what)
{
    return kt_fail(diag, KT_EDB, "%s: %s: %s", path, what, sqlite3_errmsg(c));
}

/* Prepare sql, bind text to ?1 when given, step it to its end; the first
 * column of its one row (a count) into *n when given. */
static int run(sqlite3 *c, const char *sql, const char *text, int64_t *n,
               const char *path, kt_diag *diag)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_error(c, diag, path, "cannot prepare the merge");
    if (text)
        sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (n)
            *n = sqlite3_column_int64(st, 0);
    int out = rc == SQLITE_DONE ? KT_OK : sql_error(c, diag, path, "cannot merge");
    sqlite3_finalize(st);
    return out;
}

/* Whether path names db's own file (merging it into itself). */
static bool same_file(sqlite3 *c, const char *path)
{
    const char *own = sqlite3_db_filename(c, "main");
    struct stat a, b;
    return own && stat(own, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* The copies, inside the caller's transaction. */
static int copy_all(sqlite3 *c, const char *path, kt_merge_stats *st, kt_diag *diag)
{
    int64_t rows = 0, before = 0, after = 0, fronts = 0;
    int rc = run(c, "SELECT count(*) FROM merge_in.measurement", NULL, &rows, path, diag);
    st->rows = (uint64_t)rows;
    for (size_t i = 0; rc == KT_OK && i < KT_ARRAY_LEN(COPY); i++)
        rc = run(c, COPY[i], NULL, NULL, path, diag);
    if (rc == KT_OK)
        rc = run(c, "SELECT count(*) FROM main.measurement", NULL, &before, path, diag);
    if (rc == KT_OK)
        rc = run(c, MEASUREMENTS, NULL, NULL, path, diag);
    int64_t changed = sqlite3_changes64(c);
    if (rc == KT_OK)
        rc = run(c, "SELECT count(*) FROM main.measurement", NULL, &after, path, diag);
    st->added = (uint64_t)(after - before);
    st->replaced = (uint64_t)(changed - (after - before));
    if (rc == KT_OK)
        rc = run(c, "SELECT count(*) FROM merge_in.sqlite_schema WHERE type = 'table'"
                 " AND name = 'front'", NULL, &fronts, path, diag);
    for (size_t i = 0; rc == KT_OK && fronts > 0 && i < KT_ARRAY_LEN(FRONT); i++)
        rc = run(c, FRONT[i], NULL, NULL, path, diag);
    return rc;
}

int kt_db_merge(kt_db *db, const char *path, kt_merge_stats *stats, kt_diag *diag)
{
    kt_merge_stats local;
    kt_merge_stats *st = stats ? stats : &local;
    *st = (kt_merge_stats){0};
    sqlite3 *c = kt_db_sqlite(db);
    if (same_file(c, path))
        return kt_fail(diag, KT_EINVAL, "%s: the database merged into; give it once, "
                       "as the output", path);
    kt_db *in = NULL;
    int rc = kt_db_open_mode(path, KT_DB_EXISTING, &in, diag); /* ours, upgraded */
    kt_db_close(in);
    if (rc != KT_OK)
        return rc;
    if ((rc = run(c, "ATTACH DATABASE ?1 AS merge_in", path, NULL, path, diag)) != KT_OK)
        return rc;
    if ((rc = kt_db_begin(db, diag)) == KT_OK) {
        rc = copy_all(c, path, st, diag);
        if (rc == KT_OK)
            rc = kt_db_commit(db, diag);
        if (rc != KT_OK)
            kt_db_rollback(db);
    }
    run(c, "DETACH DATABASE merge_in", NULL, NULL, path, NULL);
    if (rc != KT_OK)
        *st = (kt_merge_stats){0};
    return rc;
}
