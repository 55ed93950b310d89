/* model_impl.h - what the predictor's methods share inside src/ml: the
 * model's common state, the method table, and the model file's binary
 * reader and writer.  Not part of the public API. */
#ifndef KT_MODEL_IMPL_H
#define KT_MODEL_IMPL_H

#include "ml/model.h"

#include <stdio.h>
#include <string.h>

/* Samples: tokens, numbers and problem keys. */
typedef struct samples {
    size_t n;
    uint16_t *x;     /* n x nin */
    double *xnum;    /* n x nin */
    uint16_t *y;     /* n x nout */
    char **problem;  /* n */
    double *rel;     /* n: time over its problem's fastest (training from
                        every measurement only; not stored in model files) */
} samples;

typedef struct kt_method kt_method;

struct ktune_model {
    const kt_method *method;
    char *kernel, *where;
    double holdout;
    uint64_t seed;
    size_t nin, nout;
    char **in_names, **out_names;
    kt_vocab *in_vocab, *out_vocab;
    samples train, test;
    double *mean, *scale;  /* per input: log1p mean and 1/std (0: unused) */
    double *train_feat;    /* train.n x nin: kt_model_feature of each training
                              sample, computed once (kt_model_features) */
    void *state;           /* the method's own */
    /* When training chose the method (choose.c): the candidates tried, in
     * order, and how many training samples scored them; none otherwise. */
    ktune_model_candidate *cand;
    size_t ncand, nval;
};

/* A bounds-checked cursor over a model file's bytes; bad is sticky. */
typedef struct reader {
    const unsigned char *p, *end;
    bool bad;
    char why[256];   /* why it went bad, where a check knows ("" if not) */
} reader;

void kt_put(FILE *f, const void *p, size_t n);
void kt_put_u32(FILE *f, uint32_t v);
void kt_put_u64(FILE *f, uint64_t v);
void kt_put_f64(FILE *f, double v);
bool kt_get(reader *r, void *out, size_t n);
uint32_t kt_get_u32(reader *r);
uint64_t kt_get_u64(reader *r);
/* n elements of size bytes, checked against what is left before allocating;
 * NULL (and r->bad) on failure.  The caller frees. */
void *kt_get_array(reader *r, uint64_t n, size_t size);
/* Mark the reader bad, keeping the first reason given (a method's load
 * explains what it refused: the user sees it). */
void kt_reader_refuse(reader *r, const char *why);

/* A prediction method.  Either per-position classifiers over the
 * descriptor (dist), or a sequence model whose scores at a position depend
 * on the prefix chosen so far (begin/next/end); the other set is NULL. */
struct kt_method {
    const char *name;
    uint32_t kind;             /* stored in the model file */
    /* Learns from every ok measurement with its time relative to its
     * problem's fastest (kt_dataset_load_all), not only each problem's best
     * configuration; such a model ranks whole configurations and is tested
     * on other shapes, so it holds no problem out (kt_model_train_db). */
    bool every_measurement;
    /* Trained exactly as this other method, into the same state (ensemble:
     * encdec), so that choosing a method trains it once for both. */
    const kt_method *fit_of;
    /* Can learn across cells (siblings.c): its inputs tell the --where fields'
     * values apart like any other field's, so the default may train it on
     * the siblings' problems too (choose.c). */
    bool pools;
    /* Its training draws on the seed beyond the data (initial weights,
     * sampled rows and columns, a seeded tenth that stops it), so models of
     * two seeds differ and their average has less variance (bag.c). */
    bool seeded;
    /* The name a model of this method is described by, where it is not the
     * method's own (a bag: its members' method); NULL: name. */
    const char *(*label)(const kt_model *m);
    /* Made of other methods' trained states (mix: xgboost's and encdec's;
     * NULL-ended), so the default method scores it from the parts' models
     * without training it: join wraps the parts' states, borrowed, into
     * one state of this method, which its free then releases alone. */
    const kt_method *const *parts;
    void *(*join)(void *const *states);
    /* Learn from m->train (m->mean/scale are set); o carries the options.
     * m->test is off limits (it is the evaluation's). */
    int (*fit)(kt_model *m, const kt_train_opts *o);
    /* logp[p][t]: log-probability of token t at position p for one input;
     * token 0 gets -INFINITY. */
    int (*dist)(const kt_model *m, const uint16_t *x, const double *xn, double **logp);
    /* A per-query state for one input (x, xn); then, for each of n
     * prefixes (prefix i at prefixes[i * stride], of length pos), logp[i *
     * V + t] of the V tokens at position pos (token 0: -INFINITY).  Calls
     * come in beam-search order: each prefix of length pos extends one that
     * was scored at pos - 1 in the same query. */
    int (*begin)(const kt_model *m, const uint16_t *x, const double *xn, void **qs);
    int (*next)(void *qs, const uint16_t *prefixes, size_t n, size_t stride, size_t pos,
                double *logp);
    void (*end)(void *qs);
    void (*save)(const kt_model *m, FILE *f);
    void (*load)(kt_model *m, reader *r);
    void (*free)(void *state);
};

/* Models averaged (avg.c): n states of sequence methods (begin/next) over
 * the same model's data, part i's state of method part[i]; a query's score
 * is the mean of the parts' probabilities.  mix.c and bag.c are this state
 * with their own parts; their tables take the functions below. */
