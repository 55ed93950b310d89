/* analyze.c - `ktune analyze`: what makes one kernel fast and frugal, from
 * the results database (ktune_analyze in the library); this file parses
 * and prints. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: ktune analyze --kernel NAME [--db FILE] [--device NAME] [--problem KEY]\n"
    "                     [--target LIST] [--folds K] [--rounds N] [--top K]\n"
    "                     [--derived N] [--no-weights] [--reading-noise F]\n"
    "                     [--repeats N]\n"
    "                     [--seed N] [--threads N]\n"
    "                     [--json]\n\n"
    "Learn the kernel's time, energy and power per call from its tuning\n"
    "parameters and problem fields (gradient-boosted trees, XGBoost), over\n"
    "every ok measurement of it in the database, own or imported; report\n"
    "how well each model predicts configurations it was not trained on\n"
    "(k-fold cross-validation over configurations: R-squared in the\n"
    "target's units and of its log, mean absolute percentage error,\n"
    "Spearman's rank correlation), which parameters matter where it counts\n"
    "(ranked by what fixing each at its worst value costs the best\n"
    "configuration by the held-out predictions, +- their error there) and on\n"
    "average (the mean absolute TreeSHAP contribution to the predicted log:\n"
    "0.1 moves a typical configuration by about 10%), their strongest\n"
    "interactions, the partial dependence of the top parameters, and an\n"
    "ablation on the measurements: the best time with each parameter fixed\n"
    "at its worst value, over the best time, which should be largest for the\n"
    "parameter ranked first; costs within twice the noise of their\n"
    "difference (from the repetitions' spread, and --reading-noise) are a\n"
    "tie.\n\n"
    "options:\n"
    "  --kernel NAME       the kernel (required; 'ktune db best' lists them)\n"
    "  --db FILE           results database (default ktune.db)\n"
    "  --device NAME       its device, when the kernel's rows have several\n"
    "  --problem KEY       only this problem (default: every problem of the\n"
    "                      kernel, whose fields that vary are features)\n"
    "  --target LIST       models to make, of time, energy, power, e.g.\n"
    "                      time,energy; each must have readings (default: time,\n"
    "                      and energy and power where enough rows have them)\n"
    "  --folds K           cross-validation folds, 2 to 20 (default 5)\n"
    "  --rounds N          boosting rounds (default 300)\n"
    "  --top K             parameters with a partial dependence (default 3)\n"
    "  --derived N         derived features each model may use: products of\n"
    "                      two or three numeric tuning parameters, ratios of\n"
    "                      two and odd parts (a power of two or not), those a\n"
    "                      model of the training rows leans on most, where an\n"
    "                      inner cross-validation finds they help clearly;\n"
    "                      they feed the fit and the ranking, while SHAP and\n"
    "                      partial dependence use the parameters alone\n"
    "                      (default 16; 0: none)\n"
    "  --no-weights        every row weighs the same (default: an inner\n"
    "                      cross-validation may weight each row by its time,\n"
    "                      so that a model of the log counts errors in ms)\n"
    "  --reading-noise F   the relative noise of one time reading between\n"
    "                      runs (0.01: 1%), beyond its repetitions' spread,\n"
    "                      added to each time's before the ablation calls two\n"
    "                      costs a tie (default 0; at most 0.5): readings of a\n"
    "                      configuration minutes apart differ more than its\n"
    "                      repetitions do\n"
    "  --repeats N         cross-validations, each with its own folds (fold\n"
    "                      seeds S, S + 1, ... from --seed S), 1 to 20: the\n"
    "                      fit's figures are their means, with R-squared's\n"
    "                      standard deviation beside (default 1; on a few\n"
    "                      hundred rows R-squared moves by hundredths with\n"
    "                      the folds)\n"
    "  --seed N            folds and samples (default 1)\n"
    "  --threads N         XGBoost's threads (default 1)\n"
    "  --json              one JSON object on stdout\n"
    "  --help              this text\n\n"
    CLI_EXIT_STATUS;

typedef struct an_args {
    const char *db;
    ktune_analyze_opts o;
    bool json;
} an_args;

static int parse_targets(const char *text, unsigned *mask)
{
    char *copy = strdup(text), *save = NULL;
    if (!copy)
        return cli_error("out of memory");
    int rc = CLI_OK;
    *mask = 0;
    for (char *t = strtok_r(copy, ",", &save); t && rc == CLI_OK; t = strtok_r(NULL, ",", &save)) {
        ktune_target tg;
        if (ktune_target_parse(t, &tg) != KTUNE_OK)
            rc = cli_usage_error("analyze", "--target: unknown target '%s' (time, energy, "
                                 "power)", t);
        else
            *mask |= 1u << tg;
    }
    free(copy);
    return rc == CLI_OK && !*mask ? cli_usage_error("analyze", "--target is empty") : rc;
}

/* A numeric option into an unsigned or size_t field. */
static int parse_num(const char *opt, const char *text, uint64_t lo, uint64_t hi,
                     uint64_t *out)
{
    return cli_parse_range("analyze", opt, text, lo, hi, out);
}

