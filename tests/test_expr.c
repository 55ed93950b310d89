/* test_expr.c - the expression compiler: Python semantics (precedence,
 * // % ** on negatives and floats, chained comparisons, laziness of and/or
 * and if/else), functions, literals, NAME[i], constant folding, slots, every
 * class of syntax error with its column, domain errors, and hostile input.
 *
 * The tables PYTHON_VALUES and PYTHON_DOMAIN were produced by evaluating
 * each expression with CPython 3.11 under the bindings below (a row of
 * PYTHON_DOMAIN raises ZeroDivisionError, ValueError or OverflowError there,
 * or yields a complex number).  The randomized test checks compiled code
 * against a small independent evaluator over integers; its generator was
 * also cross-checked against CPython during development. */
#include "core/expr.h"
#include "test.h"

/* a=7 b=-3 c=2.5 K=0 N=10 MC=96 MR=6 NR=32 VEC=16 x=-7.5
 * ProblemSize[0]=64 ProblemSize[1]=32 */
static const char *const NAMES[] = {"a",  "b",  "c",   "K", "N",
                                    "MC", "MR", "NR",  "VEC", "x",
                                    "ProblemSize[0]", "ProblemSize[1]"};
static const double VALUES[] = {7, -3, 2.5, 0, 10, 96, 6, 32, 16, -7.5, 64, 32};
#define NNAMES (sizeof NAMES / sizeof NAMES[0])
#define LEN(a) (sizeof(a) / sizeof((a)[0]))

typedef struct expr_case {
    const char *src;
    double want;
} expr_case;

static const expr_case PYTHON_VALUES[] = {
    {"1 + 2 * 3", 7.0},
    {"(1 + 2) * 3", 9.0},
    {"2 * 3 ** 2", 18.0},
    {"-2 ** 2", -4.0},
    {"(-2) ** 2", 4.0},
    {"2 ** -1", 0.5},
    {"2 ** 3 ** 2", 512.0},
    {"(2 ** 3) ** 2", 64.0},
    {"-2 ** -2", -0.25},
    {"2 ** -2 ** 2", 0.0625},
    {"10 - 3 - 2", 5.0},
    {"100 / 10 / 5", 2.0},
    {"2 * 3 // 4", 1.0},
    {"7 // 2 * 2", 6.0},
    {"7 % 3 * 2", 2.0},
    {"1 + 2 < 4", 1.0},
    {"1 < 2 == 2", 1.0},
    {"not 1 == 2", 1.0},
    {"not a and K", 0.0},
    {"a or K and N", 7.0},
    {"K and a or N", 10.0},
    {"not K or a", 1.0},
    {"1 + 2 if 0 else 3 + 4", 7.0},
    {"a if K else N if a else 0", 10.0},
    {"- a ** 2", -49.0},
    {"a * -b", 21.0},
    {"a - -b", 4.0},
    {"--a", 7.0},
    {"+-a", -7.0},
    {"a - b * c", 14.5},
    {"a ** 2 % 5", 4.0},
    {"-a // 2", -4.0},
    {"-(a // 2)", -3.0},
    {"not not a", 1.0},
    {"N - a - b", 6.0},
    {"N / c / 2", 2.0},
    {"a < N and N < 100 or K", 1.0},
    {"-7 // 2", -4.0},
    {"-7 % 2", 1.0},
    {"7 // -2", -4.0},
    {"7 % -2", -1.0},
    {"-7 // -2", 3.0},
    {"-7 % -2", -1.0},
    {"7.5 // 2", 3.0},
    {"7.5 % 2", 1.5},
    {"-7.5 // 2", -4.0},
    {"-7.5 % 2", 0.5},
    {"7.5 % -2", -0.5},
    {"x // 2", -4.0},
    {"x % 2", 0.5},
    {"x % -2.5", -0.0},
    {"1 // 0.1", 9.0},
    {"1 % 0.1", 0.09999999999999995},
    {"b % a", 4.0},
    {"b // a", -1.0},
    {"a % b", -2.0},
    {"a // b", -3.0},
    {"c // 0.5", 5.0},
    {"N % c", 0.0},
    {"0 % 5", 0.0},
    {"0 // -5", 0.0},
    {"MC % MR", 0.0},
    {"MC // (MR * 5)", 3.0},
    {"2 ** 31 // 3", 715827882.0},
    {"2 ** 40 % 7", 2.0},
    {"-(2 ** 40) // 7", -157073089683.0},
    {"-(2 ** 40) % 7", 5.0},
    {"2 ** 31 % 2 ** 31 - 1", -1.0},
    {"2 ** 0.5", 1.4142135623730951},
    {"a ** 0", 1.0},
    {"0 ** 0", 1.0},
    {"(-2) ** 3", -8.0},
    {"c ** 2", 6.25},
    {"4 ** 0.5", 2.0},
    {"b ** 2", 9.0},
    {"N ** -2", 0.01},
    {"1 < 2 < 3", 1.0},
    {"1 < 3 < 2", 0.0},
    {"3 > 2 > 1", 1.0},
    {"1 == 1 == 1", 1.0},
    {"1 < a <= 7 != 8", 1.0},
    {"K < a < N > c", 1.0},
    {"b < K < a < N", 1.0},
    {"a < N < 10", 0.0},
    {"0 <= K < 1 <= N", 1.0},
    {"a and b", -3.0},
    {"K and a", 0.0},
    {"K or b", -3.0},
    {"a or b", 7.0},
    {"K or K", 0.0},
    {"c and K or x", -7.5},
    {"(a and N) + 1", 11.0},
    {"(K or N) * 2", 20.0},
    {"1 and 2 and 3", 3.0},
    {"1 and 0 and 3", 0.0},
    {"0 or 0.0 or 5", 5.0},
    {"a if a > b else b", 7.0},
    {"a if K else N", 10.0},
    {"3 if 0 else 4 if 1 else 5", 4.0},
    {"(a if K else N) + 1", 11.0},
    {"a if K == 0 and N else b", 7.0},
    {"a if K or N < 5 else b", -3.0},
    {"x if not K else c", -7.5},
    {"min(a, b, c)", -3.0},
    {"max(a, b, c)", 7.0},
    {"min(a, b) * max(a, b)", -21.0},
    {"ceil(c)", 3.0},
    {"ceil(-c)", -2.0},
    {"floor(c)", 2.0},
    {"floor(x)", -8.0},
    {"log2(64)", 6.0},
    {"log2(N)", 3.321928094887362},
    {"log2(0.25)", -2.0},
    {"abs(b)", 3.0},
    {"abs(x)", 7.5},
    {"int(c)", 2.0},
    {"int(x)", -7.0},
    {"int(-0.5)", 0.0},
    {"float(a) / 2", 3.5},
    {"sqrt(16)", 4.0},
    {"sqrt(c)", 1.5811388300841898},
    {"ceil(ProblemSize[0] / 6)", 11.0},
    {"max(N, 4 * c)", 10.0},
    {"min(1, 2,)", 1.0},
    {"1e3 + 0.5", 1000.5},
    {"0x1f + 1", 32.0},
    {"0X1F", 31.0},
    {"0o17", 15.0},
    {"0b101", 5.0},
    {".5 * 4", 2.0},
    {"5. / 2", 2.5},
    {"1.5e-3 * 1000", 1.5},
    {"True + True", 2.0},
    {"False - 1", -1.0},
    {"00", 0.0},
    {"ProblemSize[0] * 2", 128.0},
    {"ProblemSize[ 1 ] + a", 39.0},
    {"MC % MR == 0 and NR % VEC == 0 and MR * NR // VEC <= 28", 1.0},
};

