/* train.c - `ktune train`: fit a predictor on one kernel's stored results. */
#include "cli/cli.h"
#include "ml/model.h"

#include <getopt.h>
#include <stdio.h>

static const char USAGE[] =
    "usage: ktune train --db FILE --kernel NAME [--where F=V,...] [--model METHOD]\n"
    "                   [--holdout FRACTION] [--seed N] [--k N] --out MODEL\n\n"
    "Learn to predict a kernel's best tuning parameters from its problem\n"
    "descriptor, on a random split of the stored results; the held-out part's\n"
    "identity is kept in MODEL for `ktune evaluate`.\n\n"
    "  --db FILE           results database (default ktune.db)\n"
    "  --kernel NAME       the kernel (for imported MIOpen data: the solver)\n"
    "  --where F=V,...     only problems with these field values, e.g.\n"
    "                      data_type=FP32 (the paper's \"Full\"), FP16 (\"Half\")\n"
    "  --model METHOD      knn (k nearest neighbours; default), naive_bayes\n"
    "                      (Gaussian), tree (CART), forest (30 random trees)\n"
    "  --holdout F         fraction held out for evaluation (default 0.2)\n"
    "  --seed N            seed of the split (default 1)\n"
    "  --split-ignore F,.. hold out whole groups of problems that differ only\n"
    "                      in these fields (e.g. batchsize,direction), so no\n"
    "                      near-twin of a test problem is trained on\n"
    "  --k N               knn: neighbours that vote (default 5)\n"
    "  --out MODEL         the model file to write\n"
    "  --help              this text\n";

int cli_train(int argc, char **argv)
{
    static const struct option LONG[] = {
        {"db", required_argument, 0, 'd'},      {"kernel", required_argument, 0, 'K'},
        {"where", required_argument, 0, 'w'},   {"model", required_argument, 0, 'm'},
        {"holdout", required_argument, 0, 'H'}, {"seed", required_argument, 0, 's'},
        {"k", required_argument, 0, 'k'},       {"out", required_argument, 0, 'o'},
        {"split-ignore", required_argument, 0, 'g'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    const char *db_path = "ktune.db", *kernel = NULL, *out = NULL;
    kt_train_opts o = {.method = "knn", .holdout = 0.2, .seed = 1, .k = 5};
    uint64_t u;
    int c, rc = CLI_OK;
    optind = 1;
    while (rc == CLI_OK && (c = getopt_long(argc, argv, "h", LONG, NULL)) != -1) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 'K': kernel = optarg; break;
        case 'w': o.where = optarg; break;
        case 'm': o.method = optarg; break;
        case 'H': rc = cli_parse_double("train", "--holdout", optarg, &o.holdout); break;
        case 's': rc = cli_parse_u64("train", "--seed", optarg, &o.seed); break;
        case 'k':
            rc = cli_parse_u64("train", "--k", optarg, &u);
            o.k = u > 0 && u < 1000 ? (int)u : 5;
            break;
        case 'o': out = optarg; break;
        case 'g': o.group_ignore = optarg; break;
        case 'h': fputs(USAGE, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (rc != CLI_OK)
        return rc;
    if (!kernel || !out || optind != argc)
        return cli_usage_error("train", "--kernel and --out are required");
    kt_diag diag = {{0}};
    kt_db *db = NULL;
    kt_dataset *d = NULL;
    kt_model *m = NULL;
    if (kt_db_open(db_path, &db, &diag) == KT_OK &&
        kt_dataset_load(db, kernel, o.where, &d, &diag) == KT_OK &&
        kt_model_train(d, &o, &m, &diag) == KT_OK &&
        kt_model_save(m, out, &diag) == KT_OK) {
        kt_model_info info;
        kt_model_describe(m, &info);
        printf("%s: %s on %zu samples of %s%s%s (%zu held out), %zu inputs, %zu "
               "outputs\n", out, info.method, info.ntrain, kernel,
               o.where ? " where " : "", o.where ? o.where : "", info.ntest, info.nin,
               info.nout);
    } else {
        rc = cli_error("%s", diag.msg);
    }
    kt_model_free(m);
    kt_dataset_free(d);
    kt_db_close(db);
    return rc;
}
