/* test_space.c - the search space: pruned enumeration agrees with a naive
 * one over the Cartesian product, and sampling, neighbours, lookup and
 * satisfiability behave. */
#include "core/space.h"
#include "spec_util.h"

static kt_space *space_of(const char *params, const char *conds, const char *problem,
                          const char *overrides, kt_spec **spec, kt_problem *prob)
{
    kt_diag d = {{0}};
    if (load_text(spec_json(params, conds, problem), spec, &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    CHECK(kt_problem_parse(*spec, overrides, prob, &d) == KT_OK);
    kt_space *s;
    CHECK(kt_space_new(*spec, prob, &s, &d) == KT_OK);
    return s;
}

static void release(kt_space *s, kt_problem *prob, kt_spec *spec)
{
    kt_space_free(s);
    kt_problem_clear(prob);
    kt_spec_free(spec);
}

/* Every condition on every tuple of the Cartesian product. */
static uint64_t naive_count(const kt_spec *spec, const kt_problem *prob)
{
    size_t np = spec->nparams;
    uint16_t cfg[16] = {0};
    double slots[64];
    uint64_t valid = 0;
    for (;;) {
        kt_spec_slots(spec, cfg, prob, slots);
        bool ok = true;
        for (size_t c = 0; c < spec->nconds && ok; c++) {
            double v;
            ok = kt_expr_eval(spec->conds[c], slots, &v) == KT_OK && v != 0;
        }
        valid += ok;
        size_t d = 0;
        while (d < np && ++cfg[d] == spec->params[d].nvalues)
            cfg[d++] = 0;
        if (d == np)
            return valid;
    }
}

#define P(name, values) "{\"Name\": \"" name "\", \"Type\": \"int\", \"Values\": \"" values "\"}"
#define C(expr) "{\"Parameters\": [], \"Expression\": \"" expr "\"}"

static void test_counts_match_naive_enumeration(void)
{
    static const char *const CONDS[] = {
        "",
        C("A % B == 0"),
        C("A * B <= N") "," C("C != 3"),
        C("N // (A - B) > 1"),                 /* division by zero in places */
        C("A <= B <= C") "," C("D % 2 == 0 or A == 1"),
        C("max(A, C) * D <= 64 and ProblemSize[0] >= A"),
        C("B > 100"),                          /* nothing is valid */
        C("N > 0"),                            /* problem-only, true */
        C("N < 0"),                            /* problem-only, false */
    };
    const char *params = P("A", "[1, 2, 4, 8, 16]") "," P("B", "[1, 2, 3, 4]") ","
                         P("C", "[1, 2, 3, 4, 6, 8]") "," P("D", "[0, 1, 2, 3]");
    for (size_t i = 0; i < sizeof CONDS / sizeof *CONDS; i++) {
        kt_spec *spec;
        kt_problem prob;
        kt_space *s = space_of(params, CONDS[i], "{\"Name\": \"N\", \"Default\": 24}",
                               NULL, &spec, &prob);
        uint64_t count;
        kt_space_stats st = {0};
        CHECK(kt_space_count(s, &count, &st) == KT_OK);
        uint64_t naive = naive_count(spec, &prob);
        if (count != naive)
            fprintf(stderr, "conditions #%zu: %llu vs naive %llu\n", i,
                    (unsigned long long)count, (unsigned long long)naive);
        CHECK_EQ_INT(count, naive);
        CHECK_EQ_INT(st.valid, count);
        CHECK(st.nodes <= 5 + 5 * 4 + 5 * 4 * 6 + 5 * 4 * 6 * 4);
        CHECK_EQ_INT(kt_space_cartesian(s), 480);
        release(s, &prob, spec);
    }
}

static void test_pruning_skips_subtrees(void)
{
    kt_spec *spec;
    kt_problem prob;
    /* A > 1 fails for 4 of 5 values of A: their subtrees are never entered. */
    kt_space *s = space_of(P("A", "[1, 2, 3, 4, 5]") "," P("B", "[1, 2, 3, 4, 5]") ","
                           P("C", "[1, 2, 3, 4, 5]"), C("A < 2"), "", NULL, &spec, &prob);
    uint64_t count;
    kt_space_stats st = {0};
    CHECK(kt_space_count(s, &count, &st) == KT_OK);
    CHECK_EQ_INT(count, 25);
    CHECK_EQ_INT(st.nodes, 5 + 5 + 25);
    release(s, &prob, spec);
}

static void test_built_space_is_sorted_and_indexable(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(P("A", "[1, 2, 4, 8]") "," P("B", "[1, 2, 4, 8]"),
                           C("A * B <= 16"), "", NULL, &spec, &prob);
    kt_diag d = {{0}};
    CHECK(kt_space_build(s, 100, &d) == KT_OK);
    CHECK_EQ_INT(kt_space_size(s), 13);
    for (uint64_t i = 0; i < kt_space_size(s); i++) {
        uint64_t idx;
        CHECK(kt_space_index_of(s, kt_space_at(s, i), &idx) == KT_OK);
        CHECK_EQ_INT(idx, i);
        CHECK(kt_space_is_valid(s, kt_space_at(s, i)));
    }
    uint16_t bad[2] = {3, 3}; /* 8 * 8 */
    uint64_t idx;
    CHECK(!kt_space_is_valid(s, bad));
    CHECK(kt_space_index_of(s, bad, &idx) == KT_ENOTFOUND);
    CHECK(kt_space_build(s, 5, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "more than 5") != NULL);
    release(s, &prob, spec);
}

static void test_sampling_is_uniform_over_valid_configurations(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(P("A", "[1, 2, 4, 8]") "," P("B", "[1, 2, 4, 8]"),
                           C("A * B <= 16"), "", NULL, &spec, &prob);
    kt_diag d = {{0}};
    for (int built = 0; built < 2; built++) {
        if (built)
            CHECK(kt_space_build(s, 100, &d) == KT_OK);
        kt_rng rng;
        kt_rng_seed(&rng, 42);
        int hits[4][4] = {{0}};
        const int n = 39000;
        for (int i = 0; i < n; i++) {
            uint16_t cfg[2];
            CHECK(kt_space_sample(s, &rng, cfg) == KT_OK);
            CHECK(kt_space_is_valid(s, cfg));
            hits[cfg[0]][cfg[1]]++;
        }
        /* 13 valid configurations: each about 3000 times (5 sigma ~ 265) */
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                if ((1 << a) * (1 << b) <= 16)
                    CHECK(abs(hits[a][b] - n / 13) < 300);
                else
                    CHECK_EQ_INT(hits[a][b], 0);
    }
    release(s, &prob, spec);
}

static void test_neighbours_are_valid_and_differ_in_one_parameter(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(P("A", "[1, 2, 4, 8]") "," P("B", "[1, 2, 4, 8]"),
                           C("A * B <= 16"), "", NULL, &spec, &prob);
    uint16_t cfg[2] = {1, 1}, out[32];
    size_t n;
    CHECK(kt_space_neighbours(s, cfg, KT_NBR_HAMMING, out, 16, &n) == KT_OK);
    /* A in {1,4,8} with B=2: 1*2, 4*2, 8*2 valid; B in {1,4,8} with A=2: 2, 8, 16 */
    CHECK_EQ_INT(n, 6);
    for (size_t i = 0; i < n; i++) {
        CHECK(kt_space_is_valid(s, out + 2 * i));
        CHECK((out[2 * i] != 1) + (out[2 * i + 1] != 1) == 1);
    }
    CHECK(kt_space_neighbours(s, cfg, KT_NBR_ADJACENT, out, 16, &n) == KT_OK);
    CHECK_EQ_INT(n, 4); /* A: 1 or 4; B: 1 or 4 */
    uint16_t corner[2] = {3, 1}; /* 8 * 2 */
    CHECK(kt_space_neighbours(s, corner, KT_NBR_ADJACENT, out, 16, &n) == KT_OK);
    CHECK_EQ_INT(n, 2); /* A=4 (4*2) and B=1 (8*1); B=4 gives 32 */
    release(s, &prob, spec);
}

static void test_satisfiable_prefixes(void)
{
    kt_spec *spec;
    kt_problem prob;
    /* C must equal A + B: a prefix (A, B) is satisfiable iff A + B <= 4 */
    kt_space *s = space_of(P("A", "[1, 2, 3]") "," P("B", "[1, 2, 3]") ","
                           P("C", "[2, 3, 4]"), C("C == A + B"), "", NULL, &spec, &prob);
    bool bound[3] = {true, true, false}, sat;
    for (uint16_t a = 0; a < 3; a++)
        for (uint16_t b = 0; b < 3; b++) {
            uint16_t cfg[3] = {a, b, 0};
            CHECK(kt_space_satisfiable(s, cfg, bound, &sat) == KT_OK);
            CHECK(sat == ((a + 1) + (b + 1) <= 4));
        }
    bool only_c[3] = {false, false, true};
    uint16_t c4[3] = {0, 0, 2}; /* C = 4: A=1,B=3 or A=2,B=2 or A=3,B=1 */
    CHECK(kt_space_satisfiable(s, c4, only_c, &sat) == KT_OK && sat);
    bool none[3] = {false, false, false};
    CHECK(kt_space_satisfiable(s, c4, none, &sat) == KT_OK && sat);
    uint16_t out_of_range[3] = {9, 0, 0};
    CHECK(kt_space_satisfiable(s, out_of_range, bound, &sat) == KT_ERANGE);
    release(s, &prob, spec);
}

static void test_problem_overrides_change_the_space(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(P("A", "[1, 2, 4, 8, 16]"), C("N % A == 0"),
                           "{\"Name\": \"N\", \"Default\": 8}", "N=12", &spec, &prob);
    uint64_t count;
    CHECK(kt_space_count(s, &count, NULL) == KT_OK);
    CHECK_EQ_INT(count, 3); /* 1, 2, 4 divide 12 */
    CHECK_STR(prob.key, "N=12");
    kt_space_free(s);
    kt_problem_clear(&prob);
    kt_diag d = {{0}};
    CHECK(kt_problem_parse(spec, "Q=3", &prob, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "'Q'") != NULL);
    CHECK(kt_problem_parse(spec, "N=abc", &prob, &d) == KT_EINVAL);
    CHECK(kt_problem_parse(spec, "N", &prob, &d) == KT_EINVAL);
    kt_spec_free(spec);
}

static void test_config_keys_round_trip(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(P("A", "[1, 2, 4]") "," P("B", "[0.5, 1.5]"), "", "", NULL,
                           &spec, &prob);
    uint16_t cfg[2] = {2, 1}, back[2];
    char *key = kt_spec_config_key(spec, cfg);
    CHECK_STR(key, "A=4,B=1.5");
    kt_diag d = {{0}};
    CHECK(kt_spec_config_parse(spec, key, back, &d) == KT_OK);
    CHECK(back[0] == 2 && back[1] == 1);
    CHECK(kt_spec_config_parse(spec, "A=3,B=1.5", back, &d) == KT_EINVAL);
    CHECK(kt_spec_config_parse(spec, "A=4", back, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "'B'") != NULL);
    free(key);
    release(s, &prob, spec);
}

static const kt_test TESTS[] = {
    KT_T(test_counts_match_naive_enumeration),
    KT_T(test_pruning_skips_subtrees),
    KT_T(test_built_space_is_sorted_and_indexable),
    KT_T(test_sampling_is_uniform_over_valid_configurations),
    KT_T(test_neighbours_are_valid_and_differ_in_one_parameter),
    KT_T(test_satisfiable_prefixes),
    KT_T(test_problem_overrides_change_the_space),
    KT_T(test_config_keys_round_trip),
};
KT_TEST_MAIN(TESTS)
