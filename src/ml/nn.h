/* nn.h - neural-network layers for the sequence-to-sequence predictors
 * (encoder-decoder LSTM, bi-LSTM with additive attention, Conv1D encoder):
 * hand-written forward/backward pairs over float32 row-major arrays, in the
 * manner of llm.c.  Not part of the public API.
 *
 * Conventions, shared by every layer below:
 *   - Shapes are written as in comments, (B,T,C): B sequences of T steps of
 *     C floats, row-major, C fastest.  Dimensions are ints (BLAS takes ints).
 *   - A layer struct holds its dimensions (set by the caller, e.g. with a
 *     designated initializer) and pointers into ONE model-wide parameter
 *     array and its parallel gradient array, so that the optimizer and the
 *     model file see a model as one blob.  _nparams gives the length of the
 *     layer's slice, _bind points the layer at it (grads may be NULL for
 *     inference), _init fills the bound parameters from a caller's kt_rng.
 *     A layer owns no memory.
 *   - Activations and caches are caller-owned arrays (carve them out of one
 *     allocation too).  Forward writes the cache; backward reads it and may
 *     overwrite it, so run one backward per forward.
 *   - Backward ADDS (+=) into the parameter gradients and into the gradients
 *     of its inputs, so that a layer used at several steps, or an input read
 *     by several layers, sums its gradients; zero the gradient blob before
 *     each backward pass.  An input-gradient pointer may be NULL to skip it.
 *   - `naive` routes a layer's matrix products through the reference triple
 *     loops instead of cblas_sgemm; both give the same results to rounding,
 *     and the tests hold them to it.
 *   - Nothing here allocates, prints or keeps global state; a layer may be
 *     used by one thread at a time (OpenBLAS may use threads inside a call).
 */
#ifndef KT_NN_H
#define KT_NN_H

#include "core/base.h"

#include <math.h>

/* ---------------------------------------------------------------- common */

/* C = alpha * op(A) * op(B) + beta * C, row-major, as cblas_sgemm: op(A) is
 * (M,K), op(B) is (K,N), C is (M,N); ta/tb transpose A/B as stored; lda,
 * ldb, ldc are row strides.  beta == 0 ignores C's old contents (NaN too).
 * naive: the reference loops instead of OpenBLAS. */
void kt_nn_gemm(bool naive, bool ta, bool tb, int M, int N, int K, float alpha,
                const float *A, int lda, const float *B, int ldb, float beta,
                float *C, int ldc);

/* tanh through one expf: libm's tanhf (by expm1f) took a third of an LSTM's
 * training time.  Absolute error ~1e-7; saturates cleanly at +-1. */
static inline float kt_nn_tanhf(float x)
{
    return 2.0f / (1.0f + expf(-2.0f * x)) - 1.0f;
}

/* n values uniform in [-scale, scale). */
void kt_nn_uniform(float *p, size_t n, float scale, kt_rng *rng);

/* ------------------------------------------------------------- embedding */

/* Token ids to vectors: out[n] = table[ids[n]]. */
typedef struct kt_nn_embed {
    int V, D;          /* vocabulary size, vector width */
    float *table;      /* (V,D) parameters */
    float *dtable;     /* (V,D) gradient */
} kt_nn_embed;

size_t kt_nn_embed_nparams(const kt_nn_embed *e);
void kt_nn_embed_bind(kt_nn_embed *e, float *params, float *grads);
/* Uniform with standard deviation 0.1. */
void kt_nn_embed_init(kt_nn_embed *e, kt_rng *rng);
/* ids (N) -> out (N,D), N = B*T.  KT_ERANGE (out untouched from the bad id
 * on) when an id is >= V. */
int kt_nn_embed_forward(const kt_nn_embed *e, int N, const uint16_t *ids,
                        float *out);
/* dtable[ids[n]] += dout[n]; ids already checked by forward. */
void kt_nn_embed_backward(kt_nn_embed *e, int N, const uint16_t *ids,
                          const float *dout);

/* ----------------------------------------------------------------- dense */

