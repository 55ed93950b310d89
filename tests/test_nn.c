/* test_nn.c - the neural-network layers: every backward pass agrees with
 * central finite differences of its forward pass, the BLAS path agrees with
 * the reference loops, and a tiny encoder-decoder built from the layers
 * learns to copy a sequence.
 *
 * Finite differences: the loss of a layer is L = sum(out * R) for fixed
 * random R (so dL/dout = R), accumulated in double over a float forward;
 * with a step of 1e-3 the float rounding of L stays near 1e-4 of the
 * gradient, well inside the 1e-2 relative tolerance. */
#include "ml/nn.h"
#include "test.h"

/* ------------------------------------------------------------- helpers */

static float *zeros(size_t n)
{
    float *p = calloc(n ? n : 1, sizeof *p);
    CHECK(p);
    return p;
}

/* n values uniform in [-1, 1), from rng. */
static float *randu(size_t n, kt_rng *rng)
{
    float *p = zeros(n);
    kt_nn_uniform(p, n, 1, rng);
    return p;
}

static double dotd(size_t n, const float *a, const float *b)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)a[i] * b[i];
    return s;
}

typedef double (*loss_fn)(void *ctx);

/* Each of x's n values moved by +-eps: the central difference of f must
 * match the analytic gradient g.  The step is the one float really took. */
static void check_grad(const char *what, float *x, const float *g, size_t n,
                       loss_fn f, void *ctx)
{
    const float eps = 1e-3f;
    for (size_t i = 0; i < n; i++) {
        float keep = x[i], up = keep + eps, down = keep - eps;
        x[i] = up;
        double lp = f(ctx);
        x[i] = down;
        double lm = f(ctx);
        x[i] = keep;
        double num = (lp - lm) / ((double)up - down);
        double tol = 1e-2 * fmax(fabs(num), fabs(g[i])) + 5e-4;
        if (!(fabs(num - g[i]) <= tol)) {
            fprintf(stderr, "%s[%zu]: analytic %.6g, finite difference %.6g\n",
                    what, i, g[i], num);
            exit(1);
        }
    }
}

/* a and b agree to tol relative to max(1, |a|). */
static void check_close(const char *what, const float *a, const float *b,
                        size_t n, double tol)
{
    KT_CHECKED();
    for (size_t i = 0; i < n; i++)
        if (!(fabs((double)a[i] - b[i]) <= tol * fmax(1, fabs(a[i])))) {
            fprintf(stderr, "%s[%zu]: %.9g vs %.9g\n", what, i, a[i], b[i]);
            exit(1);
        }
}

static bool any_nonzero(const float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return true;
    return false;
}

/* ---------------------------------------------------------------- gemm */

static void test_gemm_blas_matches_naive(void)
{
    kt_rng rng;
    kt_rng_seed(&rng, 1);
    enum { M = 7, N = 5, K = 6, LD = 9 };  /* LD > every width: strided */
    float *A = randu(LD * LD, &rng), *B = randu(LD * LD, &rng);
    float *c0 = randu(M * LD, &rng);
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int beta = 0; beta < 2; beta++) {
                float c1[M * LD], c2[M * LD];
                memcpy(c1, c0, sizeof c1);
                memcpy(c2, c0, sizeof c2);
                if (!beta)
                    c1[0] = c2[0] = NAN;  /* beta 0 must not read C */
                kt_nn_gemm(false, ta, tb, M, N, K, 0.5f, A, LD, B, LD,
                           (float)beta, c1, LD);
                kt_nn_gemm(true, ta, tb, M, N, K, 0.5f, A, LD, B, LD,
                           (float)beta, c2, LD);
                check_close("gemm", c1, c2, M * LD, 1e-5);
            }
    free(A), free(B), free(c0);
}

/* ----------------------------------------------------------- embedding */

typedef struct embed_ctx {
    kt_nn_embed e;
    int N;
    const uint16_t *ids;
    float *out, *R;
} embed_ctx;

static double embed_loss(void *p)
{
    embed_ctx *c = p;
    CHECK(kt_nn_embed_forward(&c->e, c->N, c->ids, c->out) == KT_OK);
    return dotd((size_t)c->N * c->e.D, c->out, c->R);
}

static void test_embed_backward_matches_fd(void)
{
    kt_rng rng;
    kt_rng_seed(&rng, 2);
    static const uint16_t ids[] = {3, 0, 3, 5, 1, 3};  /* repeats sum */
    embed_ctx c = {.e = {.V = 6, .D = 4}, .N = 6, .ids = ids};
    size_t np = kt_nn_embed_nparams(&c.e);
    CHECK_EQ_INT(np, 24);
    float *params = zeros(np), *grads = zeros(np);
    kt_nn_embed_bind(&c.e, params, grads);
    kt_nn_embed_init(&c.e, &rng);
    c.out = zeros(6 * 4);
    c.R = randu(6 * 4, &rng);
    embed_loss(&c);
    kt_nn_embed_backward(&c.e, c.N, ids, c.R);
    check_grad("dtable", params, grads, np, embed_loss, &c);
    CHECK(!any_nonzero(grads + 2 * 4, 4));  /* ids 2 and 4 unused */
    CHECK(!any_nonzero(grads + 4 * 4, 4));
    CHECK(any_nonzero(grads + 3 * 4, 4));
    static const uint16_t bad[] = {1, 6};
    CHECK_EQ_INT(kt_nn_embed_forward(&c.e, 2, bad, c.out), KT_ERANGE);
    free(params), free(grads), free(c.out), free(c.R);
}

/* --------------------------------------------------------------- dense */

typedef struct dense_ctx {
    kt_nn_dense d;
    int N;
    float *x, *y, *R;
} dense_ctx;

static double dense_loss(void *p)
{
    dense_ctx *c = p;
    kt_nn_dense_forward(&c->d, c->N, c->x, c->y);
    return dotd((size_t)c->N * c->d.O, c->y, c->R);
}

