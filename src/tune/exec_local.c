/* exec_local.c - the local executor (exec.h): a batch is compiled on the
 * tuner's side of the backend and measured in isolated workers of this
 * process, one per device, each fed by a thread of its own.
 *
 * Where the backend streams its builds (CUDA), each thread takes the next
 * finished build as soon as its worker is free, so the GPUs measure while
 * the CPUs compile; otherwise (the C backend, or no_overlap) the batch is
 * compiled whole in start and the threads take its builds in order.  The
 * reference is compiled once, on the tuner's thread (the backend's context
 * is not shared between threads; compile_next is, one thread at a time),
 * and each worker computes the reference outputs once on its own device.
 *
 * Why persistent threads: a worker process is killed when the thread that
 * spawned it ends (the worker's PR_SET_PDEATHSIG, so that it never
 * outlives the tuner), so the thread that starts a worker lives as long as
 * the worker: until the executor is freed.
 *
 * A worker that dies is replaced inside kt_worker_eval and its
 * configuration measured once more, while the other threads go on.
 */
#include "tune/exec.h"
#include "core/util.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct local local;

/* One worker and the thread that feeds it. */
typedef struct slot {
    local *ex;
    kt_backend_opts bo;      /* the run's, with this worker's device */
    kt_worker *worker;       /* started when first needed */
    pthread_t thread;
    uint64_t gen;            /* the last batch this thread took part in */
    /* written by this thread only, read between batches (exec.h, stats) */
    double start_s, compile_wait_s, measure_s;
} slot;

/* A result waiting for next. */
typedef struct done {
    size_t index;
    kt_result result;
} done;

struct local {
    kt_exec_env env;
    char *ref_artifact;      /* compiled at the first batch that needs it */
    slot *slots;
    size_t nslots, nthreads; /* threads run from the first batch on */
    double start_s, compile_wait_s; /* on the tuner's thread */

    pthread_mutex_t mu;      /* guards everything below */
    pthread_cond_t posted;   /* a batch started, or quit */
    pthread_cond_t changed;  /* a result or an error queued, a thread idle */
    pthread_mutex_t take_mu; /* one thread at a time in compile_next */
    uint64_t gen;            /* batches started */
    bool quit;
    size_t busy;             /* threads still in the current batch */
    bool stopping;           /* end(): take nothing more */
    const uint16_t *const *cfgs;
    size_t n;
    void *job;               /* streamed: the backend's compile job */
    kt_build *builds;        /* else: the whole batch, built */
    size_t taken;            /* builds handed to threads (not streamed) */
    done *queue;             /* results in completion order: [head, tail) */
    size_t head, tail;
    int err;                 /* the first error of a thread, with its detail */
    kt_diag err_diag;
};

/* ------------------------------------------------------ worker threads */

static bool stopping(local *ex)
{
    pthread_mutex_lock(&ex->mu);
    bool stop = ex->stopping || ex->err != KT_OK;
    pthread_mutex_unlock(&ex->mu);
    return stop;
}

/* The first error stops the batch; next reports it after the results
 * queued before it. */
static void fail(local *ex, int rc, const kt_diag *diag)
{
    pthread_mutex_lock(&ex->mu);
    if (ex->err == KT_OK) {
        ex->err = rc;
        ex->err_diag = *diag;
    }
    pthread_cond_broadcast(&ex->changed);
    pthread_mutex_unlock(&ex->mu);
}

static void push(local *ex, size_t index, const kt_result *res)
{
    pthread_mutex_lock(&ex->mu);
    ex->queue[ex->tail++] = (done){.index = index, .result = *res};
    pthread_cond_broadcast(&ex->changed);
    pthread_mutex_unlock(&ex->mu);
}

static int start_worker(slot *s, kt_diag *diag)
{
    const kt_exec_env *env = &s->ex->env;
    double t0 = kt_now();
    int rc = kt_worker_new(env->be, &s->bo, env->spec, env->prob, s->ex->ref_artifact,
                           env->reference, env->measure, &s->worker, diag);
    s->start_s += kt_now() - t0;
    return rc;
}

/* The next build for this thread: KT_EDONE when the batch has none left
 * or is stopping. */
static int take(slot *s, size_t *index, kt_build *b, kt_diag *diag)
{
    local *ex = s->ex;
    if (ex->job) {
        pthread_mutex_lock(&ex->take_mu);
        int rc = KT_EDONE;
        double t0 = kt_now();
        if (!stopping(ex))
            rc = ex->env.be->compile_next(ex->job, index, b, diag);
        s->compile_wait_s += kt_now() - t0;
        pthread_mutex_unlock(&ex->take_mu);
        return rc;
    }
    pthread_mutex_lock(&ex->mu);
    bool more = !ex->stopping && ex->err == KT_OK && ex->taken < ex->n;
    if (more) {
        *index = ex->taken++;
        *b = ex->builds[*index];
        ex->builds[*index].artifact = NULL; /* this thread owns it now */
    }
    pthread_mutex_unlock(&ex->mu);
    return more ? KT_OK : KT_EDONE;
}

