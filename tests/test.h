/* test.h - a minimal test harness: each test runs in its own process with a
 * timeout, so a crash or a hang fails that test only.
 *
 * A test file defines functions `static void test_xxx(void)`, a table
 *   static const kt_test TESTS[] = { KT_T(test_xxx), ... };
 * and ends with KT_TEST_MAIN(TESTS).  `./binary` runs all of them,
 * `./binary NAME...` runs the named ones.  CHECK* failures print file:line
 * and the failing expression and exit the test's process with status 1.
 *
 * A test that cannot run here (no NVRTC, no data) calls KT_SKIP("why"): it
 * is reported as `skip test_x: why` and counted apart from the passes.  A
 * test that returns without a single CHECK fails: an empty pass would hide
 * a test that silently did nothing.
 *
 * Each test gets a private temporary folder, removed with everything in it
 * when the test's process ends (however it ends): kt_test_tmp("name") is a
 * path inside it.  TMPDIR points there too, so the compilers a test starts
 * leave nothing behind either.
 *
 * Environment: KT_TEST_TIMEOUT (seconds per test, default 60);
 * KT_TEST_SRCDIR (the repository root, default ".") for test data paths.
 */
#ifndef KT_TEST_H
#define KT_TEST_H

#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct kt_test {
    const char *name;
    void (*fn)(void);
} kt_test;

#define KT_T(fn) {#fn, fn}

/* The exit status of a skipped test's process (automake's convention). */
#define KT_TEST_SKIPPED 77

/* The number of checks the running test has made (one process per test). */
static inline unsigned long *kt_test_checks(void)
{
    static unsigned long n;
    return &n;
}

/* The running test's name, set by the runner in the test's process. */
static inline const char **kt_test_current(void)
{
    static const char *name;
    return &name;
}

/* Counts one check: the failing branch of every CHECK* exits the process. */
#define KT_CHECKED() (++*kt_test_checks())

/* End the running test as skipped, with a printf-style reason. */
#define KT_SKIP(...) kt_test_skip(__VA_ARGS__)

static inline void kt_test_skip(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
static inline void kt_test_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("skip %s: ", *kt_test_current());
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(NULL);
    _exit(KT_TEST_SKIPPED);
}

#define CHECK(cond)                                                          \
    do {                                                                     \
        KT_CHECKED();                                                        \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                   \
    do {                                                                     \
        KT_CHECKED();                                                        \
        long long va_ = (long long)(a), vb_ = (long long)(b);                \
        if (va_ != vb_) {                                                    \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld vs %lld)\n", \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                   \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                \
    do {                                                                     \
        KT_CHECKED();                                                        \
        double va_ = (double)(a), vb_ = (double)(b);                         \
        if (!(fabs(va_ - vb_) <= (tol))) {                                   \
            fprintf(stderr, "%s:%d: check failed: %s ~= %s (%.17g vs %.17g)\n", \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                   \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

#define CHECK_STR(a, b)                                                      \
    do {                                                                     \
        KT_CHECKED();                                                        \
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

/* The running test's private temporary folder (set by the runner). */
static inline const char *kt_test_tmpdir(void)
{
    const char *dir = getenv("KT_TEST_TMP");
    return dir ? dir : "/tmp";
}

/* A path `name` inside the test's temporary folder; eight calls may be in
 * use at once (each returns its own buffer, reused on the ninth call). */
static inline const char *kt_test_tmp(const char *name)
{
    static char buf[8][4096];
    static unsigned next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", kt_test_tmpdir(), name);
    return p;
}

/* Write text to the file name in the test's folder; its path (as
 * kt_test_tmp's). */
static inline const char *kt_test_write(const char *name, const char *text)
{
    const char *p = kt_test_tmp(name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    return p;
}

static inline int kt_test_rm_entry(const char *path, const struct stat *st,
                                   int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Remove a folder and everything in it, not following links. */
static inline void kt_test_rm_tree(const char *dir)
{
    nftw(dir, kt_test_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

enum { KT_TEST_PASS, KT_TEST_FAIL, KT_TEST_SKIP };

/* Run one test in a child process inside a fresh temporary folder. */
static inline int kt_test_run_one(const kt_test *t, unsigned timeout)
{
    const char *base = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/ktune-test-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return KT_TEST_FAIL;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return KT_TEST_FAIL;
    if (pid == 0) {
        setenv("KT_TEST_TMP", dir, 1);
        setenv("TMPDIR", dir, 1);
        *kt_test_current() = t->name;
        *kt_test_checks() = 0;
        alarm(timeout);
        t->fn();
        fflush(NULL);
        if (*kt_test_checks() == 0) {
            fprintf(stderr, "  %s: asserted nothing (KT_SKIP if it cannot run here)\n",
                    t->name);
            _exit(1);
        }
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    kt_test_rm_tree(dir);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return KT_TEST_PASS;
    if (WIFEXITED(status) && WEXITSTATUS(status) == KT_TEST_SKIPPED)
        return KT_TEST_SKIP;
    if (WIFSIGNALED(status))
        fprintf(stderr, "  %s: killed by signal %d%s\n", t->name,
                WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
    return KT_TEST_FAIL;
}

static inline int kt_test_main(const kt_test *tests, size_t n, int argc,
                               char **argv)
{
    const char *to = getenv("KT_TEST_TIMEOUT");
    unsigned timeout = to ? (unsigned)atoi(to) : 60;
    int count[3] = {0};
    for (size_t i = 0; i < n; i++) {
        int selected = argc < 2;
        for (int a = 1; a < argc; a++)
            selected |= strcmp(argv[a], tests[i].name) == 0;
        if (!selected)
            continue;
        int rc = kt_test_run_one(&tests[i], timeout);
        if (rc != KT_TEST_SKIP) /* a skip printed its own line, with why */
            printf("%s %s\n", rc == KT_TEST_PASS ? "ok  " : "FAIL", tests[i].name);
        count[rc]++;
    }
    printf("%s: %d passed, %d skipped", argv[0], count[KT_TEST_PASS], count[KT_TEST_SKIP]);
    if (count[KT_TEST_FAIL])
        printf(", %d FAILED", count[KT_TEST_FAIL]);
    printf("\n");
    return count[KT_TEST_FAIL] ? 1 : 0;
}

#define KT_TEST_MAIN(table)                                                  \
    int main(int argc, char **argv)                                          \
    {                                                                        \
        return kt_test_main(table, sizeof(table) / sizeof(table[0]), argc,   \
                            argv);                                           \
    }

#endif /* KT_TEST_H */
