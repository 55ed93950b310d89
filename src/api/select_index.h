/* select_index.h - the read-only index behind runtime selection
 * (api/select.c): each tuned problem of one kernel on one device with its
 * fastest stored configuration, found by the problem's values.
 *
 * A problem is a vector of int64 values in a fixed order of problem
 * parameters.  A value that is a whole number (|v| <= 2^53) is itself; any
 * other text ("NCHW", "FP32", "0.5") is a code: a 62-bit hash of the text
 * placed below -2^62, so it can never equal a whole number and needs no
 * table to compute (a caller's parsed problem stays valid across refreshes).
 *
 * An index is immutable once built, so any number of threads read it with
 * no lock; the selector publishes a new one on refresh and frees the old
 * one when no reader holds it.  Lookups: exact (an open-addressing hash
 * table over the values, linear probing, no string formatting), and
 * nearest (a linear scan; see kt_sel_index_nearest).
 */
#ifndef KT_SELECT_INDEX_H
#define KT_SELECT_INDEX_H

#include "core/spec.h"
#include "store/db.h"

typedef struct kt_sel_index kt_sel_index;

/* The code of a value's text (len bytes): a whole number is itself. */
int64_t kt_sel_value(const char *text, size_t len);
/* Whether v is the code of a text rather than a whole number. */
bool kt_sel_is_code(int64_t v);

/* Parse a problem key ("A=1,B=x", any order) into values[0..n) in the
 * order of names: every name exactly once, no other name.  KT_EINVAL with
 * the reason in diag. */
int kt_sel_parse(const char *const *names, size_t n, const char *key,
                 int64_t *values, kt_diag *diag);

/* What to index: the fastest ok row per problem of kernel on device (a
 * name or a fingerprint); source_hash NULL: any version of the kernel.
 * With a spec, configuration keys are parsed by it (values in spec order);
 * without one, the tuning parameters are those of the first row's key, in
 * its order, and a row naming others is skipped (counted in *skipped). */
typedef struct kt_sel_source {
    const char *kernel, *source_hash, *device;
    const kt_spec *spec;
    const char *const *problem_names;
    size_t nproblem;
} kt_sel_source;

int kt_sel_index_build(kt_db *db, const kt_sel_source *src, kt_sel_index **out,
                       kt_diag *diag);
void kt_sel_index_free(kt_sel_index *x);

/* One stored answer, pointing into the index. */
typedef struct kt_sel_row {
    const char *config;     /* configuration key */
    size_t config_len;
    const double *values;   /* nparams: each tuning parameter's value */
    double time_ms;         /* its stored median */
    const char *problem;    /* the problem key it was measured for
                               (kt_sel_index_nearest; NULL from _find) */
} kt_sel_row;

size_t kt_sel_index_size(const kt_sel_index *x);     /* problems indexed */
size_t kt_sel_index_nparams(const kt_sel_index *x);  /* tuning parameters */
/* Tuning parameter names (those of the spec, or of the first row); NULL
 * when the index is empty and has no spec. */
const char *kt_sel_index_param(const kt_sel_index *x, size_t i);

/* The row of exactly these values; false when none. */
bool kt_sel_index_find(const kt_sel_index *x, const int64_t *values, kt_sel_row *row);

/* The row whose problem is nearest to values: the smallest Euclidean
 * distance between log2(1 + |v|) of the whole-number parameters, among
 * rows whose text parameters (codes) are equal to the query's (a
 * different data type or layout is never near).  *distance gets it (in
 * log2 units: 1.0 is one parameter off by a factor of about 2).  False
 * when no row qualifies. */
bool kt_sel_index_nearest(const kt_sel_index *x, const int64_t *values,
                          kt_sel_row *row, double *distance);

#endif /* KT_SELECT_INDEX_H */