static const char *const PYTHON_DOMAIN[] = {
    "N / K",
    "N // K",
    "N % K",
    "c / (K * 1.5)",
    "log2(K)",
    "log2(b)",
    "sqrt(b)",
    "K ** -1",
    "0 ** -1",
    "1 / 0",
    "a % (K * 2)",
    "min(N // K, 1)",
    "(-8) ** (1 / 3)",
    "10.0 ** 400",
    "K != 0 or N // K",
    "0 < N // K < 5",
};

/* ------------------------------------------------------------- helpers */

static kt_expr *compile_ok(const char *src)
{
    KT_CHECKED(); /* the failing branch below exits */
    kt_expr *e = NULL;
    kt_diag d = {{0}};
    int rc = kt_expr_compile(src, NAMES, NNAMES, &e, &d);
    if (rc != KT_OK || !e) {
        fprintf(stderr, "'%s': compile failed %d: %s\n", src, rc, d.msg);
        exit(1);
    }
    return e;
}

/* Compile and evaluate against VALUES; the return code of the evaluation. */
static int eval_rc(const char *src, double *v)
{
    kt_expr *e = compile_ok(src);
    int rc = kt_expr_eval(e, VALUES, v);
    kt_expr_free(e);
    return rc;
}

static double eval_ok(const char *src)
{
    KT_CHECKED(); /* the failing branch below exits */
    double v = 0;
    int rc = eval_rc(src, &v);
    if (rc != KT_OK) {
        fprintf(stderr, "'%s': eval failed %d\n", src, rc);
        exit(1);
    }
    return v;
}

/* Exact but for a few ulps, so another libm's log2 or pow still passes. */
static void check_value(const char *src, double want)
{
    double v = eval_ok(src);
    if (!(fabs(v - want) <= 4e-16 * fmax(1, fabs(want)))) {
        fprintf(stderr, "'%s' = %.17g, want %.17g\n", src, v, want);
        exit(1);
    }
}

static void check_cases(const expr_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_value(cases[i].src, cases[i].want);
}

static void check_domain(const char *src)
{
    KT_CHECKED(); /* the failing branch below exits */
    double v = 12345;
    int rc = eval_rc(src, &v);
    if (rc != KT_EDOMAIN || v != 12345) {
        fprintf(stderr, "'%s': want KT_EDOMAIN and no value, got %d (%g)\n", src, rc, v);
        exit(1);
    }
}

/* Compile must fail with KT_ESYNTAX, exactly this message, and no result. */
static void check_syntax(const char *src, const char *msg)
{
    KT_CHECKED(); /* the failing branch below exits */
    kt_expr *e = (kt_expr *)&e;
    kt_diag d = {{0}};
    int rc = kt_expr_compile(src, NAMES, NNAMES, &e, &d);
    if (rc != KT_ESYNTAX || e != NULL || strcmp(d.msg, msg) != 0) {
        fprintf(stderr, "'%.60s': got %d \"%s\"\n  want \"%s\"\n", src, rc, d.msg, msg);
        exit(1);
    }
}

static bool compiles_constant(const char *src)
{
    kt_expr *e = compile_ok(src);
    bool constant = kt_expr_is_constant(e);
    CHECK(constant == (kt_expr_nslots(e) == 0));
    kt_expr_free(e);
    return constant;
}

/* "head" + n copies of "rep" + "tail", on the heap. */
static char *repeat(const char *head, const char *rep, int n, const char *tail)
{
    size_t lh = strlen(head), lr = strlen(rep), lt = strlen(tail);
    char *s = malloc(lh + (size_t)n * lr + lt + 1);
    CHECK(s != NULL);
    memcpy(s, head, lh);
    for (int i = 0; i < n; i++)
        memcpy(s + lh + (size_t)i * lr, rep, lr);
    memcpy(s + lh + (size_t)n * lr, tail, lt + 1);
    return s;
}

/* ---------------------------------------------------- Python semantics */

static void test_values_match_python(void)
{
    CHECK(LEN(PYTHON_VALUES) >= 60);
    check_cases(PYTHON_VALUES, LEN(PYTHON_VALUES));
}

static void test_domain_errors_match_python(void)
{
    for (size_t i = 0; i < LEN(PYTHON_DOMAIN); i++)
        check_domain(PYTHON_DOMAIN[i]);
}

