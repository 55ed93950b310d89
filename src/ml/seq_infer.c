/* seq_infer.c - inference with a sequence network, one descriptor at a
 * time, its decoder steps batched over the beam; see seq_net.h. */
#include "ml/seq_net_impl.h"

#include <stdlib.h>
#include <string.h>

/* The decoder states left by the prefixes scored at one position. */
typedef struct level {
    size_t n;
    uint16_t *prefix;   /* n x Tout (the first pos tokens are the key) */
    float *h, *c;       /* n x H */
} level;

struct seq_infer {
    const seq_net *n;
    seq_ws *w;          /* a batch of one: the encoder's pass */
    long pos;           /* the last position scored (-1: none) */
    level prev;         /* its states */
    float *root_h, *root_c; /* the decoder's first state */
    float *zero;        /* a zero state (hybrids' decoders start from it) */
};

static void level_free(level *l)
{
    free(l->prefix);
    free(l->h);
    free(l->c);
    *l = (level){0};
}

void seq_infer_free(seq_infer *s)
{
    if (!s)
        return;
    seq_ws_free(s->w);
    level_free(&s->prev);
    free(s->zero);
    free(s);
}

int seq_infer_new(const seq_net *n, const uint16_t *x, const float *xn, seq_infer **out)
{
    const seq_dims *d = &n->d;
    seq_infer *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s || !(s->w = seq_ws_new(n, 1)) || !(s->zero = calloc(d->H, sizeof *s->zero))) {
        seq_infer_free(s);
        return KT_ENOMEM;
    }
    s->n = n;
    s->pos = -1;
    seq_ws *w = s->w;
    s->root_h = w->hT;
    s->root_c = w->cT;
    int rc = seq_embed_inputs(n, w, 1, x, xn);
    if (rc != KT_OK) {
        seq_infer_free(s);
        return rc;
    }
    if (d->arch == SEQ_ENCDEC) {
        kt_nn_lstm_forward(&n->enc, 1, d->Tin, w->emb_in, NULL, NULL, w->enc_h, w->hT, w->cT,
                           w->cache_a);
    } else if (d->arch == SEQ_ATTENTION) {
        kt_nn_bilstm_forward(&n->benc, 1, d->Tin, w->emb_in, NULL, NULL, w->enc_h, w->hT,
                             w->cT, w->cache_a);
        kt_nn_attn_keys_forward(&n->attn, 1, d->Tin, w->enc_h, w->keys);
    } else if (d->feedback) { /* the features; the decoder steps later */
        seq_hybrid_forward(n, w, 1, w->feat);
        s->root_h = s->root_c = s->zero;
    } else { /* the whole pass: no position depends on another's token */
        seq_hybrid_forward(n, w, 1, w->dec_h);
        kt_nn_dense_forward(&n->out, d->Tout, w->dec_h, w->logits);
    }
    *out = s;
    return KT_OK;
}

/* Scratch of one batched decoder step over nb prefixes. */
typedef struct step {
    uint16_t *ids;
    float *hp, *cp, *emb, *enc, *keys, *ctx, *alpha, *acache, *xin, *gates, *logits;
    level next;
} step;

static void step_free(step *t)
{
    void *all[] = {t->ids, t->hp, t->cp, t->emb, t->enc, t->keys, t->ctx, t->alpha,
                   t->acache, t->xin, t->gates, t->logits};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
    level_free(&t->next);
}

static int step_alloc(const seq_net *n, size_t nb, step *t)
{
    const seq_dims *d = &n->d;
    size_t H = d->H, E = d->E, Tin = d->Tin, Vo = d->out_off[d->Tout];
    size_t acs = kt_nn_attn_cache_size(&n->attn, (int)nb, d->Tin);
    *t = (step){.ids = calloc(nb, sizeof *t->ids), .hp = malloc(nb * H * sizeof(float)),
                .cp = malloc(nb * H * sizeof(float)), .emb = malloc(nb * E * sizeof(float)),
                .enc = malloc(nb * Tin * H * sizeof(float)),
                .keys = malloc(nb * Tin * H * sizeof(float)),
                .ctx = malloc(nb * H * sizeof(float)),
                .alpha = malloc(nb * Tin * sizeof(float)), .acache = malloc(acs * sizeof(float)),
                .xin = malloc(nb * (H + E) * sizeof(float)),
                .gates = malloc(nb * 4 * H * sizeof(float)),
                .logits = malloc(nb * Vo * sizeof(float))};
    t->next = (level){.n = nb, .prefix = calloc(nb * d->Tout, sizeof(uint16_t)),
                      .h = malloc(nb * H * sizeof(float)), .c = malloc(nb * H * sizeof(float))};
    bool ok = t->ids && t->hp && t->cp && t->emb && t->enc && t->keys && t->ctx && t->alpha &&
              t->acache && t->xin && t->gates && t->logits && t->next.prefix && t->next.h &&
              t->next.c;
    return ok ? KT_OK : KT_ENOMEM;
}

