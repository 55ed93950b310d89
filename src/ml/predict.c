/* predict.c - a model's query scores through the (constrained) beam search. */
#include "ml/predict.h"
#include "core/util.h"
#include "ml/beam.h"

#include <stdlib.h>

int kt_predict(const kt_model *m, kt_constraint *c, const char *problem_key,
               size_t width, uint16_t *out, double *logp, size_t *found,
               kt_diag *diag)
{
    kt_model_info info;
    kt_model_describe(m, &info);
    size_t *vocab_n = malloc((info.nout + 1) * sizeof *vocab_n);
    double *scores = logp ? logp : malloc(width * sizeof *scores);
    kt_query *q = NULL;
    int rc = vocab_n && scores ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t p = 0; rc == KT_OK && p < info.nout; p++)
        vocab_n[p] = info.out_vocab[p].n;
    if (rc == KT_OK)
        rc = kt_query_new(m, problem_key, &q, diag);
    if (rc == KT_OK && c)
        rc = kt_constraint_bind(c, problem_key, diag);
    kt_beam_opts o = {.width = width, .scores = kt_query_scores, .scores_user = q,
                      .ok = c ? kt_constraint_prefix_ok : NULL, .ok_user = c};
    if (rc == KT_OK && kt_beam_search(info.nout, vocab_n, &o, out, scores, found))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory in the beam search");
    kt_query_free(q);
    if (!logp)
        free(scores);
    free(vocab_n);
    return rc;
}

int kt_predict_configs(const kt_model *m, const char *spec_path,
                       const char *problem_key, size_t width, uint16_t *cfgs,
                       size_t *found, kt_diag *diag)
{
    *found = 0;
    kt_model_info info;
    kt_model_describe(m, &info);
    kt_constraint *c = NULL;
    uint16_t *tokens = malloc(width * (info.nout + 1) * sizeof *tokens);
    /* the caller's spec, whose warnings its load gave */
    int rc = tokens ? kt_constraint_new(spec_path, NULL, NULL, &info, &c, diag)
                    : kt_fail(diag, KT_ENOMEM, "out of memory");
    size_t n = 0;
    if (rc == KT_OK)
        rc = kt_predict(m, c, problem_key, width, tokens, NULL, &n, diag);
    for (size_t i = 0; rc == KT_OK && i < n; i++)
        if (kt_constraint_values(c, tokens + i * info.nout, cfgs + *found * info.nout))
            ++*found; /* always: the constrained search keeps valid ones only */
    kt_constraint_free(c);
    free(tokens);
    return rc;
}
