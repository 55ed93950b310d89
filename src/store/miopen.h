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
 * names of data/miopen/SOLVERS.md for the four solvers of
 * the paper and p0, p1, ... for the others.
 */
#ifndef KT_MIOPEN_H
#define KT_MIOPEN_H

#include "store/db.h"

typedef struct kt_import_stats {
    uint64_t rows;       /* perf_db rows read */
    uint64_t added;      /* of those, new to the database */
    uint64_t solvers;    /* distinct solvers */
    uint64_t named;      /* rows whose solver has known parameter names */
    char device[64];     /* the device name used */
} kt_import_stats;

/* Import every row of the perf db at path (SQLite, or bzip2 of one) into
 * db, in one transaction.  device may be NULL: the file's base name
 * without extensions is used. */
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
