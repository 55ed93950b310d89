/* exec_mpi.c - rank 0's executor over the measuring ranks (mpi.h): a batch
 * is a queue of configurations; each rank that said HELLO holds at most
 * `window` of them at a time and gets more as its results come back; a
 * rank silent past the deadline, or one that failed, gives its
 * configurations back to the front of the queue.  Nothing here blocks in
 * MPI: one loop polls, hands out, beats and checks the deadlines. */
#include "tune/mpi.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PEER_WAITING, PEER_READY, PEER_GONE };

/* What rank 0 knows of one measuring rank. */
typedef struct peer {
    int state;               /* PEER_* */
    double heard;            /* when it last said anything (kt_now) */
    size_t held;             /* configurations it holds, of any batch */
} peer;

typedef struct mpi_exec {
    kt_mpi *m;
    const kt_exec_env *env;
    char fingerprint[512];   /* rank 0's device, which the rows are stored under */
    double timeout_s;        /* silence that makes a rank dead */
    size_t window;           /* configurations a rank holds at most */
    peer *peers;             /* [size]; peers[0] unused */
    uint16_t *cfg;           /* a received WORK's scratch (never used: rank 0
                                receives none) */
    /* the batch */
    const uint16_t *const *cfgs;
    size_t n, given;         /* configurations, results given back */
    uint32_t batch;          /* tickets carry it: older results are dropped */
    int *owner;              /* [n]: the rank holding it, 0 queued, -1 given back */
    size_t *queue, nqueue;   /* indices not handed out, the next at the end */
    char why[300];           /* the first rank's failure, for the error */
    kt_exec_stats stats;
} mpi_exec;

static void idle(void)
{
    struct timespec ts = {0, 200 * 1000};
    nanosleep(&ts, NULL);
}

static void say(mpi_exec *x, const char *fmt, int rank, const char *what)
{
    char line[700];
    snprintf(line, sizeof line, fmt, rank, what);
    kt_warn(x->env->warn, x->env->warn_user, "mpi", "%s", line);
}

/* A rank is gone: its configurations of this batch go back to the queue
 * (measured next), and it is told to stop (a small message: it completes
 * even if the rank is dead). */
static void drop_peer(mpi_exec *x, int r, const char *why)
{
    if (x->peers[r].state == PEER_GONE)
        return;
    size_t back = 0;
    for (size_t i = 0; i < x->n; i++)
        if (x->owner[i] == r) {
            x->owner[i] = 0;
            x->queue[x->nqueue++] = i;
            back++;
        }
    x->peers[r].state = PEER_GONE;
    x->peers[r].held = 0;
    kt_mpi_gone(x->m, r);
    kt_mpi_send(x->m, r, &(kt_mpi_msg){.kind = KT_MPI_STOP, .code = 1}, NULL);
    char what[400];
    snprintf(what, sizeof what, "%s; %zu configuration%s handed to the others", why, back,
             back == 1 ? "" : "s");
    say(x, "rank %d left out: %s", r, what);
    if (!x->why[0])
        snprintf(x->why, sizeof x->why, "rank %d: %s", r, why);
}

/* Hand queued configurations to the ready ranks with room, fewest held
 * first. */
static int hand_out(mpi_exec *x, kt_diag *diag)
{
    size_t np = x->env->spec->nparams;
    int size = kt_mpi_size(x->m);
    for (size_t round = 0; round < x->window && x->nqueue > 0; round++)
        for (int r = 1; r < size && x->nqueue > 0; r++) {
            peer *p = &x->peers[r];
            if (p->state != PEER_READY || p->held > round)
                continue;
            size_t i = x->queue[--x->nqueue];
            kt_mpi_msg w = {.kind = KT_MPI_WORK, .ticket = (uint64_t)x->batch << 32 | i,
                            .cfg = x->cfgs[i], .nparams = np};
            int rc = kt_mpi_send(x->m, r, &w, diag);
            if (rc != KT_OK)
                return rc;
            x->owner[i] = r;
            p->held++;
        }
    return KT_OK;
}

static void on_hello(mpi_exec *x, int r, const kt_mpi_msg *msg)
{
    if (x->peers[r].state != PEER_WAITING)
        return;
    if (strcmp(msg->text, x->fingerprint) == 0) {
        x->peers[r].state = PEER_READY;
        return;
    }
    char why[700];
    snprintf(why, sizeof why, "it measures on another device (%.300s) than rank 0's "
             "(%.300s)", msg->text, x->fingerprint);
    drop_peer(x, r, why);
}

/* One message from rank r; *index set when it is a result to give back. */
static void on_message(mpi_exec *x, int r, const kt_mpi_msg *msg, size_t *index)
{
    *index = SIZE_MAX;
    x->peers[r].heard = kt_now();
    if (msg->kind == KT_MPI_HELLO) {
        on_hello(x, r, msg);
    } else if (msg->kind == KT_MPI_FAIL) {
        drop_peer(x, r, msg->text);
    } else if (msg->kind == KT_MPI_RESULT) {
        size_t i = (size_t)(msg->ticket & 0xffffffffu);
        if (x->peers[r].held > 0)
            x->peers[r].held--;
        bool current = msg->ticket >> 32 == x->batch && i < x->n && x->owner[i] >= 0;
        if (current && x->owner[i] == 0) /* requeued: take it off the queue */
            for (size_t q = 0; q < x->nqueue; q++)
                if (x->queue[q] == i)
                    x->queue[q] = x->queue[--x->nqueue];
        if (current) {
            x->owner[i] = -1;
            *index = i;
        }
    }
}

