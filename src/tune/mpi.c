/* mpi.c - joining an MPI job, and the transport of a distributed run
 * (mpi.h): small messages of mpi_wire.h on one tag of MPI_COMM_WORLD, the
 * heartbeats on another, every call under the handle's lock.
 *
 * Nothing here blocks in MPI.  A message is sent with MPI_Isend from a
 * buffer of the handle's outbox, kept until the send completes: a blocking
 * MPI_Send to a rank that is busy measuring (and so not receiving) waits
 * once shared memory's queue to it is full, and it would wait with the
 * lock held, silencing the heartbeat to every rank.  The heartbeat thread
 * both beats and hears: it takes the beats that have arrived and notes
 * when (kt_mpi_heard), so that a rank whose main thread is busy for
 * minutes is still heard, and still heard from.  Built without MPI (no
 * ompi-c pkg-config file), only the refusal remains. */
#include "tune/mpi.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* A variable of the environment as a count (0 when unset). */
static int env_count(const char *name)
{
    const char *v = getenv(name);
    return v ? atoi(v) : 0;
}

bool kt_mpi_launched(void)
{
    return env_count("OMPI_COMM_WORLD_SIZE") > 1 || env_count("PMI_SIZE") > 1 ||
           (env_count("SLURM_STEP_NUM_TASKS") > 1 && getenv("PMIX_RANK"));
}

#ifdef KT_HAVE_MPI

#include <mpi.h>
#include <pthread.h>
#include <time.h>

#define TAG 7101      /* ktune's messages */
#define BEAT_TAG 7102 /* heartbeats, sent and taken by the heartbeat thread */
#define DRAIN_S 10.0  /* how long kt_mpi_close waits for its sends */

/* A message being sent: its buffer lives until the send completes. */
typedef struct outgoing {
    MPI_Request req;         /* MPI_REQUEST_NULL: the slot is free */
    unsigned char buf[KT_MPI_MSG_MAX];
} outgoing;

struct ktune_mpi {
    int rank, size;
    int device;              /* place among the measuring ranks of the node */
    pthread_mutex_t lock;    /* every MPI call (MPI_THREAD_SERIALIZED), and
                                the fields below */
    bool *gone;              /* [size]: taken as dead, or left out */
    bool lost;               /* the job lost a rank (kt_mpi_close) */
    double *heard;           /* [size]: a beat last taken from the rank (kt_now) */
    char beat_msg[64];       /* the encoded beat, beat_msg_len bytes: it lives as
                                long as the sends that may still read it */
    int beat_msg_len;
    MPI_Request *beat_req;   /* [size]: the beat being sent to the rank */
    outgoing **out;          /* the outbox: nout slots */
    size_t nout;
    /* the heartbeat thread */
    pthread_cond_t quit_cv;
    bool quit, beating;
    double every_s;
    pthread_t beat;
};

/* The measuring ranks of this node, in rank order, measure on devices 0,
 * 1, ...: rank 0 is not one of them. */
static int node_device(int rank)
{
    MPI_Comm node, measuring;
    int place = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_split(node, rank == 0, rank, &measuring);
    MPI_Comm_rank(measuring, &place);
    MPI_Comm_free(&measuring);
    MPI_Comm_free(&node);
    return place;
}

static void handle_free(kt_mpi *m)
{
    if (!m)
        return;
    free(m->gone);
    free(m->heard);
    free(m->beat_req);
    for (size_t i = 0; i < m->nout; i++)
        free(m->out[i]);
    free(m->out);
    free(m);
}

/* A handle for a job of size ranks, everything heard now; NULL when out of
 * memory. */
