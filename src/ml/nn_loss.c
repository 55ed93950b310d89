/* nn_loss.c - softmax cross-entropy over a vocabulary, the decoder's loss;
 * a mask leaves padded positions out of both the loss and its gradient. */
#include "ml/nn.h"

#include <math.h>

/* The mean is over the weight of the unmasked positions, so a batch with
 * padding counts each real position as much as one without. */
static double mask_total(int N, const float *mask)
{
    if (!mask)
        return N;
    double s = 0;
    for (int n = 0; n < N; n++)
        s += mask[n];
    return s;
}

/* probs = softmax(logits), shifted by the maximum so exp cannot overflow. */
static void softmax_row(int V, const float *z, float *p)
{
    float mx = z[0];
    for (int j = 1; j < V; j++)
        mx = z[j] > mx ? z[j] : mx;
    double s = 0;
    for (int j = 0; j < V; j++) {
        p[j] = expf(z[j] - mx);
        s += p[j];
    }
    for (int j = 0; j < V; j++)
        p[j] = (float)(p[j] / s);
}

int kt_nn_xent_forward(int N, int V, const float *logits,
                       const uint16_t *targets, const float *mask,
                       float *probs, float *loss)
{
    double total = mask_total(N, mask), s = 0;
    for (int n = 0; n < N; n++) {
        if (targets[n] >= V)
            return KT_ERANGE;
        const float *z = logits + (size_t)n * V;
        float *p = probs + (size_t)n * V;
        softmax_row(V, z, p);
        float w = mask ? mask[n] : 1;
        if (w != 0)  /* a masked row may hold anything, even a zero prob */
            s -= w * log(fmax(p[targets[n]], 1e-30));
    }
    *loss = total > 0 ? (float)(s / total) : 0;
    return KT_OK;
}

void kt_nn_xent_backward(int N, int V, const float *probs,
                         const uint16_t *targets, const float *mask,
                         float dloss, float *dlogits)
{
    double total = mask_total(N, mask);
    if (total <= 0)
        return;
    for (int n = 0; n < N; n++) {
        float w = (float)((mask ? mask[n] : 1) * dloss / total);
        if (w == 0)
            continue;
        const float *p = probs + (size_t)n * V;
        float *dz = dlogits + (size_t)n * V;
        // d(-log p_y)/dz = p - onehot(y)
        for (int j = 0; j < V; j++)
            dz[j] += w * (p[j] - (j == targets[n]));
    }
}
