/* test.h - a minimal test harness: each test runs in its own process with a
 * timeout, so a crash or a hang fails that test only.
 *
 * A test file defines functions `static void test_xxx(void)`, a table
 *   static const kt_test TESTS[] = { KT_T(test_xxx), ... };
 * and ends with KT_TEST_MAIN(TESTS).  `./binary` runs all of them,
 * `./binary NAME...` runs the named ones.  CHECK* failures print file:line
 * and the failing expression and exit the test's process with status 1.
 *
 * Environment: KT_TEST_TIMEOUT (seconds per test, default 60);
 * KT_TEST_SRCDIR (the repository root, default ".") for test data paths.
 */
#ifndef KT_TEST_H
#define KT_TEST_H

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct kt_test {
    const char *name;
    void (*fn)(void);
} kt_test;

#define KT_T(fn) {#fn, fn}

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                   \
    do {                                                                     \
        long long va_ = (long long)(a), vb_ = (long long)(b);                \
        if (va_ != vb_) {                                                    \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld vs %lld)\n", \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                   \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                \
    do {                                                                     \
        double va_ = (double)(a), vb_ = (double)(b);                         \
        if (!(fabs(va_ - vb_) <= (tol))) {                                   \
            fprintf(stderr, "%s:%d: check failed: %s ~= %s (%.17g vs %.17g)\n", \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                   \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define CHECK_STR(a, b)                                                      \
    do {                                                                     \
        const char *va_ = (a), *vb_ = (b);                                   \
        if (!va_ || !vb_ || strcmp(va_, vb_) != 0) {                         \
            fprintf(stderr, "%s:%d: check failed: %s == %s (\"%s\" vs \"%s\")\n", \
                    __FILE__, __LINE__, #a, #b, va_ ? va_ : "(null)",         \
                    vb_ ? vb_ : "(null)");                                   \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* Path of a file under the repository root, in a static buffer per call
 * site's process (tests are single-threaded processes). */
static inline const char *kt_test_path(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("KT_TEST_SRCDIR");
    snprintf(buf, sizeof buf, "%s/%s", root ? root : ".", rel);
    return buf;
}

static inline int kt_test_run_one(const kt_test *t, unsigned timeout)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        alarm(timeout);
        t->fn();
        fflush(NULL);
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status))
        fprintf(stderr, "  %s: killed by signal %d%s\n", t->name,
                WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
    return 1;
}

static inline int kt_test_main(const kt_test *tests, size_t n, int argc,
                               char **argv)
{
    const char *to = getenv("KT_TEST_TIMEOUT");
    unsigned timeout = to ? (unsigned)atoi(to) : 60;
    int failed = 0, ran = 0;
    for (size_t i = 0; i < n; i++) {
        int selected = argc < 2;
        for (int a = 1; a < argc; a++)
            selected |= strcmp(argv[a], tests[i].name) == 0;
        if (!selected)
            continue;
        int rc = kt_test_run_one(&tests[i], timeout);
        printf("%s %s\n", rc == 0 ? "ok  " : "FAIL", tests[i].name);
        failed += rc != 0;
        ran++;
    }
    printf("%s: %d/%d passed\n", argv[0], ran - failed, ran);
    return failed ? 1 : 0;
}

#define KT_TEST_MAIN(table)                                                  \
    int main(int argc, char **argv)                                          \
    {                                                                        \
        return kt_test_main(table, sizeof(table) / sizeof(table[0]), argc,   \
                            argv);                                           \
    }

#endif /* KT_TEST_H */
