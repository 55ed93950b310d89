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

/* The width most likely valid configurations of the kernel whose spec is
 * at spec_path for one problem (a key with the spec's problem names), as
 * the spec's value indices: cfgs holds width x nparams, best first;
 * *found may be fewer than width.  The spec's parameters must be the
 * model's outputs (kt_constraint_new). */
int kt_predict_configs(const kt_model *m, const char *spec_path,
                       const char *problem_key, size_t width, uint16_t *cfgs,
                       size_t *found, kt_diag *diag);

#endif /* KT_PREDICT_H */