/* --reading-noise: a fraction, at most 0.5. */
static int parse_noise(const char *text, double *out)
{
    int rc = cli_parse_fraction("analyze", "--reading-noise", text, out);
    if (rc == CLI_OK && *out > 0.5)
        rc = cli_usage_error("analyze", "--reading-noise must be at most 0.5, not '%s'",
                             text);
    return rc;
}

static int parse_opt(int c, an_args *a)
{
    uint64_t v = 0;
    int rc = CLI_OK;
    switch (c) {
    case 'k': a->o.kernel = optarg; break;
    case 'd': a->db = optarg; break;
    case 'D': a->o.device = optarg; break;
    case 'p': a->o.problem = optarg; break;
    case 't': rc = parse_targets(optarg, &a->o.targets); break;
    case 'f': rc = parse_num("--folds", optarg, 2, 20, &v), a->o.folds = (unsigned)v; break;
    case 'r': rc = parse_num("--rounds", optarg, 1, 100000, &v), a->o.rounds = (unsigned)v; break;
    case 'T': rc = parse_num("--top", optarg, 0, 1000, &v), a->o.top = (size_t)v; break;
    case 'x': rc = parse_num("--derived", optarg, 0, 1000, &v), a->o.derived = (size_t)v; break;
    case 'w': a->o.weights = false; break;
    case 'N': rc = parse_noise(optarg, &a->o.reading_noise); break;
    case 'R': rc = parse_num("--repeats", optarg, 1, 20, &v), a->o.repeats = (unsigned)v; break;
    case 's': rc = cli_parse_u64("analyze", "--seed", optarg, &a->o.seed); break;
    case 'n': rc = parse_num("--threads", optarg, 1, 1024, &v), a->o.threads = (unsigned)v; break;
    case 'j': a->json = true; break;
    default: rc = CLI_USAGE;
    }
    return rc;
}

