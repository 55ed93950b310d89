/* seq2seq.c - the paper's sequence models as predictor methods: "encdec",
 * "attention", "hybrid" and "hybrid2" (networks in seq_net.c).
 *
 * Training: a seeded tenth of the training samples is set aside for
 * validation; mini-batches in a seeded order, Adam, dropout on the decoder's
 * outputs, gradients clipped, teacher forcing for the decoders that read the
 * previous token; after each epoch the validation loss decides early
 * stopping, and the parameters of the best epoch are kept.  Everything is a
 * function of the seed (OpenBLAS's sums are deterministic for a thread
 * count).  Queries run the encoder once and the decoder batched over the
 * beam (seq_infer.c). */
#include "ml/model_impl.h"
#include "ml/seq_net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The network reads only the descriptor fields that vary in training (a
 * constant field tells it nothing, and each costs an encoder step). */
typedef struct seq_model {
    int nf;                       /* fields read */
    int field[SEQ_MAX_LEN];       /* their indices among the model's inputs */
    seq_net net;
} seq_model;

/* Defaults, close to the paper's where the 60 s budget allows.  A small
 * data set gets more epochs (and patience) so that training takes at least
 * MIN_STEPS gradient steps (MIN_PATIENCE without gain); a large one fewer,
 * so that it takes at most MAX_STEPS (about 45 s for encdec on machine A;
 * no cell of gfx906_60 reaches it: 6926 samples make 60 epochs of 195). */
enum { DEF_E = 32, DEF_H = 128, DEF_F = 32, DEF_EPOCHS = 60, DEF_PATIENCE = 6,
       DEF_BATCH = 32, MIN_STEPS = 1000, MIN_PATIENCE = 100, MAX_STEPS = 12000 };
#define DEF_LR 2e-3
#define DEF_DROPOUT 0.2
#define CLIP_NORM 5.0f

/* The fields that vary among the training samples (at least one). */
static void pick_fields(const kt_model *m, seq_model *s)
{
    s->nf = 0;
    for (size_t f = 0; f < m->nin && s->nf < SEQ_MAX_LEN; f++)
        for (size_t i = 1; i < m->train.n; i++)
            if (m->train.x[i * m->nin + f] != m->train.x[f]) {
                s->field[s->nf++] = (int)f;
                break;
            }
    if (s->nf == 0)
        s->field[s->nf++] = 0;
}

static int dims_of(const kt_model *m, const seq_model *s, int arch, const kt_train_opts *o,
                   seq_dims *d)
{
    if (m->nout > SEQ_MAX_LEN)
        return KT_EINVAL;
    *d = (seq_dims){.arch = arch, .Tin = s->nf, .Tout = (int)m->nout,
                    .E = DEF_E, .H = o->hidden > 0 ? o->hidden : DEF_H, .F = DEF_F,
                    .feedback = arch >= SEQ_HYBRID && !o->paper_decoder};
    d->H += d->H % 2;
    for (int f = 0; f < s->nf; f++) {
        if (s->field[f] < 0 || (size_t)s->field[f] >= m->nin)
            return KT_EINVAL;
        d->in_off[f + 1] = d->in_off[f] + (int)m->in_vocab[s->field[f]].n;
    }
    for (size_t p = 0; p < m->nout; p++)
        d->out_off[p + 1] = d->out_off[p] + (int)m->out_vocab[p].n;
    return KT_OK;
}

/* The tokens and standardised numbers (0 where none) of the fields read. */
static void inputs(const kt_model *m, const seq_model *s, const uint16_t *x,
                   const double *xn, uint16_t *tok, float *num)
{
    for (int f = 0; f < s->nf; f++) {
        double v = kt_model_feature(m, xn, (size_t)s->field[f]);
        tok[f] = x[s->field[f]];
        num[f] = isnan(v) ? 0.0f : (float)v;
    }
}

/* ---------------------------------------------------------------- training */