static kt_mpi *handle_new(int size)
{
    kt_mpi *m = calloc(1, sizeof *m);
    size_t n = (size_t)(size > 0 ? size : 1);
    if (!m || !(m->gone = calloc(n, sizeof *m->gone)) ||
        !(m->heard = calloc(n, sizeof *m->heard)) ||
        !(m->beat_req = calloc(n, sizeof *m->beat_req))) {
        handle_free(m);
        return NULL;
    }
    double now = kt_now();
    for (size_t r = 0; r < n; r++) {
        m->heard[r] = now;
        m->beat_req[r] = MPI_REQUEST_NULL;
    }
    size_t len = 0;
    kt_mpi_encode(&(kt_mpi_msg){.kind = KT_MPI_BEAT}, (unsigned char *)m->beat_msg,
                  sizeof m->beat_msg, &len);
    m->beat_msg_len = (int)len;
    return m;
}

int kt_mpi_open(kt_mpi **out, kt_diag *diag)
{
    *out = NULL;
    if (!kt_mpi_launched())
        return KT_OK;
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return kt_fail(diag, KT_EINVAL, "MPI_Init_thread failed");
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    kt_mpi *m = handle_new(size);
    if (!m || provided < MPI_THREAD_SERIALIZED) {
        handle_free(m);
        MPI_Finalize();
        return m ? kt_fail(diag, KT_EINVAL, "this MPI cannot serialise calls from two "
                           "threads (MPI_THREAD_SERIALIZED), which the heartbeat needs")
                 : kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    /* A rank that dies is a silence to notice, not a reason to abort. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    m->size = size;
    m->device = node_device(m->rank);
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->quit_cv, NULL);
    *out = m;
    return KT_OK;
}

/* Whether every send of the outbox and every beat has completed (the
 * caller holds the lock). */
static bool sends_done(kt_mpi *m)
{
    bool done = true;
    int flag = 0;
    for (size_t i = 0; i < m->nout; i++)
        if (m->out[i]->req != MPI_REQUEST_NULL)
            done &= MPI_Test(&m->out[i]->req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag;
    for (int r = 0; r < m->size; r++)
        if (m->beat_req[r] != MPI_REQUEST_NULL)
            done &= MPI_Test(&m->beat_req[r], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag;
    return done;
}

/* OpenMPI 4.1's MPI_Finalize can hang for good once a rank has died, even
 * with --enable-recovery (bench/mpi_notes.md), while a process that exits
 * without it leaves mpirun content: a job that lost a rank skips it, and
 * so does one whose sends do not complete within DRAIN_S (MPI_Finalize
 * must not be called with sends pending). */
void kt_mpi_close(kt_mpi *m)
{
    if (!m)
        return;
    kt_mpi_beat_stop(m);
    double until = kt_now() + DRAIN_S;
    pthread_mutex_lock(&m->lock);
    while (!m->lost && !sends_done(m)) {
        if (kt_now() > until)
            m->lost = true;
        nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
    }
    pthread_mutex_unlock(&m->lock);
    if (!m->lost)
        MPI_Finalize();
    pthread_cond_destroy(&m->quit_cv);
    pthread_mutex_destroy(&m->lock);
    handle_free(m);
}

void kt_mpi_gone(kt_mpi *m, int rank)
{
    pthread_mutex_lock(&m->lock);
    if (rank >= 0 && rank < m->size)
        m->gone[rank] = true;
    m->lost = true;
    pthread_mutex_unlock(&m->lock);
}

double kt_mpi_heard(kt_mpi *m, int rank)
{
    pthread_mutex_lock(&m->lock);
    double t = rank >= 0 && rank < m->size ? m->heard[rank] : 0;
    pthread_mutex_unlock(&m->lock);
    return t;
}

/* One beat to every rank this one watches whose last beat has gone out (a
 * rank that takes nothing in, dead or busy, has at most one waiting), and
 * every beat that has arrived taken, noting when; the caller holds the
 * lock. */
static void beat_once(kt_mpi *m)
{
    int flag = 0;
    for (int r = 0; r < m->size; r++) {
        if (r == m->rank || !(m->rank == 0 || r == 0) || m->gone[r])
            continue;
        if (m->beat_req[r] != MPI_REQUEST_NULL &&
            (MPI_Test(&m->beat_req[r], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag))
            continue;
        MPI_Isend(m->beat_msg, m->beat_msg_len, MPI_BYTE, r, BEAT_TAG, MPI_COMM_WORLD,
                  &m->beat_req[r]);
    }
    char in[64];
    MPI_Status st;
    while (MPI_Iprobe(MPI_ANY_SOURCE, BEAT_TAG, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS &&
           flag) {
        if (MPI_Recv(in, (int)sizeof in, MPI_BYTE, st.MPI_SOURCE, BEAT_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
            break;
        if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < m->size)
            m->heard[st.MPI_SOURCE] = kt_now();
    }
}

/* Rank 0 beats to every rank not gone, the others to rank 0, every
 * every_s seconds until told to quit, and takes the beats that came; the
 * lock is held across each round and the wait (released while waiting). */
static void *beat_main(void *arg)
{
    kt_mpi *m = arg;
    pthread_mutex_lock(&m->lock);
    while (!m->quit) {
        beat_once(m);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        double t = (double)until.tv_nsec * 1e-9 + m->every_s;
        until.tv_sec += (time_t)t;
        until.tv_nsec = (long)((t - (double)(time_t)t) * 1e9);
        if (!m->quit)
            pthread_cond_timedwait(&m->quit_cv, &m->lock, &until);
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

int kt_mpi_beat_start(kt_mpi *m, double every_s, kt_diag *diag)
{
    if (m->beating)
        return KT_OK;
    m->every_s = every_s;
    m->quit = false;
    m->beating = pthread_create(&m->beat, NULL, beat_main, m) == 0;
    return m->beating ? KT_OK : kt_fail(diag, KT_ENOMEM, "cannot start a thread");
}

void kt_mpi_beat_stop(kt_mpi *m)
{
    if (!m->beating)
        return;
    pthread_mutex_lock(&m->lock);
    m->quit = true;
    pthread_cond_signal(&m->quit_cv);
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->beat, NULL);
    m->beating = false;
}

/* A free slot of the outbox, completed sends freed on the way; NULL when
 * out of memory.  The caller holds the lock. */
static outgoing *free_slot(kt_mpi *m)
{
    int flag = 0;
    for (size_t i = 0; i < m->nout; i++) {
        outgoing *o = m->out[i];
        if (o->req == MPI_REQUEST_NULL ||
            (MPI_Test(&o->req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag))
            return o;
    }
    outgoing **grown = realloc(m->out, (m->nout + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    m->out = grown;
    outgoing *o = malloc(sizeof *o);
    if (o) {
        o->req = MPI_REQUEST_NULL;
        m->out[m->nout++] = o;
    }
    return o;
}

int kt_mpi_send(kt_mpi *m, int dest, const kt_mpi_msg *msg, kt_diag *diag)
{
    unsigned char buf[KT_MPI_MSG_MAX];
    size_t len = 0;
    if (kt_mpi_encode(msg, buf, sizeof buf, &len) != KT_OK)
        return kt_fail(diag, KT_ERANGE, "a message too large to send to rank %d "
                       "(a configuration of %zu parameters)", dest, msg->nparams);
    pthread_mutex_lock(&m->lock);
    outgoing *o = free_slot(m);
    int rc = MPI_ERR_NO_MEM;
    if (o) {
        memcpy(o->buf, buf, len);
        rc = MPI_Isend(o->buf, (int)len, MPI_BYTE, dest, TAG, MPI_COMM_WORLD, &o->req);
    }
    pthread_mutex_unlock(&m->lock);
    if (!o)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    return rc == MPI_SUCCESS ? KT_OK
                             : kt_fail(diag, KT_EWORKER, "cannot send to rank %d (MPI "
                                       "error %d)", dest, rc);
}

int kt_mpi_poll(kt_mpi *m, int *src, kt_mpi_msg *msg, uint16_t *cfg, size_t nparams,
                bool *got, kt_diag *diag)
{
    unsigned char buf[KT_MPI_MSG_MAX];
    int flag = 0, count = 0, rc;
    MPI_Status st;
    *got = false;
    pthread_mutex_lock(&m->lock);
    rc = MPI_Iprobe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &flag, &st);
    if (rc == MPI_SUCCESS && flag)
        rc = MPI_Get_count(&st, MPI_BYTE, &count);
    if (rc == MPI_SUCCESS && flag && count <= KT_MPI_MSG_MAX)
        rc = MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, TAG, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
    pthread_mutex_unlock(&m->lock);
    if (rc != MPI_SUCCESS)
        return kt_fail(diag, KT_EWORKER, "cannot receive (MPI error %d)", rc);
    if (!flag)
        return KT_OK;
    *src = st.MPI_SOURCE;
    if (count > KT_MPI_MSG_MAX)
        return kt_fail(diag, KT_EFORMAT, "rank %d sent %d bytes, more than a ktune "
                       "message holds", *src, count);
    int dec = kt_mpi_decode(buf, (size_t)count, cfg, nparams, msg, diag);
    if (dec != KT_OK)
        kt_diag_prefix(diag, "a message from another rank");
    *got = dec == KT_OK;
    return dec;
}

int kt_mpi_lead_start(const kt_mpi_run *run, kt_diag *diag)
{
    double timeout_s = run->rank_timeout_s > 0 ? run->rank_timeout_s : KT_RANK_TIMEOUT;
    return kt_mpi_beat_start(run->m, kt_mpi_beat_every(timeout_s), diag);
}

void kt_mpi_lead_end(const kt_mpi_run *run, int rc)
{
    kt_mpi *m = run->m;
    kt_mpi_beat_stop(m);
    if (rc != KT_OK)
        kt_mpi_gone(m, -1);
    for (int r = 1; r < m->size; r++)
        if (!m->gone[r])
            kt_mpi_send(m, r, &(kt_mpi_msg){.kind = KT_MPI_STOP, .code = m->lost}, NULL);
}

int kt_mpi_rank(const kt_mpi *m) { return m ? m->rank : 0; }
int kt_mpi_size(const kt_mpi *m) { return m ? m->size : 1; }
int kt_mpi_device(const kt_mpi *m) { return m ? m->device : 0; }

#else /* no MPI */

struct ktune_mpi {
    int unused;
};

int kt_mpi_open(kt_mpi **out, kt_diag *diag)
{
    *out = NULL;
    if (kt_mpi_launched())
        return kt_fail(diag, KT_EINVAL, "started by mpirun with several ranks, but this "
                       "ktune was built without MPI (install libopenmpi-dev and build "
                       "again)");
    return KT_OK;
}

void kt_mpi_close(kt_mpi *m) { (void)m; }
int kt_mpi_rank(const kt_mpi *m) { (void)m; return 0; }
int kt_mpi_size(const kt_mpi *m) { (void)m; return 1; }
int kt_mpi_device(const kt_mpi *m) { (void)m; return 0; }
void kt_mpi_gone(kt_mpi *m, int rank) { (void)m, (void)rank; }
double kt_mpi_heard(kt_mpi *m, int rank) { (void)m, (void)rank; return 0; }
void kt_mpi_lead_end(const kt_mpi_run *run, int rc) { (void)run, (void)rc; }

int kt_mpi_lead_start(const kt_mpi_run *run, kt_diag *diag)
{
    (void)run;
    return kt_fail(diag, KT_EINVAL, "built without MPI");
}
void kt_mpi_beat_stop(kt_mpi *m) { (void)m; }

int kt_mpi_beat_start(kt_mpi *m, double every_s, kt_diag *diag)
{
    (void)m, (void)every_s;
    return kt_fail(diag, KT_EINVAL, "built without MPI");
}

int kt_mpi_send(kt_mpi *m, int dest, const kt_mpi_msg *msg, kt_diag *diag)
{
    (void)m, (void)dest, (void)msg;
    return kt_fail(diag, KT_EINVAL, "built without MPI");
}

int kt_mpi_poll(kt_mpi *m, int *src, kt_mpi_msg *msg, uint16_t *cfg, size_t nparams,
                bool *got, kt_diag *diag)
{
    (void)m, (void)src, (void)msg, (void)cfg, (void)nparams;
    *got = false;
    return kt_fail(diag, KT_EINVAL, "built without MPI");
}

#endif
