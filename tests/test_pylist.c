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

static void test_literals_keep_their_text(void)
{
    expect_list("[ 1,2 , 4 ]", "1 2 4");
    expect_list("[1.50, -2, 0x10, 1e3, 1_000, True, false]", "1.50 -2 0x10 1e3 1_000 True false");
    expect_list("['a', \"b c\"]", "a b c");
    expect_list("[1, 2,]", "1 2");
    expect_list("[]", "");
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
    KT_T(test_literals_keep_their_text),
    KT_T(test_range_list_and_comprehensions),
    KT_T(test_anything_else_is_refused_with_its_column),
    KT_T(test_garbage_never_crashes),
};
KT_TEST_MAIN(TESTS)
