/* siblings.c - the samples a cell's model may also learn from: a cell is the
 * problems of a kernel that --where selects ("data_type=FP16"), and its
 * siblings are the kernel's problems with other values of those fields
 * (FP32, BF16).  Where a cell has little data, a model of the pooled
 * samples, with the fields as inputs, can learn what the cells share (the
 * study of docs/PREDICTION.md found the same descriptor fields deciding
 * the winners in FP32 and FP16).
 *
 * Pooling must not leak: every cell, the siblings included, is split with
 * the seed and holdout of the cell's own run, so the cell's held-out
 * problems are exactly those of a run without pooling, and no sibling's
 * held-out problem is trained on either. */
#include "core/util.h"
#include "ml/model_impl.h"

#include <stdlib.h>
#include <string.h>

int kt_dataset_subset(const kt_dataset *d, const size_t *idx, size_t n, kt_dataset *s)
{
    *s = (kt_dataset){.kernel = d->kernel, .n = n, .nin = d->nin, .nout = d->nout,
                      .in_names = d->in_names, .out_names = d->out_names,
                      .in_vocab = d->in_vocab, .out_vocab = d->out_vocab};
    s->x = malloc((n * d->nin + 1) * sizeof *s->x);
    s->xnum = malloc((n * d->nin + 1) * sizeof *s->xnum);
    s->y = malloc((n * d->nout + 1) * sizeof *s->y);
    s->problem = malloc((n + 1) * sizeof *s->problem);
    if (!s->x || !s->xnum || !s->y || !s->problem)
        return KT_ENOMEM;
    kt_dataset_rows(d, idx, n, s->x, s->xnum, s->y);
    for (size_t i = 0; i < n; i++)
        s->problem[i] = d->problem[idx[i]];
    return KT_OK;
}

void kt_dataset_subset_free(kt_dataset *s)
{
    free(s->x);
    free(s->xnum);
    free(s->y);
    free(s->problem);
    *s = (kt_dataset){0};
}

void kt_siblings_free(kt_siblings *p)
{
    if (!p)
        return;
    free(p->train);
    free(p->test);
    free(p->extra);
    *p = (kt_siblings){0};
}

/* The input positions of where's fields in all (wf, nwf of them) and the
 * cell's token of each (wt); KT_EINVAL when where names a field all lacks
 * or a value none of its problems has. */
static int where_fields(const kt_dataset *all, const char *where, size_t *wf, uint16_t *wt,
                        size_t *nwf, size_t cap)
{
    char **names, **values;
    size_t n;
    if (kt_key_fields(where, &names, &values, &n) != KT_OK)
        return KT_EINVAL;
    int rc = n && n <= cap ? KT_OK : KT_EINVAL;
    for (size_t w = 0; rc == KT_OK && w < n; w++) {
        size_t f = 0;
        while (f < all->nin && strcmp(all->in_names[f], names[w]) != 0)
            f++;
        wf[w] = f;
        rc = f < all->nin && (wt[w] = kt_vocab_find(&all->in_vocab[f], values[w]))
                 ? KT_OK : KT_EINVAL;
    }
    *nwf = n;
    kt_key_fields_free(names, values, n);
    return rc;
}

/* Whether samples i and j agree on the fields wf. */
static bool same_cell(const kt_dataset *all, size_t i, size_t j, const size_t *wf, size_t nwf)
{
    for (size_t w = 0; w < nwf; w++)
        if (all->x[i * all->nin + wf[w]] != all->x[j * all->nin + wf[w]])
            return false;
    return true;
}

/* Split the cell of sample `first` (the samples agreeing with it on wf,
 * in all's order) as its own run would; its training part goes to *train
 * and its held-out part to *test, as indices into all. */
static int split_cell(const kt_dataset *all, size_t first, const size_t *wf, size_t nwf,
                      const kt_train_opts *o, size_t *train, size_t *ntrain, size_t *test,
                      size_t *ntest)
{
    size_t n = 0, *idx = malloc((all->n + 1) * sizeof *idx), *tr = NULL, *te = NULL;
    size_t ntr = 0, nte = 0;
    kt_dataset cell = {0};
    if (!idx)
        return KT_ENOMEM;
    for (size_t i = first; i < all->n; i++)
        if (same_cell(all, i, first, wf, nwf))
            idx[n++] = i;
    int rc = kt_dataset_subset(all, idx, n, &cell);
    if (rc == KT_OK)
        rc = kt_dataset_split(&cell, o->holdout, o->seed, o->split_ignore, &tr, &ntr, &te,
                              &nte);
    for (size_t i = 0; rc == KT_OK && i < ntr; i++)
        train[(*ntrain)++] = idx[tr[i]];
    for (size_t i = 0; rc == KT_OK && test && i < nte; i++)
        test[(*ntest)++] = idx[te[i]];
    kt_dataset_subset_free(&cell);
    free(idx);
    free(tr);
    free(te);
    return rc;
}

int kt_siblings_new(const kt_dataset *all, const char *where, const kt_train_opts *o,
                    kt_siblings *p)
{
    enum { MAXF = 16 };
    size_t wf[MAXF], nwf = 0, owned = 0;
    uint16_t wt[MAXF];
    *p = (kt_siblings){.all = all};
    int rc = where_fields(all, where ? where : "", wf, wt, &nwf, MAXF);
    bool *seen = calloc(all->n + 1, sizeof *seen);
    p->train = malloc((all->n + 1) * sizeof *p->train);
    p->extra = malloc((all->n + 1) * sizeof *p->extra);
    p->test = malloc((all->n + 1) * sizeof *p->test);
    if (rc == KT_OK && (!seen || !p->train || !p->extra || !p->test))
        rc = KT_ENOMEM;
    for (size_t i = 0; rc == KT_OK && i < all->n; i++) {
        if (seen[i])
            continue;
        bool own = true;
        for (size_t w = 0; w < nwf; w++)
            own &= all->x[i * all->nin + wf[w]] == wt[w];
        if (own)
            rc = split_cell(all, i, wf, nwf, o, p->train, &p->ntrain, p->test, &p->ntest);
        else
            rc = split_cell(all, i, wf, nwf, o, p->extra, &p->nextra, NULL, NULL);
        for (size_t j = i; j < all->n; j++)
            seen[j] |= same_cell(all, i, j, wf, nwf);
        owned += own;
    }
    free(seen);
    if (rc == KT_OK && (owned == 0 || p->nextra == 0))
        rc = KT_EINVAL; /* no sibling to pool with */
    if (rc != KT_OK)
        kt_siblings_free(p);
    return rc;
}
