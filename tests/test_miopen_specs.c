/* test_miopen_specs.c - the space-only specs under kernels/miopen/ (the
 * validity rules of four MIOpen solvers, from data/miopen/SOLVERS.md)
 * against every configuration that MIOpen's gfx906_60 perf db stores for
 * them: a stored best configuration the rules reject means a wrong rule.
 * The rules must also reject most of the domain on real problems.  The perf
 * db is part of the repository (data/miopen/, with its licence). */
#include "core/space.h"
#include "store/miopen.h"
#include "test.h"

#include <stdint.h>

typedef struct solver_case {
    const char *name;
    size_t rows;        /* rows of this solver in gfx906_60 */
    size_t valid;       /* of those, valid under the spec */
    double most;        /* largest valid share of the domain allowed on a sample */
} solver_case;

/* SOLVERS.md: 100% of the rows for the asm solvers; ConvOclDirectFwd1x1 has
 * no code predicate and its search-space-or-default rule misses one row (the
 * legacy search's initial candidate).  Valid shares it measured: 0.2-2.4%,
 * 3.5-5.9% and 8.7-67% for the asm solvers. */
static const solver_case SOLVERS[] = {
    {"ConvAsm1x1U", 17314, 17314, 0.05},
    {"ConvOclDirectFwd1x1", 5229, 5228, 0.01},
    {"ConvAsmBwdWrW1x1", 11840, 11840, 0.10},
    {"ConvAsmBwdWrW3x3", 1893, 1893, 0.70},
};
#define NSOLVERS (sizeof SOLVERS / sizeof *SOLVERS)
#define NSAMPLES 6 /* problems per solver whose space is counted */

static kt_spec *load_spec(const char *solver)
{
    char rel[256];
    snprintf(rel, sizeof rel, "kernels/miopen/%s.json", solver);
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    if (kt_spec_load(kt_test_path(rel), NULL, NULL, &spec, &d) != KT_OK) {
        fprintf(stderr, "%s: %s\n", rel, d.msg);
        exit(1);
    }
    return spec;
}

/* Every spec loads, has the import's 26 problem names, no kernel, and its
 * default configuration is valid for its default problem. */
static void test_specs_load_with_valid_defaults(void)
{
    static const char *const PROBLEM[] = {
        "spatial_dim", "in_channels", "in_h", "in_w", "in_d", "fil_h", "fil_w",
        "fil_d", "out_channels", "batchsize", "pad_h", "pad_w", "pad_d",
        "conv_stride_h", "conv_stride_w", "conv_stride_d", "dilation_h", "dilation_w",
        "dilation_d", "bias", "group_count", "fp16", "bf16", "fwd", "bwd", "wrw"};
    for (size_t s = 0; s < NSOLVERS; s++) {
        kt_spec *spec = load_spec(SOLVERS[s].name);
        CHECK(spec->language == KT_LANG_NONE);
        CHECK_STR(spec->name, SOLVERS[s].name);
        CHECK_EQ_INT(spec->nproblem, sizeof PROBLEM / sizeof *PROBLEM);
        for (size_t i = 0; i < spec->nproblem; i++)
            CHECK_STR(spec->problem[i].name, PROBLEM[i]);
        size_t n;
        const char *const *names = kt_miopen_param_names(SOLVERS[s].name, &n);
        CHECK_EQ_INT(spec->nparams, n);
        for (size_t i = 0; i < n; i++)
            CHECK_STR(spec->params[i].name, names[i]);
        kt_problem prob;
        kt_space *space;
        kt_diag d = {{0}};
        CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
        CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
        uint16_t cfg[16];
        kt_space_default(space, cfg);
        CHECK(kt_space_is_valid(space, cfg));
        kt_space_free(space);
        kt_problem_clear(&prob);
        kt_spec_free(spec);
    }
}

static uint64_t domain_size(const kt_spec *spec)
{
    uint64_t n = 1;
    for (size_t i = 0; i < spec->nparams; i++)
        n *= spec->params[i].nvalues;
    return n;
}