enum { KT_AVG_MAX = 8 };
typedef struct kt_avg {
    size_t n;
    const kt_method *part[KT_AVG_MAX];
    void *state[KT_AVG_MAX];
    bool owned;   /* the states are freed with it (joined: borrowed) */
} kt_avg;
/* NULL for memory or n above KT_AVG_MAX; states NULL: all NULL. */
kt_avg *kt_avg_new(size_t n, const kt_method *const *part, void *const *states, bool owned);
void kt_avg_free(void *state);
int kt_avg_begin(const kt_model *m, const uint16_t *x, const double *xn, void **qs);
int kt_avg_next(void *qs, const uint16_t *prefixes, size_t n, size_t stride, size_t pos,
                double *logp);
void kt_avg_end(void *qs);
/* Each part's state in order; kt_avg_load reads them into a (its parts
 * set; NULL marks r bad) and makes a m's state. */
void kt_avg_save(const kt_model *m, FILE *f);
void kt_avg_load(kt_model *m, kt_avg *a, reader *r);

/* Make trained m a bag of n (2..KT_AVG_MAX) models of its method: its
 * state and n - 1 more fitted on its training samples with other seeds
 * (bag.c).  KT_EINVAL when the method is not seeded or n is out of range;
 * on any failure m is unchanged. */
int kt_model_bag(kt_model *m, size_t n, const kt_train_opts *o);

/* Rows idx[0..n) of d's tokens, numbers and outputs into x, xnum, y. */
void kt_dataset_rows(const kt_dataset *d, const size_t *idx, size_t n, uint16_t *x,
                     double *xnum, uint16_t *y);

/* Samples idx of d as a dataset that borrows d's names, vocabularies and
 * keys (siblings.c); kt_dataset_subset_free frees only what it made. */
int kt_dataset_subset(const kt_dataset *d, const size_t *idx, size_t n, kt_dataset *s);
void kt_dataset_subset_free(kt_dataset *s);

/* A cell (the problems --where selects) pooled with its siblings (the
 * kernel's problems with other values of the --where fields), all in one
 * dataset whose inputs include those fields (siblings.c).  Every cell is split
 * as its own run would split it (o's holdout, seed and split_ignore): the
 * cell's parts, in the order of the cell's own dataset, and the siblings'
 * training parts; no sibling's held-out sample is in any list. */
typedef struct kt_siblings {
    const kt_dataset *all;     /* the cell's samples and its siblings' */
    size_t *train, ntrain;     /* the cell's training part, indices into all */
    size_t *test, ntest;       /* the cell's held-out part */
    size_t *extra, nextra;     /* the siblings' training parts */
} kt_siblings;
/* KT_EINVAL when where selects no cell of all or the cell has no sibling. */
int kt_siblings_new(const kt_dataset *all, const char *where, const kt_train_opts *o,
                    kt_siblings *p);
void kt_siblings_free(kt_siblings *p);

/* The name that asks training to choose the method (so does NULL). */
#define KT_METHOD_AUTO "auto"
static inline bool kt_method_is_auto(const char *name)
{
    return !name || strcmp(name, KT_METHOD_AUTO) == 0;
}
/* Choose the method for d by validation on its training part, then train
 * it on the whole training part (choose.c; what ktune_model_train says);
 * with pool (NULL: none), d's samples being pool's cell, the methods that
 * can pool are also tried on the pooled samples. */
int kt_model_choose(const kt_dataset *d, const kt_siblings *pool, const kt_train_opts *o,
                    kt_model **out, kt_diag *diag);
/* Train on d's samples tr, holding out te (index lists into d). */
int kt_model_train_on(const kt_dataset *d, const size_t *tr, size_t ntr, const size_t *te,
                      size_t nte, const kt_train_opts *o, kt_model **out, kt_diag *diag);

/* A method by name, or (name NULL) by the kind stored in a model file. */
const kt_method *kt_method_find(const char *name, uint32_t kind);
/* The i-th method of the table (i = 0, 1, ...); NULL past the last. */
const kt_method *kt_method_at(size_t i);
/* A method by name; KT_EINVAL naming the methods there are when none is
 * called so. */
int kt_method_lookup(const char *name, const kt_method **out, kt_diag *diag);

extern const kt_method kt_method_knn;
extern const kt_method kt_method_naive_bayes;
extern const kt_method kt_method_tree;
extern const kt_method kt_method_forest;
extern const kt_method kt_method_svc;
extern const kt_method kt_method_encdec;
extern const kt_method kt_method_attention;
extern const kt_method kt_method_hybrid;
extern const kt_method kt_method_hybrid2;
extern const kt_method kt_method_ensemble;
extern const kt_method kt_method_xgboost;
extern const kt_method kt_method_mix;
extern const kt_method kt_method_cost;
extern const kt_method kt_method_bag;

/* Input f of a sample as a standardised log-scale number, or NAN when the
 * field is not numeric (or constant in training). */
double kt_model_feature(const kt_model *m, const double *xn, size_t f);
/* Fill m->train_feat (after the scales are known: training and loading). */
int kt_model_features(kt_model *m);

/* Indices of the k (<= m->train.n) nearest training samples to an input,
 * nearest first, and their distances (knn.c); KT_ENOMEM. */
int kt_knn_nearest(const kt_model *m, const uint16_t *x, const double *xn, size_t k,
                   size_t *idx, double *dist);

/* Input f as one number for trees: kt_model_feature, or the field's token
 * (x[f]) where that is NAN. */
double kt_model_value(const kt_model *m, const uint16_t *x, const double *xn, size_t f);

/* Turn nonnegative weights w[1..n) into smoothed log-probabilities (a
 * small floor keeps every token reachable for the constrained search). */
void kt_weights_to_logp(double *w, size_t n);

#endif /* KT_MODEL_IMPL_H */
