/* seq_net.c - the sequence networks' parameters and training pass; see
 * seq_net.h.  Inference is in seq_infer.c. */
#include "core/util.h"
#include "ml/seq_net_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool seq_net_autoregressive(const seq_net *n)
{
    return n->d.arch == SEQ_ENCDEC || n->d.arch == SEQ_ATTENTION || n->d.feedback;
}

/* ------------------------------------------------------------ parameters */

/* The parameter blob being laid out: p NULL while only counting. */
typedef struct blob {
    float *p, *g;
    size_t at;
} blob;

/* Sizes a layer of kind K (kt_nn_K_nparams) and, with a blob, binds it to
 * the next slice (kt_nn_K_bind). */
#define LAY(b, K, layer)                                                          \
    do {                                                                          \
        size_t k_ = kt_nn_##K##_nparams(layer);                                   \
        if ((b)->p)                                                               \
            kt_nn_##K##_bind(layer, (b)->p + (b)->at, (b)->g ? (b)->g + (b)->at : NULL); \
        (b)->at += k_;                                                            \
    } while (0)

static void set_dims(seq_net *n)
{
    const seq_dims *d = &n->d;
    int H = d->H, E = d->E, Vo = d->out_off[d->Tout];
    n->ein = (kt_nn_embed){.V = d->in_off[d->Tin], .D = E};
    n->out = (kt_nn_dense){.I = H, .O = Vo};
    n->eout = (kt_nn_embed){.V = Vo + 1, .D = E}; /* the last id is BOS */
    n->enc = (kt_nn_lstm){.I = E, .H = H};
    n->benc = (kt_nn_bilstm){.I = E, .H = H / 2};
    n->attn = (kt_nn_attn){.E = H, .H = H, .A = H / 4 > 0 ? H / 4 : 1}; /* scores: small */
    n->dec = (kt_nn_lstm){.I = d->arch == SEQ_ENCDEC ? E : H + E, .H = H};
    n->conv1 = (kt_nn_conv1d){.Ci = E, .Co = d->F, .K = 3, .relu = true};
    n->conv2 = (kt_nn_conv1d){.Ci = d->F, .Co = d->F, .K = 3, .relu = true};
    n->bdec1 = (kt_nn_bilstm){.I = d->Tin * d->F, .H = H / 2};
    n->bdec2 = (kt_nn_bilstm){.I = H, .H = H / 2};
}

/* Sizes the layers for the dimensions and, with a blob, binds them to it;
 * returns the number of parameters. */
static size_t layout(seq_net *n, float *p, float *g)
{
    blob b = {p, g, 0};
    size_t nu = (size_t)n->d.Tin * n->d.E;
    set_dims(n);
    LAY(&b, embed, &n->ein);
    n->unum = p ? p + b.at : NULL;
    n->dunum = g ? g + b.at : NULL;
    b.at += nu;
    LAY(&b, dense, &n->out);
    if (seq_net_autoregressive(n)) {
        LAY(&b, embed, &n->eout);
        LAY(&b, lstm, &n->dec);
    }
    if (n->d.arch == SEQ_ENCDEC) {
        LAY(&b, lstm, &n->enc);
    } else if (n->d.arch == SEQ_ATTENTION) {
        LAY(&b, bilstm, &n->benc);
        LAY(&b, attn, &n->attn);
    } else {
        LAY(&b, conv1d, &n->conv1);
        LAY(&b, conv1d, &n->conv2);
        LAY(&b, bilstm, &n->bdec1);
        LAY(&b, bilstm, &n->bdec2);
    }
    return b.at;
}

