/* avg.c - models averaged: n states of sequence methods trained on the same
 * data (the same kt_model's samples, vocabularies and scales), whose
 * scores at every position after every prefix are the mean of their
 * probabilities,
 *   p(t | prefix) = (p_1(t | prefix) + ... + p_n(t | prefix)) / n.
 * "mix" (mix.c) averages two different methods, "bag" (bag.c) one method
 * trained with several seeds; both are this state with their own parts. */
#include "ml/model_impl.h"

#include <math.h>
#include <stdlib.h>

kt_avg *kt_avg_new(size_t n, const kt_method *const *part, void *const *states, bool owned)
{
    kt_avg *a = n <= KT_AVG_MAX ? calloc(1, sizeof *a) : NULL;
    for (size_t i = 0; a && i < n; i++) {
        a->part[i] = part[i];
        a->state[i] = states ? states[i] : NULL;
    }
    if (a) {
        a->n = n;
        a->owned = owned;
    }
    return a;
}

void kt_avg_free(void *state)
{
    kt_avg *a = state;
    for (size_t i = 0; a && a->owned && i < a->n; i++)
        if (a->state[i])
            a->part[i]->free(a->state[i]);
    free(a);
}

/* m as part i sees it: the same data, the part's method and state. */
static kt_model part_view(const kt_model *m, const kt_avg *a, size_t i)
{
    kt_model v = *m;
    v.state = a->state[i];
    v.method = a->part[i];
    return v;
}

typedef struct query {
    size_t n;
    kt_model view[KT_AVG_MAX];  /* each part's view of the model */
    void *qs[KT_AVG_MAX];       /* each part's query */
    double *other;              /* n x V scores of a later part */
    size_t cap;
} query;

void kt_avg_end(void *qs)
{
    query *q = qs;
    for (size_t i = 0; q && i < q->n; i++)
        if (q->qs[i])
            q->view[i].method->end(q->qs[i]);
    if (q)
        free(q->other);
    free(q);
}

int kt_avg_begin(const kt_model *m, const uint16_t *x, const double *xn, void **qs)
{
    const kt_avg *a = m->state;
    query *q = calloc(1, sizeof *q);
    *qs = q;
    if (!q)
        return KT_ENOMEM;
    int rc = KT_OK;
    for (size_t i = 0; rc == KT_OK && i < a->n; i++, q->n++) {
        q->view[i] = part_view(m, a, i);
        rc = a->part[i]->begin(&q->view[i], x, xn, &q->qs[i]);
    }
    return rc;
}

int kt_avg_next(void *qs, const uint16_t *prefixes, size_t n, size_t stride, size_t pos,
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
    int rc = q->view[0].method->next(q->qs[0], prefixes, n, stride, pos, logp);
    for (size_t i = 0; rc == KT_OK && i < n * V; i++)
        logp[i] = exp(logp[i]);
    for (size_t p = 1; rc == KT_OK && p < q->n; p++) {
        rc = q->view[p].method->next(q->qs[p], prefixes, n, stride, pos, q->other);
        for (size_t i = 0; rc == KT_OK && i < n * V; i++)
            logp[i] += exp(q->other[i]);
    }
    for (size_t i = 0; rc == KT_OK && i < n * V; i++)
        logp[i] = i % V == 0 ? -INFINITY : log(logp[i] / (double)q->n);
    return rc;
}

void kt_avg_save(const kt_model *m, FILE *f)
{
    const kt_avg *a = m->state;
    for (size_t i = 0; i < a->n; i++) {
        kt_model v = part_view(m, a, i);
        a->part[i]->save(&v, f);
    }
}

void kt_avg_load(kt_model *m, kt_avg *a, reader *r)
{
    r->bad |= a == NULL;
    for (size_t i = 0; !r->bad && i < a->n; i++) {
        kt_model v = part_view(m, a, i);
        a->part[i]->load(&v, r);
        a->state[i] = v.state;
    }
    m->state = a;
}
