/* db.c - the SQLite results database (schema, ids, measurements, queries).
 *
 * The file carries application_id 'ktun' and a schema version in
 * user_version, checked on open, so a foreign or newer file is refused with
 * a clear message instead of being written into.
 *
 * The version changes only when an older ktune could not read a newer
 * file.  The time/energy front (kt_db_front_mark) is a table of its own,
 * created by the first mark: older ktune versions read and write such a
 * file as before, and a reader never writes into a file for it (a
 * committed database stays as it is).
 */
#include "store/db.h"
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define KT_DB_APP_ID 0x6b74756e /* "ktun" */
#define KT_DB_VERSION 2

static const char SCHEMA[] =
    "CREATE TABLE device("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  backend TEXT NOT NULL,"
    "  fingerprint TEXT NOT NULL UNIQUE,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));"
    "CREATE TABLE kernel("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  source_hash TEXT NOT NULL,"
    "  UNIQUE(name, source_hash));"
    "CREATE TABLE problem("
    "  id INTEGER PRIMARY KEY,"
    "  kernel_id INTEGER NOT NULL REFERENCES kernel(id),"
    "  key TEXT NOT NULL,"
    "  UNIQUE(kernel_id, key));"
    "CREATE TABLE measurement("
    "  id INTEGER PRIMARY KEY,"
    "  device_id INTEGER NOT NULL REFERENCES device(id),"
    "  problem_id INTEGER NOT NULL REFERENCES problem(id),"
    "  config TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  signal INTEGER NOT NULL DEFAULT 0,"
    "  detail TEXT NOT NULL DEFAULT '',"
    "  time_ms REAL, min_ms REAL, spread REAL, reps INTEGER,"
    "  compile_ms REAL, energy_j REAL, power_w REAL, max_error REAL,"
    "  sm_clock_mhz REAL,"
    "  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),"
    "  UNIQUE(device_id, problem_id, config));";

/* The statements this file prepares once per handle. */
enum {
    ST_DEVICE_GET, ST_DEVICE_PUT, ST_KERNEL_GET, ST_KERNEL_PUT, ST_PROBLEM_GET,
    ST_PROBLEM_PUT, ST_LOOKUP, ST_RECORD, ST_REMEASURE, ST_COUNT, ST_SAMPLE,
    ST_DATA_VERSION, ST_N
};

static const char *const SQL[ST_N] = {
    [ST_DEVICE_GET] = "SELECT id FROM device WHERE fingerprint = ?1",
    [ST_DEVICE_PUT] = "INSERT INTO device(name, backend, fingerprint) VALUES (?1, ?2, ?3)",
    [ST_KERNEL_GET] = "SELECT id FROM kernel WHERE name = ?1 AND source_hash = ?2",
    [ST_KERNEL_PUT] = "INSERT INTO kernel(name, source_hash) VALUES (?1, ?2)",
    [ST_PROBLEM_GET] = "SELECT id FROM problem WHERE kernel_id = ?1 AND key = ?2",
    [ST_PROBLEM_PUT] = "INSERT INTO problem(kernel_id, key) VALUES (?1, ?2)",
    [ST_LOOKUP] = "SELECT status, signal, detail, time_ms, min_ms, spread, reps,"
                  " compile_ms, energy_j, power_w, max_error, sm_clock_mhz FROM measurement"
                  " WHERE device_id = ?1 AND problem_id = ?2 AND config = ?3",
    /* A configuration is stored once: an import keeps what is there ... */
    [ST_RECORD] = "INSERT OR IGNORE INTO measurement(device_id, problem_id, config,"
                  " status, signal, detail, time_ms, min_ms, spread, reps,"
                  " compile_ms, energy_j, power_w, max_error, sm_clock_mhz, created)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
                  " ?15, coalesce(?16, strftime('%Y-%m-%dT%H:%M:%fZ','now')))",
    /* ... while a new measurement replaces a stored failure (measured again
     * on request), never a success. */
    [ST_REMEASURE] = "INSERT INTO measurement(device_id, problem_id, config,"
                     " status, signal, detail, time_ms, min_ms, spread, reps,"
                     " compile_ms, energy_j, power_w, max_error, sm_clock_mhz, created)"
                     " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
                     " ?15, coalesce(?16, strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
                     " ON CONFLICT(device_id, problem_id, config) DO UPDATE SET"
                     " status = excluded.status, signal = excluded.signal,"
                     " detail = excluded.detail, time_ms = excluded.time_ms,"
                     " min_ms = excluded.min_ms, spread = excluded.spread,"
                     " reps = excluded.reps, compile_ms = excluded.compile_ms,"
                     " energy_j = excluded.energy_j, power_w = excluded.power_w,"
                     " max_error = excluded.max_error, sm_clock_mhz = excluded.sm_clock_mhz,"
                     " created = excluded.created WHERE measurement.status <> 'ok'",
    [ST_COUNT] = "SELECT count(*) FROM measurement WHERE device_id = ?1 AND problem_id = ?2",
    [ST_SAMPLE] = ("SELECT p.key, m.config FROM problem p JOIN measurement m"
                   " ON m.problem_id = p.id WHERE p.kernel_id = ?1 LIMIT 1"),
    [ST_DATA_VERSION] = "PRAGMA data_version",
};

