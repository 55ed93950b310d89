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

/* One member of a file's top-level object that kt_json_file_stream hands
 * over an element at a time instead of parsing it whole: a Kernel Tuner
 * cache's "cache" or a T4 file's "results" is nearly all of the file, and
 * json-c's tree of it (an object for each of its numbers) costs more to
 * build and free than the reading of it does. */
typedef struct kt_json_stream {
    const char *member;         /* its name */
    json_type type;             /* json_type_object or json_type_array */
    const char *const *needs;   /* members that the elements need (NULL-ended,
                                   or NULL): when the file has them after this
                                   one, they are read first */
} kt_json_stream;

/* One element of streams[which]: key is its member name in an object, NULL
 * in an array; head holds the other top-level members read so far (every
 * one of `needs` that the file has); value lives during the call only.
 * KT_OK or an error in diag, which stops the reading. */
typedef int (*kt_json_element_fn)(void *user, json_object *head, size_t which,
                                  const char *key, json_object *value);

/* kt_json_file_load for a file whose root is an object holding one of
 * streams (n of them): fn is called for each element of the first one met
 * of its type, in file order; *head (caller puts) is the root with every
 * other member, and in place of the streamed one an empty container of
 * its type (so that what a reader checks of the root, it still can).  A
 * root that is not an object is parsed whole into *head.  Errors as
 * kt_json_file_load's, or fn's. */
int kt_json_file_stream(const char *path, const char *what, bool close_open,
                        const kt_json_stream *streams, size_t n, kt_json_element_fn fn,
                        void *user, json_object **head, kt_diag *diag);

/* The text of o's string member name, else fallback (which may be NULL). */
const char *kt_json_text(json_object *o, const char *name, const char *fallback);

/* Stores what root holds into the database; KT_OK or an error in diag. */
typedef int (*kt_json_import_fn)(void *user, json_object *root);

/* kt_json_file_load, then fn inside one transaction of db: committed when
 * fn succeeds, else rolled back (a bad file changes nothing). */
int kt_json_file_import(const char *path, const char *what, bool close_open,
                        kt_db *db, kt_json_import_fn fn, void *user, kt_diag *diag);

#endif /* KT_JSON_FILE_H */
