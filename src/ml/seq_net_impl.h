/* seq_net_impl.h - what seq_net.c (training) and seq_infer.c (inference)
 * share: the scratch of a batch and the passes both run.  Not part of the
 * public API. */
#ifndef KT_SEQ_NET_IMPL_H
#define KT_SEQ_NET_IMPL_H

#include "ml/seq_net.h"

/* Activations, caches and gradients of a batch of up to Bmax samples,
 * shapes as in the comments ((B,T,C) row-major). */
struct seq_ws {
    int Bmax;
    uint16_t *ids_in, *ids_dec, *tgt;        /* (B,Tin), (B,Tout), (B) */
    uint8_t *mask;                           /* dropout, (B,Tout,H) */
    float *num;                              /* (B,Tin) */
    float *emb_in, *demb_in;                 /* (B,Tin,E) */
    float *emb_dec, *demb_dec;               /* (B,Tout,E) */
    float *enc_h, *denc_h;                   /* (B,Tin,H) */
    float *hT, *cT, *dhT, *dcT;              /* (B,H) */
    float *cache_a, *cache_b, *cache_c;      /* encoder / decoder caches */
    float *keys, *dkeys;                     /* (B,Tin,A) attention keys, A <= H */
    float *ctx, *s, *c;                      /* (Tout,B,H) attention steps */
    float *gates;                            /* (Tout,B,4H) */
    float *alpha, *acache;                   /* (Tout,B,Tin), per-step caches */
    float *xin, *dxin;                       /* (Tout,B,H+E), (B,H+E) */
    float *dh, *dc, *dh2, *dc2;              /* (B,H) carried step gradients */
    float *conv1, *conv2, *dconv1, *dconv2;  /* (B,Tin,F) */
    float *rep, *drep;                       /* (B,Tout,Tin*F) */
    float *h1, *dh1, *rep2, *drep2;          /* (B,Tout,H) */
    float *feat, *dfeat;                     /* (B,Tout,H) hybrid features */
    float *xseq, *dxseq;                     /* (B,Tout,H+E) feedback input */
    float *dec_h, *ddec_h, *drop, *ddrop;    /* (B,Tout,H) */
    float *logits, *dlogits;                 /* (B,Tout,Vo) */
    float *slice, *probs, *dslice;           /* (B,Vmax), (B,Vo), (B,Vmax) */
};

/* ids and embeddings of the descriptors (emb_in); KT_ERANGE on a token
 * outside its field's vocabulary. */
int seq_embed_inputs(const seq_net *n, seq_ws *w, int B, const uint16_t *x,
                     const float *xn);
/* The hybrids' convolutions and bi-LSTMs, emb_in -> out (B,Tout,H). */
void seq_hybrid_forward(const seq_net *n, seq_ws *w, int B, float *out);
/* Log-softmax of position p's slice of a row of Vo logits into logp (V),
 * normalised over the slice as in training; token 0 (unknown) gets
 * -INFINITY. */
void seq_log_softmax(const seq_net *n, const float *logits, int p, double *logp);

#endif /* KT_SEQ_NET_IMPL_H */
