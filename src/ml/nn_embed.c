/* nn_embed.c - token embedding: a lookup table whose rows are learned. */
#include "ml/nn.h"

#include <string.h>

size_t kt_nn_embed_nparams(const kt_nn_embed *e)
{
    return (size_t)e->V * e->D;
}

void kt_nn_embed_bind(kt_nn_embed *e, float *params, float *grads)
{
    e->table = params;
    e->dtable = grads;
}

void kt_nn_embed_init(kt_nn_embed *e, kt_rng *rng)
{
    /* uniform(-a, a) has variance a^2/3: a = 0.1*sqrt(3) gives std 0.1 */
    kt_nn_uniform(e->table, kt_nn_embed_nparams(e), 0.17320508f, rng);
}

int kt_nn_embed_forward(const kt_nn_embed *e, int N, const uint16_t *ids,
                        float *out)
{
    for (int n = 0; n < N; n++) {
        if (ids[n] >= e->V)
            return KT_ERANGE;
        memcpy(out + (size_t)n * e->D, e->table + (size_t)ids[n] * e->D,
               (size_t)e->D * sizeof *out);
    }
    return KT_OK;
}

void kt_nn_embed_backward(kt_nn_embed *e, int N, const uint16_t *ids,
                          const float *dout)
{
    for (int n = 0; n < N; n++) {
        float *dt = e->dtable + (size_t)ids[n] * e->D;
        const float *d = dout + (size_t)n * e->D;
        for (int j = 0; j < e->D; j++)
            dt[j] += d[j];
    }
}