static bool dims_ok(const seq_dims *d)
{
    bool ok = d->arch >= SEQ_ENCDEC && d->arch <= SEQ_HYBRID2 && d->Tin > 0 &&
              d->Tin <= SEQ_MAX_LEN && d->Tout > 0 && d->Tout <= SEQ_MAX_LEN &&
              d->E > 0 && d->E <= 1024 && d->H >= 2 && d->H <= 2048 && d->H % 2 == 0 &&
              d->F > 0 && d->F <= 1024 && d->in_off[0] == 0 && d->out_off[0] == 0 &&
              (d->feedback == 0 || d->feedback == 1);
    for (int f = 0; ok && f < d->Tin; f++)
        ok = d->in_off[f + 1] > d->in_off[f] && d->in_off[f + 1] < 60000;
    for (int p = 0; ok && p < d->Tout; p++)
        ok = d->out_off[p + 1] > d->out_off[p] && d->out_off[p + 1] < 60000;
    return ok;
}

int seq_net_new(seq_net *n, const seq_dims *d, bool training)
{
    *n = (seq_net){.d = *d};
    if (!dims_ok(d))
        return KT_EINVAL;
    n->np = layout(n, NULL, NULL);
    n->params = calloc(n->np, sizeof *n->params);
    n->grads = training ? calloc(n->np, sizeof *n->grads) : NULL;
    if (!n->params || (training && !n->grads)) {
        seq_net_free(n);
        return KT_ENOMEM;
    }
    layout(n, n->params, n->grads);
    return KT_OK;
}

void seq_net_init(seq_net *n, kt_rng *rng)
{
    kt_nn_embed_init(&n->ein, rng);
    kt_nn_uniform(n->unum, (size_t)n->d.Tin * n->d.E, 0.1f, rng);
    kt_nn_dense_init(&n->out, rng);
    if (seq_net_autoregressive(n)) {
        kt_nn_embed_init(&n->eout, rng);
        kt_nn_lstm_init(&n->dec, rng);
    }
    if (n->d.arch == SEQ_ENCDEC) {
        kt_nn_lstm_init(&n->enc, rng);
    } else if (n->d.arch == SEQ_ATTENTION) {
        kt_nn_bilstm_init(&n->benc, rng);
        kt_nn_attn_init(&n->attn, rng);
    } else {
        kt_nn_conv1d_init(&n->conv1, rng);
        kt_nn_conv1d_init(&n->conv2, rng);
        kt_nn_bilstm_init(&n->bdec1, rng);
        kt_nn_bilstm_init(&n->bdec2, rng);
    }
}

void seq_net_free(seq_net *n)
{
    free(n->params);
    free(n->grads);
    n->params = n->grads = NULL;
}

/* ------------------------------------------------------------- workspace */

void seq_ws_free(seq_ws *w)
{
    if (!w)
        return;
    void *all[] = {w->ids_in, w->ids_dec, w->tgt, w->mask, w->num, w->emb_in, w->demb_in,
                   w->emb_dec, w->demb_dec, w->enc_h, w->denc_h, w->hT, w->cT, w->dhT,
                   w->dcT, w->cache_a, w->cache_b, w->cache_c, w->keys, w->dkeys, w->ctx, w->s, w->c,
                   w->gates, w->alpha, w->acache, w->xin, w->dxin, w->dh, w->dc, w->dh2,
                   w->dc2, w->conv1, w->conv2, w->dconv1, w->dconv2, w->rep, w->drep, w->h1,
                   w->dh1, w->rep2, w->drep2, w->feat, w->dfeat, w->xseq, w->dxseq, w->dec_h, w->ddec_h, w->drop, w->ddrop,
                   w->logits, w->dlogits, w->slice, w->probs, w->dslice};
    for (size_t i = 0; i < KT_ARRAY_LEN(all); i++)
        free(all[i]);
    free(w);
}

/* n floats (at least one), zeroed; *ok cleared on failure. */
static float *fl(size_t n, bool *ok)
{
    float *p = calloc(n + 1, sizeof *p);
    *ok = *ok && p;
    return p;
}

