/* pool.c - the GPU backends' compile pool and cache writes (pool.h). */
#include "backend/pool.h"
#include "core/util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A batch: jobs threads take configurations in order; each finished build
 * joins a queue the tuner takes from. */
struct kt_pool {
    kt_pool_build_fn build;
    const void *ctx;
    const uint16_t *const *cfgs;
    size_t n;
    size_t next;            /* the next configuration to compile */
    kt_build *built;        /* per configuration, once built */
    size_t *queue;          /* built and not yet returned, in finishing order */
    size_t head, tail;      /* queue[head..tail) */
    size_t returned;
    bool stop;              /* kt_pool_end: take nothing more */
    pthread_mutex_t mu;
    pthread_cond_t built_one;
    pthread_t *threads;
    size_t nthreads;
};

/* Compile the next configuration not yet taken; false when none is left. */
static bool compile_next_one(kt_pool *job)
{
    pthread_mutex_lock(&job->mu);
    size_t i = job->next;
    bool take = !job->stop && i < job->n;
    job->next += take;
    pthread_mutex_unlock(&job->mu);
    if (!take)
        return false;
    kt_build b;
    job->build(job->ctx, job->cfgs[i], &b);
    pthread_mutex_lock(&job->mu);
    job->built[i] = b;
    job->queue[job->tail++] = i;
    pthread_cond_signal(&job->built_one);
    pthread_mutex_unlock(&job->mu);
    return true;
}

static void *compile_thread(void *arg)
{
    while (compile_next_one(arg)) {
    }
    return NULL;
}

int kt_pool_start(kt_pool_build_fn build, const void *ctx, int jobs,
                  const uint16_t *const *cfgs, size_t n, kt_pool **out, kt_diag *diag)
{
    *out = NULL;
    kt_pool *job = calloc(1, sizeof *job);
    size_t want = (size_t)(jobs > 0 ? jobs : 1);
    want = want < n ? want : n;
    if (!job || !(job->built = calloc(n + 1, sizeof *job->built)) ||
        !(job->queue = calloc(n + 1, sizeof *job->queue)) ||
        !(job->threads = calloc(want + 1, sizeof *job->threads))) {
        if (job) {
            free(job->built);
            free(job->queue);
        }
        free(job);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    *job = (kt_pool){.build = build, .ctx = ctx, .cfgs = cfgs, .n = n,
                     .built = job->built, .queue = job->queue, .threads = job->threads};
    pthread_mutex_init(&job->mu, NULL);
    pthread_cond_init(&job->built_one, NULL);
    while (job->nthreads < want &&
           pthread_create(&job->threads[job->nthreads], NULL, compile_thread, job) == 0)
        job->nthreads++;
    *out = job; /* with no thread at all, kt_pool_next compiles itself */
    return KT_OK;
}

int kt_pool_next(kt_pool *job, size_t *index, kt_build *b, kt_diag *diag)
{
    (void)diag;
    if (job->returned == job->n)
        return KT_EDONE;
    if (job->nthreads == 0)
        compile_next_one(job);
    pthread_mutex_lock(&job->mu);
    while (job->head == job->tail)
        pthread_cond_wait(&job->built_one, &job->mu);
    *index = job->queue[job->head++];
    *b = job->built[*index];
    job->built[*index].artifact = NULL; /* the caller owns it now */
    job->returned++;
    pthread_mutex_unlock(&job->mu);
    return KT_OK;
}

void kt_pool_end(kt_pool *job)
{
    if (!job)
        return;
    pthread_mutex_lock(&job->mu);
    job->stop = true; /* builds under way finish; no new one starts */
    pthread_mutex_unlock(&job->mu);
    for (size_t i = 0; i < job->nthreads; i++)
        pthread_join(job->threads[i], NULL);
    kt_builds_clear(job->built, job->n);
    pthread_cond_destroy(&job->built_one);
    pthread_mutex_destroy(&job->mu);
    free(job->threads);
    free(job->queue);
    free(job->built);
    free(job);
}

int kt_pool_run(kt_pool_build_fn build, const void *ctx, int jobs,
                const uint16_t *const *cfgs, size_t n, kt_build *builds, kt_diag *diag)
{
    kt_pool *job;
    memset(builds, 0, n * sizeof *builds);
    int rc = kt_pool_start(build, ctx, jobs, cfgs, n, &job, diag);
    size_t i;
    kt_build b;
    while (rc == KT_OK && (rc = kt_pool_next(job, &i, &b, diag)) == KT_OK)
        builds[i] = b;
    if (rc == KT_EDONE)
        rc = KT_OK;
    kt_pool_end(job);
    return rc;
}

bool kt_cache_write(const char *path, const void *data, size_t len)
{
    /* Unique per call, not only per process: two of the pool's threads may
     * build the same content (the reference is also the default) at once. */
    char *tmp = kt_asprintf("%s.XXXXXX.%ld.tmp", path, (long)getpid());
    int fd = tmp ? mkstemps(tmp, (int)strlen(strrchr(tmp, 'X') + 1)) : -1;
    FILE *f = fd >= 0 && fchmod(fd, 0644) == 0 ? fdopen(fd, "wb") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f)
        ok = fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0; /* never a half-written cache entry */
    if (!ok && fd >= 0)
        unlink(tmp);
    free(tmp);
    return ok;
}

void kt_log_error_line(const char *log, char *out, size_t n)
{
    const char *line = strstr(log, "error");
    while (line && line > log && line[-1] != '\n')
        line--;
    line = line ? line : log;
    size_t l = strcspn(line, "\n");
    if (l)
        snprintf(out, n, "%.*s", (int)l, line);
}
