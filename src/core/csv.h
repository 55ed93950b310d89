/* csv.h - a reader for comma-separated values (RFC 4180).
 *
 * Fields may be quoted ("a, b"), with "" for a quote inside and line breaks
 * inside quotes; records end at LF or CRLF; a final line break is optional
 * and blank lines are skipped; a leading UTF-8 byte order mark is skipped.
 * A quote inside an unquoted field, text after a closing quote, a quote
 * left open, or a NUL byte anywhere is an error naming the file, line and
 * column.
 */
#ifndef KT_CSV_H
#define KT_CSV_H

#include "core/base.h"

/* One record: its n fields (NUL-terminated, modifiable until the call
 * returns) and the line it starts on.  Return 0 to go on; anything else
 * stops the reading, and kt_csv_read returns it. */
typedef int (*kt_csv_record_fn)(void *user, char **fields, size_t n, size_t line);

/* Read the file at path, calling fn once per record, header included. */
int kt_csv_read(const char *path, kt_csv_record_fn fn, void *user, kt_diag *diag);

#endif /* KT_CSV_H */
