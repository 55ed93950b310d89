/* constraint.h - a model's output tokens checked against a kernel's space.
 *
 * Maps each output position's tokens to the value indices of the spec's
 * parameter of the same name (by numeric value), binds the spec to one
 * problem, and answers "can this prefix still be completed validly?" (the
 * constrained beam search) and "is this configuration valid?".  A token
 * whose value the spec does not list is never valid.
 */
#ifndef KT_CONSTRAINT_H
#define KT_CONSTRAINT_H

#include "core/space.h"
#include "ml/model.h"

typedef struct kt_constraint kt_constraint;

/* The spec's tuning parameters must be exactly the model's outputs, in the
 * same order.  warn (NULL: none) gets the spec's warnings: a caller that
 * loaded the same spec before and gave them then passes NULL. */
int kt_constraint_new(const char *spec_path, kt_warn_fn warn, void *warn_user,
                      const kt_model_info *info, kt_constraint **out, kt_diag *diag);
void kt_constraint_free(kt_constraint *c);

/* Bind to one problem: a key with the spec's problem names ("M=256,..."),
 * or an imported MIOpen problem key. */
int kt_constraint_bind(kt_constraint *c, const char *problem_key, kt_diag *diag);

/* kt_beam_ok_fn: is prefix[0..len) satisfiable for the bound problem? */
bool kt_constraint_prefix_ok(void *c, const uint16_t *prefix, size_t len);

/* Is the complete token sequence a valid configuration? */
bool kt_constraint_valid(kt_constraint *c, const uint16_t *tokens);

/* The spec's value indices (cfg, one per parameter) of a complete token
 * sequence; false when a token has no value in the spec. */
bool kt_constraint_values(kt_constraint *c, const uint16_t *tokens, uint16_t *cfg);

#endif /* KT_CONSTRAINT_H */
