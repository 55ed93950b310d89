/* bag.c - "bag": one method trained several times on the same samples with
 * different seeds, its scores averaged (avg.c).  Where a method's training
 * draws on its seed (initial weights, the order of mini-batches, rows and
 * columns sampled per tree, the tenth that stops it early: the table's
 * `seeded`), two seeds give two models that err differently, and on a small
 * training part much of a model's error is that variance: their average
 * ranks the best configuration higher than either does (the study of
 * docs/PREDICTION.md).  Member 0 is the model trained with the caller's
 * seed, so a bag of one is that model.  The default method bags its winner
 * on small cells (choose.c); a bag is built from a trained model, never
 * asked for by name.  The file holds the members' method kind, their
 * count, then each member's state. */
#include "ml/model_impl.h"

#include <stdlib.h>

/* Member i's seed: far from the caller's, and the caller's for member 0. */
static uint64_t member_seed(uint64_t seed, size_t i)
{
    return seed + (uint64_t)i * 0x9e3779b97f4a7c15ULL;
}

int kt_model_bag(kt_model *m, size_t n, const kt_train_opts *o)
{
    const kt_method *of = m->method, *parts[KT_AVG_MAX];
    if (n < 2 || n > KT_AVG_MAX || !of->seeded || !of->begin)
        return KT_EINVAL;
    for (size_t i = 0; i < n; i++)
        parts[i] = of;
    kt_avg *a = kt_avg_new(n, parts, NULL, true);
    if (!a)
        return KT_ENOMEM;
    a->state[0] = m->state;
    int rc = KT_OK;
    for (size_t i = 1; rc == KT_OK && i < n; i++) {
        kt_train_opts mo = *o;
        mo.seed = member_seed(o->seed, i);
        kt_model v = *m;
        v.state = NULL;
        rc = of->fit(&v, &mo);
        a->state[i] = v.state; /* kept even on failure: freed with a */
    }
    if (rc != KT_OK) {
        a->state[0] = NULL; /* m keeps its own */
        kt_avg_free(a);
        return rc;
    }
    m->method = &kt_method_bag;
    m->state = a;
    return KT_OK;
}

static int fit(kt_model *m, const kt_train_opts *o)
{
    (void)m, (void)o;
    return KT_EINVAL; /* built by kt_model_bag */
}

static const char *label(const kt_model *m)
{
    return ((const kt_avg *)m->state)->part[0]->name;
}

static void save(const kt_model *m, FILE *f)
{
    const kt_avg *a = m->state;
    kt_put_u32(f, a->part[0]->kind);
    kt_put_u32(f, (uint32_t)a->n);
    kt_avg_save(m, f);
}

static void load(kt_model *m, reader *r)
{
    const kt_method *of = kt_method_find(NULL, kt_get_u32(r)), *parts[KT_AVG_MAX];
    uint32_t n = kt_get_u32(r);
    if (!r->bad && (!of || !of->seeded || !of->begin || n < 2 || n > KT_AVG_MAX)) {
        kt_reader_refuse(r, "a bag of an unknown or unbaggable method, or of too many");
        return;
    }
    for (size_t i = 0; !r->bad && i < n; i++)
        parts[i] = of;
    kt_avg_load(m, r->bad ? NULL : kt_avg_new(n, parts, NULL, true), r);
}

const kt_method kt_method_bag = {
    .name = "bag", .kind = 23, .label = label, .fit = fit, .begin = kt_avg_begin,
    .next = kt_avg_next, .end = kt_avg_end, .save = save, .load = load, .free = kt_avg_free,
};