/* Each prefix's parent state and its decoder input id. */
static int gather(const seq_infer *s, const uint16_t *prefixes, size_t nb, size_t stride,
                  size_t pos, step *t)
{
    const seq_dims *d = &s->n->d;
    size_t H = d->H;
    for (size_t i = 0; i < nb; i++) {
        const uint16_t *pre = prefixes + i * stride;
        const float *h = s->root_h, *c = s->root_c;
        if (pos > 0) {
            size_t j = 0;
            while (j < s->prev.n && memcmp(s->prev.prefix + j * d->Tout, pre,
                                           (pos - 1) * sizeof *pre) != 0)
                j++;
            if (j == s->prev.n || pre[pos - 1] >= d->out_off[pos] - d->out_off[pos - 1])
                return KT_EINVAL;
            h = s->prev.h + j * H;
            c = s->prev.c + j * H;
        }
        memcpy(t->hp + i * H, h, H * sizeof *h);
        memcpy(t->cp + i * H, c, H * sizeof *c);
        memcpy(t->next.prefix + i * d->Tout, pre, pos * sizeof *pre);
        t->ids[i] = (uint16_t)(pos ? d->out_off[pos - 1] + pre[pos - 1] : d->out_off[d->Tout]);
    }
    return KT_OK;
}

/* One decoder step at pos for the nb rows of t: new states into t->next,
 * logits. */
static int decode(const seq_infer *s, size_t nb, size_t pos, step *t)
{
    const seq_net *n = s->n;
    const seq_dims *d = &n->d;
    size_t H = d->H, E = d->E, Tin = d->Tin;
    int rc = kt_nn_embed_forward(&n->eout, (int)nb, t->ids, t->emb);
    if (rc != KT_OK)
        return rc;
    const float *x = t->emb;
    if (d->arch == SEQ_ATTENTION) {
        for (size_t i = 0; i < nb; i++) {
            memcpy(t->enc + i * Tin * H, s->w->enc_h, Tin * H * sizeof(float));
            memcpy(t->keys + i * Tin * H, s->w->keys, Tin * H * sizeof(float));
        }
        kt_nn_attn_forward(&n->attn, (int)nb, d->Tin, t->enc, t->keys, t->hp, t->ctx,
                           t->alpha, t->acache);
        for (size_t i = 0; i < nb; i++) {
            memcpy(t->xin + i * (H + E), t->ctx + i * H, H * sizeof(float));
            memcpy(t->xin + i * (H + E) + H, t->emb + i * E, E * sizeof(float));
        }
        x = t->xin;
    } else if (d->arch != SEQ_ENCDEC) { /* a hybrid's features at pos */
        for (size_t i = 0; i < nb; i++) {
            memcpy(t->xin + i * (H + E), s->w->feat + pos * H, H * sizeof(float));
            memcpy(t->xin + i * (H + E) + H, t->emb + i * E, E * sizeof(float));
        }
        x = t->xin;
    }
    kt_nn_lstm_step_forward(&n->dec, (int)nb, x, t->hp, t->cp, t->gates, t->next.h,
                            t->next.c);
    kt_nn_dense_forward(&n->out, (int)nb, t->next.h, t->logits);
    return KT_OK;
}

int seq_infer_step(seq_infer *s, const uint16_t *prefixes, size_t nb, size_t stride,
                   size_t pos, double *logp)
{
    const seq_net *n = s->n;
    const seq_dims *d = &n->d;
    size_t Vo = d->out_off[d->Tout], V = d->out_off[pos + 1] - d->out_off[pos];
    if ((int)pos >= d->Tout)
        return KT_EINVAL;
    if (!seq_net_autoregressive(n)) {
        for (size_t i = 0; i < nb; i++)
            seq_log_softmax(n, s->w->logits + pos * Vo, (int)pos, logp + i * V);
        return KT_OK;
    }
    if (pos > 0 && (long)pos != s->pos + 1)
        return KT_EINVAL;
    step t;
    int rc = step_alloc(n, nb, &t);
    if (rc == KT_OK)
        rc = gather(s, prefixes, nb, stride, pos, &t);
    if (rc == KT_OK)
        rc = decode(s, nb, pos, &t);
    for (size_t i = 0; rc == KT_OK && i < nb; i++)
        seq_log_softmax(n, t.logits + i * Vo, (int)pos, logp + i * V);
    if (rc == KT_OK) {
        level_free(&s->prev);
        s->prev = t.next;
        t.next = (level){0};
        s->pos = (long)pos;
    }
    step_free(&t);
    return rc;
}