static void test_precedence_follows_python(void)
{
    static const expr_case CASES[] = {
        {"1 + 2 * 3", 7},       {"2 * 3 ** 2", 18},      {"10 - 3 - 2", 5},
        {"100 / 10 / 5", 2},    {"2 * 3 // 4", 1},       {"7 // 2 * 2", 6},
        {"1 + 2 < 4", 1},       {"not 1 == 2", 1},       {"a or K and N", 7},
        {"K and a or N", 10},   {"not K or a", 1},       {"1 + 2 if 0 else 3 + 4", 7},
        {"- a ** 2", -49},      {"a * -b", 21},          {"-a // 2", -4},
        {"-(a // 2)", -3},      {"a - b * c", 14.5},     {"a ** 2 % 5", 4},
    };
    check_cases(CASES, LEN(CASES));
}

static void test_floor_division_and_modulo_follow_python(void)
{
    static const expr_case CASES[] = {
        {"-7 // 2", -4},   {"-7 % 2", 1},      {"7 // -2", -4},    {"7 % -2", -1},
        {"-7 // -2", 3},   {"-7 % -2", -1},    {"7.5 // 2", 3},    {"-7.5 // 2", -4},
        {"-7.5 % 2", 0.5}, {"7.5 % -2", -0.5}, {"x % 2", 0.5},     {"1 // 0.1", 9},
        {"b // a", -1},    {"b % a", 4},       {"a // b", -3},     {"a % b", -2},
        {"-(2 ** 40) // 7", -157073089683.0}, {"-(2 ** 40) % 7", 5},
    };
    check_cases(CASES, LEN(CASES));
    CHECK(signbit(eval_ok("x % -2.5"))); /* Python: -0.0 */
}

static void test_power_is_right_associative_and_above_unary_minus(void)
{
    static const expr_case CASES[] = {
        {"-2 ** 2", -4},     {"(-2) ** 2", 4},   {"2 ** -1", 0.5},  {"2 ** 3 ** 2", 512},
        {"(2 ** 3) ** 2", 64}, {"-2 ** -2", -0.25}, {"2 ** -2 ** 2", 0.0625},
        {"0 ** 0", 1},       {"(-2) ** 3", -8},  {"N ** -2", 0.01},
    };
    check_cases(CASES, LEN(CASES));
}

static void test_chained_comparisons_mean_and(void)
{
    static const expr_case CASES[] = {
        {"1 < 2 < 3", 1},     {"1 < 3 < 2", 0},    {"3 > 2 > 1", 1},
        {"1 == 1 == 1", 1},   {"1 < a <= 7 != 8", 1}, {"K < a < N > c", 1},
        {"a < N < 10", 0},    {"b < K < a < N", 1}, {"(1 < 2) < 3", 1},
        {"a < (N + 1) < 12 < 2 ** 4", 1},
    };
    check_cases(CASES, LEN(CASES));
    double v;
    /* a false link stops the chain before its later operands */
    CHECK(eval_rc("N < a < N // K", &v) == KT_OK && v == 0);
    CHECK(eval_rc("a < N < N // K", &v) == KT_EDOMAIN);
}

static void test_if_else_evaluates_only_the_chosen_branch(void)
{
    double v;
    CHECK(eval_rc("1 if K == 0 else N // K", &v) == KT_OK && v == 1);
    CHECK(eval_rc("N // K if K else -1", &v) == KT_OK && v == -1);
    CHECK(eval_rc("N // K if K != 0 else N % K if K else 5", &v) == KT_OK && v == 5);
    CHECK(eval_rc("1 if K else N // K", &v) == KT_EDOMAIN);
    CHECK(eval_rc("(1 / K if K else 2) + 1", &v) == KT_OK && v == 3);
}

static void test_and_or_short_circuit_and_yield_the_deciding_operand(void)
{
    double v;
    CHECK(eval_rc("K != 0 and N // K > 2", &v) == KT_OK && v == 0);
    CHECK(eval_rc("K == 0 or N // K > 2", &v) == KT_OK && v == 1);
    CHECK(eval_rc("K and 1 / K", &v) == KT_OK && v == 0);
    CHECK(eval_rc("K or 1 / K", &v) == KT_EDOMAIN);
    CHECK(eval_ok("a and b") == -3);
    CHECK(eval_ok("K or b") == -3);
    CHECK(eval_ok("c and K or x") == -7.5);
    CHECK(eval_ok("(a and N) + 1") == 11);
    CHECK(eval_ok("(K or N) * 2") == 20);
    CHECK(eval_ok("x if a and K else c") == 2.5); /* and/or as conditions */
    CHECK(eval_ok("x if K or a else c") == -7.5);
    CHECK(eval_ok("x if not K and (K or a) else c") == -7.5);
}

static void test_c_style_operators_are_aliases(void)
{
    CHECK(eval_ok("a > 0 && b < 0") == 1);
    CHECK(eval_ok("K || N") == 10);
    CHECK(eval_ok("!K && !(a == 3)") == 1);
    CHECK(eval_ok("!a != 1") == 0); /* ! binds like not: !(a != 1) */
    CHECK(eval_ok("a != 7 || !K") == 1);
}

static void test_every_function(void)
{
    static const expr_case CASES[] = {
        {"min(a, b, c)", -3}, {"max(a, b, c)", 7}, {"min(N)", 10},  {"max(c)", 2.5},
        {"min(1, 2,)", 1},    {"ceil(c)", 3},      {"ceil(-c)", -2}, {"floor(c)", 2},
        {"floor(x)", -8},     {"log2(64)", 6},     {"log2(0.25)", -2}, {"abs(b)", 3},
        {"abs(x)", 7.5},      {"int(c)", 2},       {"int(x)", -7},  {"int(-0.5)", 0},
        {"float(a) / 2", 3.5}, {"sqrt(16)", 4},    {"sqrt(c)", 1.5811388300841898},
        {"max(N, 4 * c) + min(a, b) * 2", 4},
    };
    check_cases(CASES, LEN(CASES));
}