/* y = x W + b over rows: x (N,I) -> y (N,O), N = B*T or B. */
typedef struct kt_nn_dense {
    int I, O;          /* input and output widths */
    bool naive;        /* reference loops instead of BLAS */
    float *w, *b;      /* (I,O), (O) parameters */
    float *dw, *db;    /* their gradients */
} kt_nn_dense;

size_t kt_nn_dense_nparams(const kt_nn_dense *d);
void kt_nn_dense_bind(kt_nn_dense *d, float *params, float *grads);
/* W uniform +-1/sqrt(I), b = 0. */
void kt_nn_dense_init(kt_nn_dense *d, kt_rng *rng);
void kt_nn_dense_forward(const kt_nn_dense *d, int N, const float *x, float *y);
/* dW += x^T dy, db += sum dy, dx += dy W^T. */
void kt_nn_dense_backward(kt_nn_dense *d, int N, const float *x,
                          const float *dy, float *dx);

/* ------------------------------------------------ softmax cross-entropy */

/* loss = sum_n mask[n] * -log softmax(logits[n])[targets[n]] / sum_n mask[n]
 * over N rows of V logits; mask (N) NULL means all ones (padded positions
 * get mask 0); 0 when the mask sums to 0.  probs (N,V) is written for the
 * backward pass (and for decoding).  KT_ERANGE when a target is >= V. */
int kt_nn_xent_forward(int N, int V, const float *logits,
                       const uint16_t *targets, const float *mask,
                       float *probs, float *loss);
/* dlogits (N,V) += dloss * d(loss)/d(logits). */
void kt_nn_xent_backward(int N, int V, const float *probs,
                         const uint16_t *targets, const float *mask,
                         float dloss, float *dlogits);

/* ------------------------------------------------------------------ LSTM */

/* One LSTM layer.  Per step, with gates in the order i, f, g, o:
 *   a = x Wx + h_prev Wh + b                    // (B,4H)
 *   c = sig(a_f) * c_prev + sig(a_i) * tanh(a_g)
 *   h = sig(a_o) * tanh(c)
 * A missing initial state (NULL h0/c0) is zeros. */
typedef struct kt_nn_lstm {
    int I, H;                 /* input and hidden widths */
    bool naive;               /* reference loops instead of BLAS */
    float *wx, *wh, *b;       /* (I,4H), (H,4H), (4H) parameters */
    float *dwx, *dwh, *db;    /* their gradients */
} kt_nn_lstm;

size_t kt_nn_lstm_nparams(const kt_nn_lstm *l);
void kt_nn_lstm_bind(kt_nn_lstm *l, float *params, float *grads);
/* Weights uniform +-1/sqrt(H); biases 0 but the forget gate's 1, which keeps
 * the cell open early in training so gradients reach the first steps. */
void kt_nn_lstm_init(kt_nn_lstm *l, kt_rng *rng);

/* Floats of the cache of a whole-sequence pass over (B,T). */
size_t kt_nn_lstm_cache_size(const kt_nn_lstm *l, int B, int T);
/* x (B,T,I) -> h (B,T,H), from h0, c0 (B,H) (NULL: zeros).  hT, cT (B,H),
 * when not NULL, receive the final states, so that an encoder can hand them
 * to a decoder.  cache: kt_nn_lstm_cache_size floats. */
void kt_nn_lstm_forward(const kt_nn_lstm *l, int B, int T, const float *x,
                        const float *h0, const float *c0, float *h, float *hT,
                        float *cT, float *cache);
/* Backward through the sequence.  Upstream gradients: dh (B,T,H) w.r.t.
 * every output, dhT and dcT (B,H) w.r.t. the final states (each may be
 * NULL: zero).  Adds into the weight gradients, dx (B,T,I), dh0 and dc0
 * (B,H).  x, h0, c0, h and cache are those of the forward; the cache is
 * consumed. */
void kt_nn_lstm_backward(kt_nn_lstm *l, int B, int T, const float *x,
                         const float *h0, const float *c0, const float *h,
                         float *cache, const float *dh, const float *dhT,
                         const float *dcT, float *dx, float *dh0, float *dc0);

/* One step, for decoders that interleave the LSTM with attention: x (B,I),
 * h_prev, c_prev (B,H) (NULL: zeros) -> h, c (B,H); gates (B,4H) is the
 * step's cache.  The caller keeps h, c and gates of every step. */
