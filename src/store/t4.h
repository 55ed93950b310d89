/* t4.h - a T4 results file (the auto-tuning community's results JSON,
 * written by Kernel Tuner, KTT's converters and `ktune db export t4`)
 * stored as measurements in a results database.
 *
 * Each result needs configuration, times, invalidity and correctness (the
 * schema's required keys); the objective's value is the measurement named
 * by the result's first objective ("time" without objectives), converted
 * to ms from its unit.  invalidity maps to ktune's classes (correct, with
 * correctness 0, is a wrong result).  Device, kernel, source_hash and
 * problem come from the result where it names them (ktune's export does),
 * else from the options; the compile time is times.compilation (Kernel
 * Tuner's key, ms) or times.compilation_time.  Every configuration of a
 * kernel names the same parameters, in order, as its rows already stored,
 * else as the file's first result of it (store/import_names.h).
 */
#ifndef KT_T4_H
#define KT_T4_H

#include "store/db.h"

typedef struct kt_t4_options {
    const char *device;     /* for results that name none */
    const char *kernel;
    const char *problem;    /* a key; NULL: "" */
} kt_t4_options;

typedef struct kt_t4_stats {
    uint64_t rows;          /* results read */
    uint64_t ok;            /* of those, correct with a time */
    uint64_t added;         /* new to the database */
} kt_t4_stats;

/* Import every result of the T4 file at path into db in one transaction:
 * all or, on an error (one line naming the file and result), nothing. */
int kt_t4_import(const char *path, kt_db *db, const kt_t4_options *o,
                 kt_t4_stats *stats, kt_diag *diag);

/* What the import reads from one result, for a reader of the file that
 * stores nothing (store/recording.h); path and index name the result in
 * errors.  ms per unit of a T4 time unit's name ("ms", "seconds", ...); 0
 * when it is none. */
double kt_t4_unit_ms(const char *name);
/* The result of results[index] (res) in a file whose unit is unit_ms ms,
 * as the import stores it; KT_EFORMAT naming what is missing. */
struct json_object;
int kt_t4_result(const char *path, size_t index, double unit_ms, struct json_object *res,
                 kt_result *r, kt_diag *diag);
/* Its configuration object as a key (caller frees), values as the import
 * keys them. */
int kt_t4_config_key(const char *path, size_t index, struct json_object *config,
                     char **out, kt_diag *diag);

#endif /* KT_T4_H */