static void test_dense_backward_matches_fd(void)
{
    kt_rng rng;
    kt_rng_seed(&rng, 3);
    for (int naive = 0; naive < 2; naive++) {
        dense_ctx c = {.d = {.I = 4, .O = 3, .naive = naive}, .N = 6};
        size_t np = kt_nn_dense_nparams(&c.d);
        float *params = zeros(np), *grads = zeros(np);
        kt_nn_dense_bind(&c.d, params, grads);
        kt_nn_dense_init(&c.d, &rng);
        kt_nn_uniform(c.d.b, 3, 1, &rng);
        c.x = randu(6 * 4, &rng);
        c.y = zeros(6 * 3);
        c.R = randu(6 * 3, &rng);
        float *dx = zeros(6 * 4);
        dense_loss(&c);
        kt_nn_dense_backward(&c.d, c.N, c.x, c.R, dx);
        check_grad("dense params", params, grads, np, dense_loss, &c);
        check_grad("dense dx", c.x, dx, 6 * 4, dense_loss, &c);
        free(params), free(grads), free(c.x), free(c.y), free(c.R), free(dx);
    }
}

/* --------------------------------------------------- softmax cross-entropy */

typedef struct xent_ctx {
    int N, V;
    float *logits, *probs;
    const uint16_t *targets;
    const float *mask;
} xent_ctx;

static double xent_loss(void *p)
{
    xent_ctx *c = p;
    float loss;
    CHECK(kt_nn_xent_forward(c->N, c->V, c->logits, c->targets, c->mask,
                             c->probs, &loss) == KT_OK);
    return loss;
}

static void test_xent_backward_matches_fd_and_masks_padding(void)
{
    kt_rng rng;
    kt_rng_seed(&rng, 4);
    static const uint16_t targets[] = {0, 4, 2, 2, 1};
    static const float mask[] = {1, 1, 0, 1, 0};
    for (int masked = 0; masked < 2; masked++) {
        xent_ctx c = {.N = 5, .V = 5, .targets = targets,
                      .mask = masked ? mask : NULL};
        c.logits = randu(25, &rng);
        c.probs = zeros(25);
        float *dl = zeros(25);
        xent_loss(&c);
        for (int n = 0; n < 5; n++) {
            double s = 0;
            for (int j = 0; j < 5; j++)
                s += c.probs[n * 5 + j];
            CHECK_NEAR(s, 1, 1e-6);
        }
        kt_nn_xent_backward(c.N, c.V, c.probs, targets, c.mask, 1, dl);
        check_grad("dlogits", c.logits, dl, 25, xent_loss, &c);
        if (masked) {
            CHECK(!any_nonzero(dl + 2 * 5, 5));
            CHECK(!any_nonzero(dl + 4 * 5, 5));
        }
        free(c.logits), free(c.probs), free(dl);
    }
    /* a fully masked batch has no loss and no gradient */
    float logits[10] = {0}, probs[10], dl[10] = {0}, loss = -1;
    static const float none[] = {0, 0};
    CHECK(kt_nn_xent_forward(2, 5, logits, targets, none, probs, &loss) == 0);
    CHECK_NEAR(loss, 0, 0);
    kt_nn_xent_backward(2, 5, probs, targets, none, 1, dl);
    CHECK(!any_nonzero(dl, 10));
    static const uint16_t bad[] = {5};
    CHECK_EQ_INT(kt_nn_xent_forward(1, 5, logits, bad, NULL, probs, &loss),
                 KT_ERANGE);
}

/* ---------------------------------------------------------------- LSTM */

enum { LB = 2, LT = 3, LI = 4, LH = 5 };

/* One LSTM over (LB,LT,LI) with its inputs, outputs and upstream R's. */
typedef struct lstm_ctx {
    kt_nn_lstm l;
    float *params, *grads;
    float *x, *h0, *c0, *h, *hT, *cT, *cache;
    float *Rh, *RhT, *RcT;             /* dL/dh, dL/dhT, dL/dcT */
    float *dx, *dh0, *dc0;
} lstm_ctx;

static void lstm_setup(lstm_ctx *c, bool naive, uint64_t seed)
{
    kt_rng rng;
    kt_rng_seed(&rng, seed);
    c->l = (kt_nn_lstm){.I = LI, .H = LH, .naive = naive};
    size_t np = kt_nn_lstm_nparams(&c->l);
    CHECK_EQ_INT(np, (LI + LH + 1) * 4 * LH);
    c->params = zeros(np);
    c->grads = zeros(np);
    kt_nn_lstm_bind(&c->l, c->params, c->grads);
    kt_nn_lstm_init(&c->l, &rng);
    kt_nn_uniform(c->l.b, 4 * LH, 0.5f, &rng);  /* exercise the bias too */
    c->x = randu(LB * LT * LI, &rng);
    c->h0 = randu(LB * LH, &rng);
    c->c0 = randu(LB * LH, &rng);
    c->h = zeros(LB * LT * LH);
    c->hT = zeros(LB * LH);
    c->cT = zeros(LB * LH);
    c->cache = zeros(kt_nn_lstm_cache_size(&c->l, LB, LT));
    c->Rh = randu(LB * LT * LH, &rng);
    c->RhT = randu(LB * LH, &rng);
    c->RcT = randu(LB * LH, &rng);
    c->dx = zeros(LB * LT * LI);
    c->dh0 = zeros(LB * LH);
    c->dc0 = zeros(LB * LH);
}

static void lstm_teardown(lstm_ctx *c)
{
    float *all[] = {c->params, c->grads, c->x, c->h0, c->c0, c->h, c->hT,
                    c->cT, c->cache, c->Rh, c->RhT, c->RcT, c->dx, c->dh0,
                    c->dc0};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
}

static double lstm_loss(void *p)
{
    lstm_ctx *c = p;
    kt_nn_lstm_forward(&c->l, LB, LT, c->x, c->h0, c->c0, c->h, c->hT, c->cT,
                       c->cache);
    return dotd(LB * LT * LH, c->h, c->Rh) + dotd(LB * LH, c->hT, c->RhT) +
           dotd(LB * LH, c->cT, c->RcT);
}

static void lstm_grads(lstm_ctx *c)
{
    lstm_loss(c);
    kt_nn_lstm_backward(&c->l, LB, LT, c->x, c->h0, c->c0, c->h, c->cache,
                        c->Rh, c->RhT, c->RcT, c->dx, c->dh0, c->dc0);
}

