/* nn_dropout.c - inverted dropout with a mask drawn from the caller's
 * generator, so that a seeded run is reproducible and the backward pass
 * drops exactly what the forward dropped. */
#include "ml/nn.h"

#include <string.h>

static bool active(float p, bool training) { return training && p > 0; }

void kt_nn_dropout_forward(size_t n, float p, bool training, kt_rng *rng,
                           const float *x, float *y, uint8_t *mask)
{
    if (!active(p, training)) {
        if (y != x)
            memmove(y, x, n * sizeof *y);
        return;
    }
    float scale = 1 / (1 - p);
    for (size_t i = 0; i < n; i++) {
        mask[i] = kt_rng_unit(rng) >= p;
        y[i] = mask[i] ? x[i] * scale : 0;
    }
}

void kt_nn_dropout_backward(size_t n, float p, bool training,
                            const uint8_t *mask, const float *dy, float *dx)
{
    bool on = active(p, training);
    float scale = on ? 1 / (1 - p) : 1;
    for (size_t i = 0; i < n; i++)
        dx[i] += !on || mask[i] ? dy[i] * scale : 0;
}
