/* miopen.h - import an MIOpen performance database into the results store.
 *
 * MIOpen ships, per GPU, an SQLite "perf db" (often bzip2-compressed):
 * table config (one convolution problem per row) and table perf_db (solver,
 * config id, params: the best tuning parameters found, comma-separated in
 * the solver's order).  ktune stores each row as a measurement with status
 * ok and no time: device = the file's name ("gfx906_60"), kernel = the
 * solver, problem key = every config column as NAME=value in table order
 * ("layout=NCHW,data_type=FP32,direction=F,spatial_dim=2,in_channels=64,
 * ..."), configuration key = NAME=value in the solver's order, with the
 * names of data/miopen/SOLVERS.md for the four solvers of the paper (or
 * of a spec, see kt_miopen_options) and p0, p1, ... for the others.
 */
#ifndef KT_MIOPEN_H
#define KT_MIOPEN_H

#include "store/db.h"

/* Decompressing a bzip2 perf db stops, and the import is refused, past
 * KT_MIOPEN_MAX_BYTES, or past KT_MIOPEN_MAX_RATIO times the compressed
 * size once beyond KT_MIOPEN_RATIO_FROM: MIOpen's perf dbs compress about
 * 7:1 (gfx906_60: 3.2 MB to 22.5 MB), a bzip2 bomb a million to one.  The
 * data is decompressed in memory, so nothing is left on disk, even after
 * a kill. */
#define KT_MIOPEN_MAX_BYTES (1ull << 30)
#define KT_MIOPEN_MAX_RATIO 100
#define KT_MIOPEN_RATIO_FROM (64ull << 20)

typedef struct kt_miopen_options {
    const char *device;     /* the device name to store; NULL: the file's base
                               name without extensions */
    const char *spec_dir;   /* folder of SOLVER.json space-only specs (as
                               kernels/miopen/) rows are checked against;
                               NULL: the built-in parameter names only */
    uint64_t max_bytes;     /* decompressed bytes allowed; 0: the rule above */
    ktune_warn_fn warn;     /* each warning of spec_dir's specs; NULL: none */
    void *warn_user;        /* given to warn */
} kt_miopen_options;

typedef struct kt_import_stats {
    uint64_t rows;       /* perf_db rows stored (new or already there) */
    uint64_t added;      /* of those, new to the database */
    uint64_t solvers;    /* distinct solvers */
    uint64_t named;      /* rows whose solver has known parameter names */
    uint64_t rejected;   /* rows refused (never stored): see kt_miopen_import */
    char rejects[400];   /* the first few: "id 7: why; id 9: why" */
    char device[64];     /* the device name used */
} kt_import_stats;

/* Import every row of the perf db at path (SQLite, or bzip2 of one) into
 * db, in one transaction.  A row that is not a configuration of its solver
 * is refused and counted in stats->rejected, named by its perf_db id; the
 * others are stored.  A solver's row is checked against its spec in
 * opts->spec_dir when there is one (parameter names and values), else
 * against its built-in names (so many integers), else (a solver ktune has
 * no names for, stored as p0, p1, ...) against the number of values most
 * of its rows have; problem and configuration keys must pass
 * kt_db_key_check.  opts may be NULL. */
int kt_miopen_import_opts(const char *path, kt_db *db, const kt_miopen_options *opts,
                          kt_import_stats *stats, kt_diag *diag);
/* The same with only opts->device set. */
int kt_miopen_import(const char *path, kt_db *db, const char *device,
                     kt_import_stats *stats, kt_diag *diag);

/* The parameter names of a solver, in its order; NULL (and *n = 0) for a
 * solver ktune has no names for. */
const char *const *kt_miopen_param_names(const char *solver, size_t *n);

/* Turn an imported problem key into problem overrides for a space-only
 * spec ("in_channels=64,in_h=28,...,fp16=0,bf16=0,fwd=1,bwd=0,wrw=0"):
 * numeric fields pass through, data_type becomes the flags fp16/bf16
 * (both 0 for FP32), direction the flags fwd/bwd/wrw, layout is dropped.
 * The caller frees *out. */
int kt_miopen_problem_overrides(const char *problem_key, char **out, kt_diag *diag);

#endif /* KT_MIOPEN_H */
