/* mpi_serve.c - a measuring rank of a distributed run (mpi.h): it opens
 * the backend on its own device and the local executor over it, says HELLO
 * with its device's fingerprint, and then measures what rank 0 sends, a
 * batch of whatever has arrived at a time, sending each result back as it
 * completes.  The heartbeat thread (mpi.c) beats to rank 0 and hears its
 * beats meanwhile, so that a long measurement is not taken for a death. */
#include "tune/mpi.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Everything a measuring rank holds. */
typedef struct server {
    const kt_mpi_run *run;
    const kt_spec *spec;
    const kt_tune_opts *opts;
    kt_backend_opts be_opts; /* the run's, on this rank's device */
    kt_problem prob;
    kt_space *space;
    uint16_t *reference;     /* kt_tune_reference's */
    bool reference_warn;
    const kt_backend *be;
    void *be_ctx;
    kt_exec_env env;
    kt_exec exec;
    /* configurations received, not yet measured: nparams values each */
    uint16_t *cfgs;
    const uint16_t **ptrs;
    uint64_t *tickets;
    size_t n, cap;
    double heard;            /* rank 0's last message */
    bool stop;
    kt_mpi_served *out;
} server;

/* The reference, as rank 0's tuner chooses it (kt_tune_reference): the
 * space is listed only when the default is not in it and the first valid
 * configuration is wanted. */
