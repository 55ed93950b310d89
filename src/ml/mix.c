/* mix.c - "mix": the xgboost chain and the encoder-decoder averaged at
 * every position after every prefix,
 *   p(t | prefix) = (p_xgboost(t | prefix) + p_encdec(t | prefix)) / 2,
 * with equal weights (fixed, not fitted to any split).  Both model the
 * configuration's joint distribution, but they err on different problems
 * (trees over numbers and earlier values; an LSTM over tokens), so their
 * average ranks the best configuration higher than either on the small
 * cells of docs/PREDICTION.md.  Trained as its two parts on the same data;
 * the default method scores it from the parts' models without training it
 * again (kt_method.parts).  The state is an average of the parts (avg.c);
 * the file holds xgboost's state, then encdec's. */
#include "ml/model_impl.h"

#include <stdlib.h>

static const kt_method *const PARTS[] = {&kt_method_xgboost, &kt_method_encdec, NULL};
enum { NPART = 2 };

static void *join(void *const *states)
{
    return kt_avg_new(NPART, PARTS, states, false);
}

static int fit(kt_model *m, const kt_train_opts *o)
{
    kt_avg *x = kt_avg_new(NPART, PARTS, NULL, true);
    if (!x)
        return KT_ENOMEM;
    int rc = KT_OK;
    for (size_t i = 0; rc == KT_OK && i < NPART; i++) {
        m->state = NULL;
        rc = PARTS[i]->fit(m, o);
        x->state[i] = m->state; /* kept even on failure: freed with x */
    }
    m->state = x;
    return rc;
}

static void load(kt_model *m, reader *r)
{
    kt_avg_load(m, kt_avg_new(NPART, PARTS, NULL, true), r);
}

const kt_method kt_method_mix = {
    .name = "mix", .kind = 22, .pools = true, .seeded = true, .parts = PARTS, .join = join,
    .fit = fit, .begin = kt_avg_begin, .next = kt_avg_next, .end = kt_avg_end,
    .save = kt_avg_save, .load = load, .free = kt_avg_free,
};
