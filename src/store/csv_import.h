/* csv_import.h - measurements back from `ktune db export csv` into a
 * results database, so recorded runs travel as text (bench/data/).
 *
 * The first record names the columns, in any order.  Required: device,
 * kernel, source_hash, problem, config, status; optional: time_ms, min_ms,
 * spread, reps, compile_ms, energy_j, power_w, sm_clock_mhz, detail, and
 * created (read but not kept: the database stamps rows as it stores
 * them).  Any other column is an error, as is a row whose status is
 * unknown, whose numbers do not parse, that is ok without a time, whose
 * problem or config is not a key (kt_db_key_check), or whose problem or
 * config names other parameters than the rows of its kernel already
 * stored or read before it (training reads a kernel's rows as one table).
 * A leading UTF-8 byte order mark is skipped; a NUL byte is an error.  An
 * imported device is identified as "imported|NAME" (the export carries no
 * fingerprint), so live runs never mistake its rows for their own.
 * Rows already stored are kept (the first measurement wins).  Times carry
 * the export's precision (6 significant digits), far below timing noise.
 */
#ifndef KT_CSV_IMPORT_H
#define KT_CSV_IMPORT_H

#include "store/db.h"

typedef struct kt_csv_import_stats {
    uint64_t rows;      /* data rows read */
    uint64_t added;     /* of those, new to the database */
} kt_csv_import_stats;

/* Import every row of the CSV file at path into db, in one transaction:
 * all of it, or on an error (file:line:column) nothing. */
int kt_csv_import(const char *path, kt_db *db, kt_csv_import_stats *stats,
                  kt_diag *diag);

/* Every row of the export at path, read and checked as the import reads
 * it (but against no database), to fn in file order: for a reader that
 * stores nothing (store/recording.h).  fn returns nonzero to stop, and
 * kt_csv_rows then returns that value; else KT_OK or the import's error. */
int kt_csv_rows(const char *path, kt_db_row_fn fn, void *user, kt_diag *diag);

#endif /* KT_CSV_IMPORT_H */