static void test_lstm_backward_matches_fd(void)
{
    lstm_ctx c;
    lstm_setup(&c, false, 5);
    lstm_grads(&c);
    check_grad("lstm params", c.params, c.grads, kt_nn_lstm_nparams(&c.l),
               lstm_loss, &c);
    check_grad("lstm dx", c.x, c.dx, LB * LT * LI, lstm_loss, &c);
    check_grad("lstm dh0", c.h0, c.dh0, LB * LH, lstm_loss, &c);
    check_grad("lstm dc0", c.c0, c.dc0, LB * LH, lstm_loss, &c);
    lstm_teardown(&c);
}

static void test_lstm_blas_matches_naive(void)
{
    lstm_ctx a, b;
    lstm_setup(&a, false, 6);
    lstm_setup(&b, true, 6);
    lstm_grads(&a);
    lstm_grads(&b);
    check_close("h", a.h, b.h, LB * LT * LH, 1e-5);
    check_close("cT", a.cT, b.cT, LB * LH, 1e-5);
    check_close("grads", a.grads, b.grads, kt_nn_lstm_nparams(&a.l), 1e-5);
    check_close("dx", a.dx, b.dx, LB * LT * LI, 1e-5);
    check_close("dh0", a.dh0, b.dh0, LB * LH, 1e-5);
    check_close("dc0", a.dc0, b.dc0, LB * LH, 1e-5);
    lstm_teardown(&a);
    lstm_teardown(&b);
}

/* The step API, as an attention decoder drives it, computes what the
 * sequence API does, forward and backward. */
static void test_lstm_steps_match_sequence(void)
{
    lstm_ctx c;
    lstm_setup(&c, false, 7);
    lstm_grads(&c);
    size_t np = kt_nn_lstm_nparams(&c.l);
    float *seq_grads = zeros(np);
    memcpy(seq_grads, c.grads, np * sizeof *seq_grads);
    memset(c.grads, 0, np * sizeof *c.grads);
    /* per step: x_t (B,I), gates (B,4H), h_t, c_t (B,H) */
    float xs[LT][LB * LI], gates[LT][LB * 4 * LH], hs[LT][LB * LH],
        cs[LT][LB * LH];
    for (int t = 0; t < LT; t++) {
        for (int b = 0; b < LB; b++)
            memcpy(xs[t] + b * LI, c.x + (b * LT + t) * LI, LI * sizeof(float));
        kt_nn_lstm_step_forward(&c.l, LB, xs[t], t ? hs[t - 1] : c.h0,
                                t ? cs[t - 1] : c.c0, gates[t], hs[t], cs[t]);
        for (int b = 0; b < LB; b++)
            check_close("step h", c.h + (b * LT + t) * LH, hs[t] + b * LH, LH,
                        1e-6);
    }
    check_close("step cT", c.cT, cs[LT - 1], LB * LH, 1e-6);
    /* backward: dh carries the recurrent gradient plus the upstream one */
    float dh[LB * LH], dc[LB * LH], dhp[LB * LH], dcp[LB * LH];
    float dxs[LT][LB * LI];
    memcpy(dh, c.RhT, sizeof dh);
    memcpy(dc, c.RcT, sizeof dc);
    memset(dxs, 0, sizeof dxs);
    for (int t = LT - 1; t >= 0; t--) {
        for (int b = 0; b < LB; b++)
            for (int j = 0; j < LH; j++)
                dh[b * LH + j] += c.Rh[(b * LT + t) * LH + j];
        memset(dhp, 0, sizeof dhp);
        memset(dcp, 0, sizeof dcp);
        kt_nn_lstm_step_backward(&c.l, LB, xs[t], t ? hs[t - 1] : c.h0,
                                 t ? cs[t - 1] : c.c0, cs[t], gates[t], dh, dc,
                                 dxs[t], dhp, dcp);
        memcpy(dh, dhp, sizeof dh);
        memcpy(dc, dcp, sizeof dc);
    }
    check_close("step grads", seq_grads, c.grads, np, 1e-5);
    check_close("step dh0", c.dh0, dh, LB * LH, 1e-5);
    check_close("step dc0", c.dc0, dc, LB * LH, 1e-5);
    for (int t = 0; t < LT; t++)
        for (int b = 0; b < LB; b++)
            check_close("step dx", c.dx + (b * LT + t) * LI, dxs[t] + b * LI,
                        LI, 1e-5);
    free(seq_grads);
    lstm_teardown(&c);
}

/* An encoder's final states initialise a decoder; the loss sees only the
 * decoder's outputs, so every encoder gradient arrives through h0/c0. */
typedef struct encdec_ctx {
    kt_nn_lstm enc, dec;
    float *params, *grads;
    float *x, *y;                  /* (B,Te,I), (B,Td,I) */
    float *he, *hT, *cT, *hd;      /* (B,Te,H), (B,H), (B,H), (B,Td,H) */
    float *ce, *cd, *R;            /* caches; dL/dhd */
} encdec_ctx;

enum { ETe = 3, ETd = 2 };

static double encdec_loss(void *p)
{
    encdec_ctx *c = p;
    kt_nn_lstm_forward(&c->enc, LB, ETe, c->x, NULL, NULL, c->he, c->hT, c->cT,
                       c->ce);
    kt_nn_lstm_forward(&c->dec, LB, ETd, c->y, c->hT, c->cT, c->hd, NULL,
                       NULL, c->cd);
    return dotd(LB * ETd * LH, c->hd, c->R);
}

