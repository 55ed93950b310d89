/* json_file.h - one JSON file read whole for an import, with a parse error
 * as one line: file:line:column and why, and stored in one transaction. */
#ifndef KT_JSON_FILE_H
#define KT_JSON_FILE_H

#include "store/db.h"

#include <json-c/json.h>
#include <stdbool.h>

/* Parse the file at path into *root (caller puts it); a file compressed
 * with bzip2 or gzip (told by its first bytes) is decompressed in memory first.  what names the
 * format in errors ("a Kernel Tuner cache").  close_open: a text ending
 * with ',' is closed with "}}" first, as Kernel Tuner reads the cache it
 * appends to.  KT_EIO (unreadable) or KT_EFORMAT. */
int kt_json_file_load(const char *path, const char *what, bool close_open,
                      json_object **root, kt_diag *diag);

/* The text of o's string member name, else fallback (which may be NULL). */
const char *kt_json_text(json_object *o, const char *name, const char *fallback);

/* Stores what root holds into the database; KT_OK or an error in diag. */
typedef int (*kt_json_import_fn)(void *user, json_object *root);

/* kt_json_file_load, then fn inside one transaction of db: committed when
 * fn succeeds, else rolled back (a bad file changes nothing). */
int kt_json_file_import(const char *path, const char *what, bool close_open,
                        kt_db *db, kt_json_import_fn fn, void *user, kt_diag *diag);

#endif /* KT_JSON_FILE_H */