typedef struct checker {
    const solver_case *sc;
    kt_spec *spec;
    uint16_t *cfg;
    size_t rows, valid, sampled;
    double min_share, max_share, sum_share;
} checker;

static int check_row(void *user, const kt_db_row *row)
{
    checker *c = user;
    kt_diag d = {{0}};
    char *overrides = NULL;
    kt_problem prob;
    kt_space *space;
    CHECK(kt_miopen_problem_overrides(row->problem, &overrides, &d) == KT_OK);
    if (kt_problem_parse(c->spec, overrides, &prob, &d) != KT_OK) {
        fprintf(stderr, "  %s: %s\n", overrides, d.msg);
        exit(1);
    }
    CHECK(kt_space_new(c->spec, &prob, &space, &d) == KT_OK);
    if (kt_spec_config_parse(c->spec, row->config, c->cfg, &d) != KT_OK) {
        fprintf(stderr, "  %s: stored configuration %s: %s\n", c->sc->name, row->config,
                d.msg);
        exit(1); /* every stored value must be in the spec's Values */
    }
    if (kt_space_is_valid(space, c->cfg))
        c->valid++;
    else
        printf("    rejected: %s | %s\n", row->problem, row->config);
    /* count the space of a few problems spread over the rows */
    if (c->sampled < NSAMPLES && c->rows == c->sampled * c->sc->rows / NSAMPLES) {
        uint64_t n;
        CHECK(kt_space_count(space, &n, NULL) == KT_OK);
        double share = (double)n / (double)kt_space_cartesian(space);
        printf("    %8llu of %llu valid (%.2f%%): %s\n", (unsigned long long)n,
               (unsigned long long)kt_space_cartesian(space), 100 * share, overrides);
        CHECK(n >= 1); /* the stored configuration at least */
        CHECK(share < c->sc->most);
        if (c->sampled == 0 || share < c->min_share)
            c->min_share = share;
        if (c->sampled == 0 || share > c->max_share)
            c->max_share = share;
        c->sum_share += share;
        c->sampled++;
    }
    c->rows++;
    kt_space_free(space);
    kt_problem_clear(&prob);
    free(overrides);
    return 0;
}

/* Import the perf db and check every stored configuration of each solver. */
static void test_specs_accept_every_stored_configuration(void)
{
    const char *data = kt_test_path("data/miopen/gfx906_60.db.bz2");
    CHECK(access(data, R_OK) == 0);
    const char *db_path = kt_test_tmp("specs.db");
    kt_db *db;
    kt_diag d = {{0}};
    kt_import_stats st;
    CHECK(kt_db_open(db_path, &db, &d) == KT_OK);
    if (kt_miopen_import(data, db, NULL, &st, &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    for (size_t s = 0; s < NSOLVERS; s++) {
        checker c = {.sc = &SOLVERS[s], .spec = load_spec(SOLVERS[s].name)};
        c.cfg = calloc(c.spec->nparams, sizeof *c.cfg);
        printf("  %s\n", SOLVERS[s].name);
        kt_db_filter f = {.kernel = SOLVERS[s].name};
        CHECK(kt_db_list(db, &f, check_row, &c, &d) == KT_OK);
        printf("  %s: %zu/%zu stored configurations valid; valid share of the "
               "%llu-tuple domain on %zu problems: %.2f-%.2f%% (mean %.2f%%)\n",
               SOLVERS[s].name, c.valid, c.rows,
               (unsigned long long)domain_size(c.spec), c.sampled,
               100 * c.min_share, 100 * c.max_share, 100 * c.sum_share / (double)c.sampled);
        CHECK_EQ_INT(c.rows, SOLVERS[s].rows);
        CHECK_EQ_INT(c.valid, SOLVERS[s].valid);
        CHECK_EQ_INT(c.sampled, NSAMPLES);
        free(c.cfg);
        kt_spec_free(c.spec);
    }
    kt_db_close(db);
}

static const kt_test TESTS[] = {
    KT_T(test_specs_load_with_valid_defaults),
    KT_T(test_specs_accept_every_stored_configuration),
};
KT_TEST_MAIN(TESTS)