static void test_encoder_states_feed_decoder_gradients(void)
{
    kt_rng rng;
    kt_rng_seed(&rng, 8);
    encdec_ctx c = {.enc = {.I = LI, .H = LH}, .dec = {.I = LI, .H = LH}};
    size_t ne = kt_nn_lstm_nparams(&c.enc);
    size_t np = ne + kt_nn_lstm_nparams(&c.dec);
    c.params = zeros(np), c.grads = zeros(np);  /* one blob for both */
    kt_nn_lstm_bind(&c.enc, c.params, c.grads);
    kt_nn_lstm_bind(&c.dec, c.params + ne, c.grads + ne);
    kt_nn_lstm_init(&c.enc, &rng);
    kt_nn_lstm_init(&c.dec, &rng);
    c.x = randu(LB * ETe * LI, &rng), c.y = randu(LB * ETd * LI, &rng);
    c.he = zeros(LB * ETe * LH), c.hd = zeros(LB * ETd * LH);
    c.hT = zeros(LB * LH), c.cT = zeros(LB * LH);
    c.ce = zeros(kt_nn_lstm_cache_size(&c.enc, LB, ETe));
    c.cd = zeros(kt_nn_lstm_cache_size(&c.dec, LB, ETd));
    c.R = randu(LB * ETd * LH, &rng);
    float *dh0 = zeros(LB * LH), *dc0 = zeros(LB * LH);
    float *dx = zeros(LB * ETe * LI);
    encdec_loss(&c);
    kt_nn_lstm_backward(&c.dec, LB, ETd, c.y, c.hT, c.cT, c.hd, c.cd, c.R,
                        NULL, NULL, NULL, dh0, dc0);
    CHECK(any_nonzero(dh0, LB * LH) && any_nonzero(dc0, LB * LH));
    kt_nn_lstm_backward(&c.enc, LB, ETe, c.x, NULL, NULL, c.he, c.ce, NULL,
                        dh0, dc0, dx, NULL, NULL);
    CHECK(any_nonzero(c.grads, ne) && any_nonzero(dx, LB * ETe * LI));
    check_grad("encoder+decoder params", c.params, c.grads, np, encdec_loss,
               &c);
    check_grad("encoder dx", c.x, dx, LB * ETe * LI, encdec_loss, &c);
    float *all[] = {c.params, c.grads, c.x, c.y, c.he, c.hT, c.cT, c.hd,
                    c.ce, c.cd, c.R, dh0, dc0, dx};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
}

/* --------------------------------------------------- bidirectional LSTM */

typedef struct bi_ctx {
    kt_nn_bilstm l;
    float *params, *grads;
    float *x, *h0, *c0, *h, *hT, *cT, *cache;  /* states (B,2H) */
    float *Rh, *RhT, *RcT, *dx, *dh0, *dc0;
} bi_ctx;

static double bi_loss(void *p)
{
    bi_ctx *c = p;
    kt_nn_bilstm_forward(&c->l, LB, LT, c->x, c->h0, c->c0, c->h, c->hT,
                         c->cT, c->cache);
    return dotd(LB * LT * 2 * LH, c->h, c->Rh) +
           dotd(LB * 2 * LH, c->hT, c->RhT) + dotd(LB * 2 * LH, c->cT, c->RcT);
}

static void bi_setup(bi_ctx *c, bool naive, kt_rng *rng)
{
    c->l = (kt_nn_bilstm){.I = LI, .H = LH, .naive = naive};
    size_t np = kt_nn_bilstm_nparams(&c->l);
    c->params = zeros(np), c->grads = zeros(np);
    kt_nn_bilstm_bind(&c->l, c->params, c->grads);
    kt_nn_bilstm_init(&c->l, rng);
    c->x = randu(LB * LT * LI, rng);
    c->h0 = randu(LB * 2 * LH, rng), c->c0 = randu(LB * 2 * LH, rng);
    c->h = zeros(LB * LT * 2 * LH);
    c->hT = zeros(LB * 2 * LH), c->cT = zeros(LB * 2 * LH);
    c->cache = zeros(kt_nn_bilstm_cache_size(&c->l, LB, LT));
    c->Rh = randu(LB * LT * 2 * LH, rng);
    c->RhT = randu(LB * 2 * LH, rng), c->RcT = randu(LB * 2 * LH, rng);
    c->dx = zeros(LB * LT * LI);
    c->dh0 = zeros(LB * 2 * LH), c->dc0 = zeros(LB * 2 * LH);
}

static void bi_teardown(bi_ctx *c)
{
    float *all[] = {c->params, c->grads, c->x, c->h0, c->c0, c->h, c->hT,
                    c->cT, c->cache, c->Rh, c->RhT, c->RcT, c->dx, c->dh0,
                    c->dc0};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
}

static void test_bilstm_backward_matches_fd(void)
{
    kt_rng rng;
    kt_rng_seed(&rng, 9);
    bi_ctx c;
    bi_setup(&c, false, &rng);
    bi_loss(&c);
    kt_nn_bilstm_backward(&c.l, LB, LT, c.x, c.h0, c.c0, c.h, c.cache, c.Rh,
                          c.RhT, c.RcT, c.dx, c.dh0, c.dc0);
    check_grad("bilstm params", c.params, c.grads,
               kt_nn_bilstm_nparams(&c.l), bi_loss, &c);
    check_grad("bilstm dx", c.x, c.dx, LB * LT * LI, bi_loss, &c);
    check_grad("bilstm dh0", c.h0, c.dh0, LB * 2 * LH, bi_loss, &c);
    check_grad("bilstm dc0", c.c0, c.dc0, LB * 2 * LH, bi_loss, &c);
    bi_teardown(&c);
}

/* The backward half is an ordinary LSTM over the reversed sequence, its
 * output at t landing beside the forward half's, and the final states
 * concatenate [forward at T-1, backward at 0]. */
static void test_bilstm_backward_half_reads_reversed_input(void)
{
    kt_rng rng;
    kt_rng_seed(&rng, 10);
    bi_ctx c;
    bi_setup(&c, false, &rng);
    bi_loss(&c);
    float xr[LB * LT * LI], h[LB * LT * LH], hT[LB * LH], cT[LB * LH];
    float h0[LB * LH], c0[LB * LH];
    for (int b = 0; b < LB; b++) {
        for (int t = 0; t < LT; t++)
            memcpy(xr + (b * LT + t) * LI, c.x + (b * LT + LT - 1 - t) * LI,
                   LI * sizeof(float));
        memcpy(h0 + b * LH, c.h0 + b * 2 * LH + LH, LH * sizeof(float));
        memcpy(c0 + b * LH, c.c0 + b * 2 * LH + LH, LH * sizeof(float));
    }
    float *cache = zeros(kt_nn_lstm_cache_size(&c.l.bw, LB, LT));
    kt_nn_lstm_forward(&c.l.bw, LB, LT, xr, h0, c0, h, hT, cT, cache);
    for (int b = 0; b < LB; b++) {
        for (int t = 0; t < LT; t++)
            check_close("bw h", c.h + (b * LT + t) * 2 * LH + LH,
                        h + (b * LT + LT - 1 - t) * LH, LH, 1e-6);
        check_close("bw hT", c.hT + b * 2 * LH + LH, hT + b * LH, LH, 1e-6);
        check_close("bw cT", c.cT + b * 2 * LH + LH, cT + b * LH, LH, 1e-6);
        check_close("fw hT", c.hT + b * 2 * LH,
                    c.h + (b * LT + LT - 1) * 2 * LH, LH, 0);
    }
    free(cache);
    bi_teardown(&c);
}

