/* train.c - `ktune train`: fit a predictor on one kernel's stored results. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: ktune train --db FILE --kernel NAME [--where F=V,...] [--model METHOD]\n"
    "                   [--holdout FRACTION] [--seed N] [--k N] [sequence options]\n"
    "                   --out MODEL [--json]\n\n"
    "Learn to predict a kernel's best tuning parameters from its problem\n"
    "descriptor, on a random split of the stored results; the held-out part's\n"
    "identity is kept in MODEL for `ktune evaluate`.\n\n"
    "  --db FILE           results database (default ktune.db)\n"
    "  --kernel NAME       the kernel (for imported MIOpen data: the solver)\n"
    "  --where F=V,...     only problems with these field values, e.g.\n"
    "                      data_type=FP32 (the paper's \"Full\"), FP16 (\"Half\")\n"
    "  --model METHOD      auto (the default): knn, xgboost, encdec, ensemble\n"
    "                      (and below 2,000 training problems mix) are\n"
    "                      trained on most of the training part and scored on\n"
    "                      the rest of it (never the held-out part); below\n"
    "                      2,000, with --where and problems of other --where\n"
    "                      values (FP32 beside FP16), all but knn also pooled:\n"
    "                      trained on those problems' training parts too;\n"
    "                      the one that gives the best configurations of\n"
    "                      the rest the highest log-probability is trained\n"
    "                      again on the whole training part; each training stops after --seconds\n"
    "                      (25). Or one method:\n"
    "                      knn (k nearest neighbours), naive_bayes\n"
    "                      (Gaussian), tree (CART), forest (30 random trees),\n"
    "                      svc (libsvm); the paper's sequence models encdec,\n"
    "                      attention, hybrid, hybrid2; ensemble (encdec\n"
    "                      mixed with a chain over the 20 nearest problems);\n"
    "                      xgboost (a chain of gradient-boosted classifiers,\n"
    "                      one per parameter, each reading the parameters\n"
    "                      chosen before it); mix (xgboost and encdec\n"
    "                      averaged); cost (a performance model: XGBoost\n"
    "                      regression of every measurement's time relative to\n"
    "                      its problem's best, ranking whole configurations;\n"
    "                      needs --holdout 0, --epochs: its rounds, 300)\n"
    "  --holdout F         fraction held out for evaluation, 0 to below 1\n"
    "                      (default 0.2; 0: train on every problem, e.g. to\n"
    "                      test on other shapes)\n"
    "  --seed N            seed of the split (default 1)\n"
    "  --split-ignore F,.. hold out whole groups of problems that differ only\n"
    "                      in these fields (e.g. batchsize,direction), so no\n"
    "                      near-twin of a test problem is trained on\n"
    "  --k N               knn: neighbours that vote, 1 to 1000 (default 5)\n"
    "Sequence models (progress per epoch on stderr; 0 or absent: default):\n"
    "  --hidden N          hidden width (128)\n"
    "  --epochs N          most epochs (60); early stopping after\n"
    "  --patience N        epochs without validation gain (6)\n"
    "  --batch N           sequences per step (32)\n"
    "  --lr X              Adam's learning rate, above 0 to 1 (0.002)\n"
    "  --dropout X         dropout on the decoder's outputs, 0 to below 1 (0.2)\n"
    "  --seconds X         stop after the epoch that passes X seconds\n"
    "xgboost: --epochs is its most boosting rounds per parameter (200),\n"
    "  --patience rounds without validation gain (10), --lr its eta (0.3),\n"
    "  --seconds its budget.\n"
    "  --paper-decoder     hybrids as in the paper: the decoder does not read\n"
    "                      the tokens chosen before (default: it does)\n"
    "  --quiet             no progress\n"
    "  --out MODEL         the model file to write\n"
    "  --json              what was trained as one JSON object on stdout\n"
    "  --help              this text\n\n"
    CLI_EXIT_STATUS;

/* One line per epoch on stderr. */
static void progress(void *user, int epoch, double train_loss, double val_loss,
                     double seconds)
{
    (void)user;
    fprintf(stderr, "epoch %3d  train loss %.4f  validation loss %.4f  %.1f s\n", epoch,
            train_loss, val_loss, seconds);
}

/* The line that says which method was chosen and how the candidates
 * scored; nothing when the method was given. */
static void print_choice(const ktune_model *m, const ktune_model_info *info)
{
    ktune_model_candidate c;
    if (ktune_model_candidate_at(m, 0, &c) != KTUNE_OK)
        return;
    printf("method chosen on %zu of the %zu training samples (perfect top-1 / top-10 %%, "
           "log-probability of the best configuration, the highest chosen):",
           info->nvalidation, info->ntrain);
    for (size_t i = 0; ktune_model_candidate_at(m, i, &c) == KTUNE_OK; i++)
        printf("%s %s%s %.1f / %.1f / %.3f%s", i ? "," : "", c.method,
               c.pooled ? " pooled" : "", c.top1, c.top10, c.loglik,
               c.chosen ? " (chosen)" : "");
    printf("\n");
}

/* The candidates as a JSON array (empty when the method was given). */
static json_object *choice_json(const ktune_model *m)
{
    json_object *a = json_object_new_array();
    ktune_model_candidate c;
    for (size_t i = 0; ktune_model_candidate_at(m, i, &c) == KTUNE_OK; i++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "method", json_object_new_string(c.method));
        json_object_object_add(o, "top1", json_object_new_double(c.top1));
        json_object_object_add(o, "top10", json_object_new_double(c.top10));
        json_object_object_add(o, "chosen", json_object_new_boolean(c.chosen));
        json_object_object_add(o, "pooled", json_object_new_boolean(c.pooled));
        json_object_object_add(o, "loglik", json_object_new_double(c.loglik));
        json_object_array_add(a, o);
    }
    return a;
}

