/* predict.h - the k most likely configurations of a model for one problem,
 * constrained by a kernel's space or not. */
#ifndef KT_PREDICT_H
#define KT_PREDICT_H

#include "ml/constraint.h"

/* out: width x nout tokens, best first; logp may be NULL.  With c NULL the
 * search is unconstrained; otherwise c is bound to the problem first. */
int kt_predict(const kt_model *m, kt_constraint *c, const char *problem_key,
               size_t width, uint16_t *out, double *logp, size_t *found,
               kt_diag *diag);

#endif /* KT_PREDICT_H */