static void test_literals(void)
{
    static const expr_case CASES[] = {
        {"1e3 + 0.5", 1000.5}, {"0x1f + 1", 32}, {"0X1F", 31},     {"0o17", 15},
        {"0b101", 5},          {".5 * 4", 2},    {"5. / 2", 2.5},  {"1.5e-3 * 1000", 1.5},
        {"2E+2", 200},         {"True + True", 2}, {"False - 1", -1}, {"00", 0},
        {"1e-400", 0},         {"123456789012", 123456789012.0},
        /* underscores and the other forms (python3 -c gave each answer) */
        {"1_000 + 1", 1001},   {"0x_1f", 31},    {"0o1_7", 15},    {"0b1_01", 5},
        {"1_0.0_1e1_0", 100100000000.0}, {"1e3_0", 1e30}, {".5_0 * 2", 1},
        {"017e1", 170},        {"09.5", 9.5},    {"0_0", 0},       {"0e5", 0},
    };
    check_cases(CASES, LEN(CASES));
}

static void test_indexed_names_are_looked_up_canonically(void)
{
    CHECK(eval_ok("ProblemSize[0] * 2") == 128);
    CHECK(eval_ok("ProblemSize[ 1 ] + a") == 39);
    CHECK(eval_ok("ProblemSize [0x1]") == 32);
    CHECK(eval_ok("ceil(ProblemSize[0] / 6)") == 11);
    kt_expr *e = compile_ok("ProblemSize[\t1] - ProblemSize[0]");
    CHECK_EQ_INT(kt_expr_nslots(e), 2);
    CHECK_EQ_INT(kt_expr_slots(e)[0], 10);
    CHECK_EQ_INT(kt_expr_slots(e)[1], 11);
    kt_expr_free(e);
}

/* ------------------------------------------------------------- errors */

static void test_syntax_errors_name_the_column(void)
{
    check_syntax("", "column 1: empty expression");
    check_syntax("   ", "column 1: empty expression");
    check_syntax("a +", "column 4: unexpected end of expression");
    check_syntax("a if K else", "column 12: unexpected end of expression");
    check_syntax("a + * b", "column 5: expected an operand, found '*'");
    check_syntax("min(,)", "column 5: expected an operand, found ','");
    check_syntax("(a + b", "column 7: expected ')' to close the '(' at column 1");
    check_syntax("((a) b)", "column 6: expected ')' to close the '(' at column 1");
    check_syntax("min(a b)", "column 7: expected ')' after arguments");
    check_syntax("max(a, b", "column 9: expected ')' after arguments");
    check_syntax("a)", "column 2: unmatched ')'");
    check_syntax("a b", "column 3: expected an operator, found 'b'");
    check_syntax("(a) [0]", "column 5: expected an operator, found '['");
    check_syntax("a if K", "column 7: expected 'else' after the condition of the 'if' at "
                           "column 3");
    check_syntax("a == not K", "column 6: unexpected 'not' (put it and its operand in "
                               "parentheses)");
    check_syntax("a + !K", "column 5: unexpected '!' (put it and its operand in parentheses)");
    check_syntax("ProblemSize[x]", "column 13: expected an integer index after '['");
    check_syntax("ProblemSize[1.0]", "column 13: expected an integer index after '['");
    check_syntax("ProblemSize[-1]", "column 13: expected an integer index after '['");
    check_syntax("ProblemSize[0", "column 14: expected ']' after the index");
    check_syntax("ceil(a, b)", "column 1: ceil() takes exactly one argument (2 given)");
    check_syntax("N + sqrt()", "column 5: sqrt() takes exactly one argument (0 given)");
    check_syntax("min()", "column 1: min() takes at least one argument (0 given)");
}

static void test_bad_characters_and_numbers_are_named(void)
{
    check_syntax("a $ b", "column 3: unexpected character '$'");
    check_syntax("a = 3", "column 3: unexpected character '=' (use '==' to compare)");
    check_syntax("a & b", "column 3: unexpected character '&' (use 'and' or '&&')");
    check_syntax("a | b", "column 3: unexpected character '|' (use 'or' or '||')");
    check_syntax("a\x01", "column 2: unexpected byte 0x01");
    check_syntax("a + \xc3\xa9", "column 5: unexpected byte 0xc3");
    check_syntax("12abc", "column 1: invalid decimal literal '12abc'");
    check_syntax("a + 1.2.3", "column 5: invalid decimal literal '1.2.3'");
    check_syntax("0x", "column 1: invalid hexadecimal literal '0x'");
    check_syntax("0x1g", "column 1: invalid hexadecimal literal '0x1g'");
    check_syntax("0b102", "column 1: invalid digit '2' in binary literal '0b102'");
    check_syntax("1e", "column 1: invalid decimal literal '1e'");
    check_syntax("007", "column 1: leading zeros in decimal integer literals are not "
                        "permitted; use an 0o prefix for octal integers");
    check_syntax("a * 1__0", "column 5: invalid decimal literal '1__0'");
    check_syntax("1_", "column 1: invalid decimal literal '1_'");
    check_syntax("0b2", "column 1: invalid digit '2' in binary literal '0b2'");
    check_syntax("0o8", "column 1: invalid digit '8' in octal literal '0o8'");
    check_syntax("a == 017", "column 6: leading zeros in decimal integer literals are not "
                              "permitted; use an 0o prefix for octal integers");
    check_syntax("0_7", "column 1: leading zeros in decimal integer literals are not "
                         "permitted; use an 0o prefix for octal integers");
    check_syntax("0x1__f", "column 1: invalid hexadecimal literal '0x1__f'");
    check_syntax("1_e3", "column 1: invalid decimal literal '1_e3'");
    check_syntax("1e_3", "column 1: invalid decimal literal '1e_3'");
    check_syntax("5._0", "column 1: invalid decimal literal '5._0'");
    check_syntax("2j", "column 1: imaginary literal '2j' is not supported");
    check_syntax("_1", "column 1: unknown name '_1'");
    check_syntax("2 * 1e400", "column 5: number literal '1e400' is too large");
}