/* Take the ranks silent past the deadline out: neither a message nor a
 * beat (which the heartbeat thread of mpi.c takes) came from them. */
static void keep_time(mpi_exec *x)
{
    double now = kt_now();
    for (int r = 1; r < kt_mpi_size(x->m); r++) {
        double heard = fmax(x->peers[r].heard, kt_mpi_heard(x->m, r));
        if (x->peers[r].state != PEER_GONE && now - heard > x->timeout_s) {
            char why[96];
            snprintf(why, sizeof why, "silent for %.0f s (taken as dead)", now - heard);
            drop_peer(x, r, why);
        }
    }
}

static bool any_left(const mpi_exec *x)
{
    for (int r = 1; r < kt_mpi_size(x->m); r++)
        if (x->peers[r].state != PEER_GONE)
            return true;
    return false;
}

static int mpi_next(void *self, size_t *index, kt_result *result, kt_diag *diag)
{
    mpi_exec *x = self;
    double t0 = kt_now();
    int rc = KT_OK;
    while (rc == KT_OK && x->given < x->n) {
        if (!any_left(x)) {
            rc = kt_fail(diag, KT_EWORKER, "no measuring rank is left (%s)",
                         x->why[0] ? x->why : "none joined");
            break;
        }
        kt_mpi_msg msg;
        bool got = false;
        int src = 0;
        rc = hand_out(x, diag);
        if (rc == KT_OK)
            rc = kt_mpi_poll(x->m, &src, &msg, x->cfg, x->env->spec->nparams, &got, diag);
        size_t i = SIZE_MAX;
        if (rc == KT_OK && got)
            on_message(x, src, &msg, &i);
        keep_time(x);
        if (i != SIZE_MAX) {
            *index = i;
            *result = msg.result;
            x->given++;
            x->stats.measure_s += kt_now() - t0;
            return KT_OK;
        }
        if (rc == KT_OK && !got)
            idle();
    }
    x->stats.measure_s += kt_now() - t0;
    return rc == KT_OK ? KT_EDONE : rc;
}

static int mpi_start(void *self, const uint16_t *const *cfgs, size_t n, kt_diag *diag)
{
    mpi_exec *x = self;
    int *owner = calloc(n ? n : 1, sizeof *owner);
    size_t *queue = malloc((n ? n : 1) * sizeof *queue);
    if (!owner || !queue) {
        free(owner);
        free(queue);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    free(x->owner);
    free(x->queue);
    x->owner = owner;
    x->queue = queue;
    x->cfgs = cfgs;
    x->n = n;
    x->given = 0;
    x->batch++;
    for (size_t i = 0; i < n; i++) /* the first is handed out first */
        x->queue[i] = n - 1 - i;
    x->nqueue = n;
    return KT_OK;
}

/* What the ranks still hold of the batch comes back later and is dropped
 * (its ticket is of an older batch); nothing to wait for here. */
static void mpi_end(void *self)
{
    mpi_exec *x = self;
    x->cfgs = NULL;
    x->n = x->nqueue = 0;
}

static void mpi_stats(void *self, kt_exec_stats *out)
{
    mpi_exec *x = self;
    out->measure_s += x->stats.measure_s;
}

/* The ranks are told to stop by kt_mpi_lead_end, after the run. */
static void mpi_free(void *self)
{
    mpi_exec *x = self;
    free(x->peers);
    free(x->owner);
    free(x->queue);
    free(x->cfg);
    free(x);
}

static const kt_exec_ops MPI_OPS = {
    .abi = KT_EXEC_ABI, .name = "mpi", .start = mpi_start, .next = mpi_next,
    .end = mpi_end, .stats = mpi_stats, .free = mpi_free,
};

int kt_exec_mpi_open(void *user, const kt_exec_env *env, kt_exec *out, kt_diag *diag)
{
    const kt_mpi_run *run = user;
    kt_mpi *m = run->m;
    mpi_exec *x = calloc(1, sizeof *x);
    int size = kt_mpi_size(m);
    if (!x || !(x->peers = calloc((size_t)size, sizeof *x->peers)) ||
        !(x->cfg = calloc(env->spec->nparams + 1, sizeof *x->cfg))) {
        if (x)
            free(x->peers);
        free(x);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    kt_device_info dev;
    int rc = env->be->device(env->be_ctx, &dev, diag);
    if (rc != KT_OK) {
        mpi_free(x);
        return rc;
    }
    kt_strlcpy(x->fingerprint, sizeof x->fingerprint, dev.fingerprint);
    x->m = m;
    x->env = env;
    x->timeout_s = run->rank_timeout_s > 0 ? run->rank_timeout_s : KT_RANK_TIMEOUT;
    /* As many as one process's tuner puts in a batch (four per compiler),
     * so that a rank's compilers and worker stay busy between batches. */
    x->window = 4 * (size_t)(env->be_opts->jobs > 1 ? env->be_opts->jobs : 1);
    double now = kt_now();
    for (int r = 1; r < size; r++)
        x->peers[r] = (peer){.state = PEER_WAITING, .heard = now};
    *out = (kt_exec){.ops = &MPI_OPS, .self = x};
    return KT_OK;
}
