/* evaluate.h - the paper's metrics of a model on the problems it held out:
 * average accuracy, perfect prediction among the top k for several beam
 * widths, the share of valid top-1 predictions, and the time per query. */
#ifndef KT_EVALUATE_H
#define KT_EVALUATE_H

#include "ml/model.h"

/* The options and the report are the public ktune_eval_opts and
 * ktune_eval_report (include/ktune.h); size is not read here. */
#define KT_EVAL_MAX_WIDTHS KTUNE_EVAL_MAX_WIDTHS
typedef ktune_eval_opts kt_eval_opts;
typedef ktune_eval_report kt_eval_report;

/* Predict each held-out sample of m and score it.  KT_EINVAL for widths out
 * of range, a model that holds nothing out, or a constrained search without
 * a spec; a spec whose parameters are not the model's outputs fails as
 * kt_constraint_new does. */
int kt_model_evaluate(const kt_model *m, const kt_eval_opts *o, kt_eval_report *out,
                      kt_diag *diag);

/* *out: the mean over m's held-out samples of the log-probability (nats) of
 * the true configuration, the sum over positions of each true token's
 * score after the true earlier tokens: what the beam search ranks
 * configurations by.  A proper score of the whole distribution, so it
 * varies less from sample to sample than a count of hits.  KT_EINVAL when
 * m holds nothing out; KT_ENOMEM. */
int kt_model_loglik(const kt_model *m, double *out, kt_diag *diag);

#endif /* KT_EVALUATE_H */