struct ktune_db {
    sqlite3 *conn;
    char *path;
    sqlite3_stmt *st[ST_N];
};

static int db_error(kt_db *db, kt_diag *diag, const char *what)
{
    return kt_fail(diag, KT_EDB, "%s: %s: %s", db->path, what,
                   sqlite3_errmsg(db->conn));
}

/* ---------------------------------------------------------------- open */

static int pragma_int(sqlite3 *conn, const char *sql, int *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(conn, sql, -1, &st, NULL) != SQLITE_OK)
        return KT_EDB;
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? KT_OK : KT_EDB;
}

/* Run SQL without results (schema, transactions). */
static int exec(kt_db *db, const char *sql, kt_diag *diag)
{
    char *err = NULL;
    if (sqlite3_exec(db->conn, sql, NULL, NULL, &err) == SQLITE_OK)
        return KT_OK;
    kt_fail(diag, KT_EDB, "%s: %s", db->path, err ? err : sqlite3_errmsg(db->conn));
    sqlite3_free(err);
    return KT_EDB;
}

/* Run sql, then stamp the file with our id and version (inside the
 * caller's transaction). */
static int write_schema(kt_db *db, const char *sql, kt_diag *diag)
{
    char pragmas[128];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA application_id = %d; PRAGMA user_version = %d;",
             KT_DB_APP_ID, KT_DB_VERSION);
    int rc = exec(db, sql, diag);
    return rc == KT_OK ? exec(db, pragmas, diag) : rc;
}

/* End the transaction: commit when rc is KT_OK, else roll back. */
static int end_transaction(kt_db *db, int rc, kt_diag *diag)
{
    if (rc == KT_OK)
        rc = exec(db, "COMMIT", diag);
    if (rc != KT_OK)
        exec(db, "ROLLBACK", NULL);
    return rc;
}

/* Version 1 lacked the SM clock; its rows read it as unknown. */
static const char UPGRADE_1[] = "ALTER TABLE measurement ADD COLUMN sm_clock_mhz REAL;";

/* Whether the first bytes of the file at path are the header of a ktune
 * database (SQLite's, with our application_id at offset 68), read without
 * SQLite: a hot journal beside a file stops a read-only connection. */
static bool ktune_header(const char *path)
{
    unsigned char head[72] = {0};
    FILE *f = fopen(path, "rb");
    bool ours = f && fread(head, 1, sizeof head, f) == sizeof head &&
                memcmp(head, "SQLite format 3", 16) == 0 &&
                memcmp(head + 68, "ktun", 4) == 0;
    if (f)
        fclose(f);
    return ours;
}