static size_t lstm_caches(const seq_net *n, int B)
{
    const seq_dims *d = &n->d;
    size_t a = kt_nn_lstm_cache_size(&n->enc, B, d->Tin);
    size_t b = kt_nn_bilstm_cache_size(&n->benc, B, d->Tin);
    size_t c = kt_nn_bilstm_cache_size(&n->bdec1, B, d->Tout);
    size_t e = kt_nn_bilstm_cache_size(&n->bdec2, B, d->Tout);
    size_t f = kt_nn_lstm_cache_size(&n->dec, B, d->Tout);
    size_t m = a > b ? a : b;
    m = m > c ? m : c;
    m = m > e ? m : e;
    return m > f ? m : f;
}

seq_ws *seq_ws_new(const seq_net *n, int B)
{
    const seq_dims *d = &n->d;
    size_t Tin = (size_t)d->Tin, To = (size_t)d->Tout, H = (size_t)d->H, E = (size_t)d->E;
    size_t F = (size_t)d->F, Vo = (size_t)d->out_off[d->Tout], Vmax = 0, b = (size_t)B;
    for (int p = 0; p < d->Tout; p++)
        if ((size_t)(d->out_off[p + 1] - d->out_off[p]) > Vmax)
            Vmax = (size_t)(d->out_off[p + 1] - d->out_off[p]);
    seq_ws *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    bool ok = true;
    size_t cache = lstm_caches(n, B);
    w->Bmax = B;
    w->ids_in = calloc(b * Tin + 1, sizeof *w->ids_in);
    w->ids_dec = calloc(b * To + 1, sizeof *w->ids_dec);
    w->tgt = calloc(b + 1, sizeof *w->tgt);
    w->mask = calloc(b * To * H + 1, 1);
    ok = w->ids_in && w->ids_dec && w->tgt && w->mask;
    w->num = fl(b * Tin, &ok);
    w->emb_in = fl(b * Tin * E, &ok), w->demb_in = fl(b * Tin * E, &ok);
    w->emb_dec = fl(b * To * E, &ok), w->demb_dec = fl(b * To * E, &ok);
    w->enc_h = fl(b * Tin * H, &ok), w->denc_h = fl(b * Tin * H, &ok);
    w->hT = fl(b * H, &ok), w->cT = fl(b * H, &ok), w->dhT = fl(b * H, &ok);
    w->dcT = fl(b * H, &ok);
    w->cache_a = fl(cache, &ok), w->cache_b = fl(cache, &ok), w->cache_c = fl(cache, &ok);
    w->keys = fl(b * Tin * H, &ok), w->dkeys = fl(b * Tin * H, &ok);
    w->ctx = fl(To * b * H, &ok), w->s = fl(To * b * H, &ok), w->c = fl(To * b * H, &ok);
    w->gates = fl(To * b * 4 * H, &ok);
    w->alpha = fl(To * b * Tin, &ok);
    w->acache = fl(To * kt_nn_attn_cache_size(&n->attn, B, d->Tin), &ok);
    w->xin = fl(To * b * (H + E), &ok), w->dxin = fl(b * (H + E), &ok);
    w->dh = fl(b * H, &ok), w->dc = fl(b * H, &ok), w->dh2 = fl(b * H, &ok);
    w->dc2 = fl(b * H, &ok);
    if (d->arch == SEQ_HYBRID || d->arch == SEQ_HYBRID2) {
        w->conv1 = fl(b * Tin * F, &ok), w->conv2 = fl(b * Tin * F, &ok);
        w->dconv1 = fl(b * Tin * F, &ok), w->dconv2 = fl(b * Tin * F, &ok);
        w->rep = fl(b * To * Tin * F, &ok), w->drep = fl(b * To * Tin * F, &ok);
    }
    w->h1 = fl(b * To * H, &ok), w->dh1 = fl(b * To * H, &ok);
    w->rep2 = fl(b * To * H, &ok), w->drep2 = fl(b * To * H, &ok);
    w->feat = fl(b * To * H, &ok), w->dfeat = fl(b * To * H, &ok);
    w->xseq = fl(b * To * (H + E), &ok), w->dxseq = fl(b * To * (H + E), &ok);
    w->dec_h = fl(b * To * H, &ok), w->ddec_h = fl(b * To * H, &ok);
    w->drop = fl(b * To * H, &ok), w->ddrop = fl(b * To * H, &ok);
    w->logits = fl(b * To * Vo, &ok), w->dlogits = fl(b * To * Vo, &ok);
    w->slice = fl(b * Vmax, &ok), w->probs = fl(b * Vo, &ok), w->dslice = fl(b * Vmax, &ok);
    if (!ok) {
        seq_ws_free(w);
        return NULL;
    }
    return w;
}

