/* evaluate.c - `ktune evaluate`: the paper's metrics on a model's held-out
 * samples, for several beam widths, constrained or not. */
#include "cli/cli.h"
#include "core/util.h"
#include "ml/predict.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char USAGE[] =
    "usage: ktune evaluate --model MODEL [--beam 1,10,30,50,100] [--unconstrained]\n"
    "                      [--spec FILE] [--limit N] [--json]\n\n"
    "Predict the held-out samples kept in MODEL and report the average accuracy\n"
    "(mean over parameters of the fraction predicted right, top-1), perfect\n"
    "prediction (the whole configuration right) among the top k for each beam\n"
    "width, and the share of top-1 predictions that are valid configurations.\n\n"
    "  --beam K,...        beam widths (default 1,10,30,50,100)\n"
    "  --unconstrained     plain beam search (default: prefixes that cannot be\n"
    "                      completed validly are dropped)\n"
    "  --spec FILE         the kernel's space (default kernels/miopen/KERNEL.json)\n"
    "  --limit N           evaluate only the first N held-out samples\n"
    "  --db FILE           accepted for symmetry with train; the model holds\n"
    "                      its held-out samples\n"
    "  --json              one JSON object on stdout\n"
    "  --help              this text\n\n"
    CLI_EXIT_STATUS;

#define MAX_WIDTHS 16

typedef struct eval_opts {
    const char *model, *spec;
    size_t widths[MAX_WIDTHS], nwidths, kmax;
    uint64_t limit;
    bool unconstrained, json;
} eval_opts;

typedef struct tally {
    size_t samples, right_params, valid, checked;
    size_t perfect[MAX_WIDTHS];
    double seconds;
} tally;

static int parse_widths(const char *text, eval_opts *o)
{
    o->nwidths = o->kmax = 0;
    for (const char *s = text; *s;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 10000 || o->nwidths == MAX_WIDTHS ||
            (*end && *end != ','))
            return cli_usage_error("evaluate", "--beam expects widths like 1,10,100");
        o->widths[o->nwidths++] = (size_t)v;
        o->kmax = (size_t)v > o->kmax ? (size_t)v : o->kmax;
        s = end + (*end == ',');
    }
    return o->nwidths ? CLI_OK : cli_usage_error("evaluate", "--beam is empty");
}

