/* xgb.h - gradient-boosted trees through XGBoost's C API (libxgboost), the
 * one place ktune talks to it: the classifier chain (xgb_chain.c) and the
 * model-guided search strategy (src/search/model_guided.c) use this.
 *
 * Data are dense row-major float matrices; NAN is a missing value.  Every
 * failure of the library becomes a negative ktune code with the first line
 * of XGBGetLastError() in the caller's kt_diag; nothing is printed (each
 * booster runs with verbosity 0).
 *
 * Threads: a booster trains with the number of threads its parameters name
 * (ktune passes "nthread" 1 unless told otherwise, so results do not depend
 * on the machine; XGBoost still starts its OpenMP runtime, which is why the
 * measurement worker is never a fork of the tuner).  Predicting from one booster in several
 * threads at once is allowed (XGBoost keeps the output per thread); training
 * and freeing are not.
 */
#ifndef KT_XGB_H
#define KT_XGB_H

#include "core/base.h"

typedef struct kt_xgb kt_xgb;

/* A data set: n rows of nf features, labels y (class index as a float for
 * classifiers, the target for regression); w: per-row weights or NULL. */
typedef struct kt_xgb_data {
    const float *x;     /* n x nf */
    const float *y;     /* n */
    const float *w;     /* n, or NULL */
    size_t n, nf;
} kt_xgb_data;

typedef struct kt_xgb_opts {
    /* XGBoost parameters as name, value pairs, ending with NULL
     * ("objective", "multi:softprob", "num_class", "7", ..., NULL). */
    const char *const *params;
    int rounds;                   /* most boosting rounds */
    /* Early stopping: with valid (not NULL), training stops after patience
     * rounds without a better value of the parameters' eval_metric on it,
     * and the booster keeps the best round's trees. */
    const kt_xgb_data *valid;
    int patience;
    double seconds;               /* stop after the round that passes it (0: none) */
} kt_xgb_opts;

/* Train a booster; *out is NULL on failure. */
int kt_xgb_train(const kt_xgb_data *d, const kt_xgb_opts *o, kt_xgb **out,
                 kt_diag *diag);

/* Predictions for n rows of nf features: out receives exactly cap floats
 * (n for regression, n x num_class for softprob); a booster that yields
 * another count (it was trained on other data) is KT_EFORMAT. */
int kt_xgb_predict(kt_xgb *b, const float *x, size_t n, size_t nf, float *out,
                   size_t cap, kt_diag *diag);

/* Exact TreeSHAP explanations of n rows (XGBoost's prediction types 2
 * and 4) into out of exactly cap floats: with interactions false, n x
 * (nf + 1) contributions per row, the last the bias (they sum to the
 * margin); else n x (nf + 1) x (nf + 1) interaction values, the pair (i,
 * j) split evenly between [i][j] and [j][i], main effects on the diagonal.
 * Regression boosters only. */
int kt_xgb_shap(kt_xgb *b, const float *x, size_t n, size_t nf, bool interactions,
                float *out, size_t cap, kt_diag *diag);

/* The booster as bytes (XGBoost's UBJSON model format); *bytes stays valid
 * until the next call on b.  Boosting rounds kept: kt_xgb_rounds. */
int kt_xgb_save(kt_xgb *b, const char **bytes, size_t *len, kt_diag *diag);
int kt_xgb_rounds(kt_xgb *b);

/* A booster from kt_xgb_save's bytes, which may come from anyone (a model
 * file shared between users): they must pass kt_xgb_check for a booster of
 * num_feature features and num_class classes (0: regression) before XGBoost
 * reads them, and the loaded booster must save back to the same bytes
 * (XGBoost understood them as the check did).  KT_EFORMAT says why not. */
int kt_xgb_load(const void *bytes, size_t len, size_t num_feature, size_t num_class,
                kt_xgb **out, kt_diag *diag);

/* Whether bytes are a model XGBoost 1.7 can read without harm (xgb_check.c):
 * strict UBJSON within its bounds, the layout ktune writes (gbtree,
 * multi:softprob over num_class classes or reg:squarederror when num_class
 * is 0, num_feature features, numerical splits), and trees that are trees.
 * KT_OK, or KT_EFORMAT with the first problem found. */
int kt_xgb_check(const void *bytes, size_t len, size_t num_feature, size_t num_class,
                 kt_diag *diag);

void kt_xgb_free(kt_xgb *b);

#endif /* KT_XGB_H */
