/* predict.c - `ktune predict`: the k most likely configurations of a model
 * for one problem, valid under the kernel's conditions. */
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
    "usage: ktune predict --model MODEL --problem F=V,... [--top K]\n"
    "                     [--spec FILE | --unconstrained] [--json]\n\n"
    "Print the K most likely configurations for the problem, best first, with\n"
    "their log-probability; with the kernel's space (default\n"
    "kernels/miopen/KERNEL.json) every one is a valid configuration.\n\n"
    "  --problem F=V,...   the problem's descriptor fields (as stored, e.g.\n"
    "                      in_channels=64,in_h=28,...); missing fields count\n"
    "                      as unknown\n"
    "  --top K             how many (default 10)\n"
    "  --spec FILE         the kernel's space\n"
    "  --unconstrained     plain beam search\n"
    "  --json              a JSON array on stdout, best first: each prediction's\n"
    "                      config (an object), key and log_prob\n"
    "  --help              this text\n\n"
    CLI_EXIT_STATUS;

/* One prediction: a line "KEY  LOGP", or with list (--json) an object
 * added to it. */
static int print_config(const kt_model_info *info, const uint16_t *tokens, double lp,
                        json_object *list)
{
    kt_buf b = {0};
    kt_buf_append(&b, "");
    for (size_t p = 0; p < info->nout; p++)
        kt_buf_appendf(&b, "%s%s=%s", p ? "," : "", info->out_names[p],
                       info->out_vocab[p].words[tokens[p]]);
    char *key = kt_buf_take(&b);
    if (!key)
        return cli_error("out of memory");
    if (list) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "config", cli_config_json(key));
        json_object_object_add(o, "key", json_object_new_string(key));
        json_object_object_add(o, "log_prob", cli_json_double(lp));
        json_object_array_add(list, o);
    } else {
        printf("%s  %.4f\n", key, lp);
    }
    free(key);
    return CLI_OK;
}

/* --problem F=V,...: each F a descriptor field of the model, once. */
static int check_problem(const kt_model_info *info, const char *problem)
{
    char **names, **values;
    size_t n;
    if (kt_key_fields(problem, &names, &values, &n) != KT_OK)
        return cli_usage_error("predict", "--problem expects F=V,..., not '%s'", problem);
    int rc = CLI_OK;
    for (size_t i = 0; rc == CLI_OK && i < n; i++) {
        size_t f = 0;
        while (f < info->nin && strcmp(info->in_names[f], names[i]) != 0)
            f++;
        for (size_t j = 0; j < i; j++)
            if (strcmp(names[j], names[i]) == 0)
                rc = cli_usage_error("predict", "--problem sets '%s' twice", names[i]);
        if (rc == CLI_OK && f == info->nin) {
            char *fields = cli_join(info->in_names, info->nin);
            rc = cli_usage_error("predict", "--problem: '%s' is not a field of the "
                                 "model's problems (%s)", names[i], fields ? fields : "");
            free(fields);
        }
    }
    kt_key_fields_free(names, values, n);
    return rc;
}

int cli_predict(int argc, char **argv)
{
    static const struct option LONG[] = {
        {"model", required_argument, 0, 'm'}, {"problem", required_argument, 0, 'p'},
        {"top", required_argument, 0, 't'},   {"spec", required_argument, 0, 's'},
        {"unconstrained", no_argument, 0, 'u'}, {"json", no_argument, 0, 'J'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    const char *model = NULL, *problem = NULL, *spec_arg = NULL;
    uint64_t top = 10;
    bool unconstrained = false, json = false;
    int c, rc = CLI_OK;
    optind = 1;
    while (rc == CLI_OK && (c = cli_getopt("predict", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'm': model = optarg; break;
        case 'p': problem = optarg; break;
        case 't': rc = cli_parse_u64("predict", "--top", optarg, &top); break;
        case 's': spec_arg = optarg; break;
        case 'u': unconstrained = true; break;
        case 'J': json = true; break;
        case 'h': fputs(USAGE, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (rc != CLI_OK)
        return rc;
    if (!model || !problem || optind != argc || top < 1 || top > 10000)
        return cli_usage_error("predict", "--model, --problem and a --top of 1 to "
                               "10000 are needed");
    kt_diag diag = {{0}};
    kt_model *m = NULL;
    kt_constraint *cons = NULL;
    if (kt_model_load(model, &m, &diag) != KT_OK)
        return cli_error("%s", diag.msg);
    kt_model_info info;
    kt_model_describe(m, &info);
    if ((rc = check_problem(&info, problem)) != CLI_OK) {
        kt_model_free(m);
        return rc;
    }
    char *spec = spec_arg ? kt_strdup(spec_arg)
                          : kt_asprintf("kernels/miopen/%s.json", info.kernel);
    uint16_t *out = malloc(top * (info.nout + 1) * sizeof *out);
    double *lp = malloc(top * sizeof *lp);
    size_t found = 0;
    if (!spec || !out || !lp)
        rc = cli_error("out of memory");
    else if (!unconstrained && access(spec, R_OK) != 0)
        rc = cli_error("no space for kernel '%s' at '%s' (hint: --spec FILE, or "
                       "--unconstrained)", info.kernel, spec);
    else if (!unconstrained && kt_constraint_new(spec, &info, &cons, &diag) != KT_OK)
        rc = cli_error("%s", diag.msg);
    else if (kt_predict(m, cons, problem, (size_t)top, out, lp, &found, &diag) != KT_OK)
        rc = cli_error("%s", diag.msg);
    json_object *list = json ? json_object_new_array() : NULL;
    for (size_t i = 0; rc == CLI_OK && i < found; i++)
        rc = print_config(&info, out + i * info.nout, lp[i], list);
    if (rc == CLI_OK && found == 0)
        rc = cli_error("no valid configuration for this problem");
    if (rc == CLI_OK && list)
        cli_json_print(json_object_get(list));
    json_object_put(list);
    free(out);
    free(lp);
    free(spec);
    kt_constraint_free(cons);
    kt_model_free(m);
    return rc;
}
