/* nn_lstm.c - the LSTM layer: whole sequences (encoders, teacher-forced
 * decoders), single steps (decoders interleaved with attention), and the
 * bidirectional pair.
 *
 * Every array is seen as B rows with a row stride, so that one step of a
 * (B,T,W) sequence (stride T*W), a (B,H) state (stride H) and one half of a
 * concatenated (B,T,2H) bi-LSTM output go through the same code.  The input
 * projection x Wx + b of a whole sequence is one large product before the
 * recurrence, and its gradient one after; only h_prev Wh is per step. */
#include "ml/nn.h"

#include <math.h>
#include <string.h>

/* p + k, keeping NULL (an absent state or gradient) NULL. */
static const float *coff(const float *p, size_t k) { return p ? p + k : NULL; }
static float *off(float *p, size_t k) { return p ? p + k : NULL; }

static float sigm(float x) { return 1 / (1 + expf(-x)); }

size_t kt_nn_lstm_nparams(const kt_nn_lstm *l)
{
    return ((size_t)l->I + l->H + 1) * 4 * l->H;
}

void kt_nn_lstm_bind(kt_nn_lstm *l, float *params, float *grads)
{
    size_t g4 = 4 * (size_t)l->H, nwx = l->I * g4, nwh = l->H * g4;
    l->wx = params;
    l->wh = params + nwx;
    l->b = params + nwx + nwh;
    l->dwx = grads;
    l->dwh = off(grads, nwx);
    l->db = off(grads, nwx + nwh);
}

void kt_nn_lstm_init(kt_nn_lstm *l, kt_rng *rng)
{
    int H = l->H;
    float s = 1 / sqrtf((float)H);
    kt_nn_uniform(l->wx, (size_t)l->I * 4 * H, s, rng);
    kt_nn_uniform(l->wh, (size_t)H * 4 * H, s, rng);
    for (int j = 0; j < 4 * H; j++)
        l->b[j] = j >= H && j < 2 * H;  /* forget gate: 1 */
}

/* B rows of (4H) = b, ready for the x Wx product to be added. */
static void bias_rows(const kt_nn_lstm *l, int rows, float *g)
{
    size_t g4 = 4 * (size_t)l->H;
    for (int r = 0; r < rows; r++)
        memcpy(g + r * g4, l->b, g4 * sizeof *g);
}

/* One step, with g holding x Wx + b on entry: adds h_prev Wh, activates the
 * gates in place (kept for the backward pass) and writes c and h. */
static void step_fwd(const kt_nn_lstm *l, int B, const float *hp, size_t ldhp,
                     const float *cp, size_t ldcp, float *g, size_t ldg,
                     float *h, size_t ldh, float *c, size_t ldc)
{
    int H = l->H;
    // (B,4H) += (B,H)(H,4H)
    if (hp)
        kt_nn_gemm(l->naive, false, false, B, 4 * H, H, 1, hp, (int)ldhp,
                   l->wh, 4 * H, 1, g, (int)ldg);
    for (int r = 0; r < B; r++) {
        float *gi = g + r * ldg, *gf = gi + H, *gg = gf + H, *go = gg + H;
        const float *cpr = coff(cp, r * ldcp);
        for (int j = 0; j < H; j++) {
            gi[j] = sigm(gi[j]);
            gf[j] = sigm(gf[j]);
            gg[j] = kt_nn_tanhf(gg[j]);
            go[j] = sigm(go[j]);
            float cv = gi[j] * gg[j] + (cpr ? gf[j] * cpr[j] : 0);
            c[r * ldc + j] = cv;
            h[r * ldh + j] = go[j] * kt_nn_tanhf(cv);
        }
    }
}

/* One step back: from the total gradients into h_t (dh) and c_t (dc, NULL:
 * zero), turns g's activated gates into the gradients of the gates'
 * pre-activations, and writes the gradient into c_{t-1} to dcp (NULL:
 * skip), added when acc, else stored.  dcp may be dc: each element is read
 * before it is written. */
static void step_bwd(const kt_nn_lstm *l, int B, const float *cp, size_t ldcp,
                     const float *c, size_t ldc, float *g, size_t ldg,
                     const float *dh, size_t lddh, const float *dc,
                     size_t lddc, float *dcp, size_t lddcp, bool acc)
{
    int H = l->H;
    for (int r = 0; r < B; r++) {
        float *gi = g + r * ldg, *gf = gi + H, *gg = gf + H, *go = gg + H;
        const float *cpr = coff(cp, r * ldcp), *dcr = coff(dc, r * lddc);
        for (int j = 0; j < H; j++) {
            float i = gi[j], f = gf[j], gv = gg[j], o = go[j];
            float tc = kt_nn_tanhf(c[r * ldc + j]), d = dh[r * lddh + j];
            float dct = (dcr ? dcr[j] : 0) + d * o * (1 - tc * tc);
            float cprev = cpr ? cpr[j] : 0;
            if (dcp) {
                float *p = &dcp[r * lddcp + j];
                *p = (acc ? *p : 0) + dct * f;
            }
            gi[j] = dct * gv * i * (1 - i);
            gf[j] = dct * cprev * f * (1 - f);
            gg[j] = dct * i * (1 - gv * gv);
            go[j] = d * tc * o * (1 - o);
        }
    }
}

