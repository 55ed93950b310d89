/* analyze.h - the internals of `ktune analyze` (include/ktune.h,
 * "analysis"): one kernel's stored measurements as coded features and
 * targets (analyze_data.c, which also ablates the tuning parameters on the
 * measurements), what gradient-boosted models say about them
 * (analyze.c: cross-validation, TreeSHAP importance and interactions,
 * partial dependence), and the ranking of the tuning parameters by what
 * the held-out predictions say fixing each at its worst value costs, with
 * its check on the measurements (analyze_rank.c: the ablation, ties
 * within the repetitions' noise).  The public handle is this struct
 * itself. */
#ifndef KT_ANALYZE_H
#define KT_ANALYZE_H

#include "ml/xgb.h"
#include "store/db.h"

typedef struct ktune_analysis kt_analysis;

/* One feature: a tuning parameter or a problem field that varies. */
typedef struct kt_afeature {
    char *name;
    bool tuning;           /* a tuning parameter, else a problem field */
    bool numeric;          /* every value is a number */
    size_t nvals;
    char **vals;           /* distinct values, ascending (numbers by value) */
    double *num;           /* what the models see for each: the number, or
                              the value's index for text */
} kt_afeature;

/* A derived feature (analyze_derive.c): the product of tuning features
 * a and b (and c), a over b, or the odd part of a (a over the largest
 * power of two that divides it: 1 where a is a power of two). */
typedef enum kt_derive_op {
    KT_DERIVE_MUL, KT_DERIVE_DIV, KT_DERIVE_MUL3, KT_DERIVE_ODD
} kt_derive_op;

typedef struct kt_aderived {
    kt_derive_op op;
    size_t a, b, c;
} kt_aderived;

/* What one target's model says. */
typedef struct kt_atarget {
    bool done;
    ktune_fit fit;
    ktune_importance *imp;       /* nf, most important first */
    double *cost;                /* nf: log of the predicted cost of each
                                    feature's worst value (NAN: a problem
                                    field), from the held-out predictions */
    double *cost_sd;             /* nf: its uncertainty (log), from those
                                    predictions' errors */
    uint32_t *cost_worst;        /* nf: that worst value's index */
    ktune_interaction *inter;    /* ninter pairs, strongest first */
    size_t ninter;
    size_t npd;                  /* features with a partial dependence */
    size_t *pd_feature;          /* npd */
    ktune_dependence **pd;       /* npd lists of pd_n[i] points */
    size_t *pd_n;
} kt_atarget;

struct ktune_analysis {
    char *kernel, *device;
    size_t n, nf, ntuning, problems;
    kt_afeature *f;                  /* nf: tuning parameters first */
    uint32_t *code;                  /* n x nf: each row's value index */
    uint32_t *prob;                  /* n: each row's problem index */
    double *y[KTUNE_TARGET_COUNT];   /* n each; NAN where not read */
    double *noise;                   /* n: a time's relative standard
                                        deviation from its repetitions'
                                        spread, with the options'
                                        reading_noise; NAN where unknown */
    unsigned folds, repeats;
    double reading_noise;            /* added to each time's noise */
    kt_atarget t[KTUNE_TARGET_COUNT];
    ktune_ablation *abl;             /* nabl tuning parameters */
    size_t nabl;
    ktune_check check;               /* the ablation's verdict */
};

/* The fewest rows an analysis with folds folds takes. */
size_t kt_analysis_min_rows(unsigned folds);

/* The ok rows o selects (kernel, device, problem) as a fresh analysis
 * with features, codes and targets and nothing modelled yet.  Errors as
 * ktune_analyze's. */
int kt_analysis_load(kt_db *db, const ktune_analyze_opts *o, kt_analysis **out,
                     kt_diag *diag);

/* Target t's predicted cost of each feature's worst value into a->t[t]
 * (cost, cost_sd, cost_worst), from the held-out predictions pred (log)
 * of the m analysis rows row. */
int kt_analysis_rank(kt_analysis *a, int t, const size_t *row, const float *pred, size_t m,
                     kt_diag *diag);

/* Ablate the ntuning tuning parameters, listed in order (feature indices,
 * most important first), on the measured times, and judge whether the
 * first costs more than every other beyond the measurements' noise
 * (a->check). */
int kt_analysis_ablate(kt_analysis *a, const size_t *order, kt_diag *diag);

/* The candidate derived features of a's numeric tuning parameters into
 * *out (caller frees; NULL when there are none): the odd part of each
 * whose values are positive integers of two odd parts or more, every
 * product of two, ratio of two (where the divisor is never 0) and, while
 * there are at most 1024 products and ratios in all, product of three.
 * KT_OK or KT_ENOMEM. */
int kt_derived_candidates(const kt_analysis *a, kt_aderived **out, size_t *n);

/* k rows of nf features (base) with the nd derived features d appended,
 * as a fresh k x (nf + nd) matrix.  KT_OK or KT_ENOMEM. */
int kt_derived_matrix(const float *base, size_t k, size_t nf, const kt_aderived *d,
                      size_t nd, float **out);

/* The keep candidates that a model of td (base features, rows shuffled)
 * with all ncand candidates appended, trained with xo's parameters and a
 * third of its rounds, leans on most (mean |TreeSHAP| contribution over
 * its first 250 rows; those with none are left out), strongest first,
 * into *out (caller frees). */
int kt_derived_select(const kt_xgb_data *td, const kt_xgb_opts *xo, const kt_aderived *cand,
                      size_t ncand, size_t keep, kt_aderived **out,
                      size_t *n, kt_diag *diag);

/* Whether the n > 1 rows' squared errors with derived features (derived)
 * are lower than without (plain), the same rows', by more than the
 * standard error of their mean difference: on few rows a richer model's
 * gain in one inner cross-validation is often its folds' luck, and the
 * model of the parameters alone is kept unless the gain is clear. */
bool kt_derived_gain_is_clear(const double *plain, const double *derived, size_t n);

/* "a*b", "a/b", "a*b*c" or "odd(a)" into buf. */
void kt_derived_name(const kt_analysis *a, const kt_aderived *d, char *buf, size_t cap);

/* The whole analysis (ktune_analyze without its argument checks). */
int kt_analyze(kt_db *db, const ktune_analyze_opts *o, kt_analysis **out, kt_diag *diag);
void kt_analysis_free(kt_analysis *a);

#endif /* KT_ANALYZE_H */
