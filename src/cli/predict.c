/* predict.c - `ktune predict`: the k most likely configurations of a model
 * for one problem, valid under the kernel's conditions. */
#include "cli.h"

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
    "their log-probability; with the kernel's space (default: the installed\n"
    "kernels/miopen/KERNEL.json) every one is a valid configuration.\n\n"
    "  --problem F=V,...   the problem's descriptor fields (as stored, e.g.\n"
    "                      in_channels=64,in_h=28,...); missing fields count\n"
    "                      as unknown\n"
    "  --top K             how many (default 10)\n"
    "  --spec FILE         the kernel's space (default KERNEL.json among the MIOpen\n"
    "                      solvers' spaces: PREFIX/share/ktune/kernels/miopen, or\n"
    "                      kernels/miopen of the repository ktune was built in)\n"
    "  --unconstrained     plain beam search\n"
    "  --json              a JSON array on stdout, best first: each prediction's\n"
    "                      config (an object), key and log_prob\n"
    "  --help              this text\n\n"
    CLI_EXIT_STATUS;

/* The predictions as lines "KEY  LOGP", or with json a JSON array. */
static void print_predictions(const ktune_predictions *p, bool json)
{
    json_object *list = json ? json_object_new_array() : NULL;
    for (size_t i = 0; i < ktune_predictions_count(p); i++) {
        const char *key = ktune_predictions_config(p, i);
        double lp = ktune_predictions_log_prob(p, i);
        if (!list) {
            printf("%s  %.4f\n", key, lp);
            continue;
        }
        json_object *o = json_object_new_object();
        json_object_object_add(o, "config", cli_config_json(key));
        json_object_object_add(o, "key", json_object_new_string(key));
        json_object_object_add(o, "log_prob", cli_json_double(lp));
        json_object_array_add(list, o);
    }
    if (list)
        cli_json_print(list);
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
    ktune_diag diag = {{0}};
    ktune_model *m = NULL;
    ktune_predictions *p = NULL;
    if (ktune_model_load(model, &m, &diag) != KTUNE_OK)
        return cli_error("%s", diag.msg);
    ktune_model_info info;
    ktune_model_describe(m, &info);
    char *spec = cli_miopen_spec(spec_arg, info.kernel);
    int krc = KTUNE_OK;
    if (!spec)
        rc = cli_error("out of memory");
    else if (!unconstrained && access(spec, R_OK) != 0)
        rc = cli_error("no space for kernel '%s' at '%s' (hint: --spec FILE, or "
                       "--unconstrained)", info.kernel, spec);
    else if ((krc = ktune_model_predict(m, problem, (size_t)top,
                                        unconstrained ? NULL : spec, &p, &diag)) ==
             KTUNE_EINVAL) /* the problem's fields are not the model's */
        rc = cli_usage_error("predict", "--%s", diag.msg);
    else if (krc != KTUNE_OK)
        rc = cli_error("%s", diag.msg);
    else if (ktune_predictions_count(p) == 0)
        rc = cli_error("no valid configuration for this problem");
    else
        print_predictions(p, json);
    ktune_predictions_free(p);
    free(spec);
    ktune_model_free(m);
    return rc;
}
