/* nn_adam.c - the Adam optimizer over a model's flat parameter array, and
 * gradient-norm clipping for recurrent nets. */
#include "ml/nn.h"

#include <math.h>

void kt_nn_adam_step(const kt_nn_adam *o, long t, size_t n, float *params,
                     const float *grads, float *m, float *v)
{
    /* bias corrections: m and v start at zero and would otherwise
     * underestimate the moments in the first steps */
    float c1 = (float)(1 - pow(o->beta1, (double)t));
    float c2 = (float)(1 - pow(o->beta2, (double)t));
    for (size_t i = 0; i < n; i++) {
        float g = grads[i];
        m[i] = o->beta1 * m[i] + (1 - o->beta1) * g;
        v[i] = o->beta2 * v[i] + (1 - o->beta2) * g * g;
        params[i] -= o->lr * (m[i] / c1) / (sqrtf(v[i] / c2) + o->eps);
    }
}

float kt_nn_clip_norm(size_t n, float *grads, float max_norm)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)grads[i] * grads[i];
    float norm = (float)sqrt(s);
    if (norm > max_norm && norm > 0) {
        float k = max_norm / norm;
        for (size_t i = 0; i < n; i++)
            grads[i] *= k;
    }
    return norm;
}