static void test_bilstm_blas_matches_naive(void)
{
    bi_ctx c[2];
    for (int naive = 0; naive < 2; naive++) {
        kt_rng rng;
        kt_rng_seed(&rng, 11);
        bi_setup(&c[naive], naive, &rng);
        bi_loss(&c[naive]);
        bi_ctx *p = &c[naive];
        kt_nn_bilstm_backward(&p->l, LB, LT, p->x, p->h0, p->c0, p->h,
                              p->cache, p->Rh, p->RhT, p->RcT, p->dx, p->dh0,
                              p->dc0);
    }
    check_close("bi h", c[0].h, c[1].h, LB * LT * 2 * LH, 1e-5);
    check_close("bi grads", c[0].grads, c[1].grads,
                kt_nn_bilstm_nparams(&c[0].l), 1e-5);
    check_close("bi dx", c[0].dx, c[1].dx, LB * LT * LI, 1e-5);
    bi_teardown(&c[0]);
    bi_teardown(&c[1]);
}

/* ------------------------------------------------------------ attention */

enum { AB = 2, ATe = 4, AE = 6, AH = 5, AA = 3, ASTEPS = 2 };

/* Two decoder steps attend over the same encoder outputs, sharing the keys,
 * as a decoder does. */
typedef struct attn_ctx {
    kt_nn_attn a;
    float *params, *grads;
    float *enc, *keys, *d;                  /* d: (ASTEPS,B,H) */
    float *ctx, *alpha, *cache, *R;         /* per step */
} attn_ctx;

static double attn_loss(void *p)
{
    attn_ctx *c = p;
    size_t nc = kt_nn_attn_cache_size(&c->a, AB, ATe);
    kt_nn_attn_keys_forward(&c->a, AB, ATe, c->enc, c->keys);
    double L = 0;
    for (int s = 0; s < ASTEPS; s++) {
        kt_nn_attn_forward(&c->a, AB, ATe, c->enc, c->keys, c->d + s * AB * AH,
                           c->ctx + s * AB * AE, c->alpha + s * AB * ATe,
                           c->cache + s * nc);
        L += dotd(AB * AE, c->ctx + s * AB * AE, c->R + s * AB * AE);
    }
    return L;
}

static void attn_setup(attn_ctx *c, bool naive, kt_rng *rng)
{
    c->a = (kt_nn_attn){.E = AE, .H = AH, .A = AA, .naive = naive};
    size_t np = kt_nn_attn_nparams(&c->a);
    c->params = zeros(np), c->grads = zeros(np);
    kt_nn_attn_bind(&c->a, c->params, c->grads);
    kt_nn_attn_init(&c->a, rng);
    kt_nn_uniform(c->a.b, AA, 0.5f, rng);
    c->enc = randu(AB * ATe * AE, rng);
    c->keys = zeros(AB * ATe * AA);
    c->d = randu(ASTEPS * AB * AH, rng);
    c->ctx = zeros(ASTEPS * AB * AE);
    c->alpha = zeros(ASTEPS * AB * ATe);
    c->cache = zeros(ASTEPS * kt_nn_attn_cache_size(&c->a, AB, ATe));
    c->R = randu(ASTEPS * AB * AE, rng);
}

/* The gradients of attn_loss into the parameters, enc and d. */
static void attn_grads(attn_ctx *c, float *denc, float *dd)
{
    size_t nc = kt_nn_attn_cache_size(&c->a, AB, ATe);
    float *dkeys = zeros(AB * ATe * AA);
    attn_loss(c);
    for (int s = ASTEPS - 1; s >= 0; s--)
        kt_nn_attn_backward(&c->a, AB, ATe, c->enc, c->d + s * AB * AH,
                            c->alpha + s * AB * ATe, c->cache + s * nc,
                            c->R + s * AB * AE, denc, dkeys, dd + s * AB * AH);
    kt_nn_attn_keys_backward(&c->a, AB, ATe, c->enc, dkeys, denc);
    free(dkeys);
}

static void attn_teardown(attn_ctx *c)
{
    float *all[] = {c->params, c->grads, c->enc, c->keys, c->d,
                    c->ctx, c->alpha, c->cache, c->R};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
}

static void test_attention_backward_matches_fd(void)
{
    kt_rng rng;
    kt_rng_seed(&rng, 12);
    attn_ctx c;
    attn_setup(&c, false, &rng);
    float *denc = zeros(AB * ATe * AE), *dd = zeros(ASTEPS * AB * AH);
    attn_grads(&c, denc, dd);
    check_grad("attn params", c.params, c.grads, kt_nn_attn_nparams(&c.a),
               attn_loss, &c);
    check_grad("attn denc", c.enc, denc, AB * ATe * AE, attn_loss, &c);
    check_grad("attn dd", c.d, dd, ASTEPS * AB * AH, attn_loss, &c);
    free(denc), free(dd);
    attn_teardown(&c);
}

static void test_attention_weights_sum_to_one(void)
{
    kt_rng rng;
    kt_rng_seed(&rng, 13);
    attn_ctx c;
    attn_setup(&c, false, &rng);
    attn_loss(&c);
    for (int r = 0; r < ASTEPS * AB; r++) {
        double s = 0;
        for (int j = 0; j < ATe; j++) {
            CHECK(c.alpha[r * ATe + j] > 0);
            s += c.alpha[r * ATe + j];
        }
        CHECK_NEAR(s, 1, 1e-6);
    }
    /* the context is the alpha-weighted mean of the encoder outputs */
    for (int b = 0; b < AB; b++)
        for (int i = 0; i < AE; i++) {
            double m = 0;
            for (int j = 0; j < ATe; j++)
                m += c.alpha[b * ATe + j] * c.enc[(b * ATe + j) * AE + i];
            CHECK_NEAR(c.ctx[b * AE + i], m, 1e-6);
        }
    attn_teardown(&c);
}