/* ------------------------------------------------------------ embeddings */

int seq_embed_inputs(const seq_net *n, seq_ws *w, int B, const uint16_t *x,
                     const float *xn)
{
    const seq_dims *d = &n->d;
    int Tin = d->Tin, E = d->E;
    for (int b = 0; b < B; b++)
        for (int f = 0; f < Tin; f++) {
            int id = d->in_off[f] + x[b * Tin + f];
            if (id >= d->in_off[f + 1])
                return KT_ERANGE;
            w->ids_in[b * Tin + f] = (uint16_t)id;
            w->num[b * Tin + f] = xn[b * Tin + f];
        }
    int rc = kt_nn_embed_forward(&n->ein, B * Tin, w->ids_in, w->emb_in);
    for (int i = 0; rc == KT_OK && i < B * Tin; i++)
        for (int e = 0; e < E; e++)
            w->emb_in[i * E + e] += w->num[i] * n->unum[(i % Tin) * E + e];
    return rc;
}

static void embed_inputs_backward(seq_net *n, seq_ws *w, int B)
{
    int Tin = n->d.Tin, E = n->d.E;
    kt_nn_embed_backward(&n->ein, B * Tin, w->ids_in, w->demb_in);
    for (int i = 0; i < B * Tin; i++)
        for (int e = 0; e < E; e++)
            n->dunum[(i % Tin) * E + e] += w->num[i] * w->demb_in[i * E + e];
}

/* Decoder inputs under teacher forcing: BOS, then the true tokens. */
static int embed_targets(const seq_net *n, seq_ws *w, int B, const uint16_t *y)
{
    const seq_dims *d = &n->d;
    int To = d->Tout;
    for (int b = 0; b < B; b++)
        for (int p = 0; p < To; p++) {
            int id = p ? d->out_off[p - 1] + y[b * To + p - 1] : d->out_off[To];
            if (p && id >= d->out_off[p])
                return KT_ERANGE;
            w->ids_dec[b * To + p] = (uint16_t)id;
        }
    return kt_nn_embed_forward(&n->eout, B * To, w->ids_dec, w->emb_dec);
}

/* ---------------------------------------------------------------- passes */

static void encdec_forward(const seq_net *n, seq_ws *w, int B)
{
    kt_nn_lstm_forward(&n->enc, B, n->d.Tin, w->emb_in, NULL, NULL, w->enc_h, w->hT, w->cT,
                       w->cache_a);
    kt_nn_lstm_forward(&n->dec, B, n->d.Tout, w->emb_dec, w->hT, w->cT, w->dec_h, NULL,
                       NULL, w->cache_b);
}

static void encdec_backward(seq_net *n, seq_ws *w, int B)
{
    size_t bh = (size_t)B * n->d.H;
    memset(w->dhT, 0, bh * sizeof *w->dhT);
    memset(w->dcT, 0, bh * sizeof *w->dcT);
    kt_nn_lstm_backward(&n->dec, B, n->d.Tout, w->emb_dec, w->hT, w->cT, w->dec_h,
                        w->cache_b, w->ddec_h, NULL, NULL, w->demb_dec, w->dhT, w->dcT);
    kt_nn_lstm_backward(&n->enc, B, n->d.Tin, w->emb_in, NULL, NULL, w->enc_h, w->cache_a,
                        NULL, w->dhT, w->dcT, w->demb_in, NULL, NULL);
}

