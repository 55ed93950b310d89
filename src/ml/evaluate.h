/* evaluate.h - the paper's metrics of a model on the problems it held out:
 * average accuracy, perfect prediction among the top k for several beam
 * widths, the share of valid top-1 predictions, and the time per query. */
#ifndef KT_EVALUATE_H
#define KT_EVALUATE_H

#include "ml/model.h"

/* The most beam widths one evaluation scores. */
#define KT_EVAL_MAX_WIDTHS 16

typedef struct kt_eval_opts {
    size_t widths[KT_EVAL_MAX_WIDTHS]; /* beam widths, each 1 to 10000 */
    size_t nwidths;                    /* 1 to KT_EVAL_MAX_WIDTHS */
    size_t limit;                      /* only the first held-out samples; 0: all */
    bool unconstrained;                /* plain beam search */
    const char *spec_path;             /* the kernel's space: needed by the
                                          constrained search, and gives the
                                          valid share; NULL: none */
} kt_eval_opts;

typedef struct kt_eval_report {
    size_t samples;            /* held-out samples scored */
    size_t kmax;               /* the largest width: each query's beam */
    double avg_accuracy;       /* %: parameters right at top-1, mean over them */
    double perfect[KT_EVAL_MAX_WIDTHS]; /* %: the whole configuration among the
                                           top widths[w] */
    double valid;              /* %: top-1 predictions that are valid
                                  configurations; NAN without a spec */
    double ms_per_query;       /* mean time of one prediction */
} kt_eval_report;

/* Predict each held-out sample of m and score it.  KT_EINVAL for widths out
 * of range, a model that holds nothing out, or a constrained search without
 * a spec; a spec whose parameters are not the model's outputs fails as
 * kt_constraint_new does. */
int kt_model_evaluate(const kt_model *m, const kt_eval_opts *o, kt_eval_report *out,
                      kt_diag *diag);

#endif /* KT_EVALUATE_H */
