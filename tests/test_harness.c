/* test_harness.c - the test runner of test.h itself: a skipped test is told
 * apart from a pass, a test that checks nothing fails, and a test's
 * temporary folder is gone when it ends, whether it passed, failed or
 * crashed.  Each outer test runs inner tests through kt_test_run_one. */
#include "test.h"

#include <dirent.h>
#include <sys/stat.h>

static void inner_skips(void)
{
    KT_SKIP("nothing to test %s", "here");
}

static void inner_checks_nothing(void)
{
}

static void inner_passes(void)
{
    CHECK(1 + 1 == 2);
}

/* Fill the private folder: a file, and a folder with a file. */
static void fill_tmp(void)
{
    CHECK(strcmp(getenv("TMPDIR"), kt_test_tmpdir()) == 0);
    FILE *f = fopen(kt_test_tmp("a.db"), "w");
    CHECK(f != NULL);
    fputs("x", f);
    fclose(f);
    CHECK(mkdir(kt_test_tmp("cache"), 0755) == 0);
    f = fopen(kt_test_tmp("cache/k.so"), "w");
    CHECK(f != NULL);
    fclose(f);
}

static void inner_fills_tmp_and_passes(void)
{
    fill_tmp();
}

static void inner_fills_tmp_and_crashes(void)
{
    fill_tmp();
    raise(SIGSEGV);
}

/* Entries of a folder, "." and ".." left out. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void test_skip_is_neither_pass_nor_fail(void)
{
    kt_test t = KT_T(inner_skips);
    CHECK(freopen("/dev/null", "w", stdout) != NULL); /* its skip line */
    CHECK_EQ_INT(kt_test_run_one(&t, 10), KT_TEST_SKIP);
}

static void test_a_test_that_checks_nothing_fails(void)
{
    kt_test t = KT_T(inner_checks_nothing), u = KT_T(inner_passes);
    CHECK_EQ_INT(kt_test_run_one(&t, 10), KT_TEST_FAIL);
    CHECK_EQ_INT(kt_test_run_one(&u, 10), KT_TEST_PASS);
}

/* The inner tests make their folders inside this test's own (TMPDIR),
 * which must be empty again after each. */
static void test_temporary_folder_is_removed(void)
{
    setenv("TMPDIR", kt_test_tmpdir(), 1);
    kt_test pass = KT_T(inner_fills_tmp_and_passes);
    kt_test crash = KT_T(inner_fills_tmp_and_crashes);
    CHECK_EQ_INT(kt_test_run_one(&pass, 10), KT_TEST_PASS);
    CHECK_EQ_INT(entries(kt_test_tmpdir()), 0);
    CHECK_EQ_INT(kt_test_run_one(&crash, 10), KT_TEST_FAIL);
    CHECK_EQ_INT(entries(kt_test_tmpdir()), 0);
}

static const kt_test TESTS[] = {
    KT_T(test_skip_is_neither_pass_nor_fail),
    KT_T(test_a_test_that_checks_nothing_fails),
    KT_T(test_temporary_folder_is_removed),
};
KT_TEST_MAIN(TESTS)