typedef struct trainer {
    const kt_model *m;
    seq_net *net;
    seq_ws *w;
    kt_rng rng;
    size_t *order, ntrain, nval;      /* shuffled sample indices: train, then val */
    uint16_t *x;                      /* all training samples' inputs (nf each) */
    float *xn;
    uint16_t *bx, *by;                /* a batch's inputs and targets */
    float *bxn;
    float *m1, *v1, *best;            /* Adam's moments; the best epoch's params */
    int B;
    size_t nf;
} trainer;

static void trainer_free(trainer *t)
{
    seq_ws_free(t->w);
    free(t->order);
    free(t->x);
    free(t->xn);
    free(t->bx);
    free(t->by);
    free(t->bxn);
    free(t->m1);
    free(t->v1);
    free(t->best);
}

static void shuffle(size_t *a, size_t n, kt_rng *rng)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = kt_rng_below(rng, i), t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

static int trainer_new(trainer *t, const kt_model *m, seq_model *s, int B, uint64_t seed)
{
    seq_net *net = &s->net;
    size_t n = m->train.n, nin = (size_t)s->nf, nout = m->nout, np = net->np;
    *t = (trainer){.m = m, .net = net, .B = B, .nf = nin};
    kt_rng_seed(&t->rng, seed ^ 0x5e92e9ULL);
    t->w = seq_ws_new(net, B);
    t->order = malloc(n * sizeof *t->order);
    t->x = malloc(n * nin * sizeof *t->x);
    t->xn = malloc(n * nin * sizeof *t->xn);
    t->bx = malloc((size_t)B * nin * sizeof *t->bx);
    t->by = malloc((size_t)B * nout * sizeof *t->by);
    t->bxn = malloc((size_t)B * nin * sizeof *t->bxn);
    t->m1 = calloc(np, sizeof *t->m1);
    t->v1 = calloc(np, sizeof *t->v1);
    t->best = malloc(np * sizeof *t->best);
    if (!t->w || !t->order || !t->x || !t->xn || !t->bx || !t->by || !t->bxn || !t->m1 || !t->v1 ||
        !t->best)
        return KT_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        t->order[i] = i;
        inputs(m, s, m->train.x + i * m->nin, m->train.xnum + i * m->nin, t->x + i * nin,
               t->xn + i * nin);
    }
    shuffle(t->order, n, &t->rng);
    t->nval = n >= 10 ? n / 10 : 0; /* too few to spare: no early stopping */
    t->ntrain = n - t->nval;
    return KT_OK;
}

/* The samples order[from .. from + B) as a batch. */
static void fill_batch(trainer *t, const size_t *idx, int B)
{
    size_t nin = t->nf, nout = t->m->nout;
    for (int b = 0; b < B; b++) {
        size_t i = idx[b];
        memcpy(t->bx + b * nin, t->x + i * nin, nin * sizeof *t->bx);
        memcpy(t->bxn + b * nin, t->xn + i * nin, nin * sizeof *t->bxn);
        memcpy(t->by + b * nout, t->m->train.y + i * nout, nout * sizeof *t->by);
    }
}

/* One pass over idx[0..n): with training, a gradient step per batch.
 * *loss: the mean over samples. */
