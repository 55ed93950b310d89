/* report_analysis.c - the report's figures from `ktune analyze`'s library
 * (ktune_analyze, include/ktune.h): for each device's rows of a kernel,
 * the parameters ranked by importance for time (and energy where the rows
 * have it), and the partial dependence of the time on the top parameters.
 * The models are lighter than the command's defaults (fewer rounds and
 * folds, no interactions) so that a report stays quick on 2 cores; the
 * numbers come from the same code, and `ktune analyze` gives them in full. */
#include "api/report.h"

#include <math.h>
#include <string.h>

enum { IMP_MAX = 12, PD_MAX = 32, PD_TOP = 3 };

/* The options of a report's analysis of kernel on device. */
static void analysis_opts(ktune_analyze_opts *o, const char *kernel, const char *device,
                          bool energy)
{
    ktune_analyze_opts_init(o);
    o->kernel = kernel, o->device = device;
    o->targets = 1u << KTUNE_TARGET_TIME | (energy ? 1u << KTUNE_TARGET_ENERGY : 0);
    o->folds = 3, o->rounds = 100, o->shap_rows = 400, o->interaction_rows = 0;
    o->top = PD_TOP;
    o->derived = 0; /* a page drawn in a second: derived features' and */
    o->weights = false; /* weights' inner cross-validations cost several
                           times the models */
}

static void importance_fig(kt_rp *rp, const ktune_analysis *an, ktune_target t)
{
    ktune_importance imp[IMP_MAX];
    kt_rp_bar bars[IMP_MAX];
    size_t n = ktune_analysis_importance(an, t, imp, IMP_MAX);
    ktune_fit fit;
    ktune_analysis_info info;
    if (n == 0 || ktune_analysis_fit(an, t, &fit) != KTUNE_OK)
        return;
    ktune_analysis_describe(an, &info);
    for (size_t i = 0; i < n; i++)
        bars[i] = (kt_rp_bar){ktune_analysis_feature(an, imp[i].feature),
                              isnan(imp[i].cost) ? exp(imp[i].range) : imp[i].cost,
                              t == KTUNE_TARGET_TIME ? "#4a78b5" : "#e08a00"};
    kt_rp_fig_begin(rp, "importance");
    kt_plot p = {.f = rp->f, .x = {1, 0, false, false, "its worst value over its best (x)"}};
    char title[64], cap[1024];
    snprintf(title, sizeof title, "importance for %s", ktune_target_name(t));
    size_t npts = kt_rp_bars(&p, bars, n, title);
    snprintf(cap, sizeof cap, "Parameter importance for the %s per call: how much fixing "
             "each tuning parameter at its worst value costs the best configuration, by the "
             "model's held-out predictions (most important first; a problem field: how much "
             "worse its worst value is than its best, from its mean TreeSHAP contribution to "
             "the predicted log %s). The model (gradient-boosted trees, %u-fold) predicts "
             "held-out configurations with R\u00b2 %.2f (of the log: %.2f), Spearman %.2f, "
             "over %zu configurations; ktune analyze --kernel %s gives the mean TreeSHAP "
             "contributions, the interactions and the ablation that checks this ranking.",
             ktune_target_name(t), ktune_target_name(t), info.folds, fit.r2, fit.r2_log,
             fit.spearman, fit.rows, info.kernel);
    kt_rp_fig_end(rp, npts, cap);
}

static void dependence_fig(kt_rp *rp, const ktune_analysis *an, size_t feature, size_t rank)
{
    ktune_dependence dep[PD_MAX];
    size_t n = ktune_analysis_dependence(an, KTUNE_TARGET_TIME, feature, dep, PD_MAX);
    if (n == 0)
        return;
    const char *name = ktune_analysis_feature(an, feature);
    kt_plot p = {.f = rp->f, .x = {0, (double)n, false, true, name},
                 .y = {INFINITY, -INFINITY, false, false, "mean predicted time per call (ms)"}};
    double x[PD_MAX], y[PD_MAX];
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)i + 0.5, y[i] = dep[i].mean;
        p.y.lo = fmin(p.y.lo, y[i]), p.y.hi = fmax(p.y.hi, y[i]);
    }
    kt_axis_fit(&p.y);
    kt_rp_fig_begin(rp, "dependence");
    kt_plot_begin(&p, "partial dependence");
    kt_plot_line(&p, x, y, n, "#4a78b5", false);
    char tip[256];
    for (size_t i = 0; i < n; i++) {
        kt_plot_category(&p, x[i], dep[i].value);
        snprintf(tip, sizeof tip, "%s=%s: %.4g ms", name, dep[i].value, dep[i].mean);
        kt_plot_point(&p, x[i], y[i], 3.5, "#4a78b5", tip);
    }
    kt_plot_end(&p);
    char cap[512];
    snprintf(cap, sizeof cap, "Partial dependence on %s, the parameter ranked %zu for time: "
             "the model's mean predicted time per call over the sampled configurations with "
             "%s set to each value and the others as measured.", name, rank, name);
    kt_rp_fig_end(rp, n, cap);
}

/* The figures of one device's rows of k. */
static void device_analysis(kt_rp *rp, const kt_rp_kernel *k, const char *device)
{
    size_t nenergy = 0;
    for (size_t i = 0; i < k->n; i++)
        nenergy += strcmp(k->rows[i].device, device) == 0 &&
                   k->rows[i].status == KTUNE_STATUS_OK && isfinite(k->rows[i].energy_j);
    ktune_analyze_opts o;
    analysis_opts(&o, k->name, device, nenergy >= 10);
    ktune_analysis *an = NULL;
    ktune_diag d = {{0}};
    if (ktune_analyze(rp->db, &o, &an, &d) != KTUNE_OK) {
        char note[700];
        snprintf(note, sizeof note, "No parameter importance on %s: %s", device, d.msg);
        kt_rp_note(rp, note);
        return;
    }
    importance_fig(rp, an, KTUNE_TARGET_TIME);
    importance_fig(rp, an, KTUNE_TARGET_ENERGY);
    ktune_importance imp[PD_TOP];
    size_t n = ktune_analysis_importance(an, KTUNE_TARGET_TIME, imp, PD_TOP);
    for (size_t i = 0; i < n; i++)
        dependence_fig(rp, an, imp[i].feature, i + 1);
    ktune_analysis_free(an);
}

void kt_rp_analysis(kt_rp *rp, const kt_rp_kernel *k)
{
    if (!rp->analysis)
        return;
    /* each device once, in the order of its largest run */
    for (size_t r = 0; r < k->nruns; r++) {
        bool seen = false;
        for (size_t q = 0; q < r && !seen; q++)
            seen = strcmp(k->runs[q].rows[0].device, k->runs[r].rows[0].device) == 0;
        if (!seen)
            device_analysis(rp, k, k->runs[r].rows[0].device);
    }
}
