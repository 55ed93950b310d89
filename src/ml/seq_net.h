/* seq_net.h - the paper's four sequence-to-sequence networks over the
 * layers of nn.h: their parameters as one blob, a batched training pass
 * (forward, loss, backward) and batched inference.  Not part of the public
 * API; seq2seq.c turns them into predictor methods.
 *
 * A sample is Tin descriptor tokens (field f's token t is input id
 * in_off[f] + t; its standardised number, 0 when none, scales a learned
 * per-field vector added to the embedding) and Tout output tokens (position
 * p's token t is output id out_off[p] + t; one output layer scores all ids
 * and position p's softmax runs over its own slice).
 *
 *   encdec     LSTM encoder; its final state starts an LSTM decoder that
 *              reads the previous output token (teacher forcing in
 *              training, the beam's prefix in inference).
 *   attention  bi-LSTM encoder; additive attention from the decoder state
 *              over the encoder outputs; the LSTM decoder reads the context
 *              and the previous output token.
 *   hybrid     two Conv1D layers over the descriptor, flattened and fed to
 *              every step of two stacked bi-LSTMs over the output positions.
 *   hybrid2    as hybrid, but the second bi-LSTM reads only the first one's
 *              final states (the paper's layered decoder).
 * A bi-LSTM decoder sees every position at once, so it cannot read the
 * tokens chosen so far.  With `feedback` a hybrid's bi-LSTM outputs go
 * through one more (forward) LSTM that also reads the previous token, as
 * encdec's and attention's decoders do: then every position's scores
 * depend on the prefix, which is what the paper's beam search assumes.
 * Without it (the paper's figures) the hybrids score positions
 * independently.
 */
#ifndef KT_SEQ_NET_H
#define KT_SEQ_NET_H

#include "ml/nn.h"

typedef enum seq_arch { SEQ_ENCDEC, SEQ_ATTENTION, SEQ_HYBRID, SEQ_HYBRID2 } seq_arch;

#define SEQ_MAX_LEN 64   /* most input fields and output positions */

typedef struct seq_dims {
    int arch;            /* seq_arch */
    int Tin, Tout;       /* descriptor fields, output positions */
    int E, H, F;         /* embedding, hidden (both directions), conv filters */
    int feedback;        /* hybrids: a decoder LSTM reads the previous token */
    int in_off[SEQ_MAX_LEN + 1];  /* input ids of field f: [in_off[f], in_off[f+1]) */
    int out_off[SEQ_MAX_LEN + 1]; /* output ids of position p likewise */
} seq_dims;

typedef struct seq_net {
    seq_dims d;
    size_t np;                  /* parameters */
    float *params, *grads;      /* grads NULL for inference */
    kt_nn_embed ein, eout;      /* input ids; output ids + BOS (decoders) */
    float *unum, *dunum;        /* (Tin,E) numeric-feature directions */
    kt_nn_lstm enc, dec;        /* encdec's encoder; every feedback decoder */
    kt_nn_bilstm benc;          /* attention */
    kt_nn_attn attn;
    kt_nn_conv1d conv1, conv2;  /* hybrids */
    kt_nn_bilstm bdec1, bdec2;
    kt_nn_dense out;            /* (H, all output ids) */
} seq_net;

/* Checks the dimensions, counts the parameters and allocates the blob
 * (and the gradients when training); KT_EINVAL or KT_ENOMEM. */
int seq_net_new(seq_net *n, const seq_dims *d, bool training);
void seq_net_init(seq_net *n, kt_rng *rng);
void seq_net_free(seq_net *n);
/* Whether the scores of a position depend on the tokens before it. */
bool seq_net_autoregressive(const seq_net *n);

/* A batch: B samples of ids (B,Tin) and numbers (B,Tin), targets (B,Tout)
 * (position p's token, not yet offset).  Scratch for up to Bmax samples. */
typedef struct seq_ws seq_ws;
seq_ws *seq_ws_new(const seq_net *n, int Bmax);
void seq_ws_free(seq_ws *w);

/* Mean cross-entropy per position over the batch; with training, dropout
 * at rate p (from rng) and the gradients added into n->grads. */
int seq_net_loss(seq_net *n, seq_ws *w, int B, const uint16_t *x, const float *xn,
                 const uint16_t *y, bool training, float p, kt_rng *rng, float *loss);

/* Inference for one descriptor (x, xn: Tin ids and numbers): the encoder
 * runs once in seq_infer_new; then seq_infer_step writes the
 * log-probabilities of position pos's V tokens (token 0: -INFINITY) after
 * each of nb prefixes (prefix i at prefixes[i * stride], V doubles a row),
 * running one batched decoder step from the states its parents left.
 * Positions come in order 0, 1, 2, ... and each prefix must extend one
 * scored at the position before (the beam search's order); otherwise
 * KT_EINVAL. */
typedef struct seq_infer seq_infer;
int seq_infer_new(const seq_net *n, const uint16_t *x, const float *xn, seq_infer **out);
int seq_infer_step(seq_infer *s, const uint16_t *prefixes, size_t nb, size_t stride,
                   size_t pos, double *logp);
void seq_infer_free(seq_infer *s);

#endif /* KT_SEQ_NET_H */