static void test_unknown_names_are_reported(void)
{
    check_syntax("a + foo", "column 5: unknown name 'foo'");
    check_syntax("ProblemSize[2]", "column 1: unknown name 'ProblemSize[2]'");
    check_syntax("a[0]", "column 1: unknown name 'a[0]'");
    check_syntax("n", "column 1: unknown name 'n'; did you mean 'N'?");
    check_syntax("1 + min", "column 5: unknown name 'min' (it is a function: call it as "
                            "min(...))");
    check_syntax("frob(a)", "column 1: unknown function 'frob' (known: min, max, ceil, "
                            "floor, log2, abs, int, float, sqrt)");
    check_syntax("a(1)", "column 1: unknown function 'a' (known: min, max, ceil, floor, "
                         "log2, abs, int, float, sqrt)");
}

static void test_domain_errors_are_reported_not_trapped(void)
{
    static const char *const BAD[] = {
        "N / K",   "N // K",  "N % K",   "c % K",   "log2(K)", "log2(b)", "sqrt(b)",
        "K ** -1", "1 / 0",   "1 // 0",  "1 % 0",   "(-8) ** (1 / 3)",
        "10 ** 400" /* Python: an exact int; here not finite */,
        "1e308 * 10" /* Python: inf; the contract: no non-finite results */,
        "1e308 + 1e308 - 1e308", "-1e308 * 10", "min(N // K, 1)",
    };
    for (size_t i = 0; i < LEN(BAD); i++)
        check_domain(BAD[i]);
}

static void test_nonfinite_slots_are_domain_errors_when_read(void)
{
    static const char *const NAMES2[] = {"p", "q"};
    const double slots[][2] = {{NAN, 1}, {INFINITY, 1}, {-INFINITY, 1}};
    for (size_t i = 0; i < LEN(slots); i++) {
        kt_expr *e;
        double v = 0;
        CHECK(kt_expr_compile("p > 0", NAMES2, 2, &e, NULL) == KT_OK);
        CHECK(kt_expr_eval(e, slots[i], &v) == KT_EDOMAIN);
        kt_expr_free(e);
        CHECK(kt_expr_compile("q if q else p", NAMES2, 2, &e, NULL) == KT_OK);
        CHECK(kt_expr_eval(e, slots[i], &v) == KT_OK && v == 1);
        kt_expr_free(e);
    }
}

static void test_invalid_arguments_are_refused(void)
{
    kt_expr *e = (kt_expr *)&e;
    kt_diag d = {{0}};
    CHECK(kt_expr_compile(NULL, NAMES, NNAMES, &e, &d) == KT_EINVAL && e == NULL);
    CHECK(strlen(d.msg) > 0);
    CHECK(kt_expr_compile("a", NAMES, NNAMES, NULL, NULL) == KT_EINVAL);
    CHECK(kt_expr_compile("a", NULL, 3, &e, NULL) == KT_EINVAL);
    CHECK(kt_expr_compile("1 + 2", NULL, 0, &e, NULL) == KT_OK);
    double v;
    CHECK(kt_expr_eval(e, NULL, &v) == KT_OK && v == 3);
    CHECK(kt_expr_eval(e, NULL, NULL) == KT_EINVAL);
    CHECK(kt_expr_eval(NULL, VALUES, &v) == KT_EINVAL);
    kt_expr_free(e);
    kt_expr_free(NULL);
    CHECK(kt_expr_compile("a", NAMES, NNAMES, &e, NULL) == KT_OK);
    CHECK(kt_expr_eval(e, NULL, &v) == KT_EINVAL);
    kt_expr_free(e);
    CHECK(kt_expr_compile("zz", NAMES, NNAMES, &e, NULL) == KT_ESYNTAX && e == NULL);
}

static void test_error_codes_have_messages(void)
{
    CHECK_STR(kt_strerror(KT_OK), "success");
    CHECK_STR(kt_strerror(KT_ESYNTAX), "syntax error");
    CHECK(strstr(kt_strerror(KT_EDOMAIN), "domain") != NULL);
    CHECK_STR(kt_strerror(KT_EFORMAT), "unsupported or corrupt file format");
    CHECK_STR(kt_strerror(1), "unknown error");
    CHECK_STR(kt_strerror(-999), "unknown error");
}

/* --------------------------------------------- folding, slots, source */

static void test_constant_subtrees_are_folded(void)
{
    static const char *const CONSTANT[] = {
        "1 + 2 * 3", "2 ** 3 ** 2", "-7 // 2", "1 < 2 < 3", "ceil(2.5) + min(4, 1)",
        "a if 0 else 3", "0 and a", "1 or a", "not 1 and N", "1 > 2 < a",
        "1 / 0", /* still constant: the error waits for evaluation */
    };
    static const char *const VARYING[] = {
        "a", "K * 0", "a if K else 3", "a and 0", "1 < 2 < a", "min(1, a)",
    };
    for (size_t i = 0; i < LEN(CONSTANT); i++)
        CHECK(compiles_constant(CONSTANT[i]));
    for (size_t i = 0; i < LEN(VARYING); i++)
        CHECK(!compiles_constant(VARYING[i]));
    double v;
    CHECK(eval_rc("1 / 0", &v) == KT_EDOMAIN);
    CHECK(eval_rc("a if 1 else 1 / 0", &v) == KT_OK && v == 7);
}

/* A folded constant is the value evaluation would compute. */
static void test_folding_agrees_with_evaluation(void)
{
    static const char *const PAIRS[][2] = {
        {"-7.5 // 2 + 7.5 % -2", "x // 2 + -x % -2"},
        {"2 ** 0.5 * log2(10)", "2 ** 0.5 * log2(N)"},
        {"1 // 0.1", "1 // (N / 100)"},
        {"min(7, -3, 2.5) - sqrt(2.5)", "min(a, b, c) - sqrt(c)"},
    };
    for (size_t i = 0; i < LEN(PAIRS); i++) {
        CHECK(compiles_constant(PAIRS[i][0]) && !compiles_constant(PAIRS[i][1]));
        CHECK(eval_ok(PAIRS[i][0]) == eval_ok(PAIRS[i][1]));
    }
}