/* Attention step p's input rows [ctx, embedding of the previous token]. */
static void attention_input(const seq_net *n, seq_ws *w, int B, int p)
{
    int H = n->d.H, E = n->d.E, To = n->d.Tout;
    float *xin = w->xin + (size_t)p * B * (H + E);
    for (int b = 0; b < B; b++) {
        memcpy(xin + b * (H + E), w->ctx + ((size_t)p * B + b) * H, H * sizeof *xin);
        memcpy(xin + b * (H + E) + H, w->emb_dec + ((size_t)b * To + p) * E, E * sizeof *xin);
    }
}

static void attention_forward(const seq_net *n, seq_ws *w, int B)
{
    const seq_dims *d = &n->d;
    int H = d->H, E = d->E, To = d->Tout, Tin = d->Tin;
    size_t bh = (size_t)B * H, acs = kt_nn_attn_cache_size(&n->attn, B, Tin);
    kt_nn_bilstm_forward(&n->benc, B, Tin, w->emb_in, NULL, NULL, w->enc_h, w->hT, w->cT,
                         w->cache_a);
    kt_nn_attn_keys_forward(&n->attn, B, Tin, w->enc_h, w->keys);
    for (int p = 0; p < To; p++) {
        const float *hp = p ? w->s + (p - 1) * bh : w->hT;
        const float *cp = p ? w->c + (p - 1) * bh : w->cT;
        kt_nn_attn_forward(&n->attn, B, Tin, w->enc_h, w->keys, hp, w->ctx + p * bh,
                           w->alpha + (size_t)p * B * Tin, w->acache + p * acs);
        attention_input(n, w, B, p);
        kt_nn_lstm_step_forward(&n->dec, B, w->xin + (size_t)p * B * (H + E), hp, cp,
                                w->gates + p * 4 * bh, w->s + p * bh, w->c + p * bh);
        for (int b = 0; b < B; b++)
            memcpy(w->dec_h + ((size_t)b * To + p) * H, w->s + p * bh + (size_t)b * H,
                   H * sizeof *w->dec_h);
    }
}

/* Back through attention step p; dh, dc hold the gradients into its state
 * and receive those into the previous one (or into hT, cT at p = 0). */
static void attention_step_backward(seq_net *n, seq_ws *w, int B, int p)
{
    const seq_dims *d = &n->d;
    int H = d->H, E = d->E, To = d->Tout, Tin = d->Tin;
    size_t bh = (size_t)B * H, acs = kt_nn_attn_cache_size(&n->attn, B, Tin);
    const float *hp = p ? w->s + (p - 1) * bh : w->hT;
    const float *cp = p ? w->c + (p - 1) * bh : w->cT;
    for (int b = 0; b < B; b++)
        for (int j = 0; j < H; j++)
            w->dh[b * H + j] += w->ddec_h[((size_t)b * To + p) * H + j];
    memset(w->dxin, 0, (size_t)B * (H + E) * sizeof *w->dxin);
    memset(w->dh2, 0, bh * sizeof *w->dh2);
    memset(w->dc2, 0, bh * sizeof *w->dc2);
    kt_nn_lstm_step_backward(&n->dec, B, w->xin + (size_t)p * B * (H + E), hp, cp,
                             w->c + p * bh, w->gates + p * 4 * bh, w->dh, w->dc, w->dxin,
                             w->dh2, w->dc2);
    for (int b = 0; b < B; b++) { /* split dxin into dctx (into dh) and the embedding's */
        memcpy(w->dh + (size_t)b * H, w->dxin + (size_t)b * (H + E), H * sizeof *w->dh);
        for (int e = 0; e < E; e++)
            w->demb_dec[((size_t)b * To + p) * E + e] += w->dxin[(size_t)b * (H + E) + H + e];
    }
    kt_nn_attn_backward(&n->attn, B, Tin, w->enc_h, hp, w->alpha + (size_t)p * B * Tin,
                        w->acache + p * acs, w->dh, w->denc_h, w->dkeys, w->dh2);
    memcpy(w->dh, w->dh2, bh * sizeof *w->dh);
    memcpy(w->dc, w->dc2, bh * sizeof *w->dc);
}