static int choose_reference(server *s, kt_diag *diag)
{
    int rc = kt_space_new(s->spec, &s->prob, &s->space, diag);
    if (rc == KT_OK && !(s->reference = malloc(s->spec->nparams * sizeof *s->reference + 1)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc != KT_OK)
        return rc;
    kt_space_default(s->space, s->reference);
    if (!s->spec->ref_name && !kt_space_is_valid(s->space, s->reference))
        rc = kt_space_build(s->space, UINT64_MAX, diag);
    if (rc == KT_OK)
        s->reference_warn = kt_tune_reference(s->space, s->reference);
    return rc;
}

static int setup(server *s, kt_diag *diag)
{
    kt_device_info dev;
    s->be_opts = s->opts->backend;
    s->be_opts.device = kt_mpi_device(s->run->m);
    int rc = kt_problem_parse(s->spec, s->opts->problem, &s->prob, diag);
    if (rc == KT_OK)
        rc = choose_reference(s, diag);
    if (rc == KT_OK && !(s->be = kt_backend_for(s->spec->language)))
        rc = kt_fail(diag, KT_EBACKEND, "%s: no backend here runs this kernel's "
                     "language", s->spec->path);
    if (rc == KT_OK)
        rc = s->be->open(s->spec, &s->be_opts, &s->be_ctx, diag);
    if (rc == KT_OK)
        rc = s->be->device(s->be_ctx, &dev, diag);
    if (rc != KT_OK)
        return rc;
    kt_strlcpy(s->out->device, sizeof s->out->device, dev.name);
    s->env = (kt_exec_env){.spec = s->spec, .prob = &s->prob, .be = s->be,
                           .be_ctx = s->be_ctx, .be_opts = &s->be_opts,
                           .measure = &s->opts->measure, .no_overlap = s->opts->no_overlap,
                           .reference = s->reference, .reference_warn = s->reference_warn,
                           .warn = s->opts->warn, .warn_user = s->opts->warn_user};
    rc = kt_exec_local_open(NULL, &s->env, &s->exec, diag);
    kt_mpi_msg hello = {.kind = KT_MPI_HELLO};
    kt_strlcpy(hello.text, sizeof hello.text, dev.fingerprint);
    return rc == KT_OK ? kt_mpi_send(s->run->m, 0, &hello, diag) : rc;
}

/* Room for one more configuration. */
static int grow(server *s, kt_diag *diag)
{
    if (s->n < s->cap)
        return KT_OK;
    size_t cap = s->cap ? 2 * s->cap : 8, np = s->spec->nparams;
    uint16_t *cfgs = realloc(s->cfgs, cap * np * sizeof *cfgs + 1);
    if (cfgs)
        s->cfgs = cfgs;
    uint64_t *tickets = cfgs ? realloc(s->tickets, cap * sizeof *tickets) : NULL;
    if (tickets)
        s->tickets = tickets;
    const uint16_t **ptrs = tickets ? realloc(s->ptrs, cap * sizeof *ptrs) : NULL;
    if (!ptrs)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    s->ptrs = ptrs;
    s->cap = cap;
    return KT_OK;
}

/* Take every message that has arrived. */
static int drain(server *s, kt_diag *diag)
{
    size_t np = s->spec->nparams;
    for (;;) {
        int rc = grow(s, diag), src = 0;
        bool got = false;
        kt_mpi_msg msg;
        if (rc == KT_OK)
            rc = kt_mpi_poll(s->run->m, &src, &msg, s->cfgs + s->n * np, np, &got, diag);
        if (rc != KT_OK || !got)
            return rc;
        if (src != 0)
            continue; /* only rank 0 speaks to a measuring rank */
        s->heard = kt_now();
        if (msg.kind == KT_MPI_STOP && msg.code)
            kt_mpi_gone(s->run->m, -1); /* the job lost a rank */
        if (msg.kind == KT_MPI_STOP)
            s->stop = true;
        else if (msg.kind == KT_MPI_WORK)
            s->tickets[s->n++] = msg.ticket;
    }
}

/* Measure what has arrived as one batch, each result sent as it comes. */
static int measure(server *s, kt_diag *diag)
{
    size_t np = s->spec->nparams, i = 0;
    kt_result res;
    for (size_t k = 0; k < s->n; k++)
        s->ptrs[k] = s->cfgs + k * np;
    int rc = kt_exec_start(&s->exec, s->ptrs, s->n, diag);
    while (rc == KT_OK && (rc = kt_exec_next(&s->exec, &i, &res, diag)) == KT_OK) {
        kt_mpi_msg msg = {.kind = KT_MPI_RESULT, .ticket = s->tickets[i], .result = res};
        rc = kt_mpi_send(s->run->m, 0, &msg, diag);
        s->out->measured++;
    }
    kt_exec_end(&s->exec);
    s->n = 0;
    return rc == KT_EDONE ? KT_OK : rc;
}

/* When rank 0 last said anything: a message, or a beat the heartbeat
 * thread took. */
static double heard(const server *s)
{
    return fmax(s->heard, kt_mpi_heard(s->run->m, 0));
}

static bool cancelled(const server *s)
{
    return s->opts->cancel && *s->opts->cancel;
}

static int serve(server *s, double timeout_s, kt_diag *diag)
{
    int rc = KT_OK;
    s->heard = kt_now();
    while (rc == KT_OK && !s->stop && !cancelled(s)) {
        rc = drain(s, diag);
        if (rc == KT_OK && s->n > 0 && !s->stop) {
            /* rank 0 sends a window's worth back to back: take it whole,
             * or the batch would be what happened to arrive first */
            nanosleep(&(struct timespec){0, 2 * 1000 * 1000}, NULL);
            rc = drain(s, diag);
        }
        if (rc == KT_OK && s->n > 0 && !s->stop)
            rc = measure(s, diag);
        else if (rc == KT_OK && kt_now() - heard(s) > timeout_s) {
            kt_mpi_gone(s->run->m, 0);
            rc = kt_fail(diag, KT_EWORKER, "rank 0 has been silent for %.0f s: stopping",
                         kt_now() - heard(s));
        }
        else if (rc == KT_OK)
            nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    }
    return rc;
}

int kt_mpi_serve(const kt_mpi_run *run, const kt_spec *spec, const kt_tune_opts *opts,
                 kt_mpi_served *out, kt_diag *diag)
{
    *out = (kt_mpi_served){0};
    double timeout_s = run->rank_timeout_s > 0 ? run->rank_timeout_s : KT_RANK_TIMEOUT;
    server s = {.run = run, .spec = spec, .opts = opts, .out = out};
    int rc = kt_mpi_beat_start(run->m, kt_mpi_beat_every(timeout_s), diag);
    if (rc == KT_OK && (rc = setup(&s, diag)) != KT_OK) {
        kt_mpi_gone(run->m, -1); /* the job lost this rank */
        kt_mpi_msg fail = {.kind = KT_MPI_FAIL, .code = rc};
        kt_strlcpy(fail.text, sizeof fail.text, diag ? diag->msg : kt_strerror(rc));
        kt_mpi_send(run->m, 0, &fail, NULL);
    } else if (rc == KT_OK) {
        rc = serve(&s, timeout_s, diag);
    }
    kt_mpi_beat_stop(run->m);
    kt_exec_close(&s.exec);
    if (s.be_ctx)
        s.be->close(s.be_ctx);
    kt_space_free(s.space);
    free(s.reference);
    kt_problem_clear(&s.prob);
    free(s.cfgs);
    free(s.ptrs);
    free(s.tickets);
    return rc;
}
