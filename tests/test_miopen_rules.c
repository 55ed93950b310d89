/* test_miopen_rules.c - the solvers' validity rules (the specs under kernels/miopen/)
 * against every configuration MIOpen stored for them in gfx906_60: a rule
 * that rejects a stored best configuration is wrong.  Also checks that the
 * rules reject most of the domain.  Skips when the data is not there. */
#include "core/space.h"
#include "store/miopen.h"
#include "test.h"

#include <sys/stat.h>

static const char *data_path(void)
{
    static const char *const TRY[] = {"../shared/data/miopen/gfx906_60.db.bz2",
                                      "/work/shared/data/miopen/gfx906_60.db.bz2"};
    for (size_t i = 0; i < sizeof TRY / sizeof *TRY; i++) {
        const char *p = i == 0 ? kt_test_path(TRY[0]) : TRY[i];
        if (access(p, R_OK) == 0)
            return strdup(p); /* kt_test_path reuses its buffer */
    }
    return NULL;
}

typedef struct checker {
    kt_spec *spec;
    uint16_t *cfg;
    size_t rows, passed;
    uint64_t valid_sum, cartesian_sum, counted;
} checker;

static int check_row(void *user, const kt_db_row *row)
{
    checker *c = user;
    kt_diag d = {{0}};
    char *overrides = NULL;
    kt_problem prob;
    kt_space *space = NULL;
    CHECK(kt_miopen_problem_overrides(row->problem, &overrides, &d) == KT_OK);
    CHECK(kt_problem_parse(c->spec, overrides, &prob, &d) == KT_OK);
    CHECK(kt_space_new(c->spec, &prob, &space, &d) == KT_OK);
    if (kt_spec_config_parse(c->spec, row->config, c->cfg, &d) != KT_OK)
        fprintf(stderr, "  unparsable: %s (%s)\n", row->config, d.msg);
    else if (kt_space_is_valid(space, c->cfg))
        c->passed++;
    else if (c->rows - c->passed < 5)
        fprintf(stderr, "  rejected: %s | %s\n", row->problem, row->config);
    if (c->rows % 500 == 0) { /* a sample of problems: how much is valid */
        uint64_t n;
        CHECK(kt_space_count(space, &n, NULL) == KT_OK);
        c->valid_sum += n;
        c->cartesian_sum += kt_space_cartesian(space);
        c->counted++;
    }
    c->rows++;
    kt_space_free(space);
    kt_problem_clear(&prob);
    free(overrides);
    return 0;
}

static void test_rules_accept_every_stored_configuration(void)
{
    const char *data = data_path();
    if (!data) {
        printf("  skipped: MIOpen data not found\n");
        return;
    }
    char db_path[128];
    snprintf(db_path, sizeof db_path, "/tmp/ktune-test-rules-%d.db", (int)getpid());
    unlink(db_path);
    kt_db *db;
    kt_diag d = {{0}};
    kt_import_stats st;
    CHECK(kt_db_open(db_path, &db, &d) == KT_OK);
    CHECK(kt_miopen_import(data, db, NULL, &st, &d) == KT_OK);
    /* most: the largest share of the domain that may be valid (SOLVERS.md
     * measured 0.2-2.4%, 3.5-5.9% and 8.7-67% for the asm solvers);
     * outside: stored rows SOLVERS.md itself finds in no rule (one
     * ConvOclDirectFwd1x1 row is its search's initial candidate) */
    static const struct {
        const char *name;
        double most;
        size_t outside;
    } SOLVERS[] = {{"ConvAsm1x1U", 0.05, 0}, {"ConvOclDirectFwd1x1", 0.05, 1},
                   {"ConvAsmBwdWrW1x1", 0.1, 0}, {"ConvAsmBwdWrW3x3", 0.7, 0}};
    for (size_t s = 0; s < sizeof SOLVERS / sizeof *SOLVERS; s++) {
        char spec_path[256];
        snprintf(spec_path, sizeof spec_path, "kernels/miopen/%s.json", SOLVERS[s].name);
        if (access(kt_test_path(spec_path), R_OK) != 0)
            continue; /* not every solver has its rules written yet */
        checker c = {0};
        CHECK(kt_spec_load(kt_test_path(spec_path), NULL, NULL, &c.spec, &d) == KT_OK);
        c.cfg = calloc(c.spec->nparams, sizeof *c.cfg);
        kt_db_filter f = {.kernel = SOLVERS[s].name};
        CHECK(kt_db_list(db, &f, check_row, &c, &d) == KT_OK);
        printf("  %s: %zu of %zu stored configurations valid; on %llu sampled "
               "problems %.2f%% of the domain is valid\n", SOLVERS[s].name, c.passed, c.rows,
               (unsigned long long)c.counted,
               100.0 * (double)c.valid_sum / (double)c.cartesian_sum);
        CHECK(c.rows > 1000 && c.passed == c.rows - SOLVERS[s].outside);
        CHECK((double)c.valid_sum < SOLVERS[s].most * (double)c.cartesian_sum);
        free(c.cfg);
        kt_spec_free(c.spec);
    }
    kt_db_close(db);
    unlink(db_path);
}

static const kt_test TESTS[] = {
    KT_T(test_rules_accept_every_stored_configuration),
};
KT_TEST_MAIN(TESTS)