void kt_nn_lstm_step_forward(const kt_nn_lstm *l, int B, const float *x,
                             const float *h_prev, const float *c_prev,
                             float *gates, float *h, float *c);
/* Backward through one step: dh, dc (B,H) are the total gradients w.r.t.
 * this step's h and c (dc may be NULL).  Adds into the weight gradients, dx
 * (B,I), dh_prev and dc_prev (B,H).  gates is overwritten. */
void kt_nn_lstm_step_backward(kt_nn_lstm *l, int B, const float *x,
                              const float *h_prev, const float *c_prev,
                              const float *c, float *gates, const float *dh,
                              const float *dc, float *dx, float *dh_prev,
                              float *dc_prev);

/* ---------------------------------------------------- bidirectional LSTM */

/* Two LSTMs over the same input, the second reading it backwards; outputs
 * concatenated, h[b,t] = [fw h_t, bw h_t] (B,T,2H), where bw h_t has seen
 * x[t..T-1].  States (B,2H) are concatenated the same way: the final state
 * is [fw at T-1, bw at 0], the initial one [fw before 0, bw after T-1]. */
typedef struct kt_nn_bilstm {
    int I, H;                 /* input width, hidden width per direction */
    bool naive;               /* reference loops instead of BLAS */
    kt_nn_lstm fw, bw;        /* set by _bind: forward and backward halves */
} kt_nn_bilstm;

size_t kt_nn_bilstm_nparams(const kt_nn_bilstm *l);
/* The forward half's slice, then the backward half's. */
void kt_nn_bilstm_bind(kt_nn_bilstm *l, float *params, float *grads);
void kt_nn_bilstm_init(kt_nn_bilstm *l, kt_rng *rng);
size_t kt_nn_bilstm_cache_size(const kt_nn_bilstm *l, int B, int T);
/* x (B,T,I) -> h (B,T,2H); h0, c0, hT, cT (B,2H), each may be NULL. */
void kt_nn_bilstm_forward(const kt_nn_bilstm *l, int B, int T, const float *x,
                          const float *h0, const float *c0, float *h,
                          float *hT, float *cT, float *cache);
/* As kt_nn_lstm_backward, with the (B,T,2H) and (B,2H) shapes above. */
void kt_nn_bilstm_backward(kt_nn_bilstm *l, int B, int T, const float *x,
                           const float *h0, const float *c0, const float *h,
                           float *cache, const float *dh, const float *dhT,
                           const float *dcT, float *dx, float *dh0,
                           float *dc0);

/* ------------------------------------------- additive (Bahdanau) attention */

/* Over encoder outputs enc (B,Te,E) and a decoder state d (B,H):
 *   keys  = enc We                              // (B,Te,A), once per input
 *   e_j   = v . tanh(keys_j + d Wd + b)         // (B,Te)
 *   alpha = softmax_j(e)                        // (B,Te)
 *   ctx   = sum_j alpha_j enc_j                 // (B,E)
 * The keys do not depend on the decoder state, so they are computed once per
 * input sequence and shared by every decoder step; their gradient is summed
 * over the steps and taken back through We once. */
typedef struct kt_nn_attn {
    int E, H, A;                       /* encoder, decoder, attention widths */
    bool naive;                        /* reference loops instead of BLAS */
    float *we, *wd, *b, *v;            /* (E,A), (H,A), (A), (A) parameters */
    float *dwe, *dwd, *db, *dv;        /* their gradients */
} kt_nn_attn;

size_t kt_nn_attn_nparams(const kt_nn_attn *a);
void kt_nn_attn_bind(kt_nn_attn *a, float *params, float *grads);
/* We, Wd uniform +-1/sqrt(fan-in), v uniform +-1/sqrt(A), b = 0. */
void kt_nn_attn_init(kt_nn_attn *a, kt_rng *rng);
/* keys (B,Te,A) = enc (B,Te,E) We. */
void kt_nn_attn_keys_forward(const kt_nn_attn *a, int B, int Te,
                             const float *enc, float *keys);