static void test_attention_blas_matches_naive(void)
{
    attn_ctx c[2];
    float *denc[2], *dd[2];
    for (int naive = 0; naive < 2; naive++) {
        kt_rng rng;
        kt_rng_seed(&rng, 14);
        attn_setup(&c[naive], naive, &rng);
        denc[naive] = zeros(AB * ATe * AE), dd[naive] = zeros(ASTEPS * AB * AH);
        attn_grads(&c[naive], denc[naive], dd[naive]);
    }
    check_close("ctx", c[0].ctx, c[1].ctx, ASTEPS * AB * AE, 1e-5);
    check_close("attn grads", c[0].grads, c[1].grads,
                kt_nn_attn_nparams(&c[0].a), 1e-5);
    check_close("denc", denc[0], denc[1], AB * ATe * AE, 1e-5);
    check_close("dd", dd[0], dd[1], ASTEPS * AB * AH, 1e-5);
    for (int i = 0; i < 2; i++) {
        free(denc[i]), free(dd[i]);
        attn_teardown(&c[i]);
    }
}

/* --------------------------------------------------------------- conv1d */

enum { CB = 2, CT = 5, CCi = 3, CCo = 4 };

typedef struct conv_ctx {
    kt_nn_conv1d c;
    float *params, *grads, *x, *y, *R, *dy, *dx;
} conv_ctx;

static double conv_loss(void *p)
{
    conv_ctx *c = p;
    kt_nn_conv1d_forward(&c->c, CB, CT, c->x, c->y);
    return dotd(CB * CT * CCo, c->y, c->R);
}

static void conv_setup(conv_ctx *c, int K, bool relu, bool naive,
                       uint64_t seed)
{
    kt_rng rng;
    kt_rng_seed(&rng, seed);
    c->c = (kt_nn_conv1d){.Ci = CCi, .Co = CCo, .K = K, .relu = relu,
                          .naive = naive};
    size_t np = kt_nn_conv1d_nparams(&c->c);
    c->params = zeros(np), c->grads = zeros(np);
    kt_nn_conv1d_bind(&c->c, c->params, c->grads);
    kt_nn_conv1d_init(&c->c, &rng);
    kt_nn_uniform(c->c.b, CCo, 0.3f, &rng);
    c->x = randu(CB * CT * CCi, &rng);
    c->y = zeros(CB * CT * CCo);
    c->R = randu(CB * CT * CCo, &rng);
    c->dy = zeros(CB * CT * CCo);
    c->dx = zeros(CB * CT * CCi);
    conv_loss(c);
    memcpy(c->dy, c->R, CB * CT * CCo * sizeof(float));
    kt_nn_conv1d_backward(&c->c, CB, CT, c->x, c->y, c->dy, c->dx);
}

static void conv_teardown(conv_ctx *c)
{
    float *all[] = {c->params, c->grads, c->x, c->y, c->R, c->dy, c->dx};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
}

/* Widths 1, 2 (uneven padding), 3 and 4, linear and with the ReLU (the
 * seeds keep every pre-activation clear of the kink at 0). */
static void test_conv1d_backward_matches_fd(void)
{
    for (int K = 1; K <= 4; K++)
        for (int relu = 0; relu < 2; relu++) {
            conv_ctx c;
            conv_setup(&c, K, relu, false, 15 + K);
            check_grad("conv params", c.params, c.grads,
                       kt_nn_conv1d_nparams(&c.c), conv_loss, &c);
            check_grad("conv dx", c.x, c.dx, CB * CT * CCi, conv_loss, &c);
            if (relu)
                CHECK(any_nonzero(c.y, CB * CT * CCo));
            conv_teardown(&c);
        }
}

static void test_conv1d_blas_matches_naive(void)
{
    for (int K = 1; K <= 5; K++) {
        conv_ctx a, b;
        conv_setup(&a, K, true, false, 20 + K);
        conv_setup(&b, K, true, true, 20 + K);
        check_close("conv y", a.y, b.y, CB * CT * CCo, 1e-5);
        check_close("conv grads", a.grads, b.grads, kt_nn_conv1d_nparams(&a.c),
                    1e-5);
        check_close("conv dx", a.dx, b.dx, CB * CT * CCi, 1e-5);
        conv_teardown(&a);
        conv_teardown(&b);
    }
}

/* The output has "same" length and zero padding: a centred one-hot kernel
 * copies its input channel. */
static void test_conv1d_same_padding_keeps_length(void)
{
    float w[3 * 1 * 1] = {0, 1, 0}, b[1] = {0};
    kt_nn_conv1d c = {.Ci = 1, .Co = 1, .K = 3, .w = w, .b = b};
    float x[4] = {1, -2, 3, 4}, y[4];
    kt_nn_conv1d_forward(&c, 1, 4, x, y);
    check_close("identity", x, y, 4, 0);
    w[1] = 0, w[0] = 1;  /* y[t] = x[t-1], zero before the start */
    kt_nn_conv1d_forward(&c, 1, 4, x, y);
    float want[4] = {0, 1, -2, 3};
    check_close("shift", want, y, 4, 0);
}

/* ------------------------------------------------------ dropout, Adam */

static void test_dropout_is_seeded_and_scaled(void)
{
    enum { N = 4000 };
    const float p = 0.25f;
    float *x = zeros(N), *y1 = zeros(N), *y2 = zeros(N), *dx = zeros(N);
    uint8_t *m1 = malloc(N), *m2 = malloc(N);
    CHECK(m1 && m2);
    for (int i = 0; i < N; i++)
        x[i] = 1 + (float)i / N;
    kt_rng r1, r2;
    kt_rng_seed(&r1, 42);
    kt_rng_seed(&r2, 42);
    kt_nn_dropout_forward(N, p, true, &r1, x, y1, m1);
    kt_nn_dropout_forward(N, p, true, &r2, x, y2, m2);
    CHECK(memcmp(m1, m2, N) == 0 && memcmp(y1, y2, N * sizeof *y1) == 0);
    int kept = 0;
    for (int i = 0; i < N; i++) {
        kept += m1[i];
        CHECK_NEAR(y1[i], m1[i] ? x[i] / (1 - p) : 0, 1e-6);
    }
    CHECK(fabs(kept / (double)N - (1 - p)) < 0.03);
    kt_nn_dropout_forward(N, p, true, &r1, x, y2, m2);  /* next draw differs */
    CHECK(memcmp(m1, m2, N) != 0);
    /* backward drops and scales the same positions */
    kt_nn_dropout_backward(N, p, true, m1, x, dx);
    check_close("dropout dx", y1, dx, N, 1e-6);
    /* not training: the identity, both ways, in place too */
    memcpy(y1, x, N * sizeof *x);
    kt_nn_dropout_forward(N, p, false, &r1, y1, y1, NULL);
    check_close("eval y", x, y1, N, 0);
    memset(dx, 0, N * sizeof *dx);
    kt_nn_dropout_backward(N, p, false, NULL, x, dx);
    check_close("eval dx", x, dx, N, 0);
    free(x), free(y1), free(y2), free(dx), free(m1), free(m2);
}

