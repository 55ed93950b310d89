/* mix.c - "mix": the xgboost chain and the encoder-decoder averaged at
 * every position after every prefix,
 *   p(t | prefix) = (p_xgboost(t | prefix) + p_encdec(t | prefix)) / 2,
 * with equal weights (fixed, not fitted to any split).  Both model the
 * configuration's joint distribution, but they err on different problems
 * (trees over numbers and earlier values; an LSTM over tokens), so their
 * average ranks the best configuration higher than either on the small
 * cells of docs/PREDICTION.md.  Trained as its two parts on the same data;
 * the default method scores it from the parts' models without training it
 * again (kt_method.parts).  The file holds xgboost's state, then encdec's. */
#include "ml/model_impl.h"

#include <math.h>
#include <stdlib.h>

static const kt_method *const PARTS[] = {&kt_method_xgboost, &kt_method_encdec, NULL};
enum { NPART = 2 };

/* The parts' states; owned unless joined (then borrowed). */
typedef struct mix {
    void *state[NPART];
    bool owned;
} mix;

static void *join(void *const *states)
{
    mix *x = calloc(1, sizeof *x);
    for (size_t i = 0; x && i < NPART; i++)
        x->state[i] = states[i];
    return x;
}

static void mix_free(void *state)
{
    mix *x = state;
    for (size_t i = 0; x && x->owned && i < NPART; i++)
        PARTS[i]->free(x->state[i]);
    free(x);
}

/* m as part i sees it: the same data, the part's state. */
static kt_model part_view(const kt_model *m, size_t i)
{
    kt_model v = *m;
    v.state = ((const mix *)m->state)->state[i];
    v.method = PARTS[i];
    return v;
}

static int fit(kt_model *m, const kt_train_opts *o)
{
    mix *x = calloc(1, sizeof *x);
    if (!x)
        return KT_ENOMEM;
    x->owned = true;
    int rc = KT_OK;
    for (size_t i = 0; rc == KT_OK && i < NPART; i++) {
        m->state = NULL;
        rc = PARTS[i]->fit(m, o);
        x->state[i] = m->state; /* kept even on failure: freed with x */
    }
    m->state = x;
    return rc;
}

typedef struct query {
    kt_model view[NPART];  /* each part's view of the model */
    void *qs[NPART];       /* each part's query */
    double *other;         /* n x V scores of the second part */
    size_t cap;
} query;

static void end(void *qs)
{
    query *q = qs;
    for (size_t i = 0; q && i < NPART; i++)
        if (q->qs[i])
            PARTS[i]->end(q->qs[i]);
    if (q)
        free(q->other);
    free(q);
}

static int begin(const kt_model *m, const uint16_t *x, const double *xn, void **qs)
{
    query *q = calloc(1, sizeof *q);
    *qs = q;
    if (!q)
        return KT_ENOMEM;
    int rc = KT_OK;
    for (size_t i = 0; rc == KT_OK && i < NPART; i++) {
        q->view[i] = part_view(m, i);
        rc = PARTS[i]->begin(&q->view[i], x, xn, &q->qs[i]);
    }
    return rc;
}

static int next(void *qs, const uint16_t *prefixes, size_t n, size_t stride, size_t pos,
                double *logp)
{
    query *q = qs;
    size_t V = q->view[0].out_vocab[pos].n;
    if (n * V > q->cap) {
        double *o = realloc(q->other, n * V * sizeof *o);
        if (!o)
            return KT_ENOMEM;
        q->other = o;
        q->cap = n * V;
    }
    int rc = PARTS[0]->next(q->qs[0], prefixes, n, stride, pos, logp);
    if (rc == KT_OK)
        rc = PARTS[1]->next(q->qs[1], prefixes, n, stride, pos, q->other);
    for (size_t i = 0; rc == KT_OK && i < n * V; i++)
        logp[i] = i % V == 0 ? -INFINITY : log(0.5 * exp(logp[i]) + 0.5 * exp(q->other[i]));
    return rc;
}

static void save(const kt_model *m, FILE *f)
{
    for (size_t i = 0; i < NPART; i++) {
        kt_model v = part_view(m, i);
        PARTS[i]->save(&v, f);
    }
}

static void load(kt_model *m, reader *r)
{
    mix *x = calloc(1, sizeof *x);
    r->bad |= x == NULL;
    for (size_t i = 0; !r->bad && i < NPART; i++) {
        kt_model v = *m;
        v.state = NULL;
        v.method = PARTS[i];
        PARTS[i]->load(&v, r);
        x->state[i] = v.state;
    }
    if (x)
        x->owned = true;
    m->state = x;
}

const kt_method kt_method_mix = {
    .name = "mix", .kind = 22, .pools = true, .parts = PARTS, .join = join, .fit = fit,
    .begin = begin, .next = next, .end = end, .save = save, .load = load, .free = mix_free,
};
