/* evaluate.c - `ktune evaluate`: the paper's metrics on a model's held-out
 * samples, for several beam widths, constrained or not. */
#include "cli.h"

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
    "  --spec FILE         the kernel's space (default KERNEL.json among the MIOpen\n"
    "                      solvers' spaces: PREFIX/share/ktune/kernels/miopen, or\n"
    "                      kernels/miopen of the repository ktune was built in)\n"
    "  --limit N           evaluate only the first N held-out samples\n"
    "  --db FILE           accepted for symmetry with train; the model holds\n"
    "                      its held-out samples\n"
    "  --json              one JSON object on stdout\n"
    "  --help              this text\n\n"
    CLI_EXIT_STATUS;

typedef struct eval_args {
    const char *model, *spec;
    ktune_eval_opts eval;
    uint64_t limit;
    bool json;
} eval_args;

static int parse_widths(const char *text, ktune_eval_opts *o)
{
    o->nwidths = 0;
    for (const char *s = text; *s;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 10000 || o->nwidths == KTUNE_EVAL_MAX_WIDTHS ||
            (*end && *end != ','))
            return cli_usage_error("evaluate", "--beam expects widths like 1,10,100");
        o->widths[o->nwidths++] = (size_t)v;
        s = end + (*end == ',');
    }
    return o->nwidths ? CLI_OK : cli_usage_error("evaluate", "--beam is empty");
}

static int parse(int argc, char **argv, eval_args *a)
{
    static const struct option LONG[] = {
        {"model", required_argument, 0, 'm'}, {"beam", required_argument, 0, 'b'},
        {"unconstrained", no_argument, 0, 'u'}, {"spec", required_argument, 0, 's'},
        {"limit", required_argument, 0, 'l'}, {"db", required_argument, 0, 'd'},
        {"json", no_argument, 0, 'j'},         {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c, rc = CLI_OK; /* the widths: ktune_eval_opts_init's, unless --beam */
    optind = 1;
    while (rc == CLI_OK && (c = cli_getopt("evaluate", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'm': a->model = optarg; break;
        case 'b': rc = parse_widths(optarg, &a->eval); break;
        case 'u': a->eval.unconstrained = true; break;
        case 's': a->spec = optarg; break;
        case 'l':
            rc = cli_parse_range("evaluate", "--limit", optarg, 1, SIZE_MAX, &a->limit);
            break;
        case 'd': break;
        case 'j': a->json = true; break;
        case 'h': fputs(USAGE, stdout); return -1;
        default: return CLI_USAGE;
        }
    }
    a->eval.limit = (size_t)a->limit;
    if (rc == CLI_OK && (!a->model || optind != argc))
        rc = cli_usage_error("evaluate", "--model MODEL is required");
    return rc;
}

static void report(const ktune_model *m, const eval_args *a, const ktune_eval_report *r)
{
    ktune_model_info info;
    ktune_model_describe(m, &info);
    const ktune_eval_opts *o = &a->eval;
    if (!a->json) {
        printf("%s %s%s%s: %zu held-out samples, %s beam search\n", info.method,
               info.kernel, *info.where ? " where " : "", info.where, r->samples,
               o->unconstrained ? "unconstrained" : "constrained");
        char valid[32] = "n/a (no spec)";
        if (!isnan(r->valid))
            snprintf(valid, sizeof valid, "%.2f%%", r->valid);
        printf("average accuracy %.2f%%, valid top-1 %s, %.3f ms per query at k=%zu\n",
               r->avg_accuracy, valid, r->ms_per_query, r->kmax);
        for (size_t w = 0; w < o->nwidths; w++)
            printf("perfect top-%-4zu %.2f%%\n", o->widths[w], r->perfect[w]);
        return;
    }
    json_object *j = json_object_new_object(), *perfect = json_object_new_object();
    json_object_object_add(j, "model", json_object_new_string(info.method));
    json_object_object_add(j, "kernel", json_object_new_string(info.kernel));
    json_object_object_add(j, "where", json_object_new_string(info.where));
    json_object_object_add(j, "constrained", json_object_new_boolean(!o->unconstrained));
    json_object_object_add(j, "test_samples", json_object_new_int64((int64_t)r->samples));
    json_object_object_add(j, "avg_accuracy", cli_json_double(r->avg_accuracy));
    for (size_t w = 0; w < o->nwidths; w++) {
        char k[24];
        snprintf(k, sizeof k, "%zu", o->widths[w]);
        json_object_object_add(perfect, k, cli_json_double(r->perfect[w]));
    }
    json_object_object_add(j, "perfect", perfect);
    json_object_object_add(j, "valid", cli_json_double(r->valid));
    json_object_object_add(j, "ms_per_query", cli_json_double(r->ms_per_query));
    cli_json_print(j);
}

int cli_evaluate(int argc, char **argv)
{
    eval_args a = {0};
    ktune_eval_opts_init(&a.eval);
    a.eval.warn = cli_warn;
    int rc = parse(argc, argv, &a);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    ktune_diag diag = {{0}};
    ktune_model *m = NULL;
    if (ktune_model_load(a.model, &m, &diag) != KTUNE_OK)
        return cli_error("%s", diag.msg);
    ktune_model_info info;
    ktune_model_describe(m, &info);
    char *spec = cli_miopen_spec(a.spec, info.kernel);
    a.eval.spec_path = spec && access(spec, R_OK) == 0 ? spec : NULL;
    ktune_eval_report r;
    if (!spec)
        rc = cli_error("out of memory");
    else if (!a.eval.spec_path && !a.eval.unconstrained)
        rc = cli_error("no space for kernel '%s' at '%s': the constrained search needs "
                       "one (hint: --spec FILE, or --unconstrained)", info.kernel, spec);
    else if (ktune_model_evaluate(m, &a.eval, &r, &diag) != KTUNE_OK)
        rc = cli_error("%s", diag.msg);
    else
        report(m, &a, &r);
    free(spec);
    ktune_model_free(m);
    return rc;
}