/* f(p) = sum_i a_i (p_i - c_i)^2 from p = 0. */
static void test_adam_minimises_a_quadratic(void)
{
    enum { N = 8 };
    float p[N] = {0}, g[N], m[N] = {0}, v[N] = {0}, a[N], c[N];
    for (int i = 0; i < N; i++)
        a[i] = 0.5f + i, c[i] = (float)(i % 3) - 1.5f;
    kt_nn_adam o = {.lr = 0.05f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f};
    double f0 = 0, prev = INFINITY;
    for (long t = 1; t <= 600; t++) {
        double f = 0;
        for (int i = 0; i < N; i++) {
            f += a[i] * (p[i] - c[i]) * (p[i] - c[i]);
            g[i] = 2 * a[i] * (p[i] - c[i]);
        }
        if (t == 1)
            f0 = f;
        if (t <= 20)  /* the first steps go straight downhill */
            CHECK(f < prev);
        prev = f;
        kt_nn_adam_step(&o, t, N, p, g, m, v);
    }
    CHECK(prev < 1e-4 * f0);
    for (int i = 0; i < N; i++)
        CHECK_NEAR(p[i], c[i], 1e-2);
}

static void test_clip_norm_bounds_the_gradient(void)
{
    float g[2] = {3, 4};
    CHECK_NEAR(kt_nn_clip_norm(2, g, 10), 5, 1e-6);
    CHECK_NEAR(g[0], 3, 0);
    CHECK_NEAR(kt_nn_clip_norm(2, g, 1), 5, 1e-6);
    CHECK_NEAR(g[0], 0.6, 1e-6);
    CHECK_NEAR(g[1], 0.8, 1e-6);
}

/* ------------------------------------------------ end to end: copy task */

/* embedding -> LSTM encoder -> LSTM decoder started from the encoder's
 * final states, fed the target shifted right behind a start token 0 ->
 * dense -> softmax cross-entropy.  Tokens 1..V-1 are to be copied. */
enum { SV = 8, ST = 5, SB = 32, SD = 16, SH = 32 };

typedef struct copy_model {
    kt_nn_embed emb;
    kt_nn_lstm enc, dec;
    kt_nn_dense out;
    float *params, *grads, *m, *v;
    size_t n;
    /* activations */
    float *ex, *ey, *he, *hT, *cT, *hd, *logits, *probs, *ce, *cd;
    float *dey, *dex, *dhd, *dlogits, *dh0, *dc0;
} copy_model;

static float *carve(float **p, size_t n)
{
    float *r = *p;
    *p += n;
    return r;
}

static void copy_new(copy_model *c, uint64_t seed)
{
    kt_rng rng;
    kt_rng_seed(&rng, seed);
    c->emb = (kt_nn_embed){.V = SV, .D = SD};
    c->enc = c->dec = (kt_nn_lstm){.I = SD, .H = SH};
    c->out = (kt_nn_dense){.I = SH, .O = SV};
    size_t ne = kt_nn_embed_nparams(&c->emb), nl = kt_nn_lstm_nparams(&c->enc);
    c->n = ne + 2 * nl + kt_nn_dense_nparams(&c->out);
    c->params = zeros(4 * c->n);
    c->grads = c->params + c->n, c->m = c->grads + c->n, c->v = c->m + c->n;
    kt_nn_embed_bind(&c->emb, c->params, c->grads);
    kt_nn_lstm_bind(&c->enc, c->params + ne, c->grads + ne);
    kt_nn_lstm_bind(&c->dec, c->params + ne + nl, c->grads + ne + nl);
    kt_nn_dense_bind(&c->out, c->params + ne + 2 * nl, c->grads + ne + 2 * nl);
    kt_nn_embed_init(&c->emb, &rng);
    kt_nn_lstm_init(&c->enc, &rng);
    kt_nn_lstm_init(&c->dec, &rng);
    kt_nn_dense_init(&c->out, &rng);
    size_t BT = SB * ST, nc = kt_nn_lstm_cache_size(&c->enc, SB, ST);
    size_t sizes[] = {BT * SD, BT * SD, BT * SH, SB * SH, SB * SH, BT * SH,
                      BT * SV, BT * SV, nc, nc,
                      BT * SD, BT * SD, BT * SH, BT * SV, SB * SH, SB * SH};
    float **dst[] = {&c->ex, &c->ey, &c->he, &c->hT, &c->cT, &c->hd,
                     &c->logits, &c->probs, &c->ce, &c->cd,
                     &c->dey, &c->dex, &c->dhd, &c->dlogits, &c->dh0, &c->dc0};
    size_t total = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        total += sizes[i];
    float *acts = zeros(total), *p = acts;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        *dst[i] = carve(&p, sizes[i]);
}

static void copy_free(copy_model *c)
{
    free(c->params);
    free(c->ex);  /* the first activation: the start of their allocation */
}

static void copy_batch(kt_rng *rng, uint16_t *src, uint16_t *din)
{
    for (int b = 0; b < SB; b++)
        for (int t = 0; t < ST; t++) {
            src[b * ST + t] = (uint16_t)(1 + kt_rng_below(rng, SV - 1));
            din[b * ST + t] = t ? src[b * ST + t - 1] : 0;
        }
}