/* Whether the file at path is a ktune database of a version we read, asked
 * through a read-only connection: nothing is written to a file before it
 * is known to be ours (not even the switch to WAL).  One of ours with a
 * transaction to roll back (a kill while it was created) sets *recheck:
 * the read-write connection rolls it back and checks again. */
static int check_identity(const char *path, int *version, bool *recheck,
                          kt_diag *diag)
{
    sqlite3 *c = NULL;
    int app = 0, rc = sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK && (pragma_int(c, "PRAGMA application_id", &app) != KT_OK ||
                            pragma_int(c, "PRAGMA user_version", version) != KT_OK))
        rc = sqlite3_extended_errcode(c);
    char why[256];
    kt_strlcpy(why, sizeof why, c ? sqlite3_errmsg(c) : "out of memory");
    sqlite3_close(c);
    *recheck = rc == SQLITE_READONLY_ROLLBACK && ktune_header(path);
    if (*recheck)
        return KT_OK;
    if (rc == SQLITE_NOTADB)
        return kt_fail(diag, KT_EFORMAT, "%s: not a ktune database (not an SQLite "
                       "file)", path);
    if (rc == SQLITE_READONLY_ROLLBACK)
        return kt_fail(diag, KT_EFORMAT, "%s: not a ktune database (an SQLite file "
                       "with another application's unfinished transaction)", path);
    if (rc != SQLITE_OK)
        return kt_fail(diag, KT_EDB, "%s: cannot read the database: %s", path, why);
    if (app != KT_DB_APP_ID)
        return kt_fail(diag, KT_EFORMAT, "%s: not a ktune database (an SQLite file "
                       "of another application)", path);
    if (*version != 1 && *version != KT_DB_VERSION)
        return kt_fail(diag, KT_EFORMAT, "%s: schema version %d is not supported "
                       "(this ktune reads version %d)", path, *version, KT_DB_VERSION);
    return KT_OK;
}

/* Make sure the file at path is a ktune database before anything opens it
 * for writing.  No file, or an empty one (it holds nothing to lose, and the
 * sqlite3 shell leaves one when it opens a path that does not exist): a
 * database is created there when mode allows, else an error.  Any other
 * file must be ours.  *fresh: create or check again in a transaction on
 * the read-write connection (init_schema). */
static int identify(const char *path, kt_db_mode mode, bool *fresh, int *version,
                    kt_diag *diag)
{
    struct stat st;
    int got = stat(path, &st);
    bool absent = got != 0 && errno == ENOENT;
    *fresh = absent || (got == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
    if (*fresh && mode == KT_DB_EXISTING)
        return absent ? kt_fail(diag, KT_EIO, "cannot open '%s': no such file", path)
                      : kt_fail(diag, KT_EFORMAT, "%s: an empty file, not a ktune "
                                "database", path);
    return *fresh ? KT_OK : check_identity(path, version, fresh, diag);
}

/* Write the schema into an empty file, unless another process did first
 * (then it must be ours): one exclusive transaction, in the rollback
 * journal (WAL comes after), so a kill leaves the file empty again (with a
 * journal that the next open rolls back, see check_identity). */
static int init_schema(kt_db *db, int *version, kt_diag *diag)
{
    int app = 0, tables = 0;
    int rc = exec(db, "BEGIN EXCLUSIVE", diag);
    if (rc == KT_OK && (pragma_int(db->conn, "PRAGMA application_id", &app) != KT_OK ||
                        pragma_int(db->conn, "PRAGMA user_version", version) != KT_OK ||
                        pragma_int(db->conn, "SELECT count(*) FROM sqlite_schema",
                                   &tables) != KT_OK))
        rc = db_error(db, diag, "cannot read the schema");
    bool empty = app == 0 && tables == 0 && *version == 0;
    if (rc == KT_OK && !empty && app != KT_DB_APP_ID)
        rc = kt_fail(diag, KT_EFORMAT, "%s: not a ktune database (an SQLite file of "
                     "another application)", db->path);
    if (rc == KT_OK && empty) {
        rc = write_schema(db, SCHEMA, diag);
        *version = KT_DB_VERSION;
    }
    return end_transaction(db, rc, diag);
}

static int configure(kt_db *db, int version, kt_diag *diag)
{
    /* WAL: readers never block the tuner; synchronous=FULL: a committed
     * measurement survives power loss, not only a killed process. */
    int rc = exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                      " PRAGMA foreign_keys = ON;", diag);
    if (rc == KT_OK && version == 1) {
        rc = exec(db, "BEGIN IMMEDIATE", diag);
        if (rc == KT_OK)
            rc = end_transaction(db, write_schema(db, UPGRADE_1, diag), diag);
    }
    return rc;
}