static void test_slots_are_sorted_and_distinct(void)
{
    kt_expr *e = compile_ok("N * a + a - ProblemSize[1] + N // c if x else VEC");
    static const uint32_t WANT[] = {0, 2, 4, 8, 9, 11};
    CHECK_EQ_INT(kt_expr_nslots(e), LEN(WANT));
    for (size_t i = 0; i < LEN(WANT); i++)
        CHECK_EQ_INT(kt_expr_slots(e)[i], WANT[i]);
    CHECK(!kt_expr_is_constant(e));
    kt_expr_free(e);
    e = compile_ok("a if 0 else K"); /* a branch folded away reads nothing */
    CHECK_EQ_INT(kt_expr_nslots(e), 1);
    CHECK_EQ_INT(kt_expr_slots(e)[0], 3);
    kt_expr_free(e);
}

static void test_source_is_kept(void)
{
    char src[] = "  MC % MR == 0 ";
    kt_expr *e = compile_ok(src);
    src[2] = 'X';
    CHECK_STR(kt_expr_source(e), "  MC % MR == 0 ");
    kt_expr_free(e);
}

/* ----------------------------------------------------- hostile input */

static void test_deep_nesting_is_refused_cleanly(void)
{
    char *s = repeat("", "(", 100, "a");
    char *ok = repeat(s, ")", 100, "");
    CHECK(eval_ok(ok) == 7);
    free(ok);
    free(s);
    s = repeat("", "(", 100000, "a"); /* the column of what the 101st '(' opens */
    check_syntax(s, "column 102: expression nested too deeply (more than 100 levels)");
    free(s);
    s = repeat("", "-", 100000, "a");
    check_syntax(s, "column 101: expression nested too deeply (more than 100 levels)");
    free(s);
    s = repeat("", "a ** ", 100000, "a");
    check_syntax(s, "column 503: expression nested too deeply (more than 100 levels)");
    free(s);
    s = repeat("", "not ", 100000, "a");
    check_syntax(s, "column 401: expression nested too deeply (more than 100 levels)");
    free(s);
    s = repeat("", "a if K else ", 100000, "a");
    check_syntax(s, "column 1213: expression nested too deeply (more than 100 levels)");
    free(s);
}

static void test_oversized_expressions_are_refused_cleanly(void)
{
    char *s = repeat("", "a+", 100000, "a");
    check_syntax(s, "column 1000: expression too long (more than 500 nested operations)");
    free(s);
    char *open = repeat("", "(a+a)*(", 64, "a+a");
    s = repeat(open, ")", 64, "");
    check_syntax(s, "column 450: expression too complex: it needs more than 64 stack "
                    "entries");
    free(s);
    free(open);
    s = repeat("min(", "a, ", 64, "a)");
    check_syntax(s, "column 197: too many arguments (more than 64)");
    free(s);
    s = repeat("", "a < ", 33, "a");
    check_syntax(s, "column 131: too many chained comparisons (more than 32)");
    free(s);
}

/* The largest programs that fit: 63 pending operands, 499 nested sums. */
static void test_limits_are_usable(void)
{
    char *open = repeat("", "(a+a)*(", 63, "a+a");
    char *s = repeat(open, ")", 63, "");
    double want = 14;
    for (int i = 0; i < 63; i++) /* in the order evaluation multiplies */
        want = 14 * want;
    CHECK(eval_ok(s) == want);
    free(s);
    free(open);
    s = repeat("", "a+", 498, "a");
    CHECK(eval_ok(s) == 7 * 499);
    free(s);
    s = repeat("K > 1", " and a > 0", 200, " or N");
    CHECK(eval_ok(s) == 10);
    free(s);
}

/* A tiny generator of pseudo-random numbers, so the tests need no library
 * beyond the one under test (splitmix64). */
static uint64_t rnd_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int rnd(uint64_t *s, int n) { return (int)(rnd_next(s) % (uint64_t)n); }

static void test_random_bytes_never_crash(void)
{
    static const char ALPHABET[] = "aKNx()[]+-*/%<>=!&|, 0129.eEifnotdlsxabmrTF_\t\x80";
    uint64_t seed = 11;
    for (int i = 0; i < 50000; i++) {
        char src[40];
        int n = rnd(&seed, (int)sizeof src);
        for (int j = 0; j < n; j++)
            src[j] = ALPHABET[rnd(&seed, (int)sizeof ALPHABET - 1)];
        src[n] = '\0';
        kt_expr *e = NULL;
        kt_diag d = {{0}};
        int rc = kt_expr_compile(src, NAMES, NNAMES, &e, &d);
        CHECK(rc == KT_OK || rc == KT_ESYNTAX);
        CHECK((rc == KT_OK) == (e != NULL));
        CHECK(rc == KT_OK || strncmp(d.msg, "column ", 7) == 0);
        double v;
        if (e)
            CHECK(kt_expr_eval(e, VALUES, &v) != KT_EINVAL);
        kt_expr_free(e);
    }
}

/* ------------------------------------- random programs vs a reference */

/* A random expression over integers, rendered as source text with only the
 * parentheses Python needs (plus some extra), and evaluated by a reference
 * that shares no code with expr.c: int64 arithmetic, Python's rules for
 * // and %, laziness of and/or/if and of chained comparisons. */
enum { R_NUM, R_VAR, R_NEG, R_NOT, R_ADD, R_SUB, R_MUL, R_FDIV, R_MOD, R_POW, R_CMP,
       R_AND, R_OR, R_IF, R_MIN, R_MAX, R_ABS };

typedef struct rnode {
    int kind;
    long long v;  /* R_NUM: the value; R_VAR: the variable */
    int kid[4];   /* operands; R_CMP: 2 to 4 of them */
    int nkid;
    int cmp[3];   /* R_CMP: 0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >= */
} rnode;

typedef struct rprog {
    rnode n[256];
    int count;
    uint64_t seed;
    char src[8192];
    size_t len;
} rprog;

#define RPREC_UNARY 7 /* the level of unary minus */
#define RVARS 5
static const char *const RNAMES[RVARS] = {"v0", "v1", "v2", "v3", "v4"};
static long long rvals[RVARS];

