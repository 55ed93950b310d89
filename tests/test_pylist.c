/* test_pylist.c - the Values evaluator: the Python list expressions that
 * public T1 files write give Python's lists, and everything outside the
 * allowed grammar is refused with its column, never run. */
#include "core/pylist.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* Evaluate src and compare the texts, joined by spaces, with want. */
static void expect_list(const char *src, const char *want)
{
    kt_pyitem *items;
    size_t n;
    kt_diag d = {{0}};
    int rc = kt_pylist_eval(src, 65535, &items, &n, &d);
    if (rc != KT_OK) {
        fprintf(stderr, "%s: %s\n", src, d.msg);
        exit(1);
    }
    char got[4096] = "";
    for (size_t i = 0; i < n; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "",
                 items[i].text);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%s: got \"%s\", wanted \"%s\"\n", src, got, want);
        exit(1);
    }
    KT_CHECKED();
    kt_pylist_free(items, n);
}

static void expect_refused(const char *src, const char *frag)
{
    kt_pyitem *items = (kt_pyitem *)1;
    size_t n = 7;
    kt_diag d = {{0}};
    int rc = kt_pylist_eval(src, 1000, &items, &n, &d);
    if (rc == KT_OK || !strstr(d.msg, frag)) {
        fprintf(stderr, "%s: got %d \"%s\", wanted \"%s\"\n", src, rc, d.msg, frag);
        exit(1);
    }
    CHECK(items == NULL && n == 0);
}

static void test_strings_and_booleans_keep_their_text(void)
{
    expect_list("[ 1,2 , 4 ]", "1 2 4");
    expect_list("[True, false, -True]", "True false -1");
    expect_list("['a', \"b c\"]", "a b c");
    expect_list("[1, 2,]", "1 2");
    expect_list("[]", "");
}

/* Every form of Python 3 numeric literal is its number, written as Python
 * prints it (python3 -c 'print([...])' gave each answer). */
static void test_numeric_literals_are_python_numbers(void)
{
    expect_list("[1.50, -2, 0x10, 1e3, 1_000]", "1.5 -2 16 1000.0 1000");
    expect_list("[0o17, 0O17, 0b101, 0B1, 0x1F, 0X1f, 0x_1f]", "15 15 5 1 31 31 31");
    expect_list("[1_000, 1_0.0_1e1_0, 1e3, 1E3, 1e3_0]",
                "1000 100100000000.0 1000.0 1000.0 1e+30");
    expect_list("[1.5e-3, .5, .5_0, 5., 2.5E+2]", "0.0015 0.5 0.5 5.0 250.0");
    expect_list("[017e1, 09.5, 0e5, 00, 0_0, -0]", "170.0 9.5 0.0 0 0 0");
    expect_list("[9007199254740992, -0.0, 123456.789e3]", "9007199254740992 -0.0 123456789.0");
    expect_list("[x for x in range(0b11) if x != 0o1]", "0 2");
}

/* Computed floats are printed as Python's repr: in full up to 1e16. */
static void test_floats_print_as_python_repr(void)
{
    expect_list("[100 / 1, 10.0 ** 15, 10.0 ** 16, 1 / 100000, 1 / 10000, 1 / 3]",
                "100.0 1000000000000000.0 1e+16 1e-05 0.0001 0.3333333333333333");
}

/* What Python refuses is refused, with the column and Python's reason. */
static void test_malformed_literals_are_refused(void)
{
    expect_refused("[1, 1__0]", "column 5: invalid decimal literal '1__0'");
    expect_refused("[1_]", "column 2: invalid decimal literal '1_'");
    expect_refused("[0b2]", "column 2: invalid digit '2' in binary literal '0b2'");
    expect_refused("[0o8]", "column 2: invalid digit '8' in octal literal '0o8'");
    expect_refused("[017]", "column 2: leading zeros in decimal integer literals are not "
                            "permitted; use an 0o prefix for octal integers");
    expect_refused("[0_7]", "column 2: leading zeros");
    expect_refused("[0x]", "column 2: invalid hexadecimal literal '0x'");
    expect_refused("[0b]", "column 2: invalid binary literal '0b'");
    expect_refused("[0x1__f]", "column 2: invalid hexadecimal literal '0x1__f'");
    expect_refused("[1e]", "column 2: invalid decimal literal '1e'");
    expect_refused("[1e+]", "column 2: invalid decimal literal '1e'");
    expect_refused("[1_e3]", "column 2: invalid decimal literal '1_e3'");
    expect_refused("[1e_3]", "column 2: invalid decimal literal '1e_3'");
    expect_refused("[5._0]", "column 2: invalid decimal literal '5._0'");
    expect_refused("[1.5_]", "column 2: invalid decimal literal '1.5_'");
    expect_refused("[12abc]", "column 2: invalid decimal literal '12abc'");
    expect_refused("[1j]", "column 2: imaginary literal '1j' is not supported");
    expect_refused("[_1]", "column 2: unknown name '_1'");
    expect_refused("[9007199254740993]", "column 2: integer literal '9007199254740993' is "
                                         "too large");
    expect_refused("[1e400]", "column 2: number literal '1e400' is too large");
}