static void attention_backward(seq_net *n, seq_ws *w, int B)
{
    int Tin = n->d.Tin;
    size_t bh = (size_t)B * n->d.H, bth = bh * Tin;
    memset(w->dkeys, 0, bth * sizeof *w->dkeys);
    memset(w->denc_h, 0, bth * sizeof *w->denc_h);
    memset(w->dh, 0, bh * sizeof *w->dh);
    memset(w->dc, 0, bh * sizeof *w->dc);
    for (int p = n->d.Tout - 1; p >= 0; p--)
        attention_step_backward(n, w, B, p);
    kt_nn_attn_keys_backward(&n->attn, B, Tin, w->enc_h, w->dkeys, w->denc_h);
    kt_nn_bilstm_backward(&n->benc, B, Tin, w->emb_in, NULL, NULL, w->enc_h, w->cache_a,
                          w->denc_h, w->dh, w->dc, w->demb_in, NULL, NULL);
}

/* dst (B,T,W) = src (B,W) at every step. */
static void repeat_rows(int B, int T, size_t W, const float *src, float *dst)
{
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            memcpy(dst + ((size_t)b * T + t) * W, src + (size_t)b * W, W * sizeof *dst);
}

/* dst (B,W) = sum over steps of src (B,T,W). */
static void sum_steps(int B, int T, size_t W, const float *src, float *dst)
{
    memset(dst, 0, (size_t)B * W * sizeof *dst);
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (size_t j = 0; j < W; j++)
                dst[(size_t)b * W + j] += src[((size_t)b * T + t) * W + j];
}

void seq_hybrid_forward(const seq_net *n, seq_ws *w, int B, float *out)
{
    const seq_dims *d = &n->d;
    int Tin = d->Tin, To = d->Tout;
    kt_nn_conv1d_forward(&n->conv1, B, Tin, w->emb_in, w->conv1);
    kt_nn_conv1d_forward(&n->conv2, B, Tin, w->conv1, w->conv2);
    repeat_rows(B, To, (size_t)Tin * d->F, w->conv2, w->rep);
    kt_nn_bilstm_forward(&n->bdec1, B, To, w->rep, NULL, NULL, w->h1, w->hT, NULL,
                         w->cache_a);
    const float *in2 = w->h1;
    if (d->arch == SEQ_HYBRID2) { /* only the last states go on */
        repeat_rows(B, To, (size_t)d->H, w->hT, w->rep2);
        in2 = w->rep2;
    }
    kt_nn_bilstm_forward(&n->bdec2, B, To, in2, NULL, NULL, out, NULL, NULL, w->cache_b);
}

/* x (B,T,H+E) = [a (B,T,H), b (B,T,E)] row by row. */
static void concat_rows(size_t rows, size_t H, size_t E, const float *a, const float *b,
                        float *x)
{
    for (size_t r = 0; r < rows; r++) {
        memcpy(x + r * (H + E), a + r * H, H * sizeof *x);
        memcpy(x + r * (H + E) + H, b + r * E, E * sizeof *x);
    }
}

/* A hybrid with feedback: the features, then the decoder LSTM over
 * [features, previous token]. */
static void feedback_forward(const seq_net *n, seq_ws *w, int B)
{
    const seq_dims *d = &n->d;
    seq_hybrid_forward(n, w, B, w->feat);
    concat_rows((size_t)B * d->Tout, (size_t)d->H, (size_t)d->E, w->feat, w->emb_dec, w->xseq);
    kt_nn_lstm_forward(&n->dec, B, d->Tout, w->xseq, NULL, NULL, w->dec_h, NULL, NULL,
                       w->cache_c);
}

