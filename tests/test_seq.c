/* test_seq.c - the paper's four sequence networks (src/ml/seq_net.c): the
 * gradient of the whole training loss agrees with central finite
 * differences for every parameter, training lowers the loss, and the
 * step-by-step inference of the autoregressive decoders gives the same
 * probabilities as the teacher-forced training pass. */
#include "ml/seq_net_impl.h" /* the scratch holds the training pass's probabilities */
#include "ml/beam.h"
#include "test.h"

/* Three fields of 3, 4 and 2 tokens in, three positions of 3, 5 and 4
 * tokens out (token 0 of each is "unknown"). */
static seq_dims tiny_dims(int arch)
{
    seq_dims d = {.arch = arch, .Tin = 3, .Tout = 3, .E = 4, .H = 6, .F = 3, .feedback = 1};
    int vin[3] = {3, 4, 2}, vout[3] = {3, 5, 4};
    for (int i = 0; i < 3; i++) {
        d.in_off[i + 1] = d.in_off[i] + vin[i];
        d.out_off[i + 1] = d.out_off[i] + vout[i];
    }
    return d;
}

/* B random samples (tokens from 1) of the tiny dimensions. */
static void tiny_batch(kt_rng *rng, int B, uint16_t *x, float *xn, uint16_t *y)
{
    int vin[3] = {3, 4, 2}, vout[3] = {3, 5, 4};
    for (int b = 0; b < B; b++)
        for (int i = 0; i < 3; i++) {
            x[b * 3 + i] = (uint16_t)(1 + kt_rng_below(rng, vin[i] - 1));
            xn[b * 3 + i] = (float)kt_rng_unit(rng) - 0.5f;
            y[b * 3 + i] = (uint16_t)(1 + kt_rng_below(rng, vout[i] - 1));
        }
}

typedef struct grad_ctx {
    seq_net n;
    seq_ws *w;
    uint16_t x[12], y[12];
    float xn[12];
} grad_ctx;

static double loss_of(grad_ctx *c, bool training)
{
    float loss;
    CHECK(seq_net_loss(&c->n, c->w, 4, c->x, c->xn, c->y, training, 0, NULL, &loss) == KT_OK);
    return loss;
}

static void check_arch(int arch, int feedback)
{
    grad_ctx c;
    kt_rng rng;
    kt_rng_seed(&rng, 7 + (uint64_t)arch);
    seq_dims d = tiny_dims(arch);
    d.feedback = feedback;
    CHECK(seq_net_new(&c.n, &d, true) == KT_OK);
    seq_net_init(&c.n, &rng);
    CHECK((c.w = seq_ws_new(&c.n, 4)) != NULL);
    tiny_batch(&rng, 4, c.x, c.xn, c.y);
    memset(c.n.grads, 0, c.n.np * sizeof *c.n.grads);
    loss_of(&c, true);
    float *g = malloc(c.n.np * sizeof *g);
    CHECK(g);
    memcpy(g, c.n.grads, c.n.np * sizeof *g);
    const float eps = 1e-3f;
    size_t nonzero = 0;
    for (size_t i = 0; i < c.n.np; i++) {
        float keep = c.n.params[i], up = keep + eps, down = keep - eps;
        c.n.params[i] = up;
        double lp = loss_of(&c, false);
        c.n.params[i] = down;
        double lm = loss_of(&c, false);
        c.n.params[i] = keep;
        double num = (lp - lm) / ((double)up - down);
        double tol = 2e-2 * fmax(fabs(num), fabs(g[i])) + 1e-3;
        if (!(fabs(num - g[i]) <= tol)) {
            fprintf(stderr, "arch %d param %zu of %zu: analytic %.6g, finite difference %.6g\n",
                    arch, i, c.n.np, g[i], num);
            exit(1);
        }
        nonzero += g[i] != 0;
    }
    CHECK(nonzero > c.n.np / 2); /* the check saw real gradients */
    free(g);
    seq_ws_free(c.w);
    seq_net_free(&c.n);
}

