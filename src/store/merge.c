/* merge.c - one results database merged into another (merge.h): the input
 * is attached to the output's connection, and each table is copied by one
 * INSERT ... SELECT that maps the input's ids to the output's through the
 * natural keys (fingerprint; name and source hash; kernel and key).  For a
 * mean, each input's ok rows are also kept, under the output's ids, in a
 * TEMP table of readings that one UPDATE averages at the end. */
#include "store/merge.h"
#include "core/util.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
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

/* Whether the database attached as schema holds the front table. */
#define HAS_FRONT(schema)                                                       \
    "SELECT count(*) FROM " schema ".sqlite_schema WHERE type = 'table'"      \
    " AND name = 'front'"

/* A mark another mark of its (device, problem) dominates or equals (the
 * younger of equals) is no longer on the front. */
static const char PRUNE[] =
    "DELETE FROM main.front WHERE measurement_id IN (SELECT a.id"
    " FROM main.front fa JOIN main.measurement a ON a.id = fa.measurement_id"
    " JOIN main.measurement b ON b.device_id = a.device_id"
    " AND b.problem_id = a.problem_id AND b.id <> a.id"
    " JOIN main.front fb ON fb.measurement_id = b.id"
    " WHERE (b.time_ms <= a.time_ms AND b.energy_j <= a.energy_j"
    " AND (b.time_ms < a.time_ms OR b.energy_j < a.energy_j))"
    " OR (b.time_ms = a.time_ms AND b.energy_j = a.energy_j AND b.id < a.id))";

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
    PRUNE,
};

/* The readings of a mean (merge.h): a fresh table (one a failed merge of
 * this connection left is dropped), first the output's own ok rows. */
static const char *const READINGS_START[] = {
    "DROP TABLE IF EXISTS temp.merge_readings",
    "CREATE TEMP TABLE merge_readings(device_id INTEGER, problem_id INTEGER,"
    " config TEXT, time_ms REAL, min_ms REAL, energy_j REAL, power_w REAL,"
    " sm_clock_mhz REAL)",
    "INSERT INTO temp.merge_readings SELECT device_id, problem_id, config, time_ms,"
    " min_ms, energy_j, power_w, sm_clock_mhz FROM main.measurement"
    " WHERE status = 'ok'",
};

/* An input's ok rows as readings, under the output's ids. */
static const char READINGS[] =
    "INSERT INTO temp.merge_readings SELECT md.id, mp.id, m.config, m.time_ms,"
    " m.min_ms, m.energy_j, m.power_w, m.sm_clock_mhz" MAPPED " WHERE m.status = 'ok'";

/* Each configuration of two or more readings, with their mean (avg skips
 * a NULL: a reading without energy does not count for energy) and n. */
#define MEANS                                                                   \
    " (SELECT device_id, problem_id, config, count(*) AS n,"                    \
    " avg(time_ms) AS time_ms, min(min_ms) AS min_ms, avg(energy_j) AS energy_j," \
    " avg(power_w) AS power_w, avg(sm_clock_mhz) AS sm_clock_mhz"             \
    " FROM temp.merge_readings GROUP BY device_id, problem_id, config"          \
    " HAVING count(*) > 1)"

static const char MEAN_COUNT[] = "SELECT count(*), coalesce(sum(n), 0) FROM" MEANS;

/* Configurations ok under two or more source versions of their kernel:
 * other code, so not one configuration's readings. */
static const char VERSIONS[] =
    "SELECT count(*) FROM (SELECT 1 FROM main.measurement m"
    " JOIN main.problem p ON p.id = m.problem_id JOIN main.kernel k ON k.id = p.kernel_id"
    " WHERE m.status = 'ok' GROUP BY m.device_id, k.name, p.key, m.config"
    " HAVING count(DISTINCT k.source_hash) > 1)";

/* The row kept of each (an ok one: a success is kept and replaces a
 * failure) gets the mean. */
static const char MEAN_UPDATE[] =
    "UPDATE main.measurement SET time_ms = r.time_ms, min_ms = r.min_ms,"
    " energy_j = r.energy_j, power_w = r.power_w, sm_clock_mhz = r.sm_clock_mhz"
    " FROM" MEANS " AS r WHERE measurement.device_id = r.device_id"
    " AND measurement.problem_id = r.problem_id AND measurement.config = r.config"
    " AND measurement.status = 'ok'";

static int sql_error(sqlite3 *c, kt_diag *diag, const char *path, const char *what)
{
    return kt_fail(diag, KT_EDB, "%s: %s: %s", path, what, sqlite3_errmsg(c));
}

/* Prepare sql, bind text to ?1 when given, step it to its end; the columns
 * of its one row (counts) into n[0], n[1], ... when given. */
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
        for (int i = 0; n && i < sqlite3_column_count(st); i++)
            n[i] = sqlite3_column_int64(st, i);
    int out = rc == SQLITE_DONE ? KT_OK : sql_error(c, diag, path, "cannot merge");
    sqlite3_finalize(st);
    return out;
}

/* Whether paths a and b name the same file. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The output's file name ("" in memory). */
static const char *own_file(kt_db *db)
{
    const char *own = sqlite3_db_filename(kt_db_sqlite(db), "main");
    return own ? own : "";
}

/* path as an input of db: not db's own file, and a ktune database (a
 * version-1 file upgraded), which is all the merge itself then reads. */
