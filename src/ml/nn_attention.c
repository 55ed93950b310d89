/* nn_attention.c - additive (Bahdanau) attention: a decoder state scores
 * every encoder output through a one-hidden-layer network, and the context
 * is the softmax-weighted sum of the encoder outputs. */
#include "ml/nn.h"

#include <math.h>
#include <string.h>

size_t kt_nn_attn_nparams(const kt_nn_attn *a)
{
    return ((size_t)a->E + a->H + 2) * a->A;
}

void kt_nn_attn_bind(kt_nn_attn *a, float *params, float *grads)
{
    size_t A = a->A, ne = a->E * A, nd = a->H * A;
    float *p[4], *g[4];
    size_t at[4] = {0, ne, ne + nd, ne + nd + A};
    for (int i = 0; i < 4; i++) {
        p[i] = params + at[i];
        g[i] = grads ? grads + at[i] : NULL;
    }
    a->we = p[0], a->wd = p[1], a->b = p[2], a->v = p[3];
    a->dwe = g[0], a->dwd = g[1], a->db = g[2], a->dv = g[3];
}

void kt_nn_attn_init(kt_nn_attn *a, kt_rng *rng)
{
    kt_nn_uniform(a->we, (size_t)a->E * a->A, 1 / sqrtf((float)a->E), rng);
    kt_nn_uniform(a->wd, (size_t)a->H * a->A, 1 / sqrtf((float)a->H), rng);
    memset(a->b, 0, (size_t)a->A * sizeof *a->b);
    kt_nn_uniform(a->v, a->A, 1 / sqrtf((float)a->A), rng);
}

void kt_nn_attn_keys_forward(const kt_nn_attn *a, int B, int Te,
                             const float *enc, float *keys)
{
    // (B*Te,A) = (B*Te,E)(E,A)
    kt_nn_gemm(a->naive, false, false, B * Te, a->A, a->E, 1, enc, a->E, a->we,
               a->A, 0, keys, a->A);
}

void kt_nn_attn_keys_backward(kt_nn_attn *a, int B, int Te, const float *enc,
                              const float *dkeys, float *denc)
{
    kt_nn_gemm(a->naive, true, false, a->E, a->A, B * Te, 1, enc, a->E, dkeys,
               a->A, 1, a->dwe, a->A);
    if (denc)
        kt_nn_gemm(a->naive, false, true, B * Te, a->E, a->A, 1, dkeys, a->A,
                   a->we, a->A, 1, denc, a->E);
}

/* The cache: tanh activations (B,Te,A), then the query (B,A), whose place
 * the backward pass reuses for the query's gradient. */
size_t kt_nn_attn_cache_size(const kt_nn_attn *a, int B, int Te)
{
    return (size_t)B * ((size_t)Te + 1) * a->A;
}

/* alpha = softmax(e) over one row of Te scores, in place. */
static void softmax_inplace(int n, float *e)
{
    float mx = e[0];
    for (int j = 1; j < n; j++)
        mx = e[j] > mx ? e[j] : mx;
    double s = 0;
    for (int j = 0; j < n; j++)
        s += e[j] = expf(e[j] - mx);
    for (int j = 0; j < n; j++)
        e[j] = (float)(e[j] / s);
}

static float dot(int n, const float *x, const float *y)
{
    float s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

void kt_nn_attn_forward(const kt_nn_attn *a, int B, int Te, const float *enc,
                        const float *keys, const float *d, float *ctx,
                        float *alpha, float *cache)
{
    size_t A = a->A, E = a->E;
    float *pre = cache, *q = cache + B * Te * A;
    // q (B,A) = b + d (B,H) Wd (H,A)
    for (int r = 0; r < B; r++)
        memcpy(q + r * A, a->b, A * sizeof *q);
    kt_nn_gemm(a->naive, false, false, B, a->A, a->H, 1, d, a->H, a->wd, a->A,
               1, q, a->A);
    for (int r = 0; r < B; r++) {
        float *al = alpha + (size_t)r * Te, *cr = ctx + r * E;
        for (int j = 0; j < Te; j++) {
            size_t rj = (size_t)r * Te + j;
            float *p = pre + rj * A;
            for (size_t i = 0; i < A; i++)
                p[i] = kt_nn_tanhf(keys[rj * A + i] + q[r * A + i]);
            al[j] = dot(a->A, p, a->v);
        }
        softmax_inplace(Te, al);
        memset(cr, 0, E * sizeof *cr);
        for (int j = 0; j < Te; j++)
            for (size_t i = 0; i < E; i++)
                cr[i] += al[j] * enc[((size_t)r * Te + j) * E + i];
    }
}

void kt_nn_attn_backward(kt_nn_attn *a, int B, int Te, const float *enc,
                         const float *d, const float *alpha, float *cache,
                         const float *dctx, float *denc, float *dkeys,
                         float *dd)
{
    size_t A = a->A, E = a->E;
    const float *pre = cache;
    float *dq = cache + B * Te * A;
    memset(dq, 0, B * A * sizeof *dq);
    for (int r = 0; r < B; r++) {
        const float *al = alpha + (size_t)r * Te, *dc = dctx + r * E;
        const float *er = enc + (size_t)r * Te * E;
        /* softmax backward: de_j = alpha_j (dalpha_j - sum_k alpha_k
         * dalpha_k), with dalpha_j = dctx . enc_j */
        float mean = 0;
        for (int j = 0; j < Te; j++)
            mean += al[j] * dot(a->E, dc, er + j * E);
        for (int j = 0; j < Te; j++) {
            size_t rj = (size_t)r * Te + j;
            float de = al[j] * (dot(a->E, dc, er + j * E) - mean);
            if (denc)
                for (size_t i = 0; i < E; i++)
                    denc[rj * E + i] += al[j] * dc[i];
            const float *p = pre + rj * A;
            for (size_t i = 0; i < A; i++) {
                float dp = de * a->v[i] * (1 - p[i] * p[i]);
                a->dv[i] += de * p[i];
                if (dkeys)
                    dkeys[rj * A + i] += dp;
                dq[r * A + i] += dp;
            }
        }
    }
    // dWd (H,A) += d^T (H,B) dq (B,A); db += sum dq; dd (B,H) += dq Wd^T
    kt_nn_gemm(a->naive, true, false, a->H, a->A, B, 1, d, a->H, dq, a->A, 1,
               a->dwd, a->A);
    for (int r = 0; r < B; r++)
        for (size_t i = 0; i < A; i++)
            a->db[i] += dq[r * A + i];
    if (dd)
        kt_nn_gemm(a->naive, false, true, B, a->H, a->A, 1, dq, a->A, a->wd,
                   a->A, 1, dd, a->H);
}
