/* nn_conv1d.c - a 1-D convolution along the sequence, "same" padding, for
 * the hybrid models' Conv1D encoder.
 *
 * The BLAS path needs no im2col buffer: for each kernel tap k, the outputs
 * of one sequence are a matrix product of the input shifted by k with W[k]
 * (Ci,Co), over the rows where the shifted input lies inside the sequence
 * (the padding is zeros, so the rows outside contribute nothing).  The
 * naive path is the direct sum, an independent check of that indexing. */
#include "ml/nn.h"

#include <math.h>
#include <string.h>

size_t kt_nn_conv1d_nparams(const kt_nn_conv1d *c)
{
    return (size_t)c->K * c->Ci * c->Co + c->Co;
}

void kt_nn_conv1d_bind(kt_nn_conv1d *c, float *params, float *grads)
{
    size_t nw = (size_t)c->K * c->Ci * c->Co;
    c->w = params;
    c->b = params + nw;
    c->dw = grads;
    c->db = grads ? grads + nw : NULL;
}

void kt_nn_conv1d_init(kt_nn_conv1d *c, kt_rng *rng)
{
    kt_nn_uniform(c->w, (size_t)c->K * c->Ci * c->Co,
                  sqrtf(6.0f / (float)(c->K * c->Ci)), rng);
    memset(c->b, 0, (size_t)c->Co * sizeof *c->b);
}

/* The rows [t0, t1) of a sequence of T whose input at t + shift exists. */
static void tap_rows(int T, int shift, int *t0, int *t1)
{
    *t0 = shift < 0 ? -shift : 0;
    *t1 = shift > 0 ? T - shift : T;
    if (*t1 < *t0)
        *t1 = *t0;
}

static void fwd_naive(const kt_nn_conv1d *c, int B, int T, const float *x,
                      float *y)
{
    int pad = (c->K - 1) / 2;
    for (int r = 0; r < B; r++)
        for (int t = 0; t < T; t++)
            for (int o = 0; o < c->Co; o++) {
                float s = c->b[o];
                for (int k = 0; k < c->K; k++) {
                    int ts = t + k - pad;
                    if (ts < 0 || ts >= T)
                        continue;
                    for (int i = 0; i < c->Ci; i++)
                        s += x[((size_t)r * T + ts) * c->Ci + i] *
                             c->w[((size_t)k * c->Ci + i) * c->Co + o];
                }
                y[((size_t)r * T + t) * c->Co + o] = s;
            }
}

static void fwd_blas(const kt_nn_conv1d *c, int B, int T, const float *x,
                     float *y)
{
    int pad = (c->K - 1) / 2, Ci = c->Ci, Co = c->Co;
    for (size_t n = 0; n < (size_t)B * T; n++)
        memcpy(y + n * Co, c->b, (size_t)Co * sizeof *y);
    for (int r = 0; r < B; r++)
        for (int k = 0; k < c->K; k++) {
            int t0, t1;
            tap_rows(T, k - pad, &t0, &t1);
            // y[r, t0:t1] (n,Co) += x[r, t0+k-pad : ...] (n,Ci) W[k] (Ci,Co)
            kt_nn_gemm(false, false, false, t1 - t0, Co, Ci, 1,
                       x + ((size_t)r * T + t0 + k - pad) * Ci, Ci,
                       c->w + (size_t)k * Ci * Co, Co, 1,
                       y + ((size_t)r * T + t0) * Co, Co);
        }
}

void kt_nn_conv1d_forward(const kt_nn_conv1d *c, int B, int T, const float *x,
                          float *y)
{
    if (c->naive)
        fwd_naive(c, B, T, x, y);
    else
        fwd_blas(c, B, T, x, y);
    if (c->relu)
        for (size_t n = 0; n < (size_t)B * T * c->Co; n++)
            y[n] = y[n] > 0 ? y[n] : 0;
}

static void bwd_naive(kt_nn_conv1d *c, int B, int T, const float *x,
                      const float *dy, float *dx)
{
    int pad = (c->K - 1) / 2, Ci = c->Ci, Co = c->Co;
    for (int r = 0; r < B; r++)
        for (int t = 0; t < T; t++)
            for (int k = 0; k < c->K; k++) {
                int ts = t + k - pad;
                if (ts < 0 || ts >= T)
                    continue;
                const float *g = dy + ((size_t)r * T + t) * Co;
                for (int i = 0; i < Ci; i++) {
                    size_t xi = ((size_t)r * T + ts) * Ci + i;
                    const float *w = c->w + ((size_t)k * Ci + i) * Co;
                    float *dw = c->dw + ((size_t)k * Ci + i) * Co;
                    for (int o = 0; o < Co; o++) {
                        dw[o] += x[xi] * g[o];
                        if (dx)
                            dx[xi] += w[o] * g[o];
                    }
                }
            }
}

static void bwd_blas(kt_nn_conv1d *c, int B, int T, const float *x,
                     const float *dy, float *dx)
{
    int pad = (c->K - 1) / 2, Ci = c->Ci, Co = c->Co;
    for (int r = 0; r < B; r++)
        for (int k = 0; k < c->K; k++) {
            int t0, t1;
            tap_rows(T, k - pad, &t0, &t1);
            const float *xs = x + ((size_t)r * T + t0 + k - pad) * Ci;
            const float *g = dy + ((size_t)r * T + t0) * Co;
            // dW[k] (Ci,Co) += xs^T (Ci,n) g (n,Co)
            kt_nn_gemm(false, true, false, Ci, Co, t1 - t0, 1, xs, Ci, g, Co, 1,
                       c->dw + (size_t)k * Ci * Co, Co);
            // dxs (n,Ci) += g (n,Co) W[k]^T (Co,Ci)
            if (dx)
                kt_nn_gemm(false, false, true, t1 - t0, Ci, Co, 1, g, Co,
                           c->w + (size_t)k * Ci * Co, Co, 1,
                           dx + ((size_t)r * T + t0 + k - pad) * Ci, Ci);
        }
}

void kt_nn_conv1d_backward(kt_nn_conv1d *c, int B, int T, const float *x,
                           const float *y, float *dy, float *dx)
{
    size_t n = (size_t)B * T * c->Co;
    if (c->relu)
        for (size_t i = 0; i < n; i++)
            dy[i] = y[i] > 0 ? dy[i] : 0;
    for (size_t i = 0; i < n; i++)
        c->db[i % c->Co] += dy[i];
    if (c->naive)
        bwd_naive(c, B, T, x, dy, dx);
    else
        bwd_blas(c, B, T, x, dy, dx);
}
