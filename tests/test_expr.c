/* test_expr.c - the expression compiler: Python semantics, precedence,
 * laziness, constant folding, slots, and errors with their columns.
 * Expected values were computed by Python 3.11 from the same text. */
#include "core/expr.h"
#include "test.h"

/* Names and their values: a=7, b=-3, c=2.5, K=0, N=10, ProblemSize[0]=64,
 * ProblemSize[1]=32. */
static const char *const NAMES[] = {"a", "b", "c", "K", "N", "ProblemSize[0]",
                                    "ProblemSize[1]"};
static const double VALUES[] = {7, -3, 2.5, 0, 10, 64, 32};
#define NNAMES (sizeof NAMES / sizeof NAMES[0])

typedef struct expr_case {
    const char *src;
    double want;
} expr_case;

/* Expressions over names. */
static const expr_case WITH_NAMES[] = {
    {"a + b * c", -0.5},
    {"a // b", -3.0},
    {"a % b", -2.0},
    {"b % a", 4.0},
    {"b // a", -1.0},
    {"-a", -7.0},
    {"--a", 7.0},
    {"+a", 7.0},
    {"not a", 0.0},
    {"not K", 1.0},
    {"a > b", 1.0},
    {"a < b", 0.0},
    {"a == 7", 1.0},
    {"a != 7", 0.0},
    {"b <= -3", 1.0},
    {"c >= 2.5", 1.0},
    {"1 < a <= 7 != 8", 1.0},
    {"a and b", -3.0},
    {"K and a", 0.0},
    {"K or b", -3.0},
    {"a or b", 7.0},
    {"K or K", 0.0},
    {"not a or b", -3.0},
    {"not (a and K)", 1.0},
    {"a if a > b else b", 7.0},
    {"a if K else N", 10.0},
    {"1 if K == 0 else N // K", 1.0},
    {"K != 0 and N // K > 2", 0.0},
    {"K == 0 or N // K > 2", 1.0},
    {"min(a, b, c)", -3.0},
    {"max(a, b, c)", 7.0},
    {"max(N, 4 * c)", 10.0},
    {"ceil(c)", 3.0},
    {"floor(c)", 2.0},
    {"ceil(-c)", -2.0},
    {"floor(-c)", -3.0},
    {"log2(64)", 6.0},
    {"log2(N)", 3.321928094887362},
    {"abs(b)", 3.0},
    {"int(c)", 2.0},
    {"int(-c)", -2.0},
    {"float(a) / 2", 3.5},
    {"sqrt(16)", 4.0},
    {"ProblemSize[0] * 2", 128.0},
    {"ProblemSize[ 1 ] + a", 39.0},
    {"ceil(ProblemSize[0] / 6)", 11.0},
    {"False or a", 7.0},
    {"N % 3 == 1 and a % 2 == 1", 1.0},
    {"a * b * c // 2", -27.0},
    {"(a + b) * (a - b) % 5", 0.0},
    {"max(a, b) ** 2 - min(a, b)", 52.0},
    {"a < N and N < 100 or K", 1.0},
    {"not a == 7", 0.0},
    {"N - a - b", 6.0},
    {"N / c / 2", 2.0},
    {"a ** 2 ** 0.5 if b < 0 else 0", 15.672890873693548},
    {"b * -a", 21.0},
    {"a - -b", 4.0},
    {"-b ** 2", -9.0},
    {"K < a < N > c", 1.0},
    {"a % 4 * 3 // 2", 4.0},
};

/* Constant expressions: folded at compile time. */
static const expr_case CONSTANT[] = {
    {"1 + 2 * 3", 7.0},
    {"(1 + 2) * 3", 9.0},
    {"2 ** 3 ** 2", 512.0},
    {"-2 ** 2", -4.0},
    {"2 ** -1", 0.5},
    {"(-2) ** 2", 4.0},
    {"7 // 2", 3.0},
    {"-7 // 2", -4.0},
    {"7 // -2", -4.0},
    {"-7 % 2", 1.0},
    {"7 % -2", -1.0},
    {"-7 % -2", -1.0},
    {"7.5 // 2", 3.0},
    {"7.5 % 2", 1.5},
    {"-7.5 % 2", 0.5},
    {"7 / 2", 3.5},
    {"-7 / 2", -3.5},
    {"1 - 2 - 3", -4.0},
    {"2 * 3 % 4", 2.0},
    {"10 - 2 ** 2 * 3", -2.0},
    {"1 < 2 < 3", 1.0},
    {"1 < 3 < 2", 0.0},
    {"3 > 2 > 1", 1.0},
    {"1 == 1 == 1", 1.0},
    {"True + True", 2.0},
    {"1e3 + 0.5", 1000.5},
    {"0x1f + 1", 32.0},
    {".5 * 4", 2.0},
    {"2 ** 10 // 3 ** 2", 113.0},
    {"not 1 < 0", 1.0},
    {"3 if 0 else 4 if 1 else 5", 4.0},
    {"(1 or 2) and 3", 3.0},
    {"min(2, 3)", 2.0},
    {"max(2, 9, 4)", 9.0},
};