/* The input projection's gradients for N rows of contiguous gate gradients
 * dg (N,4H): dWx += x^T dg, db += sum dg, dx += dg Wx^T. */
static void proj_bwd(kt_nn_lstm *l, int N, const float *x, const float *dg,
                     float *dx)
{
    int I = l->I, G = 4 * l->H;
    kt_nn_gemm(l->naive, true, false, I, G, N, 1, x, I, dg, G, 1, l->dwx, G);
    for (int n = 0; n < N; n++)
        for (int j = 0; j < G; j++)
            l->db[j] += dg[(size_t)n * G + j];
    if (dx)
        kt_nn_gemm(l->naive, false, true, N, I, G, 1, dg, G, l->wx, G, 1, dx,
                   I);
}

/* The recurrent weight's gradient and the gradient into h_{t-1}:
 * dWh += h_prev^T dg; dhp = dg Wh^T, added when acc, else stored. */
static void recur_bwd(kt_nn_lstm *l, int B, const float *hp, size_t ldhp,
                      const float *dg, size_t ldg, float *dhp, size_t lddhp,
                      bool acc)
{
    int H = l->H, G = 4 * H;
    if (hp)
        kt_nn_gemm(l->naive, true, false, H, G, B, 1, hp, (int)ldhp, dg,
                   (int)ldg, 1, l->dwh, G);
    if (dhp)
        kt_nn_gemm(l->naive, false, true, B, H, G, 1, dg, (int)ldg, l->wh, G,
                   acc ? 1 : 0, dhp, (int)lddhp);
}

/* dst rows = src rows (NULL src: zeros), H floats each. */
static void copy_rows(int B, int H, float *dst, size_t ldd, const float *src,
                      size_t lds)
{
    if (!dst)
        return;
    for (int r = 0; r < B; r++)
        for (int j = 0; j < H; j++)
            dst[r * ldd + j] = src ? src[r * lds + j] : 0;
}

/* dst rows += src rows, H floats each; NULL dst: skip. */
static void add_rows(int B, int H, float *dst, size_t ldd, const float *src,
                     size_t lds)
{
    if (!dst)
        return;
    for (int r = 0; r < B; r++)
        for (int j = 0; j < H; j++)
            dst[r * ldd + j] += src[r * lds + j];
}

/* The cache of a sequence: gates (B,T,4H), cells (B,T,H), then the two
 * (B,H) carries of the backward pass. */
size_t kt_nn_lstm_cache_size(const kt_nn_lstm *l, int B, int T)
{
    return (size_t)B * l->H * (5 * (size_t)T + 2);
}

/* A whole sequence in one direction.  h is this direction's columns of a
 * (B,T,W) output; states h0, c0, hT, cT have row stride ld0. */
static void seq_fwd(const kt_nn_lstm *l, int B, int T, bool rev,
                    const float *x, const float *h0, const float *c0,
                    size_t ld0, float *h, size_t W, float *hT, float *cT,
                    float *cache)
{
    size_t H = l->H, ldg = T * 4 * H, ldc = T * H, ldh = T * W;
    float *g = cache, *c = g + B * ldg;
    bias_rows(l, B * T, g);
    // (B*T,4H) += (B*T,I)(I,4H)
    kt_nn_gemm(l->naive, false, false, B * T, 4 * l->H, l->I, 1, x, l->I,
               l->wx, 4 * l->H, 1, g, 4 * l->H);
    for (int s = 0; s < T; s++) {
        size_t t = rev ? T - 1 - s : s, tp = rev ? t + 1 : t - 1;
        const float *hp = s ? h + tp * W : h0, *cp = s ? c + tp * H : c0;
        step_fwd(l, B, hp, s ? ldh : ld0, cp, s ? ldc : ld0, g + t * 4 * H,
                 ldg, h + t * W, ldh, c + t * H, ldc);
    }
    size_t tl = rev ? 0 : T - 1;
    copy_rows(B, l->H, hT, ld0, T ? h + tl * W : h0, T ? ldh : ld0);
    copy_rows(B, l->H, cT, ld0, T ? c + tl * H : c0, T ? ldc : ld0);
}

static void seq_bwd(kt_nn_lstm *l, int B, int T, bool rev, const float *x,
                    const float *h0, const float *c0, size_t ld0,
                    const float *h, size_t W, float *cache, const float *dh,
                    const float *dhT, const float *dcT, float *dx, float *dh0,
                    float *dc0)
{
    size_t H = l->H, ldg = T * 4 * H, ldc = T * H, ldh = T * W;
    float *g = cache, *c = g + B * ldg, *ch = c + B * ldc, *cc = ch + B * H;
    /* the carries hold the gradients into the state after the step */
    copy_rows(B, l->H, ch, H, dhT, ld0);
    copy_rows(B, l->H, cc, H, dcT, ld0);
    for (int s = T - 1; s >= 0; s--) {
        size_t t = rev ? T - 1 - s : s, tp = rev ? t + 1 : t - 1;
        const float *hp = s ? h + tp * W : h0, *cp = s ? c + tp * H : c0;
        float *gt = g + t * 4 * H;
        if (dh)
            add_rows(B, l->H, ch, H, dh + t * W, ldh);
        step_bwd(l, B, cp, s ? ldc : ld0, c + t * H, ldc, gt, ldg, ch, H, cc,
                 H, cc, H, false);
        recur_bwd(l, B, hp, s ? ldh : ld0, gt, ldg, ch, H, false);
    }
    add_rows(B, l->H, dh0, ld0, ch, H);
    add_rows(B, l->H, dc0, ld0, cc, H);
    proj_bwd(l, B * T, x, g, dx);
}

