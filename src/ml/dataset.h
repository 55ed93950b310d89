/* dataset.h - training data for the predictor, read from the results store.
 *
 * The paper's framing: a problem descriptor is a sentence (one token per
 * field) and the kernel's tuning parameters are its translation (one token
 * per parameter).  A kt_dataset holds, for one kernel, every stored ok
 * measurement as input tokens (one vocabulary per descriptor field, token 0
 * meaning "unknown"), numeric inputs for models that want numbers (NAN for
 * non-numeric fields), and output tokens (one vocabulary per position).
 */
#ifndef KT_DATASET_H
#define KT_DATASET_H

#include "store/db.h"

/* The distinct strings of one field; words[0] is "<unk>" (token 0). */
typedef struct kt_vocab {
    size_t n;
    char **words;
} kt_vocab;

/* The token of w, or 0 when it is not in the vocabulary. */
uint16_t kt_vocab_find(const kt_vocab *v, const char *w);
/* The token of w, added if new.  KT_ERANGE past 65535 words. */
int kt_vocab_add(kt_vocab *v, const char *w, uint16_t *tok);
void kt_vocab_clear(kt_vocab *v);

/* Free n field names and their n vocabularies (either may be NULL). */
void kt_fields_free(char **names, kt_vocab *vocab, size_t n);

typedef struct kt_dataset {
    char *kernel;
    size_t n;             /* samples */
    size_t nin, nout;     /* descriptor fields, tuning parameters */
    char **in_names;      /* nin */
    char **out_names;     /* nout */
    kt_vocab *in_vocab;   /* nin vocabularies */
    kt_vocab *out_vocab;  /* nout vocabularies */
    uint16_t *x;          /* n x nin input tokens */
    double *xnum;         /* n x nin numeric inputs (NAN: not a number) */
    uint16_t *y;          /* n x nout output tokens */
    char **problem;       /* n problem keys */
    double *rel;          /* n: the sample's time over the fastest of its
                             problem on its device (kt_dataset_load_all);
                             else NULL */
} kt_dataset;

/* The best ok measurement of each (device, problem) of kernel in db (for
 * imported data: the stored one) whose problem matches where
 * ("data_type=FP32,direction=F": each field must have that value; NULL or
 * "" for all).  Samples whose field names or count differ from the first
 * are an error naming the problem. */
int kt_dataset_load(kt_db *db, const char *kernel, const char *where,
                    kt_dataset **out, kt_diag *diag);
/* Every ok measurement of the kernel as a sample (several per problem),
 * with its time relative to the problem's fastest: what a performance
 * model learns from. */
int kt_dataset_load_all(kt_db *db, const char *kernel, const char *where,
                        kt_dataset **out, kt_diag *diag);
void kt_dataset_free(kt_dataset *d);

/* A seeded random split: round(holdout * n) samples for testing, the rest
 * for training; both index lists ascending.  The caller frees both.
 * With ignore ("batchsize,direction"), samples whose problems differ only
 * in those fields form one group, and whole groups go to one side (about
 * holdout of the samples are tested), so no near-twin of a test problem is
 * trained on. */
int kt_dataset_split(const kt_dataset *d, double holdout, uint64_t seed,
                     const char *ignore, size_t **train, size_t *ntrain,
                     size_t **test, size_t *ntest);

#endif /* KT_DATASET_H */