static int parse(int argc, char **argv, eval_opts *o)
{
    static const struct option LONG[] = {
        {"model", required_argument, 0, 'm'}, {"beam", required_argument, 0, 'b'},
        {"unconstrained", no_argument, 0, 'u'}, {"spec", required_argument, 0, 's'},
        {"limit", required_argument, 0, 'l'}, {"db", required_argument, 0, 'd'},
        {"json", no_argument, 0, 'j'},         {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c, rc = parse_widths("1,10,30,50,100", o);
    optind = 1;
    while (rc == CLI_OK && (c = cli_getopt("evaluate", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'm': o->model = optarg; break;
        case 'b': rc = parse_widths(optarg, o); break;
        case 'u': o->unconstrained = true; break;
        case 's': o->spec = optarg; break;
        case 'l':
            rc = cli_parse_range("evaluate", "--limit", optarg, 1, UINT64_MAX, &o->limit);
            break;
        case 'd': break;
        case 'j': o->json = true; break;
        case 'h': fputs(USAGE, stdout); return -1;
        default: return CLI_USAGE;
        }
    }
    if (rc == CLI_OK && (!o->model || optind != argc))
        rc = cli_usage_error("evaluate", "--model MODEL is required");
    return rc;
}

/* Score one held-out sample into the tally. */
static int eval_sample(const kt_model *m, kt_constraint *c, const eval_opts *o,
                       size_t i, uint16_t *beams, tally *t, kt_diag *diag)
{
    kt_model_info info;
    kt_model_describe(m, &info);
    size_t found = 0;
    double t0 = kt_now();
    int rc = kt_predict(m, o->unconstrained ? NULL : c, kt_model_test_problem(m, i),
                        o->kmax, beams, NULL, &found, diag);
    t->seconds += kt_now() - t0;
    if (rc != KT_OK)
        return rc;
    const uint16_t *want = kt_model_test_target(m, i);
    t->samples++;
    size_t rank = found; /* where the true configuration is, if found */
    for (size_t b = 0; b < found && rank == found; b++)
        if (memcmp(beams + b * info.nout, want, info.nout * sizeof *want) == 0)
            rank = b;
    for (size_t w = 0; w < o->nwidths; w++)
        t->perfect[w] += rank < o->widths[w];
    for (size_t p = 0; found && p < info.nout; p++)
        t->right_params += beams[p] == want[p];
    if (c) { /* finding nothing counts as no valid prediction */
        if (o->unconstrained) /* the unconstrained search did not bind it */
            rc = kt_constraint_bind(c, kt_model_test_problem(m, i), diag);
        t->valid += rc == KT_OK && found && kt_constraint_valid(c, beams);
        t->checked++;
    }
    return rc;
}

static double pct(size_t a, size_t b) { return b ? 100.0 * (double)a / (double)b : NAN; }

static void report(const kt_model *m, const eval_opts *o, const tally *t)
{
    kt_model_info info;
    kt_model_describe(m, &info);
    double acc = pct(t->right_params, t->samples * info.nout);
    double ms = t->samples ? t->seconds / (double)t->samples * 1e3 : NAN;
    if (!o->json) {
        printf("%s %s%s%s: %zu held-out samples, %s beam search\n", info.method,
               info.kernel, *info.where ? " where " : "", info.where, t->samples,
               o->unconstrained ? "unconstrained" : "constrained");
        char valid[32] = "n/a (no spec)";
        if (t->checked)
            snprintf(valid, sizeof valid, "%.2f%%", pct(t->valid, t->checked));
        printf("average accuracy %.2f%%, valid top-1 %s, %.3f ms per query at k=%zu\n",
               acc, valid, ms, o->kmax);
        for (size_t w = 0; w < o->nwidths; w++)
            printf("perfect top-%-4zu %.2f%%\n", o->widths[w], pct(t->perfect[w], t->samples));
        return;
    }
    json_object *j = json_object_new_object(), *perfect = json_object_new_object();
    json_object_object_add(j, "model", json_object_new_string(info.method));
    json_object_object_add(j, "kernel", json_object_new_string(info.kernel));
    json_object_object_add(j, "where", json_object_new_string(info.where));
    json_object_object_add(j, "constrained", json_object_new_boolean(!o->unconstrained));
    json_object_object_add(j, "test_samples", json_object_new_int64((int64_t)t->samples));
    json_object_object_add(j, "avg_accuracy", cli_json_double(acc));
    for (size_t w = 0; w < o->nwidths; w++) {
        char k[24];
        snprintf(k, sizeof k, "%zu", o->widths[w]);
        json_object_object_add(perfect, k, cli_json_double(pct(t->perfect[w], t->samples)));
    }
    json_object_object_add(j, "perfect", perfect);
    json_object_object_add(j, "valid", cli_json_double(pct(t->valid, t->checked)));
    json_object_object_add(j, "ms_per_query", cli_json_double(ms));
    cli_json_print(j);
}

int cli_evaluate(int argc, char **argv)
{
    eval_opts o = {0};
    int rc = parse(argc, argv, &o);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    kt_diag diag = {{0}};
    kt_model *m = NULL;
    kt_constraint *c = NULL;
    uint16_t *beams = NULL;
    tally t = {0};
    if (kt_model_load(o.model, &m, &diag) != KT_OK)
        return cli_error("%s", diag.msg);
    kt_model_info info;
    kt_model_describe(m, &info);
    if (info.ntest == 0) {
        kt_model_free(m);
        return cli_error("%s holds out no problems (trained with --holdout 0): "
                         "nothing to evaluate", o.model);
    }
    char *spec = o.spec ? kt_strdup(o.spec) : kt_asprintf("kernels/miopen/%s.json", info.kernel);
    bool have_spec = spec && access(spec, R_OK) == 0;
    if (!have_spec && !o.unconstrained)
        rc = cli_error("no space for kernel '%s' at '%s': the constrained search needs "
                       "one (hint: --spec FILE, or --unconstrained)", info.kernel,
                       spec ? spec : "?");
    else if (have_spec && kt_constraint_new(spec, &info, &c, &diag) != KT_OK)
        rc = cli_error("%s", diag.msg);
    if (rc == CLI_OK && !(beams = malloc(o.kmax * (info.nout + 1) * sizeof *beams)))
        rc = cli_error("out of memory");
    size_t n = o.limit && o.limit < info.ntest ? (size_t)o.limit : info.ntest;
    for (size_t i = 0; rc == CLI_OK && i < n; i++)
        if (eval_sample(m, c, &o, i, beams, &t, &diag) != KT_OK)
            rc = cli_error("%s", diag.msg);
    if (rc == CLI_OK)
        report(m, &o, &t);
    free(beams);
    free(spec);
    kt_constraint_free(c);
    kt_model_free(m);
    return rc;
}
