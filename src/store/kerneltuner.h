/* kerneltuner.h - a Kernel Tuner cache file (the JSON that tune_kernel's
 * cache= option writes) stored as measurements in a results database, so
 * recordings made with Kernel Tuner can be replayed and trained on.
 *
 * Read: device_name, kernel_name, tune_params_keys and cache (required);
 * problem_size, kernel_string, tune_params (optional).  Each cache entry's
 * key "v1,v2,..." gives its configuration "NAME=v1,..." in tune_params_keys
 * order (values as Kernel Tuner printed them).  An entry with a marker
 * string in any field ("InvalidConfig", "CompilationFailedConfig",
 * "RuntimeFailedConfig", "ErrorConfig", the old and new layouts alike) is
 * stored as invalid, compile_error or runtime_error; any other needs a
 * numeric "time".  Units: Kernel Tuner's times are ms, as ktune's.
 * The device is "imported|NAME" (as for a CSV import, so live runs never
 * answer from it), each row dated by its entry's UTC timestamp where it has
 * one; the kernel's source hash is that of kernel_string, else
 * of the tune_params; the problem is "ProblemSize_0=N,..." ("" without a
 * problem_size).  A cache that Kernel Tuner left open (a run still going
 * or killed: the text ends with ',') is read as Kernel Tuner reads it.
 * tune_params_keys must be the parameters, in order, of the rows already
 * stored under kernel_name (store/import_names.h).
 */
#ifndef KT_KERNELTUNER_H
#define KT_KERNELTUNER_H

#include "store/db.h"

typedef struct kt_kerneltuner_stats {
    uint64_t rows;        /* cache entries read */
    uint64_t ok;          /* of those, with a time */
    uint64_t added;       /* new to the database */
    char device[128];     /* the file's device_name */
    char kernel[128];     /* its kernel_name */
    char problem[256];    /* the problem key stored */
} kt_kerneltuner_stats;

/* Import every entry of the cache file at path into db in one transaction:
 * all of it or, on an error (one line naming the file), nothing. */
int kt_kerneltuner_import(const char *path, kt_db *db, kt_kerneltuner_stats *stats,
                          kt_diag *diag);

/* What the import reads from one part of a cache, for a reader of the
 * file that stores nothing (store/recording.h); path names the file in
 * errors.  The result of cache entry key (a JSON object), as the import
 * stores it; KT_EFORMAT when it has neither a numeric time nor a marker. */
struct json_object;
int kt_kerneltuner_result(const char *path, const char *key, struct json_object *entry,
                          kt_result *r, kt_diag *diag);
/* The configuration key "NAME=v1,..." of cache entry key "v1,..." for the
 * names of keys (tune_params_keys) into *out (caller frees); KT_EFORMAT
 * when the entry has another number of values. */
int kt_kerneltuner_config_key(const char *path, struct json_object *keys, const char *key,
                              char **out, kt_diag *diag);
/* The members every cache has, read from its root object: the device and
 * kernel names, tune_params_keys and the cache object; KT_EFORMAT naming
 * the first that is missing or of the wrong type. */
typedef struct kt_kerneltuner_head {
    const char *device, *kernel;        /* owned by the root */
    struct json_object *keys, *cache;
} kt_kerneltuner_head;
int kt_kerneltuner_head_read(const char *path, struct json_object *root,
                             kt_kerneltuner_head *out, kt_diag *diag);
/* The problem key of the cache (its root object) into *out (caller frees). */
int kt_kerneltuner_problem(const char *path, struct json_object *root, char **out,
                           kt_diag *diag);

#endif /* KT_KERNELTUNER_H */