static int rgen(rprog *p, int depth)
{
    int id = p->count++;
    rnode *n = &p->n[id];
    memset(n, 0, sizeof *n);
    n->kind = depth <= 0 || p->count > 200 ? rnd(&p->seed, 2) : rnd(&p->seed, R_ABS + 1);
    if (n->kind == R_NUM)
        n->v = rnd(&p->seed, 4) == 0 ? rnd(&p->seed, 5000000) : rnd(&p->seed, 10);
    else if (n->kind == R_VAR)
        n->v = rnd(&p->seed, RVARS);
    int arity = n->kind <= R_VAR ? 0 : n->kind == R_NEG || n->kind == R_NOT || n->kind == R_ABS ? 1
              : n->kind == R_IF ? 3 : n->kind == R_CMP ? 2 + rnd(&p->seed, 3)
              : n->kind == R_MIN || n->kind == R_MAX ? 1 + rnd(&p->seed, 3) : 2;
    for (int i = 0; i < arity; i++) {
        int kid = rgen(p, depth - 1 - rnd(&p->seed, 2));
        p->n[id].kid[i] = kid;
        if (i < 3)
            p->n[id].cmp[i] = rnd(&p->seed, 6);
    }
    n = &p->n[id];
    n->nkid = arity;
    if (n->kind == R_POW) { /* small literal exponents keep results integral */
        p->n[n->kid[1]].kind = R_NUM;
        p->n[n->kid[1]].v = rnd(&p->seed, 4);
    }
    return id;
}

/* Python's binding strength of a node; atoms 9. */
static int rprec(const rnode *n)
{
    static const int PREC[] = {
        [R_NUM] = 9, [R_VAR] = 9, [R_NEG] = 7, [R_NOT] = 3, [R_ADD] = 5, [R_SUB] = 5,
        [R_MUL] = 6, [R_FDIV] = 6, [R_MOD] = 6, [R_POW] = 8, [R_CMP] = 4, [R_AND] = 2,
        [R_OR] = 1, [R_IF] = 0, [R_MIN] = 9, [R_MAX] = 9, [R_ABS] = 9,
    };
    return PREC[n->kind];
}

static void rput(rprog *p, const char *s)
{
    size_t n = strlen(s);
    CHECK(p->len + n < sizeof p->src);
    memcpy(p->src + p->len, s, n + 1);
    p->len += n;
}

static void rrender(rprog *p, int id);

/* Render a child that must bind at least as tightly as minprec. */
static void rchild(rprog *p, int id, int minprec)
{
    bool parens = rprec(&p->n[id]) < minprec || rnd(&p->seed, 5) == 0;
    rput(p, parens ? "(" : "");
    rrender(p, id);
    rput(p, parens ? ")" : "");
}

static void rrender(rprog *p, int id)
{
    static const char *const BIN[] = {[R_ADD] = " + ", [R_SUB] = " - ", [R_MUL] = " * ",
                                      [R_FDIV] = " // ", [R_MOD] = " % ", [R_POW] = " ** ",
                                      [R_AND] = " and ", [R_OR] = " or "};
    static const char *const CMP[] = {" == ", " != ", " < ", " <= ", " > ", " >= "};
    const rnode *n = &p->n[id];
    char num[32];
    int prec = rprec(n);
    switch (n->kind) {
    case R_NUM:
        snprintf(num, sizeof num, n->v > 9 && n->v % 3 == 0 ? "0x%llx" : "%lld", n->v);
        rput(p, num);
        break;
    case R_VAR: rput(p, RNAMES[n->v]); break;
    case R_NEG: rput(p, "-"); rchild(p, n->kid[0], RPREC_UNARY); break;
    case R_NOT: rput(p, "not "); rchild(p, n->kid[0], 3); break;
    case R_CMP:
        for (int i = 0; i < n->nkid; i++) {
            if (i > 0)
                rput(p, CMP[n->cmp[i - 1]]);
            rchild(p, n->kid[i], 5);
        }
        break;
    case R_IF:
        rchild(p, n->kid[1], 1);
        rput(p, " if ");
        rchild(p, n->kid[0], 1);
        rput(p, " else ");
        rchild(p, n->kid[2], 0);
        break;
    case R_MIN:
    case R_MAX:
    case R_ABS:
        rput(p, n->kind == R_MIN ? "min(" : n->kind == R_MAX ? "max(" : "abs(");
        for (int i = 0; i < n->nkid; i++) {
            rput(p, i ? ", " : "");
            rchild(p, n->kid[i], 0);
        }
        rput(p, ")");
        break;
    default: /* ** takes an atom on its left and a unary on its right */
        rchild(p, n->kid[0], n->kind == R_POW ? 9 : prec);
        rput(p, BIN[n->kind]);
        rchild(p, n->kid[1], n->kind == R_POW ? RPREC_UNARY : prec + 1);
        break;
    }
}

enum { REF_OK, REF_DOMAIN, REF_BIG };
#define REF_LIMIT (1LL << 40)

typedef struct ref {
    int status;
    long long v;
} ref;

static ref ref_ok(long long v)
{
    return (ref){v > REF_LIMIT || v < -REF_LIMIT ? REF_BIG : REF_OK, v};
}

static ref ref_mul(long long a, long long b)
{
    if (a != 0 && (b > REF_LIMIT / llabs(a) || b < -REF_LIMIT / llabs(a)))
        return (ref){REF_BIG, 0};
    return ref_ok(a * b);
}

static long long ref_floordiv(long long a, long long b)
{
    long long q = a / b;
    return q - (q * b != a && (a < 0) != (b < 0));
}

static ref reval(const rprog *p, int id);

static ref ref_binary(int kind, long long a, long long b)
{
    ref r = {REF_OK, 1};
    switch (kind) {
    case R_ADD: return ref_ok(a + b);
    case R_SUB: return ref_ok(a - b);
    case R_MUL: return ref_mul(a, b);
    case R_FDIV: return b == 0 ? (ref){REF_DOMAIN, 0} : ref_ok(ref_floordiv(a, b));
    case R_MOD: return b == 0 ? (ref){REF_DOMAIN, 0} : ref_ok(a - b * ref_floordiv(a, b));
    case R_POW:
        for (long long i = 0; i < b && r.status == REF_OK; i++)
            r = ref_mul(r.v, a);
        return r;
    default: return (ref){REF_DOMAIN, 0};
    }
}

