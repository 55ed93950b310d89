/* test_cache_write.c - kt_cache_write (backend/pool.h) from many threads at
 * once on one path, as the compile pool does when two configurations (the
 * reference and the default) have the same content: every write succeeds,
 * the entry is one whole payload, and no temporary file is left. */
#include "backend/pool.h"

#include "test.h"

#include <dirent.h>
#include <pthread.h>

enum { THREADS = 8, WRITES = 200, LEN = 64 * 1024 };

typedef struct writer {
    const char *path;
    unsigned char payload[LEN];
    int failures;
} writer;

static void *write_many(void *arg)
{
    writer *w = arg;
    for (int i = 0; i < WRITES; i++)
        w->failures += !kt_cache_write(w->path, w->payload, LEN);
    return NULL;
}

/* The number of entries in dir other than "." and "..". */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void test_threads_write_one_path(void)
{
    const char *dir = kt_test_tmp("cache");
    CHECK(mkdir(dir, 0755) == 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/entry.ktclbin", dir);
    static writer w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i].path = path;
        memset(w[i].payload, 'a' + i, LEN);
        CHECK(pthread_create(&t[i], NULL, write_many, &w[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        CHECK(pthread_join(t[i], NULL) == 0);
        CHECK_EQ_INT(w[i].failures, 0);
    }
    static unsigned char got[LEN + 1];
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    CHECK_EQ_INT((int)fread(got, 1, sizeof got, f), LEN);
    fclose(f);
    CHECK(got[0] >= 'a' && got[0] < 'a' + THREADS);
    CHECK(memcmp(got, w[got[0] - 'a'].payload, LEN) == 0);
    CHECK_EQ_INT(entries(dir), 1);
}

/* A write into a folder that does not exist fails and leaves nothing. */
static void test_write_fails_cleanly(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/entry.ktclbin", kt_test_tmp("missing"));
    CHECK(!kt_cache_write(path, "x", 1));
    CHECK(access(path, F_OK) != 0);
}

static const kt_test TESTS[] = {
    KT_T(test_threads_write_one_path),
    KT_T(test_write_fails_cleanly),
};
KT_TEST_MAIN(TESTS)
