/* model_start.c - predict and predict+search: a trained model's top
 * configurations evaluated first (model_start.h). */
#include "tune/model_start.h"
#include "core/util.h"
#include "ml/predict.h"

#include <stdlib.h>
#include <string.h>

static const kt_model_strategy TABLE[] = {
    {"predict", "only the top configurations a trained model predicts "
                "(constrained beam search: all valid)", false},
    {"predict+search", "those first, then the default strategy within the budget", true},
};

const kt_model_strategy *kt_model_strategy_at(size_t i)
{
    return i < KT_ARRAY_LEN(TABLE) ? &TABLE[i] : NULL;
}

const kt_model_strategy *kt_model_strategy_find(const char *name)
{
    for (size_t i = 0; i < KT_ARRAY_LEN(TABLE); i++)
        if (strcmp(TABLE[i].name, name) == 0)
            return &TABLE[i];
    return NULL;
}

int kt_model_start(const kt_spec *spec, const char *model_path, const char *problem_key,
                   size_t top, uint16_t **cfgs, size_t *found, kt_diag *diag)
{
    kt_model *m = NULL;
    *cfgs = NULL;
    *found = 0;
    int rc = kt_model_load(model_path, &m, diag);
    if (rc == KT_OK && !(*cfgs = malloc(top * (spec->nparams + 1) * sizeof **cfgs)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = kt_predict_configs(m, spec->path, problem_key, top, *cfgs, found, diag);
    if (rc == KT_OK && *found == 0)
        rc = kt_fail(diag, KT_ENOTFOUND, "%s predicts no valid configuration for "
                     "problem %s", model_path, problem_key);
    kt_model_free(m);
    return rc;
}
