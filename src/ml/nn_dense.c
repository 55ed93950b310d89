/* nn_dense.c - the fully connected layer y = x W + b, applied row by row
 * (to every step of every sequence at once: N = B*T rows). */
#include "ml/nn.h"

#include <math.h>

size_t kt_nn_dense_nparams(const kt_nn_dense *d)
{
    return (size_t)d->I * d->O + d->O;
}

void kt_nn_dense_bind(kt_nn_dense *d, float *params, float *grads)
{
    size_t nw = (size_t)d->I * d->O;
    d->w = params;
    d->b = params + nw;
    d->dw = grads;
    d->db = grads ? grads + nw : NULL;
}

void kt_nn_dense_init(kt_nn_dense *d, kt_rng *rng)
{
    kt_nn_uniform(d->w, (size_t)d->I * d->O, 1 / sqrtf((float)d->I), rng);
    for (int j = 0; j < d->O; j++)
        d->b[j] = 0;
}

void kt_nn_dense_forward(const kt_nn_dense *d, int N, const float *x, float *y)
{
    // (N,O) = b broadcast, then += (N,I)(I,O)
    for (int n = 0; n < N; n++)
        for (int j = 0; j < d->O; j++)
            y[(size_t)n * d->O + j] = d->b[j];
    kt_nn_gemm(d->naive, false, false, N, d->O, d->I, 1, x, d->I, d->w, d->O,
               1, y, d->O);
}

void kt_nn_dense_backward(kt_nn_dense *d, int N, const float *x,
                          const float *dy, float *dx)
{
    // dW (I,O) += x^T (I,N) dy (N,O)
    kt_nn_gemm(d->naive, true, false, d->I, d->O, N, 1, x, d->I, dy, d->O, 1,
               d->dw, d->O);
    for (int n = 0; n < N; n++)
        for (int j = 0; j < d->O; j++)
            d->db[j] += dy[(size_t)n * d->O + j];
    // dx (N,I) += dy (N,O) W^T (O,I)
    if (dx)
        kt_nn_gemm(d->naive, false, true, N, d->I, d->O, 1, dy, d->O, d->w,
                   d->O, 1, dx, d->I);
}