static int parse(int argc, char **argv, an_args *a)
{
    static const struct option LONG[] = {
        {"kernel", required_argument, 0, 'k'}, {"db", required_argument, 0, 'd'},
        {"device", required_argument, 0, 'D'}, {"problem", required_argument, 0, 'p'},
        {"target", required_argument, 0, 't'}, {"folds", required_argument, 0, 'f'},
        {"rounds", required_argument, 0, 'r'}, {"top", required_argument, 0, 'T'},
        {"seed", required_argument, 0, 's'},   {"threads", required_argument, 0, 'n'},
        {"derived", required_argument, 0, 'x'}, {"no-weights", no_argument, 0, 'w'},
        {"reading-noise", required_argument, 0, 'N'}, {"repeats", required_argument, 0, 'R'},
        {"json", no_argument, 0, 'j'},         {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c, rc = CLI_OK;
    optind = 1;
    while (rc == CLI_OK && (c = cli_getopt("analyze", argc, argv, LONG)) != -1) {
        if (c == 'h') {
            fputs(USAGE, stdout);
            return -1;
        }
        rc = parse_opt(c, a);
    }
    if (rc == CLI_OK && optind != argc)
        rc = cli_usage_error("analyze", "unexpected argument '%s'", argv[optind]);
    if (rc == CLI_OK && !a->o.kernel)
        rc = cli_usage_error("analyze", "--kernel NAME is required");
    return rc;
}

/* ---------------------------------------------------------------- text */

static const char *UNITS[KTUNE_TARGET_COUNT] = {"ms", "J", "W"};

/* The fits; with repeats, R2's standard deviation over them beside it. */
static void print_fits(const ktune_analysis *an, bool sd)
{
    printf("%-7s %6s %7s%s %8s %7s %9s %8s\n", "model", "rows", "R2", sd ? "   +-sd" : "",
           "R2(log)", "MAPE", "Spearman", "seconds");
    for (int t = 0; t < KTUNE_TARGET_COUNT; t++) {
        ktune_fit f;
        if (ktune_analysis_fit(an, (ktune_target)t, &f) != KTUNE_OK)
            continue;
        printf("%-7s %6zu %7.3f", ktune_target_name(t), f.rows, f.r2);
        if (sd)
            printf(" %6.3f", f.r2_sd);
        printf(" %8.3f %6.1f%% %9.3f %8.1f\n", f.r2_log, f.mape, f.spearman, f.seconds);
    }
}

static void print_target(const ktune_analysis *an, ktune_target t, size_t nf)
{
    ktune_importance *imp = calloc(nf + 1, sizeof *imp);
    ktune_interaction inter[5];
    ktune_dependence dep[32];
    size_t n = imp ? ktune_analysis_importance(an, t, imp, nf) : 0;
    if (!n) {
        free(imp);
        return;
    }
    printf("\n%s: importance (cost of the worst value at the best configuration, by the "
           "held-out predictions, +- their error; worst / best value by the SHAP contribution "
           "at each value's fastest rows; mean |SHAP|, share)\n", ktune_target_name(t));
    for (size_t i = 0; i < n; i++) {
        printf("  %2zu. %-16s ", i + 1, ktune_analysis_feature(an, imp[i].feature));
        if (isnan(imp[i].cost))
            printf("%-21s", "(problem field)");
        else
            printf("%6.3fx +-%4.1f%% at %-4s", imp[i].cost, 100 * expm1(imp[i].cost_sd),
                   imp[i].worst);
        printf(" %7.3fx %8.4f %5.1f%%\n", exp(imp[i].range), imp[i].mean_abs,
               100 * imp[i].share);
    }
    size_t ni = ktune_analysis_interactions(an, t, inter, 5);
    if (ni)
        printf("  strongest interactions:");
    for (size_t i = 0; i < ni; i++)
        printf("%s %s x %s %.4f", i ? "," : "", ktune_analysis_feature(an, inter[i].a),
               ktune_analysis_feature(an, inter[i].b), inter[i].mean_abs);
    printf(ni ? "\n" : "");
    for (size_t i = 0; i < n; i++) {
        size_t nd = ktune_analysis_dependence(an, t, imp[i].feature, dep, 32);
        if (!nd)
            continue;
        printf("  partial dependence of %s (%s):", ktune_analysis_feature(an, imp[i].feature),
               UNITS[t]);
        for (size_t k = 0; k < nd; k++)
            printf(" %s:%.4g", dep[k].value, dep[k].mean);
        printf("\n");
    }
    free(imp);
}

/* What the check says, in one line: about the first parameter that ties
 * with the top-ranked one, or the costliest that disagrees. */
static void print_verdict(const ktune_analysis *an, const ktune_ablation *ab, size_t n)
{
    size_t worst = 0, tie = 0;
    for (size_t i = 1; i < n; i++) {
        if (ab[i].check == KTUNE_CHECK_DISAGREE && (!worst || ab[i].cost > ab[worst].cost))
            worst = i;
        if (ab[i].check == KTUNE_CHECK_TIE && !tie)
            tie = i;
    }
    const char *first = ktune_analysis_feature(an, ab[0].feature);
    switch (ktune_analysis_check(an)) {
    case KTUNE_CHECK_AGREE:
        printf("importance agrees with ablation: %s, ranked first, costs the most\n", first);
        break;
    case KTUNE_CHECK_TIE:
        printf("importance ties with ablation within noise: %s, ranked first, costs %.3fx, "
               "%s (ranked %zu) %.3fx, within twice the noise (sd %.1f%%)\n", first,
               ab[0].cost, ktune_analysis_feature(an, ab[tie].feature), tie + 1,
               ab[tie].cost, 100 * ab[tie].sd);
        break;
    default:
        printf("importance disagrees with ablation: %s, ranked %zu, costs %.3fx, more than "
               "%s (ranked first, %.3fx)\n", ktune_analysis_feature(an, ab[worst].feature),
               worst + 1, ab[worst].cost, first, ab[0].cost);
    }
}

static void print_ablation(const ktune_analysis *an, const ktune_analysis_info *in)
{
    size_t nf = in->features;
    ktune_ablation *ab = calloc(nf + 1, sizeof *ab);
    size_t n = ab ? ktune_analysis_ablation(an, ab, nf, NULL) : 0;
    if (n) {
        printf("\nablation (best time with the parameter at its worst value / best time, "
               "measured; the noise of its difference from the first's");
        if (in->reading_noise > 0)
            printf(", with %.1f%% a reading between runs", 100 * in->reading_noise);
        printf("), in the time model's order:\n");
        for (size_t i = 0; i < n; i++) {
            printf("  %2zu. %-16s %8.3fx  at %s", i + 1,
                   ktune_analysis_feature(an, ab[i].feature), ab[i].cost, ab[i].worst);
            int pad = 6 - (int)strlen(ab[i].worst);
            if (i && isnan(ab[i].sd))
                printf("%*s sd unknown (no repetitions)", pad > 0 ? pad : 0, "");
            else if (i)
                printf("%*s sd %.1f%%", pad > 0 ? pad : 0, "", 100 * ab[i].sd);
            printf("\n");
        }
        print_verdict(an, ab, n);
    }
    free(ab);
}

static void print_text(const ktune_analysis *an)
{
    ktune_analysis_info in;
    ktune_analysis_describe(an, &in);
    printf("%s on %s: %zu configurations, %zu problem%s, %zu features (%zu tuning "
           "parameters), %u-fold cross-validation", in.kernel, in.device, in.rows,
           in.problems, in.problems == 1 ? "" : "s", in.features, in.tuning, in.folds);
    if (in.repeats > 1)
        printf(", %u times with other folds (means)", in.repeats);
    printf("\n");
    print_fits(an, in.repeats > 1);
    for (int t = 0; t < KTUNE_TARGET_COUNT; t++)
        print_target(an, (ktune_target)t, in.features);
    print_ablation(an, &in);
}

/* ---------------------------------------------------------------- JSON */

/* A new object naming feature f ("feature": its name). */
static json_object *feature_entry(const ktune_analysis *an, size_t f)
{
    json_object *e = json_object_new_object();
    json_object_object_add(e, "feature", json_object_new_string(ktune_analysis_feature(an, f)));
    return e;
}

/* Feature f's partial dependence for target t, or NULL where it has none. */
static json_object *dependence_json(const ktune_analysis *an, ktune_target t, size_t f)
{
    ktune_dependence d[32];
    size_t nd = ktune_analysis_dependence(an, t, f, d, 32);
    json_object *pts = nd ? json_object_new_array() : NULL;
    for (size_t k = 0; k < nd; k++) {
        json_object *p = json_object_new_object();
        json_object_object_add(p, "value", json_object_new_string(d[k].value));
        json_object_object_add(p, "mean", cli_json_double(d[k].mean));
        json_object_array_add(pts, p);
    }
    return pts;
}

/* Target t's importance into o, with the partial dependences. */
static void importance_json(const ktune_analysis *an, ktune_target t, size_t nf, json_object *o)
{
    json_object *imp = json_object_new_array(), *dep = json_object_new_object();
    ktune_importance *im = calloc(nf + 1, sizeof *im);
    size_t n = im ? ktune_analysis_importance(an, t, im, nf) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = feature_entry(an, im[i].feature);
        json_object_object_add(e, "range", cli_json_double(im[i].range));
        json_object_object_add(e, "mean_abs", cli_json_double(im[i].mean_abs));
        json_object_object_add(e, "share", cli_json_double(im[i].share));
        json_object_object_add(e, "cost", cli_json_double(im[i].cost));
        json_object_object_add(e, "cost_sd", cli_json_double(im[i].cost_sd));
        json_object_object_add(e, "worst", im[i].worst ? json_object_new_string(im[i].worst)
                                                       : NULL);
        json_object_array_add(imp, e);
        json_object *pts = dependence_json(an, t, im[i].feature);
        if (pts)
            json_object_object_add(dep, ktune_analysis_feature(an, im[i].feature), pts);
    }
    free(im);
    json_object_object_add(o, "importance", imp);
    json_object_object_add(o, "interactions", NULL); /* placeholder keeps the order */
    json_object_object_add(o, "dependence", dep);
}

static json_object *interactions_json(const ktune_analysis *an, ktune_target t)
{
    json_object *inter = json_object_new_array();
    ktune_interaction in[10];
    size_t ni = ktune_analysis_interactions(an, t, in, 10);
    for (size_t i = 0; i < ni; i++) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "a", json_object_new_string(ktune_analysis_feature(an, in[i].a)));
        json_object_object_add(e, "b", json_object_new_string(ktune_analysis_feature(an, in[i].b)));
        json_object_object_add(e, "mean_abs", cli_json_double(in[i].mean_abs));
        json_object_array_add(inter, e);
    }
    return inter;
}