static double eval_ok(const char *src)
{
    kt_expr *e;
    kt_diag d = {{0}};
    if (kt_expr_compile(src, NAMES, NNAMES, &e, &d) != KT_OK) {
        fprintf(stderr, "'%s': %s\n", src, d.msg);
        exit(1);
    }
    double v;
    int rc = kt_expr_eval(e, VALUES, &v);
    if (rc != KT_OK) {
        fprintf(stderr, "'%s': eval failed %d\n", src, rc);
        exit(1);
    }
    CHECK_STR(kt_expr_source(e), src);
    kt_expr_free(e);
    return v;
}

static void check_cases(const expr_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double v = eval_ok(cases[i].src);
        if (fabs(v - cases[i].want) > 1e-12 * fmax(1, fabs(cases[i].want))) {
            fprintf(stderr, "'%s' = %.17g, Python says %.17g\n", cases[i].src, v,
                    cases[i].want);
            exit(1);
        }
    }
}

static void test_values_match_python(void)
{
    check_cases(WITH_NAMES, sizeof WITH_NAMES / sizeof *WITH_NAMES);
    check_cases(CONSTANT, sizeof CONSTANT / sizeof *CONSTANT);
}

static void test_constants_are_folded(void)
{
    for (size_t i = 0; i < sizeof CONSTANT / sizeof *CONSTANT; i++) {
        kt_expr *e;
        kt_diag d = {{0}};
        CHECK(kt_expr_compile(CONSTANT[i].src, NAMES, NNAMES, &e, &d) == KT_OK);
        CHECK(kt_expr_is_constant(e));
        CHECK_EQ_INT(kt_expr_nslots(e), 0);
        kt_expr_free(e);
    }
}

static void test_slots_are_sorted_and_distinct(void)
{
    kt_expr *e;
    kt_diag d = {{0}};
    CHECK(kt_expr_compile("N * a + a - ProblemSize[1] + N // c", NAMES, NNAMES, &e,
                          &d) == KT_OK);
    CHECK_EQ_INT(kt_expr_nslots(e), 4);
    const uint32_t *s = kt_expr_slots(e);
    CHECK(s[0] == 0 && s[1] == 2 && s[2] == 4 && s[3] == 6);
    CHECK(!kt_expr_is_constant(e));
    kt_expr_free(e);
    /* a branch folded away reads nothing */
    CHECK(kt_expr_compile("a if 0 else 3", NAMES, NNAMES, &e, &d) == KT_OK);
    CHECK(kt_expr_is_constant(e));
    kt_expr_free(e);
}

static int eval_code(const char *src, double *v)
{
    kt_expr *e;
    kt_diag d = {{0}};
    CHECK(kt_expr_compile(src, NAMES, NNAMES, &e, &d) == KT_OK);
    int rc = kt_expr_eval(e, VALUES, v);
    kt_expr_free(e);
    return rc;
}

static void test_domain_errors_are_reported_not_trapped(void)
{
    static const char *const BAD[] = {"N / K",     "N // K",      "N % K",
                                      "log2(K)",   "log2(b)",     "sqrt(b)",
                                      "K ** -1",   "1 / 0",       "10 ** 400",
                                      "a % (K * 2)", "min(N // K, 1)"};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        double v;
        if (eval_code(BAD[i], &v) != KT_EDOMAIN) {
            fprintf(stderr, "'%s' should be a domain error\n", BAD[i]);
            exit(1);
        }
    }
}

static void test_branches_not_taken_are_not_evaluated(void)
{
    double v;
    CHECK(eval_code("1 if K == 0 else N // K", &v) == KT_OK && v == 1);
    CHECK(eval_code("N // K if K else -1", &v) == KT_OK && v == -1);
    CHECK(eval_code("K != 0 and N // K > 2", &v) == KT_OK && v == 0);
    CHECK(eval_code("K == 0 or N % K", &v) == KT_OK && v == 1);
    CHECK(eval_code("K and 1 / K", &v) == KT_OK && v == 0);
    CHECK(eval_code("K || 1 / K", &v) == KT_EDOMAIN);
}