void kt_nn_lstm_forward(const kt_nn_lstm *l, int B, int T, const float *x,
                        const float *h0, const float *c0, float *h, float *hT,
                        float *cT, float *cache)
{
    seq_fwd(l, B, T, false, x, h0, c0, l->H, h, l->H, hT, cT, cache);
}

void kt_nn_lstm_backward(kt_nn_lstm *l, int B, int T, const float *x,
                         const float *h0, const float *c0, const float *h,
                         float *cache, const float *dh, const float *dhT,
                         const float *dcT, float *dx, float *dh0, float *dc0)
{
    seq_bwd(l, B, T, false, x, h0, c0, l->H, h, l->H, cache, dh, dhT, dcT, dx,
            dh0, dc0);
}

void kt_nn_lstm_step_forward(const kt_nn_lstm *l, int B, const float *x,
                             const float *h_prev, const float *c_prev,
                             float *gates, float *h, float *c)
{
    int H = l->H;
    bias_rows(l, B, gates);
    kt_nn_gemm(l->naive, false, false, B, 4 * H, l->I, 1, x, l->I, l->wx,
               4 * H, 1, gates, 4 * H);
    step_fwd(l, B, h_prev, H, c_prev, H, gates, 4 * H, h, H, c, H);
}

void kt_nn_lstm_step_backward(kt_nn_lstm *l, int B, const float *x,
                              const float *h_prev, const float *c_prev,
                              const float *c, float *gates, const float *dh,
                              const float *dc, float *dx, float *dh_prev,
                              float *dc_prev)
{
    int H = l->H;
    step_bwd(l, B, c_prev, H, c, H, gates, 4 * H, dh, H, dc, H, dc_prev, H,
             true);
    recur_bwd(l, B, h_prev, H, gates, 4 * H, dh_prev, H, true);
    proj_bwd(l, B, x, gates, dx);
}

/* ------------------------------------------------------- bidirectional */

size_t kt_nn_bilstm_nparams(const kt_nn_bilstm *l)
{
    kt_nn_lstm half = {.I = l->I, .H = l->H};
    return 2 * kt_nn_lstm_nparams(&half);
}

void kt_nn_bilstm_bind(kt_nn_bilstm *l, float *params, float *grads)
{
    l->fw = l->bw = (kt_nn_lstm){.I = l->I, .H = l->H, .naive = l->naive};
    size_t n = kt_nn_lstm_nparams(&l->fw);
    kt_nn_lstm_bind(&l->fw, params, grads);
    kt_nn_lstm_bind(&l->bw, params + n, off(grads, n));
}

void kt_nn_bilstm_init(kt_nn_bilstm *l, kt_rng *rng)
{
    kt_nn_lstm_init(&l->fw, rng);
    kt_nn_lstm_init(&l->bw, rng);
}

size_t kt_nn_bilstm_cache_size(const kt_nn_bilstm *l, int B, int T)
{
    kt_nn_lstm half = {.I = l->I, .H = l->H};
    return 2 * kt_nn_lstm_cache_size(&half, B, T);
}

void kt_nn_bilstm_forward(const kt_nn_bilstm *l, int B, int T, const float *x,
                          const float *h0, const float *c0, float *h,
                          float *hT, float *cT, float *cache)
{
    size_t H = l->H, W = 2 * H, n = kt_nn_lstm_cache_size(&l->fw, B, T);
    seq_fwd(&l->fw, B, T, false, x, h0, c0, W, h, W, hT, cT, cache);
    seq_fwd(&l->bw, B, T, true, x, coff(h0, H), coff(c0, H), W, h + H, W,
            off(hT, H), off(cT, H), cache + n);
}

void kt_nn_bilstm_backward(kt_nn_bilstm *l, int B, int T, const float *x,
                           const float *h0, const float *c0, const float *h,
                           float *cache, const float *dh, const float *dhT,
                           const float *dcT, float *dx, float *dh0, float *dc0)
{
    size_t H = l->H, W = 2 * H, n = kt_nn_lstm_cache_size(&l->fw, B, T);
    seq_bwd(&l->fw, B, T, false, x, h0, c0, W, h, W, cache, dh, dhT, dcT, dx,
            dh0, dc0);
    seq_bwd(&l->bw, B, T, true, x, coff(h0, H), coff(c0, H), W, h + H, W,
            cache + n, coff(dh, H), coff(dhT, H), coff(dcT, H), dx, off(dh0, H),
            off(dc0, H));
}