static json_object *target_json(const ktune_analysis *an, ktune_target t, size_t nf)
{
    ktune_fit f;
    if (ktune_analysis_fit(an, t, &f) != KTUNE_OK)
        return NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "rows", json_object_new_int64((int64_t)f.rows));
    json_object_object_add(o, "r2", cli_json_double(f.r2));
    json_object_object_add(o, "r2_log", cli_json_double(f.r2_log));
    json_object_object_add(o, "mape", cli_json_double(f.mape));
    json_object_object_add(o, "spearman", cli_json_double(f.spearman));
    json_object_object_add(o, "seconds", cli_json_double(f.seconds));
    json_object_object_add(o, "r2_sd", cli_json_double(f.r2_sd));
    importance_json(an, t, nf, o);
    json_object_object_add(o, "interactions", interactions_json(an, t));
    return o;
}

static json_object *ablation_json(const ktune_analysis *an, size_t nf, bool *agrees)
{
    json_object *arr = json_object_new_array();
    ktune_ablation *ab = calloc(nf + 1, sizeof *ab);
    size_t n = ab ? ktune_analysis_ablation(an, ab, nf, agrees) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = feature_entry(an, ab[i].feature);
        json_object_object_add(e, "rank", json_object_new_int64((int64_t)i + 1));
        json_object_object_add(e, "worst", json_object_new_string(ab[i].worst));
        json_object_object_add(e, "cost", cli_json_double(ab[i].cost));
        json_object_object_add(e, "sd", cli_json_double(ab[i].sd));
        json_object_object_add(e, "check", json_object_new_string(ktune_check_name(ab[i].check)));
        json_object_array_add(arr, e);
    }
    free(ab);
    return arr;
}