static int run_epoch(trainer *t, const size_t *idx, size_t n, bool training,
                     const kt_nn_adam *adam, long *step, float dropout, double *loss)
{
    double sum = 0;
    for (size_t at = 0; at < n; at += (size_t)t->B) {
        int B = n - at < (size_t)t->B ? (int)(n - at) : t->B;
        float l;
        fill_batch(t, idx + at, B);
        if (training)
            memset(t->net->grads, 0, t->net->np * sizeof *t->net->grads);
        int rc = seq_net_loss(t->net, t->w, B, t->bx, t->bxn, t->by, training, dropout,
                              &t->rng, &l);
        if (rc != KT_OK)
            return rc;
        sum += (double)l * B;
        if (training) {
            kt_nn_clip_norm(t->net->np, t->net->grads, CLIP_NORM);
            kt_nn_adam_step(adam, ++*step, t->net->np, t->net->params, t->net->grads, t->m1,
                            t->v1);
        }
    }
    *loss = n ? sum / (double)n : 0;
    return KT_OK;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Epochs of `steps` gradient steps (at least one). */
static int epochs_for(const trainer *t, int steps)
{
    size_t per = (t->ntrain + (size_t)t->B - 1) / (size_t)t->B;
    size_t e = per ? ((size_t)steps + per - 1) / per : 1;
    return e > 0 && e < 1000000 ? (int)e : 1;
}

/* def epochs, or as many as MIN_STEPS and MAX_STEPS ask. */
static int default_epochs(const trainer *t)
{
    int lo = epochs_for(t, MIN_STEPS), hi = epochs_for(t, MAX_STEPS);
    return DEF_EPOCHS < lo ? lo : DEF_EPOCHS > hi ? hi : DEF_EPOCHS;
}

static int train_loop(trainer *t, const kt_train_opts *o)
{
    int epochs = o->epochs > 0 ? o->epochs : default_epochs(t);
    int min_patience = epochs_for(t, MIN_PATIENCE);
    int patience = o->patience > 0 ? o->patience
                                   : DEF_PATIENCE > min_patience ? DEF_PATIENCE : min_patience;
    float dropout = o->dropout > 0 && o->dropout < 1 ? (float)o->dropout : (float)DEF_DROPOUT;
    kt_nn_adam adam = {.lr = (float)(o->lr > 0 ? o->lr : DEF_LR), .beta1 = 0.9f,
                       .beta2 = 0.999f, .eps = 1e-8f};
    double best = INFINITY, start = now();
    long step = 0;
    int since = 0, rc = KT_OK;
    memcpy(t->best, t->net->params, t->net->np * sizeof *t->best);
    for (int e = 1; rc == KT_OK && e <= epochs && since < patience; e++) {
        double tl, vl = 0;
        shuffle(t->order, t->ntrain, &t->rng);
        rc = run_epoch(t, t->order, t->ntrain, true, &adam, &step, dropout, &tl);
        if (rc == KT_OK && t->nval)
            rc = run_epoch(t, t->order + t->ntrain, t->nval, false, NULL, NULL, 0, &vl);
        double score = t->nval ? vl : tl;
        if (score < best) {
            best = score;
            since = 0;
            memcpy(t->best, t->net->params, t->net->np * sizeof *t->best);
        } else {
            since++;
        }
        if (o->progress)
            o->progress(o->user, e, tl, vl, now() - start);
        if (o->seconds > 0 && now() - start > o->seconds)
            break;
    }
    memcpy(t->net->params, t->best, t->net->np * sizeof *t->best);
    return rc;
}

static int fit(kt_model *m, const kt_train_opts *o, int arch)
{
    seq_model *s = calloc(1, sizeof *s);
    seq_dims d;
    trainer t = {0};
    kt_rng init;
    if (s)
        pick_fields(m, s);
    int rc = s ? dims_of(m, s, arch, o, &d) : KT_ENOMEM;
    if (rc == KT_OK)
        rc = seq_net_new(&s->net, &d, true);
    if (rc == KT_OK) {
        m->state = s;
        kt_rng_seed(&init, o->seed);
        seq_net_init(&s->net, &init);
        rc = trainer_new(&t, m, s, o->batch > 0 ? o->batch : DEF_BATCH, o->seed);
    }
    if (rc == KT_OK)
        rc = train_loop(&t, o);
    trainer_free(&t);
    if (s && s->net.grads) { /* inference needs none */
        free(s->net.grads);
        s->net.grads = NULL;
    }
    if (!m->state)
        free(s);
    return rc;
}

static int fit_encdec(kt_model *m, const kt_train_opts *o) { return fit(m, o, SEQ_ENCDEC); }
static int fit_attention(kt_model *m, const kt_train_opts *o) { return fit(m, o, SEQ_ATTENTION); }
static int fit_hybrid(kt_model *m, const kt_train_opts *o) { return fit(m, o, SEQ_HYBRID); }
static int fit_hybrid2(kt_model *m, const kt_train_opts *o) { return fit(m, o, SEQ_HYBRID2); }

/* ----------------------------------------------------------------- queries */

static int begin(const kt_model *m, const uint16_t *x, const double *xn, void **qs)
{
    const seq_model *s = m->state;
    uint16_t tok[SEQ_MAX_LEN];
    float num[SEQ_MAX_LEN];
    inputs(m, s, x, xn, tok, num);
    return seq_infer_new(&s->net, tok, num, (seq_infer **)qs);
}

static int next(void *qs, const uint16_t *prefixes, size_t n, size_t stride, size_t pos,
                double *logp)
{
    return seq_infer_step(qs, prefixes, n, stride, pos, logp);
}

static void end(void *qs) { seq_infer_free(qs); }

/* -------------------------------------------------------------- the file */

/* The fields read, the dimensions, then the parameters. */
static void save(const kt_model *m, FILE *f)
{
    const seq_model *s = m->state;
    const seq_dims *d = &s->net.d;
    int32_t dims[7] = {d->arch, d->Tin, d->Tout, d->E, d->H, d->F, d->feedback};
    kt_put_u32(f, (uint32_t)s->nf);
    kt_put(f, s->field, (size_t)s->nf * sizeof *s->field);
    kt_put(f, dims, sizeof dims);
    kt_put_u64(f, s->net.np);
    kt_put(f, s->net.params, s->net.np * sizeof *s->net.params);
}

static void load(kt_model *m, reader *r)
{
    int32_t dims[7];
    seq_model *s = calloc(1, sizeof *s);
    seq_dims d = {0};
    kt_train_opts o = {.hidden = 2};
    if (s && ((s->nf = (int)kt_get_u32(r)) < 1 || s->nf > SEQ_MAX_LEN))
        r->bad = true;
    if (!s || r->bad || !kt_get(r, s->field, (size_t)s->nf * sizeof *s->field) ||
        !kt_get(r, dims, sizeof dims) || dims_of(m, s, dims[0], &o, &d) != KT_OK ||
        dims[1] != d.Tin || dims[2] != d.Tout) {
        free(s);
        r->bad = true;
        return;
    }
    d.E = dims[3], d.H = dims[4], d.F = dims[5], d.feedback = dims[6];
    uint64_t np = kt_get_u64(r);
    float *p = NULL;
    /* the parameters must be in the file before the network is allocated
     * for them: its dimensions come from the file too */
    if (np > (uint64_t)(r->end - r->p) / sizeof *p)
        r->bad = true;
    if (r->bad || seq_net_new(&s->net, &d, false) != KT_OK || np != s->net.np ||
        !(p = kt_get_array(r, np, sizeof *p))) {
        seq_net_free(&s->net);
        free(s);
        r->bad = true;
        return;
    }
    memcpy(s->net.params, p, np * sizeof *p);
    free(p);
    m->state = s;
}

static void seq_free(void *state)
{
    seq_model *s = state;
    if (s)
        seq_net_free(&s->net);
    free(s);
}

#define SEQ_METHOD(NAME, KIND, FIT)                                                     \
    {.name = NAME, .kind = KIND, .pools = true, .seeded = true, .fit = FIT, .begin = begin, \
     .next = next, .end = end, .save = save, .load = load, .free = seq_free}

const kt_method kt_method_encdec = SEQ_METHOD("encdec", 10, fit_encdec);
const kt_method kt_method_attention = SEQ_METHOD("attention", 11, fit_attention);
const kt_method kt_method_hybrid = SEQ_METHOD("hybrid", 12, fit_hybrid);
const kt_method kt_method_hybrid2 = SEQ_METHOD("hybrid2", 13, fit_hybrid2);