static void test_encdec_gradients(void) { check_arch(SEQ_ENCDEC, 0); }
static void test_attention_gradients(void) { check_arch(SEQ_ATTENTION, 0); }
static void test_hybrid_gradients(void)
{
    check_arch(SEQ_HYBRID, 0);
    check_arch(SEQ_HYBRID, 1);
}
static void test_hybrid2_gradients(void)
{
    check_arch(SEQ_HYBRID2, 0);
    check_arch(SEQ_HYBRID2, 1);
}

/* The probabilities a training pass gives each true token (teacher
 * forcing) are those the step-by-step inference gives after the true prefix,
 * also when it is batched with another prefix; a prefix no parent left is
 * refused. */
static void check_inference(int arch, int feedback)
{
    seq_net n;
    kt_rng rng;
    kt_rng_seed(&rng, 3);
    seq_dims d = tiny_dims(arch);
    d.feedback = feedback;
    CHECK(seq_net_new(&n, &d, false) == KT_OK);
    seq_net_init(&n, &rng);
    seq_ws *w = seq_ws_new(&n, 1);
    uint16_t x[3], y[3], pre[2 * 3];
    float xn[3], loss;
    tiny_batch(&rng, 1, x, xn, y);
    CHECK(seq_net_loss(&n, w, 1, x, xn, y, false, 0, NULL, &loss) == KT_OK);
    seq_infer *s;
    CHECK(seq_infer_new(&n, x, xn, &s) == KT_OK);
    memcpy(pre, y, sizeof y);
    pre[3] = (uint16_t)(y[0] % 2 + 1); /* another first token (position 0 has 2) */
    pre[4] = 1;
    for (int p = 0; p < 3; p++) {
        double lp[2 * 5];
        size_t nb = p == 0 ? 1 : 2; /* both prefixes extend ones scored before */
        int V = d.out_off[p + 1] - d.out_off[p];
        CHECK(seq_infer_step(s, pre, nb, 3, (size_t)p, lp) == KT_OK);
        CHECK(isinf(lp[0]) && lp[0] < 0 && (nb == 1 || (isinf(lp[V]) && lp[V] < 0)));
        CHECK_NEAR(lp[y[p]], log(w->probs[d.out_off[p] + y[p]]), 1e-4);
        if (p > 0 && seq_net_autoregressive(&n)) /* the prefix changes the scores */
            CHECK(fabs(lp[1] - lp[V + 1]) > 1e-6);
    }
    seq_infer_free(s);
    if (seq_net_autoregressive(&n)) {
        CHECK(seq_infer_new(&n, x, xn, &s) == KT_OK);
        double lp[5];
        CHECK(seq_infer_step(s, pre, 1, 3, 1, lp) == KT_EINVAL); /* position 0 skipped */
        seq_infer_free(s);
    }
    seq_ws_free(w);
    seq_net_free(&n);
}

static void test_inference_matches_training_pass(void)
{
    for (int arch = SEQ_ENCDEC; arch <= SEQ_HYBRID2; arch++) {
        check_inference(arch, 0);
        check_inference(arch, 1);
    }
}

/* ------------------------------------- beam search against enumeration */

static int infer_scores(void *user, const uint16_t *prefixes, size_t n, size_t stride,
                        size_t pos, double *logp)
{
    return seq_infer_step(user, prefixes, n, stride, pos, logp);
}

/* Position 1's token differs from position 0's. */
static bool differ(void *user, const uint16_t *prefix, size_t len)
{
    (void)user;
    return len < 2 || prefix[0] != prefix[1];
}

typedef struct scored {
    double logp;
    uint16_t y[3];
} scored;

static int by_logp(const void *a, const void *b)
{
    double x = ((const scored *)a)->logp, y = ((const scored *)b)->logp;
    return (x < y) - (x > y);
}

