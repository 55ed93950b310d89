/* export.h - the results database written out in the formats other tools
 * read: ktune's CSV (which `ktune import csv` reads back), its rows as a
 * JSON array, Kernel Tuner's T4 results and metadata files, and a Kernel
 * Tuner cache file (its simulation mode replays it). */
#ifndef KT_EXPORT_H
#define KT_EXPORT_H

#include "store/db.h"

#include <stdio.h>

/* The formats: the public ktune_export_format (include/ktune.h). */
typedef ktune_export_format kt_export_format;

/* The format named name ("csv", "json", "t4", "t4-metadata",
 * "kerneltuner"); KT_ENOTFOUND when none is. */
int kt_export_format_parse(const char *name, kt_export_format *out);

/* Which rows of those a filter selects a query gives. */
typedef enum kt_db_rows {
    KT_ROWS_ALL,   /* every row, oldest first */
    KT_ROWS_BEST,  /* the fastest ok row per device, kernel and problem */
    KT_ROWS_FRONT  /* the rows marked as a time/energy front (kt_db_front_mark),
                      by device, kernel and problem, fastest first */
} kt_db_rows;

/* The rows f and which select to fn with user; *rows counts them. */
int kt_db_query(kt_db *db, const kt_db_filter *f, kt_db_rows which, kt_db_row_fn fn,
                void *user, uint64_t *rows, kt_diag *diag);

/* Write the rows f and which select to out in format fmt, streamed: a
 * database of millions of rows is never held whole, except for the Kernel
 * Tuner cache, one document.  *rows: how many matched.  With JSON, nothing
 * is written when a filter or KT_ROWS_FRONT matched nothing (the caller
 * says so), "[]" when the database holds nothing.  KT_EINVAL when a Kernel Tuner cache would
 * mix devices, kernels or problems. */
int kt_db_export(kt_db *db, kt_export_format fmt, const kt_db_filter *f, kt_db_rows which,
                 FILE *out, uint64_t *rows, kt_diag *diag);

#endif /* KT_EXPORT_H */
