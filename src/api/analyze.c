/* analyze.c - the public analysis API (include/ktune.h, "analysis") over
 * ml/analyze.h, whose struct is the public handle: argument checks, and
 * accessors that copy what the analysis holds into the caller's arrays. */
#include "core/util.h"
#include "ml/analyze.h"

#include <string.h>

static const char *const TARGETS[KTUNE_TARGET_COUNT] = {"time", "energy", "power"};

const char *ktune_target_name(ktune_target t)
{
    return (unsigned)t < KTUNE_TARGET_COUNT ? TARGETS[t] : "unknown";
}

int ktune_target_parse(const char *name, ktune_target *out)
{
    for (int t = 0; name && t < KTUNE_TARGET_COUNT; t++)
        if (strcmp(name, TARGETS[t]) == 0) {
            if (out)
                *out = (ktune_target)t;
            return KT_OK;
        }
    return KT_ENOTFOUND;
}

void ktune_analyze_opts_init(ktune_analyze_opts *o)
{
    if (!o)
        return;
    *o = (ktune_analyze_opts){.size = sizeof *o, .folds = 5, .rounds = 300, .depth = 6,
                              .shap_rows = 1000, .interaction_rows = 200, .top = 3,
                              .seed = 1, .threads = 1, .derived = 16,
                              .weights = true, .repeats = 1};
}

static int check_opts(const ktune_analyze_opts *o, kt_diag *diag)
{
    const char *fn = "ktune_analyze";
    if (o->size != sizeof *o)
        return kt_fail(diag, KT_EINVAL, "%s: options of %zu bytes, not %zu (fill them with "
                       "ktune_analyze_opts_init)", fn, o->size, sizeof *o);
    if (!o->kernel)
        return kt_fail(diag, KT_EINVAL, "%s: no kernel given", fn);
    if (o->folds < 2 || o->folds > 20)
        return kt_fail(diag, KT_EINVAL, "%s: %u folds; 2 to 20", fn, o->folds);
    if (o->rounds < 1 || o->rounds > 100000 || o->depth < 1 || o->depth > 20)
        return kt_fail(diag, KT_EINVAL, "%s: rounds 1 to 100000 and depth 1 to 20", fn);
    if (o->repeats < 1 || o->repeats > 20)
        return kt_fail(diag, KT_EINVAL, "%s: %u repeats; 1 to 20", fn, o->repeats);
    if (o->derived > 1000)
        return kt_fail(diag, KT_EINVAL, "%s: derived %zu; 0 to 1000", fn, o->derived);
    if (o->shap_rows < 1 || o->threads < 1 || o->threads > 1024)
        return kt_fail(diag, KT_EINVAL, "%s: shap_rows at least 1, threads 1 to 1024", fn);
    if (!(o->reading_noise >= 0 && o->reading_noise <= 0.5))
        return kt_fail(diag, KT_EINVAL, "%s: reading_noise %g; 0 to 0.5", fn, o->reading_noise);
    if (o->targets >= 1u << KTUNE_TARGET_COUNT)
        return kt_fail(diag, KT_EINVAL, "%s: unknown targets 0x%x", fn, o->targets);
    return KT_OK;
}

int ktune_analyze(ktune_db *db, const ktune_analyze_opts *o, ktune_analysis **out,
                  ktune_diag *diag)
{
    if (out)
        *out = NULL;
    if (!db || !o || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_analyze: %s is NULL",
                       !db ? "db" : !o ? "o" : "out");
    int rc = check_opts(o, diag);
    return rc == KT_OK ? kt_analyze(db, o, out, diag) : rc;
}

void ktune_analysis_free(ktune_analysis *a) { kt_analysis_free(a); }

void ktune_analysis_describe(const ktune_analysis *a, ktune_analysis_info *out)
{
    if (!a || !out) {
        if (out)
            *out = (ktune_analysis_info){0};
        return;
    }
    unsigned mask = 0;
    for (int t = 0; t < KTUNE_TARGET_COUNT; t++)
        mask |= a->t[t].done ? 1u << t : 0;
    *out = (ktune_analysis_info){.kernel = a->kernel, .device = a->device, .rows = a->n,
                                 .problems = a->problems, .features = a->nf,
                                 .tuning = a->ntuning, .targets = mask, .folds = a->folds,
                                 .reading_noise = a->reading_noise, .repeats = a->repeats};
}

const char *ktune_analysis_feature(const ktune_analysis *a, size_t i)
{
    return a && i < a->nf ? a->f[i].name : NULL;
}

/* Target t's results, or NULL when it was not modelled. */
static const kt_atarget *target(const ktune_analysis *a, ktune_target t)
{
    return a && (unsigned)t < KTUNE_TARGET_COUNT && a->t[t].done ? &a->t[t] : NULL;
}

int ktune_analysis_fit(const ktune_analysis *a, ktune_target t, ktune_fit *out)
{
    if (!a || !out)
        return KT_EINVAL;
    const kt_atarget *r = target(a, t);
    if (!r)
        return KT_ENOTFOUND;
    *out = r->fit;
    return KT_OK;
}

/* Copy up to cap of n items of size sz from src to out; the number copied. */
static size_t copy_out(void *out, size_t cap, const void *src, size_t n, size_t sz)
{
    size_t k = !out ? 0 : n < cap ? n : cap;
    if (k)
        memcpy(out, src, k * sz);
    return k;
}

size_t ktune_analysis_importance(const ktune_analysis *a, ktune_target t,
                                 ktune_importance *out, size_t cap)
{
    const kt_atarget *r = target(a, t);
    return r ? copy_out(out, cap, r->imp, a->nf, sizeof *out) : 0;
}

size_t ktune_analysis_interactions(const ktune_analysis *a, ktune_target t,
                                   ktune_interaction *out, size_t cap)
{
    const kt_atarget *r = target(a, t);
    return r ? copy_out(out, cap, r->inter, r->ninter, sizeof *out) : 0;
}

size_t ktune_analysis_dependence(const ktune_analysis *a, ktune_target t, size_t f,
                                 ktune_dependence *out, size_t cap)
{
    const kt_atarget *r = target(a, t);
    for (size_t i = 0; r && i < r->npd; i++)
        if (r->pd_feature[i] == f)
            return copy_out(out, cap, r->pd[i], r->pd_n[i], sizeof *out);
    return 0;
}

size_t ktune_analysis_ablation(const ktune_analysis *a, ktune_ablation *out, size_t cap,
                               bool *agrees)
{
    if (agrees)
        *agrees = ktune_analysis_check(a) == KTUNE_CHECK_AGREE;
    return !a ? 0 : copy_out(out, cap, a->abl, a->nabl, sizeof *out);
}

ktune_check ktune_analysis_check(const ktune_analysis *a)
{
    return a && a->nabl > 0 ? a->check : KTUNE_CHECK_NONE;
}

const char *ktune_check_name(ktune_check c)
{
    static const char *const NAMES[] = {"none", "agree", "tie", "disagree"};
    return (unsigned)c < sizeof NAMES / sizeof *NAMES ? NAMES[c] : "unknown";
}