int kt_db_open(const char *path, kt_db **out, kt_diag *diag)
{
    return kt_db_open_mode(path, KT_DB_CREATE, out, diag);
}

int kt_db_open_mode(const char *path, kt_db_mode mode, kt_db **out, kt_diag *diag)
{
    *out = NULL;
    kt_db *db = calloc(1, sizeof *db);
    if (!db || !(db->path = kt_strdup(path))) {
        free(db);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    int version = 0;
    bool fresh;
    int rc = identify(path, mode, &fresh, &version, diag);
    if (rc == KT_OK &&
        sqlite3_open_v2(path, &db->conn,
                        SQLITE_OPEN_READWRITE | (fresh ? SQLITE_OPEN_CREATE : 0),
                        NULL) != SQLITE_OK)
        rc = db_error(db, diag, "cannot open");
    if (rc == KT_OK)
        sqlite3_busy_timeout(db->conn, 10000);
    if (rc == KT_OK && fresh)
        rc = init_schema(db, &version, diag);
    if (rc == KT_OK)
        rc = configure(db, version, diag);
    for (int i = 0; rc == KT_OK && i < ST_N; i++)
        if (sqlite3_prepare_v2(db->conn, SQL[i], -1, &db->st[i], NULL) != SQLITE_OK)
            rc = db_error(db, diag, "cannot prepare a statement");
    if (rc != KT_OK) {
        kt_db_close(db);
        return rc;
    }
    *out = db;
    return KT_OK;
}

void kt_db_close(kt_db *db)
{
    if (!db)
        return;
    for (int i = 0; i < ST_N; i++)
        sqlite3_finalize(db->st[i]);
    sqlite3_close(db->conn);
    free(db->path);
    free(db);
}

/* ----------------------------------------------------------------- ids */

/* Run a statement to completion; its bindings are cleared afterwards. */
static int step_done(kt_db *db, sqlite3_stmt *st, kt_diag *diag, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? KT_OK : db_error(db, diag, what);
}

/* Step a lookup whose first column is an id: 1 found (*id set), 0 not
 * found, or a negative error.  The statement is reset either way. */
static int step_id(kt_db *db, sqlite3_stmt *st, int64_t *id, kt_diag *diag)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc == SQLITE_ROW)
        return 1;
    return rc == SQLITE_DONE ? 0 : db_error(db, diag, "lookup failed");
}

/* Run an insert and give the new row's id. */
static int insert_id(kt_db *db, sqlite3_stmt *st, int64_t *id, kt_diag *diag)
{
    int rc = step_done(db, st, diag, "insert failed");
    *id = sqlite3_last_insert_rowid(db->conn);
    return rc;
}

/* Bind ?1 (the text a, or the integer num when a is NULL) and ?2 (text b). */
static void bind_pair(sqlite3_stmt *st, int64_t num, const char *a, const char *b)
{
    if (a)
        sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
    else
        sqlite3_bind_int64(st, 1, num);
    sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
}

/* Look a row up by (?1, ?2) with get, inserting it with put when absent. */
static int get_or_put(kt_db *db, int get, int put, int64_t num, const char *a,
                      const char *b, int64_t *id, kt_diag *diag)
{
    bind_pair(db->st[get], num, a, b);
    int found = step_id(db, db->st[get], id, diag);
    if (found != 0)
        return found > 0 ? KT_OK : found;
    bind_pair(db->st[put], num, a, b);
    return insert_id(db, db->st[put], id, diag);
}