static void test_range_list_and_comprehensions(void)
{
    expect_list("list(range(32, 128+1, 32))", "32 64 96 128");
    expect_list("range(3)", "0 1 2");
    expect_list("list(range(10, 0, -4))", "10 6 2");
    expect_list("[2**i for i in range(5, 11)]", "32 64 128 256 512 1024");
    expect_list("[x for x in range(1, 11) if x % 2 == 0]", "2 4 6 8 10");
    expect_list("[1] + [2*i for i in range(1,5)]", "1 2 4 6 8");
    expect_list("[x for x in [y * 3 for y in range(4)] if x > 0 and not x == 6]", "3 9");
    expect_list("[x for x in range(5) if 1 < x <= 3 or x == 0]", "0 2 3");
    expect_list("[-(2**3), 7 // 2, -7 // 2, -7 % 3, 7 / 2, 4 / 2, 2 ** -1]",
                "-8 3 -4 2 3.5 2.0 0.5");
    expect_list("[i * 0.1 for i in range(1, 4)]", "0.1 0.2 0.30000000000000004");
    expect_list("[x for x in ['a', 'b'] if x != 'a']", "b");
}

static void test_anything_else_is_refused_with_its_column(void)
{
    expect_refused("[__import__('os')]", "column 2: calling '__import__' is not allowed");
    expect_refused("[x.real for x in range(3)]", "column 3: attribute access");
    expect_refused("[1, y]", "column 5: unknown name 'y'");
    expect_refused("[1, 2][0]", "indexing is not allowed");
    expect_refused("[1, [2]]", "a list inside a list");
    expect_refused("1, 2", "expected a list like");
    expect_refused("[1 2]", "column 4: expected ','");
    expect_refused("[1/0]", "column 3: division by zero");
    expect_refused("[2**1000]", "too large");
    expect_refused("range(1000000)", "more than 1000 values");
    expect_refused("[x for x in range(999)] + [1, 2]", "more than 1000 values");
    expect_refused("range(1, 2, 0)", "step must not be zero");
    expect_refused("range(1.5)", "must be an integer");
    expect_refused("[x for x in range(3) for y in range(3)]", "only one 'for'");
    expect_refused("['a\\n']", "escape sequences");
    expect_refused("[1] + 2", "unsupported operand types for +: 'list' and 'int'");
    expect_refused("[lambda: 1]", "column 2: unknown name 'lambda'");
    expect_refused("[x for x in range(999) if [y for y in range(999) if [z for z in range(999)]]]", "too long");
    expect_refused("[(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1"
                   ")))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))]",
                   "nested too deeply");
}

/* Random edits of valid expressions: an answer or an error, never a crash
 * or a leak (ASan runs this too). */
static void test_garbage_never_crashes(void)
{
    static const char *const BASE[] = {
        "[2**i for i in range(5, 11) if i % 2 == 0 or not i]",
        "list(range(32, 1024+1, 32)) + [1, 'a', -3.5e2, True]",
    };
    static const char CHARS[] = "[](),.+-*/%<=>!'\"_ax0129 fori";
    kt_rng rng;
    kt_rng_seed(&rng, 11);
    for (int i = 0; i < 3000; i++) {
        char text[128];
        snprintf(text, sizeof text, "%s", BASE[i % 2]);
        size_t len = strlen(text);
        for (int e = 1 + (int)kt_rng_below(&rng, 3); e > 0; e--)
            text[kt_rng_below(&rng, len)] = CHARS[kt_rng_below(&rng, sizeof CHARS - 1)];
        kt_pyitem *items;
        size_t n;
        kt_diag d = {{0}};
        int rc = kt_pylist_eval(text, 65535, &items, &n, &d);
        CHECK(rc == KT_OK || (d.msg[0] != '\0' && items == NULL));
        kt_pylist_free(items, n);
    }
}

static const kt_test TESTS[] = {
    KT_T(test_strings_and_booleans_keep_their_text),
    KT_T(test_numeric_literals_are_python_numbers),
    KT_T(test_floats_print_as_python_repr),
    KT_T(test_malformed_literals_are_refused),
    KT_T(test_range_list_and_comprehensions),
    KT_T(test_anything_else_is_refused_with_its_column),
    KT_T(test_garbage_never_crashes),
};
KT_TEST_MAIN(TESTS)