/* One built configuration: measured in this thread's worker, or its
 * compile error given back as its result. */
static int evaluate(slot *s, size_t i, const kt_build *b, kt_diag *diag)
{
    kt_result res = {.status = KT_STATUS_COMPILE_ERROR, .time_ms = NAN, .min_ms = NAN,
                     .spread = NAN, .energy_j = NAN, .power_w = NAN};
    int rc = KT_OK;
    if (b->status == KT_STATUS_OK) {
        if (stopping(s->ex))
            return KT_EDONE;
        if (!s->worker)
            rc = start_worker(s, diag);
        double t0 = kt_now();
        if (rc == KT_OK)
            rc = kt_worker_eval(s->worker, b->artifact, s->ex->cfgs[i], &res, diag);
        s->measure_s += kt_now() - t0;
    } else {
        kt_strlcpy(res.detail, sizeof res.detail, b->detail);
    }
    res.compile_ms = b->compile_ms;
    if (rc == KT_OK)
        push(s->ex, i, &res);
    return rc;
}

/* This thread's share of one batch. */
static void serve_batch(slot *s)
{
    kt_diag diag = {{0}};
    int rc = KT_OK;
    /* Streamed: the worker computes the reference while the batch
     * compiles, instead of after the first build. */
    if (s->ex->job && !s->worker)
        rc = start_worker(s, &diag);
    while (rc == KT_OK) {
        size_t i = 0;
        kt_build b = {0};
        rc = take(s, &i, &b, &diag);
        if (rc == KT_OK)
            rc = evaluate(s, i, &b, &diag);
        kt_builds_clear(&b, 1);
    }
    if (rc != KT_EDONE)
        fail(s->ex, rc, &diag);
}

static void *feed(void *arg)
{
    slot *s = arg;
    local *ex = s->ex;
    pthread_mutex_lock(&ex->mu);
    for (;;) {
        while (!ex->quit && s->gen == ex->gen)
            pthread_cond_wait(&ex->posted, &ex->mu);
        if (ex->quit)
            break;
        s->gen = ex->gen;
        pthread_mutex_unlock(&ex->mu);
        serve_batch(s);
        pthread_mutex_lock(&ex->mu);
        ex->busy--;
        pthread_cond_broadcast(&ex->changed);
    }
    pthread_mutex_unlock(&ex->mu);
    /* This thread spawned the worker, which dies with it (see the top). */
    kt_worker_free(s->worker);
    s->worker = NULL;
    return NULL;
}

/* ------------------------------------------------------- tuner's side */

/* Compile the reference (the reference kernel, else env->reference)
 * once, for every worker to measure against. */
static int compile_reference(local *ex, kt_diag *diag)
{
    const kt_exec_env *env = &ex->env;
    if (ex->ref_artifact)
        return KT_OK;
    if (!env->spec->ref_name && env->reference_warn) {
        char *key = kt_spec_config_key(env->spec, env->reference);
        kt_warn(env->warn, env->warn_user, env->spec->path, "the default "
                "configuration breaks the spec's conditions for problem %s: results "
                "are checked against the first valid one, %s", env->prob->key,
                key ? key : "(out of memory)");
        free(key);
    }
    const uint16_t *ref = env->spec->ref_name ? NULL : env->reference;
    kt_build b = {0};
    double t0 = kt_now();
    int rc = env->be->compile(env->be_ctx, &ref, 1, &b, diag);
    if (rc == KT_OK && b.status != KT_STATUS_OK)
        rc = kt_fail(diag, KT_ECOMPILE, "the reference (%s) does not compile: %s",
                     ref ? "default configuration" : env->spec->ref_name, b.detail);
    if (rc == KT_OK) {
        ex->ref_artifact = b.artifact;
        b.artifact = NULL;
    }
    ex->start_s += kt_now() - t0;
    kt_builds_clear(&b, 1);
    return rc;
}

static bool any_built(const kt_build *builds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (builds[i].status == KT_STATUS_OK)
            return true;
    return false;
}

/* Begin compiling the batch: streamed, or whole. */
static int compile_batch(local *ex, const uint16_t *const *cfgs, size_t n, kt_diag *diag)
{
    const kt_exec_env *env = &ex->env;
    if (env->be->compile_start && !env->no_overlap) {
        int rc = env->be->compile_start(env->be_ctx, cfgs, n, &ex->job, diag);
        return rc == KT_OK ? compile_reference(ex, diag) : rc;
    }
    if (!(ex->builds = calloc(n, sizeof *ex->builds)))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    double t0 = kt_now();
    int rc = env->be->compile(env->be_ctx, cfgs, n, ex->builds, diag);
    ex->compile_wait_s += kt_now() - t0;
    if (rc == KT_OK && any_built(ex->builds, n))
        rc = compile_reference(ex, diag);
    return rc;
}