/* Back from dout (B,Tout,H), the gradient w.r.t. the bi-LSTMs' outputs
 * out. */
static void hybrid_backward(seq_net *n, seq_ws *w, int B, const float *out, const float *dout)
{
    const seq_dims *d = &n->d;
    int Tin = d->Tin, To = d->Tout;
    size_t bth = (size_t)B * To * d->H, flat = (size_t)Tin * d->F;
    bool layered = d->arch == SEQ_HYBRID2;
    float *dx2 = layered ? w->drep2 : w->dh1;
    memset(dx2, 0, bth * sizeof *dx2);
    kt_nn_bilstm_backward(&n->bdec2, B, To, layered ? w->rep2 : w->h1, NULL, NULL, out,
                          w->cache_b, dout, NULL, NULL, dx2, NULL, NULL);
    if (layered)
        sum_steps(B, To, (size_t)d->H, w->drep2, w->dhT);
    memset(w->drep, 0, (size_t)B * To * flat * sizeof *w->drep);
    kt_nn_bilstm_backward(&n->bdec1, B, To, w->rep, NULL, NULL, w->h1, w->cache_a,
                          layered ? NULL : w->dh1, layered ? w->dhT : NULL, NULL, w->drep,
                          NULL, NULL);
    sum_steps(B, To, flat, w->drep, w->dconv2);
    memset(w->dconv1, 0, (size_t)B * flat * sizeof *w->dconv1);
    kt_nn_conv1d_backward(&n->conv2, B, Tin, w->conv1, w->conv2, w->dconv2, w->dconv1);
    kt_nn_conv1d_backward(&n->conv1, B, Tin, w->emb_in, w->conv1, w->dconv1, w->demb_in);
}

static void feedback_backward(seq_net *n, seq_ws *w, int B)
{
    const seq_dims *d = &n->d;
    size_t rows = (size_t)B * d->Tout, H = (size_t)d->H, E = (size_t)d->E;
    memset(w->dxseq, 0, rows * (H + E) * sizeof *w->dxseq);
    kt_nn_lstm_backward(&n->dec, B, d->Tout, w->xseq, NULL, NULL, w->dec_h, w->cache_c,
                        w->ddec_h, NULL, NULL, w->dxseq, NULL, NULL);
    for (size_t r = 0; r < rows; r++) {
        memcpy(w->dfeat + r * H, w->dxseq + r * (H + E), H * sizeof *w->dfeat);
        for (size_t e = 0; e < E; e++)
            w->demb_dec[r * E + e] += w->dxseq[r * (H + E) + H + e];
    }
    hybrid_backward(n, w, B, w->feat, w->dfeat);
}

/* ------------------------------------------------------------ the output */

void seq_log_softmax(const seq_net *n, const float *logits, int p, double *logp)
{
    int lo = n->d.out_off[p], V = n->d.out_off[p + 1] - lo;
    double mx = -INFINITY, sum = 0;
    for (int t = 0; t < V; t++) /* normalised as in training, token 0 too */
        mx = logits[lo + t] > mx ? logits[lo + t] : mx;
    for (int t = 0; t < V; t++)
        sum += exp(logits[lo + t] - mx);
    for (int t = 1; t < V; t++)
        logp[t] = logits[lo + t] - mx - log(sum);
    logp[0] = -INFINITY;
}