/* Every one of the 2 x 4 x 3 sequences scored by the teacher-forced
 * training pass (the sum of its positions' log-probabilities), sorted;
 * the beam search as wide as that list must return exactly it, and with
 * the constraint exactly its valid part. */
static void check_beam(int arch, int feedback)
{
    seq_net n;
    kt_rng rng;
    kt_rng_seed(&rng, 11);
    seq_dims d = tiny_dims(arch);
    d.feedback = feedback;
    CHECK(seq_net_new(&n, &d, false) == KT_OK);
    seq_net_init(&n, &rng);
    seq_ws *w = seq_ws_new(&n, 1);
    uint16_t x[3], y[3];
    float xn[3], loss;
    tiny_batch(&rng, 1, x, xn, y);
    scored all[24];
    size_t na = 0, nvalid = 0;
    for (uint16_t a = 1; a < 3; a++)
        for (uint16_t b = 1; b < 5; b++)
            for (uint16_t c = 1; c < 4; c++) {
                scored *e = &all[na++];
                e->y[0] = a, e->y[1] = b, e->y[2] = c;
                CHECK(seq_net_loss(&n, w, 1, x, xn, e->y, false, 0, NULL, &loss) == KT_OK);
                e->logp = -3.0 * loss;
            }
    qsort(all, na, sizeof *all, by_logp);
    for (int constrained = 0; constrained < 2; constrained++) {
        size_t vocab[3] = {3, 5, 4}, found;
        uint16_t out[24 * 3];
        double lp[24];
        seq_infer *s;
        CHECK(seq_infer_new(&n, x, xn, &s) == KT_OK);
        kt_beam_opts o = {.width = 24, .scores = infer_scores, .scores_user = s,
                          .ok = constrained ? differ : NULL};
        CHECK(kt_beam_search(3, vocab, &o, out, lp, &found) == KT_OK);
        seq_infer_free(s);
        size_t j = 0;
        for (size_t i = 0; i < na; i++) {
            if (constrained && all[i].y[0] == all[i].y[1])
                continue;
            CHECK(j < found);
            CHECK(memcmp(out + j * 3, all[i].y, sizeof all[i].y) == 0);
            CHECK_NEAR(lp[j], all[i].logp, 1e-4);
            j++;
        }
        CHECK_EQ_INT(found, j);
        nvalid = j;
    }
    CHECK_EQ_INT(nvalid, 24 - 2 * 3); /* (1,1,*) and (2,2,*) dropped */
    seq_ws_free(w);
    seq_net_free(&n);
}

static void test_beam_search_matches_enumeration(void)
{
    for (int arch = SEQ_ENCDEC; arch <= SEQ_HYBRID2; arch++) {
        check_beam(arch, 0);
        check_beam(arch, 1);
    }
}

static void test_bad_dimensions_are_refused(void)
{
    seq_net n;
    seq_dims d = tiny_dims(SEQ_ENCDEC);
    d.H = 5; /* a bi-LSTM splits H in two */
    CHECK(seq_net_new(&n, &d, false) == KT_EINVAL);
    d = tiny_dims(SEQ_HYBRID2 + 1);
    CHECK(seq_net_new(&n, &d, false) == KT_EINVAL);
    d = tiny_dims(SEQ_ATTENTION);
    d.out_off[2] = d.out_off[1]; /* an empty vocabulary */
    CHECK(seq_net_new(&n, &d, false) == KT_EINVAL);
}

static const kt_test TESTS[] = {
    KT_T(test_encdec_gradients),   KT_T(test_attention_gradients),
    KT_T(test_hybrid_gradients),   KT_T(test_hybrid2_gradients),
    KT_T(test_inference_matches_training_pass), KT_T(test_beam_search_matches_enumeration),
    KT_T(test_bad_dimensions_are_refused),
};
KT_TEST_MAIN(TESTS)
