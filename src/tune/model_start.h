/* model_start.h - the strategies that start from a trained model's
 * predictions (kt_tune_opts.model): a table beside the search layer's
 * strategies, so that the tuner asks a strategy's properties instead of
 * testing names. */
#ifndef KT_MODEL_START_H
#define KT_MODEL_START_H

#include "core/spec.h"

typedef struct kt_model_strategy {
    const char *name;
    const char *summary;
    bool searches;  /* after the predictions, the default strategy searches
                       within the budget; false: nothing else is evaluated,
                       not even the default configuration */
} kt_model_strategy;

/* The i-th such strategy, NULL past the last; the one called name, or NULL. */
const kt_model_strategy *kt_model_strategy_at(size_t i);
const kt_model_strategy *kt_model_strategy_find(const char *name);

/* The top most likely valid configurations of spec for the problem
 * problem_key that the model file at model_path predicts, into *cfgs (value
 * indices, *found x nparams, best first; the caller frees).  KT_ENOTFOUND
 * when it predicts none. */
int kt_model_start(const kt_spec *spec, const char *model_path, const char *problem_key,
                   size_t top, uint16_t **cfgs, size_t *found, kt_diag *diag);

#endif /* KT_MODEL_START_H */