/* The line (or with json the object) that says what was trained. */
static void report(const ktune_model *m, const char *out, bool json)
{
    ktune_model_info info;
    ktune_model_describe(m, &info);
    if (!json) {
        printf("%s: %s on %zu samples of %s%s%s (%zu held out), %zu inputs, %zu "
               "outputs\n", out, info.method, info.ntrain, info.kernel,
               *info.where ? " where " : "", info.where, info.ntest, info.ninputs,
               info.noutputs);
        print_choice(m, &info);
        return;
    }
    json_object *o = json_object_new_object();
    const char *keys[] = {"model", "method", "kernel", "where"};
    const char *text[] = {out, info.method, info.kernel, info.where};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        json_object_object_add(o, keys[i], json_object_new_string(text[i]));
    const char *nkeys[] = {"train_samples", "test_samples", "inputs", "outputs",
                           "validation_samples"};
    const size_t n[] = {info.ntrain, info.ntest, info.ninputs, info.noutputs,
                        info.nvalidation};
    for (size_t i = 0; i < sizeof nkeys / sizeof *nkeys; i++)
        json_object_object_add(o, nkeys[i], json_object_new_int64((int64_t)n[i]));
    json_object_object_add(o, "candidates", choice_json(m));
    cli_json_print(o);
}

/* An integer option within [lo, hi]. */
static int parse_int(const char *opt, const char *arg, int lo, int hi, int *out)
{
    uint64_t u;
    int rc = cli_parse_u64("train", opt, arg, &u);
    if (rc == CLI_OK && (u < (uint64_t)lo || u > (uint64_t)hi))
        return cli_usage_error("train", "%s must be between %d and %d", opt, lo, hi);
    if (rc == CLI_OK)
        *out = (int)u;
    return rc;
}

int cli_train(int argc, char **argv)
{
    static const struct option LONG[] = {
        {"db", required_argument, 0, 'd'},      {"kernel", required_argument, 0, 'K'},
        {"where", required_argument, 0, 'w'},   {"model", required_argument, 0, 'm'},
        {"holdout", required_argument, 0, 'H'}, {"seed", required_argument, 0, 's'},
        {"k", required_argument, 0, 'k'},       {"out", required_argument, 0, 'o'},
        {"split-ignore", required_argument, 0, 'g'},
        {"hidden", required_argument, 0, 'N'},  {"epochs", required_argument, 0, 'E'},
        {"patience", required_argument, 0, 'P'}, {"batch", required_argument, 0, 'B'},
        {"lr", required_argument, 0, 'L'},      {"dropout", required_argument, 0, 'D'},
        {"seconds", required_argument, 0, 'S'}, {"quiet", no_argument, 0, 'q'},
        {"paper-decoder", no_argument, 0, 'p'}, {"json", no_argument, 0, 'J'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    const char *db_path = "ktune.db", *kernel = NULL, *out = NULL;
    ktune_train_opts o;
    ktune_train_opts_init(&o);
    o.progress = progress;
    int c, rc = CLI_OK;
    bool json = false;
    optind = 1;
    while (rc == CLI_OK && (c = cli_getopt("train", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'd': db_path = optarg; break;
        case 'K': kernel = optarg; break;
        case 'w': o.where = optarg; break;
        case 'm': o.method = optarg; break;
        case 'H': /* 0 is allowed: hold nothing out */
            rc = cli_parse_fraction("train", "--holdout", optarg, &o.holdout);
            break;
        case 's': rc = cli_parse_u64("train", "--seed", optarg, &o.seed); break;
        case 'k': rc = parse_int("--k", optarg, 1, 1000, &o.k); break;
        case 'N': rc = parse_int("--hidden", optarg, 2, 2048, &o.hidden); break;
        case 'E': rc = parse_int("--epochs", optarg, 1, 100000, &o.epochs); break;
        case 'P': rc = parse_int("--patience", optarg, 1, 100000, &o.patience); break;
        case 'B': rc = parse_int("--batch", optarg, 1, 4096, &o.batch); break;
        case 'L':
            rc = cli_parse_double("train", "--lr", optarg, &o.lr);
            if (rc == CLI_OK && o.lr > 1)
                rc = cli_usage_error("train", "--lr must be above 0 and at most 1");
            break;
        case 'D': rc = cli_parse_fraction("train", "--dropout", optarg, &o.dropout); break;
        case 'S': rc = cli_parse_double("train", "--seconds", optarg, &o.seconds); break;
        case 'q': o.progress = NULL; break;
        case 'p': o.paper_decoder = true; break;
        case 'o': out = optarg; break;
        case 'g': o.split_ignore = optarg; break;
        case 'J': json = true; break;
        case 'h': fputs(USAGE, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (rc != CLI_OK)
        return rc;
    if (!kernel || !out || optind != argc)
        return cli_usage_error("train", "--kernel and --out are required");
    ktune_diag diag = {{0}};
    ktune_db *db = NULL;
    ktune_model *m = NULL;
    int krc = ktune_db_open(db_path, 0, &db, &diag);
    if (krc == KTUNE_OK)
        krc = ktune_model_train(db, kernel, &o, &m, &diag);
    if (krc == KTUNE_OK)
        krc = ktune_model_save(m, out, &diag);
    if (krc == KTUNE_OK)
        report(m, out, json);
    else if (krc == KTUNE_EINVAL) /* options that do not fit the method or the data */
        rc = cli_usage_error("train", "%s", diag.msg);
    else
        rc = cli_error("%s", diag.msg);
    ktune_model_free(m);
    ktune_db_close(db);
    return rc;
}
