/* model.h - a trained predictor: from a problem descriptor to scores for
 * each tuning parameter's tokens, saved in a versioned model file.
 *
 * A model keeps its vocabularies, its training samples' tokens, and the
 * identity of the held-out samples (their descriptors and true
 * configurations), so `ktune evaluate` needs nothing but the model file.
 * Methods: the classic baselines of the paper's Table II, each predicting
 * every output position from the descriptor (one file each): "knn" (knn.c),
 * "naive_bayes" (naive_bayes.c), "tree" and "forest" (tree.c), "svc"
 * (svc.c); the paper's sequence models "encdec", "attention", "hybrid" and
 * "hybrid2" (seq2seq.c), whose decoders' scores may depend on the prefix
 * chosen so far (kt_query_scores takes it); "ensemble" (ensemble.c), encdec
 * mixed with a nearest-neighbour chain; "xgboost" (xgb_chain.c), a chain of
 * gradient-boosted classifiers, one per position, each reading the
 * descriptor and the tokens chosen before it; "mix" (mix.c), xgboost and
 * encdec averaged.  The default method may bag its choice (bag.c: models of
 * two seeds averaged), described by its members' method.  An unknown method is a clear error.
 *
 * The model file starts with the magic "KTUNEMDL" and a format version;
 * every read is bounds-checked, and what a method hands to a library
 * (XGBoost, libsvm) is checked in full by ktune first, so a truncated,
 * corrupt or crafted file is an error naming the file, never a crash.
 */
#ifndef KT_MODEL_H
#define KT_MODEL_H

#include "ml/dataset.h"

/* The public ktune_model, ktune_train_opts and its progress callback
 * (include/ktune.h) are the ml layer's own: no copy between them. */
typedef struct ktune_model kt_model;
typedef ktune_train_progress_fn kt_train_progress_fn;
typedef ktune_train_opts kt_train_opts;

int kt_model_train(const kt_dataset *d, const kt_train_opts *o, kt_model **out,
                   kt_diag *diag);
/* Train on kernel's results in db (where: o->where): the data the method
 * needs (each problem's best configuration, or every measurement for a
 * method that learns from all of them, which then must hold nothing out),
 * split by o->split_ignore, whose every field must be one of the problems'.
 * KT_EINVAL for options that do not fit the method or the data (an unknown
 * method, a holdout, a field), KT_ENOTFOUND when nothing matches. */
int kt_model_train_db(kt_db *db, const char *kernel, const kt_train_opts *o,
                      kt_model **out, kt_diag *diag);
int kt_model_save(const kt_model *m, const char *path, kt_diag *diag);
int kt_model_load(const char *path, kt_model **out, kt_diag *diag);
/* A model from a model file's bytes (name: the file, for messages).  The
 * bytes are untrusted: whatever they hold, the result is a model or
 * KT_EFORMAT with the reason, never a crash; the checksum only catches
 * accidents, a crafted file is refused by the checks behind it. */
int kt_model_load_bytes(const void *bytes, size_t len, const char *name, kt_model **out,
                        kt_diag *diag);
void kt_model_free(kt_model *m);

/* What evaluation and prediction need to know about a model. */
typedef struct kt_model_info {
    const char *method, *kernel, *where;
    size_t nin, nout, ntrain, ntest, nval;
    const char *const *in_names, *const *out_names;
    const kt_vocab *in_vocab, *out_vocab;
} kt_model_info;
void kt_model_describe(const kt_model *m, kt_model_info *info);

/* Held-out sample i: its problem key and true output tokens. */
const char *kt_model_test_problem(const kt_model *m, size_t i);
const uint16_t *kt_model_test_target(const kt_model *m, size_t i);

/* A query prepared for one problem key (its descriptor); then the scores
 * of a position after each of n prefixes (a kt_beam_scores_fn). */
typedef struct kt_query kt_query;
int kt_query_new(const kt_model *m, const char *problem_key, kt_query **out,
                 kt_diag *diag);
int kt_query_scores(void *query, const uint16_t *prefixes, size_t n, size_t stride,
                    size_t pos, double *logp);
void kt_query_free(kt_query *q);

#endif /* KT_MODEL_H */