static int check_input(kt_db *db, const char *path, kt_diag *diag)
{
    if (same_file(own_file(db), path))
        return kt_fail(diag, KT_EINVAL, "%s: the database merged into; give it once, "
                       "as the output", path);
    kt_db *in = NULL;
    int rc = kt_db_open_mode(path, KT_DB_EXISTING, &in, diag); /* ours, upgraded */
    kt_db_close(in);
    return rc;
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
        rc = run(c, HAS_FRONT("merge_in"), NULL, &fronts, path, diag);
    for (size_t i = 0; rc == KT_OK && fronts > 0 && i < KT_ARRAY_LEN(FRONT); i++)
        rc = run(c, FRONT[i], NULL, NULL, path, diag);
    return rc;
}

/* The checked input at path merged into db in one transaction; with
 * readings, its ok rows kept as readings too (the same transaction). */
static int merge_one(kt_db *db, const char *path, bool readings, kt_merge_stats *st,
                     kt_diag *diag)
{
    sqlite3 *c = kt_db_sqlite(db);
    int rc = run(c, "ATTACH DATABASE ?1 AS merge_in", path, NULL, path, diag);
    if (rc != KT_OK)
        return rc;
    if ((rc = kt_db_begin(db, diag)) == KT_OK) {
        rc = copy_all(c, path, st, diag);
        if (rc == KT_OK && readings)
            rc = run(c, READINGS, NULL, NULL, path, diag);
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

int kt_db_merge(kt_db *db, const char *path, kt_merge_stats *stats, kt_diag *diag)
{
    kt_merge_stats local;
    kt_merge_stats *st = stats ? stats : &local;
    *st = (kt_merge_stats){0};
    int rc = check_input(db, path, diag);
    return rc == KT_OK ? merge_one(db, path, false, st, diag) : rc;
}

/* Every input checked, and none given twice, before anything is written. */
static int check_inputs(kt_db *db, const char *const *paths, size_t n, kt_diag *diag)
{
    int rc = KT_OK;
    for (size_t i = 0; rc == KT_OK && i < n; i++) {
        rc = check_input(db, paths[i], diag);
        for (size_t j = 0; rc == KT_OK && j < i; j++)
            if (same_file(paths[j], paths[i]))
                rc = kt_fail(diag, KT_EINVAL, "%s: given twice (as %s): its readings "
                             "would count twice", paths[i], paths[j]);
    }
    return rc;
}

/* The readings as their means, in one transaction: all or nothing. */
static int average(kt_db *db, kt_mean_stats *mean, kt_diag *diag)
{
    sqlite3 *c = kt_db_sqlite(db);
    const char *own = own_file(db);
    int64_t counts[2] = {0, 0}, fronts = 0, versions = 0;
    int rc = kt_db_begin(db, diag);
    if (rc != KT_OK)
        return rc;
    rc = run(c, MEAN_COUNT, NULL, counts, own, diag);
    if (rc == KT_OK)
        rc = run(c, MEAN_UPDATE, NULL, NULL, own, diag);
    if (rc == KT_OK)
        rc = run(c, HAS_FRONT("main"), NULL, &fronts, own, diag);
    if (rc == KT_OK && fronts > 0)
        rc = run(c, PRUNE, NULL, NULL, own, diag); /* means move marks */
    if (rc == KT_OK)
        rc = run(c, VERSIONS, NULL, &versions, own, diag);
    if (rc == KT_OK)
        rc = kt_db_commit(db, diag);
    if (rc != KT_OK) {
        kt_db_rollback(db);
        return rc;
    }
    *mean = (kt_mean_stats){.averaged = (uint64_t)counts[0], .readings = (uint64_t)counts[1],
                            .versions = (uint64_t)versions};
    return KT_OK;
}

/* An error after the checks says what it left: the inputs merged before
 * it, none averaged (a user must not merge those again into this output). */
static void note_partial(kt_diag *diag, size_t merged, size_t n)
{
    size_t len = diag ? strlen(diag->msg) : 0;
    if (diag && len + 1 < sizeof diag->msg)
        snprintf(diag->msg + len, sizeof diag->msg - len,
                 " (%zu of %zu inputs merged, nothing averaged)", merged, n);
}

int kt_db_merge_mean(kt_db *db, const char *const *paths, size_t n, kt_merge_stats *stats,
                     kt_mean_stats *mean, kt_diag *diag)
{
    kt_mean_stats local;
    kt_mean_stats *m = mean ? mean : &local;
    *m = (kt_mean_stats){0};
    for (size_t i = 0; stats && i < n; i++)
        stats[i] = (kt_merge_stats){0};
    int rc = check_inputs(db, paths, n, diag);
    if (rc != KT_OK)
        return rc; /* nothing written */
    sqlite3 *c = kt_db_sqlite(db);
    for (size_t i = 0; rc == KT_OK && i < KT_ARRAY_LEN(READINGS_START); i++)
        rc = run(c, READINGS_START[i], NULL, NULL, own_file(db), diag);
    size_t merged = 0;
    while (rc == KT_OK && merged < n) {
        kt_merge_stats st;
        rc = merge_one(db, paths[merged], true, &st, diag);
        if (stats)
            stats[merged] = st;
        if (rc == KT_OK)
            merged++;
    }
    if (rc == KT_OK)
        rc = average(db, m, diag);
    if (rc != KT_OK)
        note_partial(diag, merged, n);
    run(c, "DROP TABLE IF EXISTS temp.merge_readings", NULL, NULL, "", NULL);
    return rc;
}