int kt_db_device(kt_db *db, const kt_device_info *dev, int64_t *id, kt_diag *diag)
{
    /* Devices are found by fingerprint alone: its name is only a label. */
    sqlite3_stmt *get = db->st[ST_DEVICE_GET], *put = db->st[ST_DEVICE_PUT];
    sqlite3_bind_text(get, 1, dev->fingerprint, -1, SQLITE_STATIC);
    int found = step_id(db, get, id, diag);
    if (found != 0)
        return found > 0 ? KT_OK : found;
    sqlite3_bind_text(put, 1, dev->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(put, 2, dev->backend, -1, SQLITE_STATIC);
    sqlite3_bind_text(put, 3, dev->fingerprint, -1, SQLITE_STATIC);
    return insert_id(db, put, id, diag);
}

int kt_db_kernel(kt_db *db, const char *name, const char *source_hash, int64_t *id,
                 kt_diag *diag)
{
    return get_or_put(db, ST_KERNEL_GET, ST_KERNEL_PUT, 0, name, source_hash, id,
                      diag);
}

int kt_db_problem(kt_db *db, int64_t kernel, const char *key, int64_t *id,
                  kt_diag *diag)
{
    return get_or_put(db, ST_PROBLEM_GET, ST_PROBLEM_PUT, kernel, NULL, key, id, diag);
}

/* -------------------------------------------------------- measurements */

static double column_real(sqlite3_stmt *st, int col)
{
    return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN
                                                       : sqlite3_column_double(st, col);
}

static void bind_real(sqlite3_stmt *st, int col, double v)
{
    if (isnan(v))
        sqlite3_bind_null(st, col);
    else
        sqlite3_bind_double(st, col, v);
}

/* Read the 12 result columns that start at col (the order of ST_LOOKUP). */
static void read_result(sqlite3_stmt *st, int col, kt_result *r)
{
    *r = (kt_result){0};
    const char *status = (const char *)sqlite3_column_text(st, col);
    if (!status || kt_status_parse(status, &r->status) != KT_OK)
        r->status = KT_STATUS_RUNTIME_ERROR;
    r->signal = sqlite3_column_int(st, col + 1);
    const char *detail = (const char *)sqlite3_column_text(st, col + 2);
    kt_strlcpy(r->detail, sizeof r->detail, detail ? detail : "");
    r->time_ms = column_real(st, col + 3);
    r->min_ms = column_real(st, col + 4);
    r->spread = column_real(st, col + 5);
    r->reps = sqlite3_column_int(st, col + 6);
    r->compile_ms = column_real(st, col + 7);
    r->energy_j = column_real(st, col + 8);
    r->power_w = column_real(st, col + 9);
    r->max_error = column_real(st, col + 10);
    r->sm_clock_mhz = sqlite3_column_double(st, col + 11); /* NULL reads 0: unknown */
}

int kt_db_lookup(kt_db *db, int64_t device, int64_t problem, const char *config,
                 kt_result *out, bool *found, kt_diag *diag)
{
    sqlite3_stmt *st = db->st[ST_LOOKUP];
    sqlite3_bind_int64(st, 1, device);
    sqlite3_bind_int64(st, 2, problem);
    sqlite3_bind_text(st, 3, config, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *found = rc == SQLITE_ROW;
    if (*found)
        read_result(st, 0, out);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? KT_OK
                                                 : db_error(db, diag, "lookup failed");
}

/* Store one result with st (ST_RECORD or ST_REMEASURE). */
static int record(kt_db *db, sqlite3_stmt *st, int64_t device, int64_t problem,
                  const char *config, const kt_result *r, const char *created,
                  kt_diag *diag)
{
    /* One INSERT in autocommit mode is one transaction. */
    sqlite3_bind_int64(st, 1, device);
    sqlite3_bind_int64(st, 2, problem);
    sqlite3_bind_text(st, 3, config, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, kt_status_name(r->status), -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, r->signal);
    sqlite3_bind_text(st, 6, r->detail, -1, SQLITE_STATIC);
    bool ok = r->status == KT_STATUS_OK;
    bind_real(st, 7, ok ? r->time_ms : NAN);
    bind_real(st, 8, ok ? r->min_ms : NAN);
    bind_real(st, 9, ok ? r->spread : NAN);
    sqlite3_bind_int(st, 10, r->reps);
    bind_real(st, 11, r->compile_ms);
    bind_real(st, 12, r->energy_j);
    bind_real(st, 13, r->power_w);
    bind_real(st, 14, r->max_error);
    bind_real(st, 15, r->sm_clock_mhz > 0 ? r->sm_clock_mhz : NAN);
    if (created)
        sqlite3_bind_text(st, 16, created, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 16);
    return step_done(db, st, diag, "cannot store the measurement");
}

int kt_db_record(kt_db *db, int64_t device, int64_t kernel, int64_t problem,
                 const char *config, const kt_result *r, kt_diag *diag)
{
    (void)kernel; /* implied by the problem; kept in the API for clarity */
    return record(db, db->st[ST_REMEASURE], device, problem, config, r, NULL, diag);
}

int kt_db_record_at(kt_db *db, int64_t device, int64_t kernel, int64_t problem,
                    const char *config, const kt_result *r, const char *created,
                    kt_diag *diag)
{
    (void)kernel;
    return record(db, db->st[ST_RECORD], device, problem, config, r, created, diag);
}

/* --------------------------------------------------------------- front */

/* The rows of a front: one per measurement, which outlives none of them
 * (a stored success is never replaced, kt_db_record). */
static const char FRONT_TABLE[] =
    "CREATE TABLE IF NOT EXISTS front("
    "  measurement_id INTEGER PRIMARY KEY REFERENCES measurement(id));";
static const char FRONT_CLEAR[] =
    "DELETE FROM front WHERE measurement_id IN"
    " (SELECT id FROM measurement WHERE device_id = ?1 AND problem_id = ?2)";
static const char FRONT_SET[] =
    "INSERT OR IGNORE INTO front(measurement_id) SELECT id FROM measurement"
    " WHERE device_id = ?1 AND problem_id = ?2 AND config = ?3";

/* Run sql on (device, problem[, config]): prepared here, as the front
 * table may not exist when the handle's statements are prepared. */
static int front_step(kt_db *db, const char *sql, int64_t device, int64_t problem,
                      const char *config, kt_diag *diag)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK)
        return db_error(db, diag, "cannot prepare a statement");
    sqlite3_bind_int64(st, 1, device);
    sqlite3_bind_int64(st, 2, problem);
    if (config)
        sqlite3_bind_text(st, 3, config, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? KT_OK
                                             : db_error(db, diag, "cannot mark the front");
    sqlite3_finalize(st);
    return rc;
}

int kt_db_front_mark(kt_db *db, int64_t device, int64_t problem,
                     const char *const *configs, size_t n, kt_diag *diag)
{
    int rc = exec(db, "SAVEPOINT front", diag);
    if (rc != KT_OK)
        return rc;
    rc = exec(db, FRONT_TABLE, diag);
    if (rc == KT_OK)
        rc = front_step(db, FRONT_CLEAR, device, problem, NULL, diag);
    for (size_t i = 0; rc == KT_OK && i < n; i++)
        rc = front_step(db, FRONT_SET, device, problem, configs[i], diag);
    if (rc != KT_OK)
        exec(db, "ROLLBACK TO front", NULL);
    int end = exec(db, "RELEASE front", rc == KT_OK ? diag : NULL);
    return rc != KT_OK ? rc : end;
}

/* Whether the file has a front table (a mark was ever made). */
static int has_front(kt_db *db, bool *out, kt_diag *diag)
{
    int n = 0;
    if (pragma_int(db->conn, "SELECT count(*) FROM sqlite_schema"
                             " WHERE type = 'table' AND name = 'front'", &n) != KT_OK)
        return db_error(db, diag, "cannot read the schema");
    *out = n > 0;
    return KT_OK;
}

int kt_db_begin(kt_db *db, kt_diag *diag) { return exec(db, "BEGIN IMMEDIATE", diag); }
int kt_db_commit(kt_db *db, kt_diag *diag) { return exec(db, "COMMIT", diag); }
void kt_db_rollback(kt_db *db) { exec(db, "ROLLBACK", NULL); }

sqlite3 *kt_db_sqlite(kt_db *db) { return db->conn; }

int64_t kt_db_changes(kt_db *db) { return sqlite3_total_changes64(db->conn); }

int kt_db_data_version(kt_db *db, int64_t *out, kt_diag *diag)
{
    sqlite3_stmt *st = db->st[ST_DATA_VERSION];
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? KT_OK : db_error(db, diag, "cannot read data_version");
}

int kt_db_count(kt_db *db, int64_t device, int64_t problem, int64_t *n, kt_diag *diag)
{
    sqlite3_stmt *st = db->st[ST_COUNT];
    sqlite3_bind_int64(st, 1, device);
    sqlite3_bind_int64(st, 2, problem);
    int rc = sqlite3_step(st);
    *n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_ROW ? KT_OK : db_error(db, diag, "count failed");
}

int kt_db_kernel_sample(kt_db *db, int64_t kernel, char **problem, char **config,
                        kt_diag *diag)
{
    sqlite3_stmt *st = db->st[ST_SAMPLE];
    sqlite3_bind_int64(st, 1, kernel);
    int rc = sqlite3_step(st);
    *problem = *config = NULL;
    if (rc == SQLITE_ROW) {
        *problem = kt_strdup((const char *)sqlite3_column_text(st, 0));
        *config = kt_strdup((const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc == SQLITE_ROW && (!*problem || !*config)) {
        free(*problem);
        free(*config);
        *problem = *config = NULL;
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? KT_OK
                                                 : db_error(db, diag, "lookup failed");
}

/* ----------------------------------------------------------------- keys */

static bool is_identifier(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return false;
    return true;
}

/* Whether the item names (name, n) before position end of key. */
static bool named_before(const char *key, const char *end, const char *name, size_t n)
{
    for (const char *s = key; s < end; s += strcspn(s, ",") + 1)
        if (strncmp(s, name, n) == 0 && s[n] == '=')
            return true;
    return false;
}

int kt_db_key_check(const char *key, kt_diag *diag)
{
    for (const char *s = key; *s;) {
        size_t len = strcspn(s, ",");
        const char *eq = memchr(s, '=', len);
        size_t nlen = eq ? (size_t)(eq - s) : 0, vlen = eq ? len - nlen - 1 : 0;
        if (!eq || !is_identifier(s, nlen))
            return kt_fail(diag, KT_EINVAL, "'%.*s' is not NAME=VALUE", (int)len, s);
        bool clean = vlen > 0;
        for (size_t i = 0; clean && i < vlen; i++)
            clean = eq[1 + i] != '=' && !iscntrl((unsigned char)eq[1 + i]);
        if (!clean)
            return kt_fail(diag, KT_EINVAL, "'%.*s': the value is empty or holds '=' "
                           "or a control character", (int)len, s);
        if (named_before(key, s, s, nlen))
            return kt_fail(diag, KT_EINVAL, "'%.*s' is named twice", (int)nlen, s);
        s += len;
        if (*s == ',' && *++s == '\0')
            return kt_fail(diag, KT_EINVAL, "ends with ','");
    }
    return KT_OK;
}

/* ------------------------------------------------------------- queries */

#define ROW_COLUMNS                                                           \
    "d.name, k.name, k.source_hash, p.key, m.config, m.created, m.status,"   \
    " m.signal, m.detail, m.time_ms, m.min_ms, m.spread, m.reps,"            \
    " m.compile_ms, m.energy_j, m.power_w, m.max_error, m.sm_clock_mhz"
#define ROW_FROM                                                              \
    " FROM measurement m JOIN device d ON d.id = m.device_id"                \
    " JOIN problem p ON p.id = m.problem_id JOIN kernel k ON k.id = p.kernel_id" \
    " WHERE (?1 IS NULL OR k.name = ?1) AND (?2 IS NULL OR p.key = ?2)"      \
    " AND (?3 IS NULL OR d.name = ?3 OR d.fingerprint = ?3)"                 \
    " AND (?4 = 0 OR m.status = 'ok')"

static int query_rows(kt_db *db, const char *sql, const kt_db_filter *f,
                      kt_db_row_fn fn, void *user, kt_diag *diag)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK)
        return db_error(db, diag, "cannot prepare a query");
    kt_db_filter none = {0};
    f = f ? f : &none;
    sqlite3_bind_text(st, 1, f->kernel, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, f->problem, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, f->device, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, f->ok_only);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        kt_db_row row = {
            .device = (const char *)sqlite3_column_text(st, 0),
            .kernel = (const char *)sqlite3_column_text(st, 1),
            .source_hash = (const char *)sqlite3_column_text(st, 2),
            .problem = (const char *)sqlite3_column_text(st, 3),
            .config = (const char *)sqlite3_column_text(st, 4),
            .created = (const char *)sqlite3_column_text(st, 5),
        };
        read_result(st, 6, &row.result);
        if (fn(user, &row)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    int out = rc == SQLITE_DONE ? KT_OK : db_error(db, diag, "query failed");
    sqlite3_finalize(st);
    return out;
}

int kt_db_list(kt_db *db, const kt_db_filter *f, kt_db_row_fn fn, void *user,
               kt_diag *diag)
{
    return query_rows(db, "SELECT " ROW_COLUMNS ROW_FROM " ORDER BY m.id", f, fn, user,
                      diag);
}

int kt_db_front(kt_db *db, const kt_db_filter *f, kt_db_row_fn fn, void *user,
                kt_diag *diag)
{
    bool any = false;
    int rc = has_front(db, &any, diag);
    if (rc != KT_OK || !any)
        return rc;
    return query_rows(db, "SELECT " ROW_COLUMNS ROW_FROM
                      " AND m.id IN (SELECT measurement_id FROM front)"
                      " ORDER BY d.name, k.name, p.key, m.time_ms", f, fn, user, diag);
}

int kt_db_best(kt_db *db, const kt_db_filter *f, kt_db_row_fn fn, void *user,
               kt_diag *diag)
{
    /* SQLite picks the row of the MIN() for the bare columns of a group. */
    return query_rows(db,
                      "SELECT " ROW_COLUMNS ", min(m.time_ms)" ROW_FROM
                      " AND m.status = 'ok' GROUP BY d.id, p.id ORDER BY k.name, p.key, d.name",
                      f, fn, user, diag);
}

int kt_db_best_unsorted(kt_db *db, const kt_db_filter *f, kt_db_row_fn fn, void *user,
                        kt_diag *diag)
{
    /* From the kernel's problems to their rows: no sort.  Only ok rows, as
     * kt_db_best (f->ok_only, ?4, is implied and left unused). */
    return query_rows(db,
                      "SELECT " ROW_COLUMNS ", min(m.time_ms) FROM kernel k"
                      " JOIN problem p ON p.kernel_id = k.id"
                      " JOIN measurement m ON m.problem_id = p.id"
                      " JOIN device d ON d.id = m.device_id"
                      " WHERE (?1 IS NULL OR k.name = ?1) AND (?2 IS NULL OR p.key = ?2)"
                      " AND (?3 IS NULL OR d.name = ?3 OR d.fingerprint = ?3)"
                      " AND m.status = 'ok' GROUP BY d.id, p.id",
                      f, fn, user, diag);
}