/* dWe += enc^T dkeys, denc += dkeys We^T. */
void kt_nn_attn_keys_backward(kt_nn_attn *a, int B, int Te, const float *enc,
                              const float *dkeys, float *denc);
/* Floats of one step's cache. */
size_t kt_nn_attn_cache_size(const kt_nn_attn *a, int B, int Te);
/* One decoder step: -> ctx (B,E) and the weights alpha (B,Te). */
void kt_nn_attn_forward(const kt_nn_attn *a, int B, int Te, const float *enc,
                        const float *keys, const float *d, float *ctx,
                        float *alpha, float *cache);
/* From dctx (B,E): adds into the gradients, denc (B,Te,E), dkeys (B,Te,A)
 * and dd (B,H).  The cache is consumed. */
void kt_nn_attn_backward(kt_nn_attn *a, int B, int Te, const float *enc,
                         const float *d, const float *alpha, float *cache,
                         const float *dctx, float *denc, float *dkeys,
                         float *dd);

/* ---------------------------------------------------------------- conv1d */

/* A convolution along the sequence with "same" padding (zeros; the extra
 * column of an even width goes on the right), stride 1, then an optional
 * ReLU: x (B,T,Ci) -> y (B,T,Co);
 *   y[b,t] = relu(b + sum_k x[b, t + k - (K-1)/2] W[k]). */
typedef struct kt_nn_conv1d {
    int Ci, Co, K;             /* input, output channels; kernel width */
    bool relu;                 /* apply max(0, .) to the output */
    bool naive;                /* direct loops instead of BLAS */
    float *w, *b;              /* (K,Ci,Co), (Co) parameters */
    float *dw, *db;            /* their gradients */
} kt_nn_conv1d;

size_t kt_nn_conv1d_nparams(const kt_nn_conv1d *c);
void kt_nn_conv1d_bind(kt_nn_conv1d *c, float *params, float *grads);
/* W uniform +-sqrt(6/(K*Ci)) (He, for the ReLU), b = 0. */
void kt_nn_conv1d_init(kt_nn_conv1d *c, kt_rng *rng);
void kt_nn_conv1d_forward(const kt_nn_conv1d *c, int B, int T, const float *x,
                          float *y);
/* y is the forward's output; dy (B,T,Co) is overwritten with the gradient
 * before the ReLU.  Adds into the gradients and dx (B,T,Ci). */
void kt_nn_conv1d_backward(kt_nn_conv1d *c, int B, int T, const float *x,
                           const float *y, float *dy, float *dx);

/* --------------------------------------------------------------- dropout */

/* Inverted dropout: in training, each value is zeroed with probability p
 * and the rest scaled by 1/(1-p), so that inference needs no rescaling;
 * mask (n) records what was kept, drawn from rng (same seed, same mask).
 * Not training, or p == 0: y = x, mask untouched (may be NULL).  y may be x.
 * p must be in [0, 1). */
void kt_nn_dropout_forward(size_t n, float p, bool training, kt_rng *rng,
                           const float *x, float *y, uint8_t *mask);
/* dx += dy masked and scaled as the forward did.  dx may not be dy. */
void kt_nn_dropout_backward(size_t n, float p, bool training,
                            const uint8_t *mask, const float *dy, float *dx);

/* ------------------------------------------------------------- optimizer */

/* Adam (Kingma & Ba) hyperparameters. */
typedef struct kt_nn_adam {
    float lr;         /* step size, e.g. 1e-3 */
    float beta1;      /* first-moment decay, e.g. 0.9 */
    float beta2;      /* second-moment decay, e.g. 0.999 */
    float eps;        /* denominator guard, e.g. 1e-8 */
} kt_nn_adam;

/* One Adam step over n parameters: m, v (n) are the moment estimates (start
 * them at zero and keep them between steps), t the 1-based step number for
 * the bias correction. */
void kt_nn_adam_step(const kt_nn_adam *o, long t, size_t n, float *params,
                     const float *grads, float *m, float *v);

/* Scale grads (n) down so that their L2 norm is at most max_norm (LSTMs'
 * gradients can explode); returns the norm before clipping. */
float kt_nn_clip_norm(size_t n, float *grads, float max_norm);

#endif /* KT_NN_H */