static int start_threads(local *ex, kt_diag *diag)
{
    while (ex->nthreads < ex->nslots) {
        slot *s = &ex->slots[ex->nthreads];
        s->gen = ex->gen;
        if (pthread_create(&s->thread, NULL, feed, s) != 0)
            return kt_fail(diag, KT_ENOMEM, "cannot start a measuring thread");
        ex->nthreads++;
    }
    return KT_OK;
}

/* Forget the batch (its threads are idle). */
static void clear_batch(local *ex)
{
    if (ex->job)
        ex->env.be->compile_end(ex->job);
    if (ex->builds)
        kt_builds_clear(ex->builds, ex->n);
    free(ex->builds);
    free(ex->queue);
    ex->job = NULL;
    ex->builds = NULL;
    ex->queue = NULL;
    ex->cfgs = NULL;
    ex->n = ex->taken = ex->head = ex->tail = 0;
    ex->err = KT_OK;
    ex->stopping = false;
}

static int local_start(void *self, const uint16_t *const *cfgs, size_t n, kt_diag *diag)
{
    local *ex = self;
    ex->cfgs = cfgs;
    ex->n = n;
    int rc = start_threads(ex, diag);
    if (rc == KT_OK && !(ex->queue = calloc(n + 1, sizeof *ex->queue)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = compile_batch(ex, cfgs, n, diag);
    if (rc != KT_OK) {
        clear_batch(ex);
        return rc;
    }
    pthread_mutex_lock(&ex->mu);
    ex->gen++;
    ex->busy = ex->nthreads;
    pthread_cond_broadcast(&ex->posted);
    pthread_mutex_unlock(&ex->mu);
    return KT_OK;
}

static int local_next(void *self, size_t *index, kt_result *result, kt_diag *diag)
{
    local *ex = self;
    pthread_mutex_lock(&ex->mu);
    while (ex->head == ex->tail && ex->err == KT_OK && ex->busy > 0 && ex->tail < ex->n)
        pthread_cond_wait(&ex->changed, &ex->mu);
    int rc = KT_EDONE;
    if (ex->head < ex->tail) {
        *index = ex->queue[ex->head].index;
        *result = ex->queue[ex->head++].result;
        rc = KT_OK;
    } else if (ex->err != KT_OK) {
        rc = ex->err;
        if (diag)
            *diag = ex->err_diag;
    }
    pthread_mutex_unlock(&ex->mu);
    return rc;
}

static void local_end(void *self)
{
    local *ex = self;
    pthread_mutex_lock(&ex->mu);
    ex->stopping = true;
    while (ex->busy > 0)
        pthread_cond_wait(&ex->changed, &ex->mu);
    pthread_mutex_unlock(&ex->mu);
    clear_batch(ex);
}

static void local_stats(void *self, kt_exec_stats *out)
{
    local *ex = self;
    out->start_s += ex->start_s;
    out->compile_wait_s += ex->compile_wait_s;
    for (size_t i = 0; i < ex->nslots; i++) {
        const slot *s = &ex->slots[i];
        out->start_s += s->start_s;
        out->compile_wait_s += s->compile_wait_s;
        out->measure_s += s->measure_s;
        kt_worker_phases_add(s->worker, out->phase_s);
    }
}

static void local_free(void *self)
{
    local *ex = self;
    if (!ex)
        return;
    pthread_mutex_lock(&ex->mu);
    ex->quit = true;
    pthread_cond_broadcast(&ex->posted);
    pthread_mutex_unlock(&ex->mu);
    for (size_t i = 0; i < ex->nthreads; i++)
        pthread_join(ex->slots[i].thread, NULL);
    pthread_cond_destroy(&ex->posted);
    pthread_cond_destroy(&ex->changed);
    pthread_mutex_destroy(&ex->mu);
    pthread_mutex_destroy(&ex->take_mu);
    free(ex->ref_artifact);
    free(ex->slots);
    free(ex);
}

static const kt_exec_ops LOCAL = {
    .abi = KT_EXEC_ABI, .name = "local", .start = local_start, .next = local_next,
    .end = local_end, .stats = local_stats, .free = local_free};

int kt_exec_local_open(void *user, const kt_exec_env *env, kt_exec *out, kt_diag *diag)
{
    (void)user;
    *out = (kt_exec){0};
    size_t n = env->ndevices ? env->ndevices : 1;
    local *ex = calloc(1, sizeof *ex);
    if (ex && !(ex->slots = calloc(n, sizeof *ex->slots))) {
        free(ex);
        ex = NULL;
    }
    if (!ex)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    ex->env = *env;
    ex->nslots = n;
    for (size_t i = 0; i < n; i++) {
        ex->slots[i] = (slot){.ex = ex, .bo = *env->be_opts};
        if (env->devices)
            ex->slots[i].bo.device = env->devices[i];
    }
    pthread_mutex_init(&ex->mu, NULL);
    pthread_mutex_init(&ex->take_mu, NULL);
    pthread_cond_init(&ex->posted, NULL);
    pthread_cond_init(&ex->changed, NULL);
    *out = (kt_exec){.ops = &LOCAL, .self = ex};
    return KT_OK;
}
