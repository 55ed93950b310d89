/* db.h - the results database: every measurement ktune makes, in SQLite.
 *
 * Keyed by device (with a fingerprint), kernel (name plus source hash),
 * problem and configuration, so a repeated run resumes: what was measured
 * for the same device, kernel source and problem is answered from here.
 * The file is in WAL mode and each measurement is its own transaction, so a
 * kill -9 at any moment loses at most the measurement in flight.
 *
 * Errors: KT_EDB (or KT_EFORMAT for a file that is not a ktune database)
 * with a one-line message naming the file.  All SQL uses prepared statements.
 */
#ifndef KT_DB_H
#define KT_DB_H

#include "core/base.h"

typedef struct ktune_db kt_db; /* the public handle (include/ktune.h) */

/* What identifies a device. */
typedef struct kt_device_info {
    char name[128];         /* "AMD EPYC (2 cores)" */
    char backend[16];       /* "cpu", "cuda", ... */
    char fingerprint[512];  /* everything that changes timings: model, cores,
                               compiler, driver, clocks */
} kt_device_info;

/* One stored measurement with its keys, as the query functions give it:
 * the public ktune_row. */
typedef ktune_row kt_db_row;

/* Return nonzero to stop. */
typedef int (*kt_db_row_fn)(void *user, const kt_db_row *row);

/* Which rows a query returns; NULL fields match everything. */
typedef struct kt_db_filter {
    const char *kernel;
    const char *problem;
    const char *device;     /* a device's name or its fingerprint */
    bool ok_only;           /* status ok only */
} kt_db_filter;

/* What opening does where there is no database yet: no file, or an empty
 * one (it holds nothing to lose; the sqlite3 shell leaves one when it
 * opens a path that does not exist). */
typedef enum kt_db_mode {
    KT_DB_CREATE,   /* create the database there: commands that write */
    KT_DB_EXISTING, /* fail ("no such file" KT_EIO, "an empty file"
                       KT_EFORMAT): commands that only read create nothing */
} kt_db_mode;

/* Open the database at path.  Any other file is identified as a ktune
 * database (application_id and a schema version this ktune reads) through
 * a read-only connection before anything writes to it, so a foreign file
 * is refused (KT_EFORMAT) byte for byte unchanged, even one with another
 * application's unfinished transaction.  A version-1 file is upgraded in
 * place; one of ours that a kill left mid-transaction is rolled back. */
int kt_db_open_mode(const char *path, kt_db_mode mode, kt_db **out, kt_diag *diag);
/* kt_db_open_mode with KT_DB_CREATE. */
int kt_db_open(const char *path, kt_db **out, kt_diag *diag);
void kt_db_close(kt_db *db);

/* Check that key is a problem or configuration key the database can
 * store: NAME=VALUE items joined by ',', each NAME an identifier named
 * once, each VALUE non-empty without '=', ',' or control characters ("" is
 * the key of no parameters).  KT_EINVAL with why in diag (no file name:
 * the caller adds where the key came from). */
int kt_db_key_check(const char *key, kt_diag *diag);

/* Get-or-create ids. */
int kt_db_device(kt_db *db, const kt_device_info *dev, int64_t *id, kt_diag *diag);
int kt_db_kernel(kt_db *db, const char *name, const char *source_hash,
                 int64_t *id, kt_diag *diag);
int kt_db_problem(kt_db *db, int64_t kernel, const char *key, int64_t *id,
                  kt_diag *diag);

/* The stored result for (device, problem, config), if any. */
int kt_db_lookup(kt_db *db, int64_t device, int64_t problem, const char *config,
                 kt_result *out, bool *found, kt_diag *diag);

/* Store one new measurement atomically (one transaction).  It replaces a
 * failure stored for the same keys (the configuration was measured again)
 * but never a success, which is kept; KT_OK either way. */
int kt_db_record(kt_db *db, int64_t device, int64_t kernel, int64_t problem,
                 const char *config, const kt_result *r, kt_diag *diag);
/* An imported result, dated created (ISO 8601 UTC, as kt_db_row gives it)
 * instead of now: a measurement imported keeps the time it was taken.
 * Whatever is stored for the same keys is kept (importing twice adds
 * nothing). */
int kt_db_record_at(kt_db *db, int64_t device, int64_t kernel, int64_t problem,
                    const char *config, const kt_result *r, const char *created,
                    kt_diag *diag);

/* The problem and configuration keys of one stored row of kernel (any
 * row: rows of a kernel name the same parameters), into *problem and
 * *config (caller frees); both NULL when the kernel has no rows. */
int kt_db_kernel_sample(kt_db *db, int64_t kernel, char **problem, char **config,
                        kt_diag *diag);

/* Rows in insertion order. */
int kt_db_list(kt_db *db, const kt_db_filter *f, kt_db_row_fn fn, void *user,
               kt_diag *diag);

/* The rows marked as a time/energy front (kt_db_front_mark), by device,
 * kernel and problem, fastest first. */
int kt_db_front(kt_db *db, const kt_db_filter *f, kt_db_row_fn fn, void *user,
                kt_diag *diag);

/* The fastest ok row of each (device, kernel, problem) group. */
int kt_db_best(kt_db *db, const kt_db_filter *f, kt_db_row_fn fn, void *user,
               kt_diag *diag);

/* kt_db_best in no particular order, and quicker for one kernel (f->kernel
 * set): what an index of each problem's winner reads (api/select_index.h). */
int kt_db_best_unsorted(kt_db *db, const kt_db_filter *f, kt_db_row_fn fn, void *user,
                        kt_diag *diag);

/* Mark the rows of configs (n keys) as the time/energy front of (device,
 * problem), in place of the rows marked before (one transaction; inside
 * kt_db_begin's, part of it).  Keys with no row are skipped.  The first
 * mark adds the front table to the file (db.c says why it keeps its
 * schema version). */
int kt_db_front_mark(kt_db *db, int64_t device, int64_t problem,
                     const char *const *configs, size_t n, kt_diag *diag);

/* Group many writes into one transaction (bulk imports); kt_db_record
 * inside it commits nothing until kt_db_commit. */
int kt_db_begin(kt_db *db, kt_diag *diag);
int kt_db_commit(kt_db *db, kt_diag *diag);
void kt_db_rollback(kt_db *db);

/* The SQLite connection, for the store's files that run SQL of their own
 * over several files (merge.c attaches another database to it). */
struct sqlite3;
struct sqlite3 *kt_db_sqlite(kt_db *db);

/* Rows inserted, updated or deleted since the database was opened. */
int64_t kt_db_changes(kt_db *db);

/* SQLite's data_version of this handle's connection: it changes whenever
 * another connection (another handle, another process) commits to the
 * file, so a reader can tell cheaply whether what it read is stale. */
int kt_db_data_version(kt_db *db, int64_t *out, kt_diag *diag);

/* Number of measurements stored for (device, problem). */
int kt_db_count(kt_db *db, int64_t device, int64_t problem, int64_t *n,
                kt_diag *diag);

#endif /* KT_DB_H */