/* One Adam step on a fresh batch; returns the batch's loss. */
static float copy_step(copy_model *c, kt_rng *rng, long t)
{
    uint16_t src[SB * ST], din[SB * ST];
    copy_batch(rng, src, din);
    size_t BT = SB * ST;
    CHECK(kt_nn_embed_forward(&c->emb, BT, src, c->ex) == KT_OK);
    CHECK(kt_nn_embed_forward(&c->emb, BT, din, c->ey) == KT_OK);
    kt_nn_lstm_forward(&c->enc, SB, ST, c->ex, NULL, NULL, c->he, c->hT, c->cT,
                       c->ce);
    kt_nn_lstm_forward(&c->dec, SB, ST, c->ey, c->hT, c->cT, c->hd, NULL, NULL,
                       c->cd);
    kt_nn_dense_forward(&c->out, BT, c->hd, c->logits);
    float loss;
    CHECK(kt_nn_xent_forward(BT, SV, c->logits, src, NULL, c->probs, &loss) ==
          KT_OK);
    /* backward: zero the gradient blob and the input gradients, then add */
    memset(c->grads, 0, c->n * sizeof *c->grads);
    float *clear[] = {c->dey, c->dex, c->dhd, c->dlogits, c->dh0, c->dc0};
    size_t len[] = {BT * SD, BT * SD, BT * SH, BT * SV, SB * SH, SB * SH};
    for (int i = 0; i < 6; i++)
        memset(clear[i], 0, len[i] * sizeof(float));
    kt_nn_xent_backward(BT, SV, c->probs, src, NULL, 1, c->dlogits);
    kt_nn_dense_backward(&c->out, BT, c->hd, c->dlogits, c->dhd);
    kt_nn_lstm_backward(&c->dec, SB, ST, c->ey, c->hT, c->cT, c->hd, c->cd,
                        c->dhd, NULL, NULL, c->dey, c->dh0, c->dc0);
    kt_nn_lstm_backward(&c->enc, SB, ST, c->ex, NULL, NULL, c->he, c->ce, NULL,
                        c->dh0, c->dc0, c->dex, NULL, NULL);
    kt_nn_embed_backward(&c->emb, BT, din, c->dey);
    kt_nn_embed_backward(&c->emb, BT, src, c->dex);
    kt_nn_clip_norm(c->n, c->grads, 5);
    kt_nn_adam o = {.lr = 0.02f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f};
    kt_nn_adam_step(&o, t, c->n, c->params, c->grads, c->m, c->v);
    return loss;
}

/* Greedy decoding one step at a time from the encoder's states, feeding
 * back the argmax: the fraction of tokens copied right. */
static double copy_accuracy(copy_model *c, kt_rng *rng)
{
    uint16_t src[SB * ST], din[SB * ST], tok[SB];
    copy_batch(rng, src, din);
    CHECK(kt_nn_embed_forward(&c->emb, SB * ST, src, c->ex) == KT_OK);
    kt_nn_lstm_forward(&c->enc, SB, ST, c->ex, NULL, NULL, c->he, c->hT, c->cT,
                       c->ce);
    float x[SB * SD], h[SB * SH], cc[SB * SH], gates[SB * 4 * SH], z[SB * SV];
    memcpy(h, c->hT, sizeof h);
    memcpy(cc, c->cT, sizeof cc);
    memset(tok, 0, sizeof tok);
    int right = 0;
    for (int t = 0; t < ST; t++) {
        CHECK(kt_nn_embed_forward(&c->emb, SB, tok, x) == KT_OK);
        kt_nn_lstm_step_forward(&c->dec, SB, x, h, cc, gates, h, cc);
        kt_nn_dense_forward(&c->out, SB, h, z);
        for (int b = 0; b < SB; b++) {
            int best = 0;
            for (int j = 1; j < SV; j++)
                best = z[b * SV + j] > z[b * SV + best] ? j : best;
            tok[b] = (uint16_t)best;
            right += tok[b] == src[b * ST + t];
        }
    }
    return right / (double)(SB * ST);
}

/* Trains from seed; returns the mean loss of the last 50 steps (one batch's
 * loss is noisy) and, in *acc, the greedy accuracy over 4 fresh batches. */
static float copy_train(int steps, double *acc)
{
    copy_model c;
    copy_new(&c, 77);
    kt_rng rng;
    kt_rng_seed(&rng, 78);
    float first = 0, tail = 0;
    for (long t = 1; t <= steps; t++) {
        float loss = copy_step(&c, &rng, t);
        if (t == 1)
            first = loss;
        if (t > steps - 50)
            tail += loss / 50;
    }
    CHECK(first > 1.5f);  /* ~ln 7 untrained */
    *acc = 0;
    for (int i = 0; i < 4; i++)
        *acc += copy_accuracy(&c, &rng) / 4;
    copy_free(&c);
    return tail;
}

static void test_seq2seq_learns_to_copy(void)
{
    double acc1, acc2;
    float l1 = copy_train(600, &acc1), l2 = copy_train(600, &acc2);
    fprintf(stderr, "copy task: loss %.4f, greedy accuracy %.3f\n", l1, acc1);
    CHECK(l1 < 0.1f);
    CHECK(acc1 > 0.95);
    CHECK(l1 == l2 && acc1 == acc2);  /* seeded: deterministic */
}

static const kt_test TESTS[] = {
    KT_T(test_gemm_blas_matches_naive),
    KT_T(test_embed_backward_matches_fd),
    KT_T(test_dense_backward_matches_fd),
    KT_T(test_xent_backward_matches_fd_and_masks_padding),
    KT_T(test_lstm_backward_matches_fd),
    KT_T(test_lstm_blas_matches_naive),
    KT_T(test_lstm_steps_match_sequence),
    KT_T(test_encoder_states_feed_decoder_gradients),
    KT_T(test_bilstm_backward_matches_fd),
    KT_T(test_bilstm_backward_half_reads_reversed_input),
    KT_T(test_bilstm_blas_matches_naive),
    KT_T(test_attention_backward_matches_fd),
    KT_T(test_attention_weights_sum_to_one),
    KT_T(test_attention_blas_matches_naive),
    KT_T(test_conv1d_backward_matches_fd),
    KT_T(test_conv1d_blas_matches_naive),
    KT_T(test_conv1d_same_padding_keeps_length),
    KT_T(test_dropout_is_seeded_and_scaled),
    KT_T(test_adam_minimises_a_quadratic),
    KT_T(test_clip_norm_bounds_the_gradient),
    KT_T(test_seq2seq_learns_to_copy),
};

KT_TEST_MAIN(TESTS)