static void test_c_style_operators_are_aliases(void)
{
    double v;
    CHECK(eval_code("a > 0 && b < 0", &v) == KT_OK && v == 1);
    CHECK(eval_code("K || N", &v) == KT_OK && v == 10);
    CHECK(eval_code("!K && !(a == 3)", &v) == KT_OK && v == 1);
    CHECK(eval_code("!a != 1", &v) == KT_OK && v == 0); /* ! binds like not: !(a != 1) */
}

static void expect_syntax(const char *src, const char *fragment)
{
    kt_expr *e = (kt_expr *)1;
    kt_diag d = {{0}};
    int rc = kt_expr_compile(src, NAMES, NNAMES, &e, &d);
    if (rc != KT_ESYNTAX || !strstr(d.msg, fragment) || e != NULL) {
        fprintf(stderr, "'%s': got %d \"%s\", wanted \"%s\"\n", src, rc, d.msg, fragment);
        exit(1);
    }
}

static void test_errors_name_the_column(void)
{
    expect_syntax("", "column 1: unexpected end");
    expect_syntax("a +", "column 4: unexpected end");
    expect_syntax("a + * b", "column 5: unexpected '*'");
    expect_syntax("(a + b", "column 7: expected ')'");
    expect_syntax("a + foo", "column 5: unknown name 'foo'");
    expect_syntax("ProblemSize[2]", "column 1: unknown name 'ProblemSize[2]'");
    expect_syntax("ProblemSize[x]", "column 13: expected a whole-number index");
    expect_syntax("a $ b", "column 3: unexpected character '$'");
    expect_syntax("a b", "column 3: unexpected 'b' after the expression");
    expect_syntax("frob(a)", "column 1: unknown function 'frob'");
    expect_syntax("ceil(a, b)", "column 1: ceil() takes 1 argument");
    expect_syntax("min(a)", "column 1: min() takes at least 2 arguments");
    expect_syntax("max(a, b", "column 9: expected ')' after the arguments");
    expect_syntax("a if b", "column 7: expected 'else'");
    expect_syntax("12abc", "column 1: unexpected character");
    expect_syntax("a = 3", "column 3: unexpected character '='");
}

static void test_pathological_input_is_refused_cleanly(void)
{
    char deep[4096];
    memset(deep, '(', 2000);
    deep[2000] = 'a';
    memset(deep + 2001, ')', 2000);
    deep[4001] = '\0';
    expect_syntax(deep, "nested too deeply");
    char wide[8192] = "";
    for (int i = 0; i < 100; i++)
        strcat(wide, "a * (b + (c - ");
    strcat(wide, "N");
    for (int i = 0; i < 100; i++)
        strcat(wide, "))");
    kt_expr *e;
    kt_diag d = {{0}};
    int rc = kt_expr_compile(wide, NAMES, NNAMES, &e, &d);
    CHECK(rc == KT_ESYNTAX);
    CHECK(strstr(d.msg, "too complex") || strstr(d.msg, "nested too deeply"));
    /* random bytes: never a crash, always an answer */
    kt_rng rng;
    kt_rng_seed(&rng, 11);
    static const char ALPHABET[] = "aKN()[]+-*/%<>=!&|, 0129.eifnotdlsx";
    for (int i = 0; i < 5000; i++) {
        char src[24];
        size_t n = kt_rng_below(&rng, sizeof src - 1);
        for (size_t j = 0; j < n; j++)
            src[j] = ALPHABET[kt_rng_below(&rng, sizeof ALPHABET - 1)];
        src[n] = '\0';
        e = NULL;
        rc = kt_expr_compile(src, NAMES, NNAMES, &e, &d);
        CHECK((rc == KT_OK) == (e != NULL));
        double v;
        if (e)
            kt_expr_eval(e, VALUES, &v);
        kt_expr_free(e);
    }
}

static const kt_test TESTS[] = {
    KT_T(test_values_match_python),
    KT_T(test_constants_are_folded),
    KT_T(test_slots_are_sorted_and_distinct),
    KT_T(test_domain_errors_are_reported_not_trapped),
    KT_T(test_branches_not_taken_are_not_evaluated),
    KT_T(test_c_style_operators_are_aliases),
    KT_T(test_errors_name_the_column),
    KT_T(test_pathological_input_is_refused_cleanly),
};
KT_TEST_MAIN(TESTS)