/* Dropout, the output layer and each position's cross-entropy. */
static int head_forward(const seq_net *n, seq_ws *w, int B, const uint16_t *y,
                        bool training, float p, kt_rng *rng, float *loss)
{
    const seq_dims *d = &n->d;
    int To = d->Tout, Vo = d->out_off[To];
    size_t nh = (size_t)B * To * d->H;
    kt_nn_dropout_forward(nh, p, training, rng, w->dec_h, w->drop, w->mask);
    kt_nn_dense_forward(&n->out, B * To, w->drop, w->logits);
    *loss = 0;
    for (int q = 0; q < To; q++) {
        int lo = d->out_off[q], V = d->out_off[q + 1] - lo;
        float lq;
        for (int b = 0; b < B; b++) {
            memcpy(w->slice + (size_t)b * V, w->logits + ((size_t)b * To + q) * Vo + lo,
                   V * sizeof *w->slice);
            w->tgt[b] = y[b * To + q];
        }
        int rc = kt_nn_xent_forward(B, V, w->slice, w->tgt, NULL, w->probs + (size_t)B * lo,
                                    &lq);
        if (rc != KT_OK)
            return rc;
        *loss += lq / (float)To;
    }
    return KT_OK;
}

static void head_backward(seq_net *n, seq_ws *w, int B, const uint16_t *y, bool training,
                          float p)
{
    const seq_dims *d = &n->d;
    int To = d->Tout, Vo = d->out_off[To];
    size_t nh = (size_t)B * To * d->H;
    for (int q = 0; q < To; q++) {
        int lo = d->out_off[q], V = d->out_off[q + 1] - lo;
        for (int b = 0; b < B; b++)
            w->tgt[b] = y[b * To + q];
        memset(w->dslice, 0, (size_t)B * V * sizeof *w->dslice);
        kt_nn_xent_backward(B, V, w->probs + (size_t)B * lo, w->tgt, NULL, 1.0f / (float)To,
                            w->dslice);
        for (int b = 0; b < B; b++)
            memcpy(w->dlogits + ((size_t)b * To + q) * Vo + lo, w->dslice + (size_t)b * V,
                   V * sizeof *w->dlogits);
    }
    memset(w->ddrop, 0, nh * sizeof *w->ddrop);
    kt_nn_dense_backward(&n->out, B * To, w->drop, w->dlogits, w->ddrop);
    memset(w->ddec_h, 0, nh * sizeof *w->ddec_h);
    kt_nn_dropout_backward(nh, p, training, w->mask, w->ddrop, w->ddec_h);
}

int seq_net_loss(seq_net *n, seq_ws *w, int B, const uint16_t *x, const float *xn,
                 const uint16_t *y, bool training, float p, kt_rng *rng, float *loss)
{
    const seq_dims *d = &n->d;
    if (B > w->Bmax)
        return KT_EINVAL;
    int rc = seq_embed_inputs(n, w, B, x, xn);
    if (rc == KT_OK && seq_net_autoregressive(n))
        rc = embed_targets(n, w, B, y);
    if (rc != KT_OK)
        return rc;
    if (d->arch == SEQ_ENCDEC)
        encdec_forward(n, w, B);
    else if (d->arch == SEQ_ATTENTION)
        attention_forward(n, w, B);
    else if (d->feedback)
        feedback_forward(n, w, B);
    else
        seq_hybrid_forward(n, w, B, w->dec_h);
    if ((rc = head_forward(n, w, B, y, training, p, rng, loss)) != KT_OK || !training)
        return rc;
    head_backward(n, w, B, y, training, p);
    memset(w->demb_in, 0, (size_t)B * d->Tin * d->E * sizeof *w->demb_in);
    memset(w->demb_dec, 0, (size_t)B * d->Tout * d->E * sizeof *w->demb_dec);
    if (d->arch == SEQ_ENCDEC)
        encdec_backward(n, w, B);
    else if (d->arch == SEQ_ATTENTION)
        attention_backward(n, w, B);
    else if (d->feedback)
        feedback_backward(n, w, B);
    else
        hybrid_backward(n, w, B, w->dec_h, w->ddec_h);
    embed_inputs_backward(n, w, B);
    if (seq_net_autoregressive(n))
        kt_nn_embed_backward(&n->eout, B * d->Tout, w->ids_dec, w->demb_dec);
    return KT_OK;
}