static bool ref_compare(int op, long long a, long long b)
{
    switch (op) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
    }
}

/* a op b op c ...: stop at the first false link, later operands unread. */
static ref ref_chain(const rprog *p, const rnode *n)
{
    ref left = reval(p, n->kid[0]);
    for (int i = 1; i < n->nkid && left.status == REF_OK; i++) {
        ref right = reval(p, n->kid[i]);
        if (right.status != REF_OK)
            return right;
        if (!ref_compare(n->cmp[i - 1], left.v, right.v))
            return ref_ok(0);
        left = right;
    }
    return left.status == REF_OK ? ref_ok(1) : left;
}

static ref reval(const rprog *p, int id)
{
    const rnode *n = &p->n[id];
    ref a, b;
    switch (n->kind) {
    case R_NUM: return ref_ok(n->v);
    case R_VAR: return ref_ok(rvals[n->v]);
    case R_CMP: return ref_chain(p, n);
    case R_IF:
        a = reval(p, n->kid[0]);
        return a.status != REF_OK ? a : reval(p, n->kid[a.v ? 1 : 2]);
    default: break;
    }
    a = reval(p, n->kid[0]);
    if (a.status != REF_OK)
        return a;
    switch (n->kind) {
    case R_NEG: return ref_ok(-a.v);
    case R_NOT: return ref_ok(!a.v);
    case R_ABS: return ref_ok(llabs(a.v));
    case R_AND: return a.v == 0 ? a : reval(p, n->kid[1]);
    case R_OR: return a.v != 0 ? a : reval(p, n->kid[1]);
    case R_MIN:
    case R_MAX:
        for (int i = 1; i < n->nkid; i++) {
            b = reval(p, n->kid[i]);
            if (b.status != REF_OK)
                return b;
            if (n->kind == R_MIN ? b.v < a.v : b.v > a.v)
                a = b;
        }
        return a;
    default:
        b = reval(p, n->kid[1]);
        return b.status != REF_OK ? b : ref_binary(n->kind, a.v, b.v);
    }
}

/* One random program with random variable values; false if its values
 * outgrow what doubles hold exactly (then it is skipped). */
static bool rcase(uint64_t seed, rprog *p, ref *want)
{
    static const long long POOL[] = {0, 1, -1, 2, -3, 5, 7, -8, 12, 3000000000LL,
                                     -4294967297LL, 64, 6};
    p->count = 0;
    p->len = 0;
    p->src[0] = '\0';
    p->seed = seed;
    for (int i = 0; i < RVARS; i++)
        rvals[i] = POOL[rnd(&p->seed, LEN(POOL))];
    rrender(p, rgen(p, 2 + rnd(&p->seed, 5)));
    *want = reval(p, 0);
    return want->status != REF_BIG;
}

static void test_random_programs_match_a_reference(void)
{
    static rprog p;
    int compared = 0, domain = 0;
    for (uint64_t seed = 1; seed <= 30000; seed++) {
        ref want;
        if (!rcase(seed, &p, &want))
            continue;
        kt_expr *e;
        kt_diag d = {{0}};
        double slots[RVARS], v = 0;
        for (int i = 0; i < RVARS; i++)
            slots[i] = (double)rvals[i];
        if (kt_expr_compile(p.src, RNAMES, RVARS, &e, &d) != KT_OK) {
            fprintf(stderr, "seed %llu: '%s': %s\n", (unsigned long long)seed, p.src, d.msg);
            exit(1);
        }
        int rc = kt_expr_eval(e, slots, &v);
        kt_expr_free(e);
        if (rc != (want.status == REF_OK ? KT_OK : KT_EDOMAIN) ||
            (rc == KT_OK && v != (double)want.v)) {
            fprintf(stderr, "seed %llu: '%s' gave %d %.17g, want %lld%s\n",
                    (unsigned long long)seed, p.src, rc, v, want.v,
                    want.status == REF_DOMAIN ? " (domain error)" : "");
            exit(1);
        }
        compared++;
        domain += rc == KT_EDOMAIN;
    }
    CHECK(compared > 20000);
    CHECK(domain > 200 && domain < compared / 2);
}

static const kt_test TESTS[] = {
    KT_T(test_values_match_python),
    KT_T(test_domain_errors_match_python),
    KT_T(test_precedence_follows_python),
    KT_T(test_floor_division_and_modulo_follow_python),
    KT_T(test_power_is_right_associative_and_above_unary_minus),
    KT_T(test_chained_comparisons_mean_and),
    KT_T(test_if_else_evaluates_only_the_chosen_branch),
    KT_T(test_and_or_short_circuit_and_yield_the_deciding_operand),
    KT_T(test_c_style_operators_are_aliases),
    KT_T(test_every_function),
    KT_T(test_literals),
    KT_T(test_indexed_names_are_looked_up_canonically),
    KT_T(test_syntax_errors_name_the_column),
    KT_T(test_bad_characters_and_numbers_are_named),
    KT_T(test_unknown_names_are_reported),
    KT_T(test_domain_errors_are_reported_not_trapped),
    KT_T(test_nonfinite_slots_are_domain_errors_when_read),
    KT_T(test_invalid_arguments_are_refused),
    KT_T(test_error_codes_have_messages),
    KT_T(test_constant_subtrees_are_folded),
    KT_T(test_folding_agrees_with_evaluation),
    KT_T(test_slots_are_sorted_and_distinct),
    KT_T(test_source_is_kept),
    KT_T(test_deep_nesting_is_refused_cleanly),
    KT_T(test_oversized_expressions_are_refused_cleanly),
    KT_T(test_limits_are_usable),
    KT_T(test_random_bytes_never_crash),
    KT_T(test_random_programs_match_a_reference),
};
KT_TEST_MAIN(TESTS)