static void print_json(const ktune_analysis *an)
{
    ktune_analysis_info in;
    ktune_analysis_describe(an, &in);
    json_object *j = json_object_new_object(), *feat = json_object_new_array(),
                *models = json_object_new_object();
    json_object_object_add(j, "kernel", json_object_new_string(in.kernel));
    json_object_object_add(j, "device", json_object_new_string(in.device));
    json_object_object_add(j, "rows", json_object_new_int64((int64_t)in.rows));
    json_object_object_add(j, "problems", json_object_new_int64((int64_t)in.problems));
    json_object_object_add(j, "folds", json_object_new_int64(in.folds));
    json_object_object_add(j, "repeats", json_object_new_int64(in.repeats));
    for (size_t i = 0; i < in.features; i++)
        json_object_array_add(feat, json_object_new_string(ktune_analysis_feature(an, i)));
    json_object_object_add(j, "features", feat);
    json_object_object_add(j, "tuning", json_object_new_int64((int64_t)in.tuning));
    for (int t = 0; t < KTUNE_TARGET_COUNT; t++) {
        json_object *m = target_json(an, (ktune_target)t, in.features);
        if (m)
            json_object_object_add(models, ktune_target_name(t), m);
    }
    json_object_object_add(j, "models", models);
    bool agrees = false;
    json_object_object_add(j, "ablation", ablation_json(an, in.features, &agrees));
    json_object_object_add(j, "ablation_agrees", json_object_new_boolean(agrees));
    json_object_object_add(j, "reading_noise", json_object_new_double(in.reading_noise));
    json_object_object_add(j, "ablation_check",
                           json_object_new_string(ktune_check_name(ktune_analysis_check(an))));
    cli_json_print(j);
}

int cli_analyze(int argc, char **argv)
{
    an_args a = {.db = "ktune.db"};
    ktune_analyze_opts_init(&a.o);
    int rc = parse(argc, argv, &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    ktune_diag diag = {{0}};
    ktune_db *db = NULL;
    ktune_analysis *an = NULL;
    if (ktune_db_open(a.db, 0, &db, &diag) != KTUNE_OK)
        return cli_error("%s", diag.msg);
    if (ktune_analyze(db, &a.o, &an, &diag) != KTUNE_OK)
        rc = cli_error("%s", diag.msg);
    else if (a.json)
        print_json(an);
    else
        print_text(an);
    ktune_analysis_free(an);
    ktune_db_close(db);
    return rc;
}
