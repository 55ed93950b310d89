/* worker.c - the measurement worker, tuner side: start the worker program
 * (posix_spawn), hand it the setup, send it configurations, and classify
 * how each evaluation ended: its result, a timeout (a batch of calls past
 * its deadline, see worker.h), or the worker's death.  The worker's side
 * is worker_child.c; what they say to each other is worker_proto.h.
 */
#include "measure/worker.h"
#include "core/util.h"
#include "measure/measure.h"
#include "measure/worker_proto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct kt_worker {
    const kt_spec *spec;
    kt_measure_opts opts;
    char path[PATH_MAX];   /* the worker program */
    char *setup;           /* the encoded setup every new worker receives */
    size_t setup_len;
    int shared_fd;         /* memfd: shared_head + reference outputs */
    double ref_ms;         /* the reference's time per call; NAN until known */
    pid_t pid;             /* 0: no worker running */
    bool warmed;           /* a configuration was measured: the device is warm
                              (or has no energy counter), no more warm-ups */
    int fd;
    double phase_s[KT_PHASE_COUNT]; /* all evaluations so far (worker.h) */
};

kt_measure_opts kt_measure_defaults(void)
{
    return (kt_measure_opts){.min_reps = 5, .max_reps = 200, .min_time_s = 0.2,
                             .max_time_s = 3.0, .max_spread = 0.05,
                             .energy_window_s = 0.3, .energy_warmup_s = 15,
                             .hang_factor = WORKER_HANG_FACTOR, .timeout_s = 0, .seed = 1};
}

static kt_result failed_result(kt_status status)
{
    return (kt_result){.status = status, .energy_j = NAN, .power_w = NAN,
                       .time_ms = NAN, .min_ms = NAN, .spread = NAN};
}

/* ------------------------------------------------------------- finding */

static bool executable(const char *path) { return access(path, X_OK) == 0; }

/* The worker program: opts, $KTUNE_WORKER, near the running executable or
 * the shared library holding this code (kt_find_near_self): beside it (the
 * build folder, the GPU bundle), or where `make install` puts it,
 * PREFIX/libexec/ktune/, seen from PREFIX/bin (the ktune program) or
 * PREFIX/lib (libktune.so); then "ktune-worker" for posix_spawnp to find on
 * PATH. */
static void find_program(const kt_measure_opts *o, char *out, size_t n)
{
    static const char *const places[] = {"ktune-worker", "../libexec/ktune/ktune-worker"};
    const char *env = getenv("KTUNE_WORKER");
    if (o->worker_path && o->worker_path[0])
        kt_strlcpy(out, n, o->worker_path);
    else if (env && env[0])
        kt_strlcpy(out, n, env);
    else if (!kt_find_near_self(places, KT_ARRAY_LEN(places), executable, out, n))
        kt_strlcpy(out, n, "ktune-worker");
}

/* -------------------------------------------------------------- memory */

static uint64_t default_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0
               ? (uint64_t)((double)pages * (double)page * WORKER_MEMORY_SHARE)
               : UINT64_MAX;
}

static double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

/* Refuse, before anything is allocated, a problem whose buffers would pass
 * the limit.  A worker holds each argument twice (its initial contents and
 * the backend's buffer), the shared reference of each output and one
 * scratch copy of the largest. */
static int check_memory(const kt_spec *spec, const kt_args *a, uint64_t limit,
                        bool given, kt_diag *diag)
{
    double total = 0, biggest = 0;
    size_t big = 0;
    for (size_t i = 0; i < a->n; i++) {
        double b = (double)a->bytes[i];
        total += b * (worker_is_output(&spec->args[i]) ? 3 : 2);
        if (b > biggest) {
            biggest = b;
            big = i;
        }
    }
    total += biggest;
    if (total <= (double)limit)
        return KT_OK;
    return kt_fail(diag, KT_ERANGE, "the problem needs %.4g GiB of buffers (the largest, "
                   "'%s', is %.4g GiB), more than the limit of %.4g GiB (%s)", gib(total),
                   a->n ? spec->args[big].name : "", gib(biggest), gib((double)limit),
                   given ? "as set" : "half of this machine's memory; --max-memory sets it");
}

/* ------------------------------------------------------------ starting */

/* Spawn the program with the socket and the shared region at their fixed
 * descriptors, in its own process group (a Ctrl-C meant for the tuner must
 * not end a measurement as a 'crash'), with default signal handling. */
static int spawn(kt_worker *w, int sock, kt_diag *diag)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sock, WORKER_SOCK_FD);
    posix_spawn_file_actions_adddup2(&fa, w->shared_fd, WORKER_SHARED_FD);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    char ppid[32];
    snprintf(ppid, sizeof ppid, "%ld", (long)getpid());
    char *argv[] = {w->path, KT_WORKER_ARG, ppid, NULL};
    int err = strchr(w->path, '/')
                  ? posix_spawn(&w->pid, w->path, &fa, &at, argv, environ)
                  : posix_spawnp(&w->pid, w->path, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (err == 0)
        return KT_OK;
    w->pid = 0;
    return kt_fail(diag, KT_EWORKER, "cannot start the measurement worker '%s': %s "
                   "(hint: set KTUNE_WORKER to the ktune-worker program)", w->path,
                   strerror(err));
}

/* Both descriptors the worker gets are first moved above the fixed numbers,
 * so that placing one cannot overwrite the other. */
static int high_fd(int fd)
{
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return high;
}

/* ----------------------------------------------------------- listening */

/* How waiting for one answer ended. */
enum { GOT_RESULT, GOT_EOF, GOT_TIMEOUT };

/* The worker's processor time so far in seconds, all threads (NAN when
 * unreadable). */
static double cpu_seconds(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    const char *after = strrchr(buf, ')'); /* the name may hold anything */
    unsigned long utime, stime;
    if (!after || sscanf(after + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                         &utime, &stime) != 2)
        return NAN;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* A batch of kernel calls under way and what it may take (worker.h). */
typedef struct batch {
    double calls;
    double allowance;      /* seconds of processor time */
    double cpu0;           /* the worker's processor time when it began */
    double wall_end;       /* the hard end, whatever the processor time */
} batch;

/* Allowance of a batch: its calls at up to hang_factor times the
 * reference's time each, plus the slack; the reference's own first run, of
 * unknown length, gets the start limit. */
static batch batch_begin(const kt_worker *w, double calls)
{
    double allow = isnan(w->ref_ms) ? (w->opts.timeout_s > 0 ? 10 * w->opts.timeout_s
                                                             : WORKER_START_LIMIT_S)
                                    : WORKER_HANG_SLACK_S +
                                          calls * w->opts.hang_factor * w->ref_ms * 1e-3;
    return (batch){.calls = calls, .allowance = allow, .cpu0 = cpu_seconds(w->pid),
                   .wall_end = kt_now() + WORKER_HANG_WALL * allow};
}

/* When a batch's wall-clock allowance has passed: the new deadline if the
 * worker has not yet had its allowance of processor time (a loaded machine
 * slows a kernel down, a hung kernel keeps burning its share), else 0. */
static double batch_extend(const kt_worker *w, const batch *b)
{
    double used = cpu_seconds(w->pid) - b->cpu0, now = kt_now();
    if (!(used < b->allowance) || now >= b->wall_end)
        return 0;
    return fmin(b->wall_end, now + fmax(0.05, b->allowance - used));
}

/* Wait until fd is readable or the deadline passes: 0 or GOT_TIMEOUT. */
static int wait_readable(int fd, double deadline)
{
    for (;;) {
        double wait_s = deadline - kt_now();
        if (wait_s <= 0)
            return GOT_TIMEOUT;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, (int)fmin(wait_s * 1e3 + 1, 1e9)) > 0)
            return 0;
    }
}

/* Read one message's payload of n bytes (it is already on its way). */
static bool read_payload(int fd, void *buf, size_t n)
{
    return n == 0 || (wait_readable(fd, kt_now() + WORKER_HOST_LIMIT_S) == 0 &&
                      kt_read_all(fd, buf, n));
}

static void timeout_reason(const kt_worker *w, const batch *b, bool in_batch, bool capped,
                           char *why, size_t nwhy)
{
    if (capped)
        snprintf(why, nwhy, "no result within %.3g s", w->opts.timeout_s);
    else if (in_batch && !isnan(w->ref_ms))
        snprintf(why, nwhy, "%.0f kernel call%s did not end within %.3g s of processor "
                 "time (%g times the reference's %.3g ms a call, plus %g s)", b->calls,
                 b->calls == 1 ? "" : "s", b->allowance, w->opts.hang_factor, w->ref_ms,
                 WORKER_HANG_SLACK_S);
    else if (in_batch)
        snprintf(why, nwhy, "the reference did not finish within %.3g s", b->allowance);
    else
        snprintf(why, nwhy, "the worker did not answer within %g s", WORKER_HOST_LIMIT_S);
}

/* Wait for the worker's result, following its announced batches: each
 * message moves the deadline (worker.h, hangs), never past `cap`.  On a
 * timeout, *why says which limit passed. */
static int receive(kt_worker *w, kt_result *r, double cap, char *why, size_t nwhy)
{
    double deadline = kt_now() + WORKER_HOST_LIMIT_S;
    bool in_batch = false;
    batch b = {0};
    for (;;) {
        if (wait_readable(w->fd, fmin(cap, deadline)) == GOT_TIMEOUT) {
            double more = in_batch && kt_now() < cap ? batch_extend(w, &b) : 0;
            if (more > 0) {
                deadline = more;
                continue;
            }
            timeout_reason(w, &b, in_batch, kt_now() >= cap, why, nwhy);
            return GOT_TIMEOUT;
        }
        msg_head h;
        double calls = 0;
        if (!kt_read_all(w->fd, &h, sizeof h))
            return GOT_EOF;
        if (h.kind == MSG_RESULT && h.len == sizeof *r)
            return read_payload(w->fd, r, sizeof *r) ? GOT_RESULT : GOT_EOF;
        double phase_s[KT_PHASE_COUNT], warm_s = 0;
        if (h.kind == MSG_WARM && h.len == sizeof warm_s) {
            if (!read_payload(w->fd, &warm_s, sizeof warm_s))
                return GOT_EOF;
            cap += warm_s > 0 ? warm_s : 0; /* the warm-up is not the kernel's time */
            continue;
        }
        if (h.kind == MSG_PHASES && h.len == sizeof phase_s) {
            if (!read_payload(w->fd, phase_s, sizeof phase_s))
                return GOT_EOF;
            for (int p = 0; p < KT_PHASE_COUNT; p++)
                w->phase_s[p] += phase_s[p];
            continue;
        }
        if (h.kind == MSG_RUN && h.len == sizeof calls && read_payload(w->fd, &calls, h.len)) {
            b = batch_begin(w, calls);
            deadline = kt_now() + b.allowance;
            in_batch = true;
        } else if (h.kind == MSG_RAN && h.len == 0) {
            deadline = kt_now() + WORKER_HOST_LIMIT_S;
            in_batch = false;
        } else {
            return GOT_EOF;
        }
    }
}

/* Stop the worker (killing it if asked) and, when r is given, describe how
 * it ended. */
static void reap(kt_worker *w, bool kill_it, kt_result *r)
{
    if (!w->pid)
        return;
    if (kill_it)
        kill(w->pid, SIGKILL);
    int status = 0;
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
    }
    close(w->fd);
    w->pid = 0;
    w->fd = -1;
    if (!r)
        return;
    if (WIFSIGNALED(status)) {
        r->status = KT_STATUS_CRASH;
        r->signal = WTERMSIG(status);
        snprintf(r->detail, sizeof r->detail, "killed by signal %d (%s)", r->signal,
                 strsignal(r->signal));
    } else {
        r->status = KT_STATUS_RUNTIME_ERROR;
        snprintf(r->detail, sizeof r->detail, "the worker exited with status %d",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}

/* Spawn a worker, send it the setup and wait until it is ready (the first
 * one computes the reference, whose time per call it reports). */
static int start_once(kt_worker *w, kt_result *r, char *why, size_t nwhy, kt_diag *diag)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return kt_fail(diag, KT_EWORKER, "cannot create a socket pair: %s",
                       strerror(errno));
    int theirs = high_fd(sv[1]);
    int rc = theirs >= 0 ? spawn(w, theirs, diag)
                         : kt_fail(diag, KT_EWORKER, "cannot duplicate a socket: %s",
                                   strerror(errno));
    if (theirs >= 0)
        close(theirs);
    if (rc != KT_OK) {
        close(sv[0]);
        return rc;
    }
    w->fd = sv[0];
    uint32_t len = (uint32_t)w->setup_len;
    int got = GOT_EOF;
    if (kt_send_all(w->fd, &len, sizeof len) && kt_send_all(w->fd, w->setup, len)) {
        double cap = kt_now() + (w->opts.timeout_s > 0 ? 10 * w->opts.timeout_s
                                                       : WORKER_START_LIMIT_S);
        got = receive(w, r, cap, why, nwhy);
    }
    if (got == GOT_RESULT && r->status == KT_STATUS_OK) {
        if (isnan(w->ref_ms) && r->time_ms >= 0)
            w->ref_ms = r->time_ms;
        return KT_OK;
    }
    if (got == GOT_EOF)
        reap(w, false, r);
    else
        reap(w, true, NULL);
    return KT_EWORKER;
}

/* Start a worker; one that was killed while starting is started once more,
 * since the signal may have come from outside. */
static int start(kt_worker *w, kt_diag *diag)
{
    char why[256] = "";
    kt_result r = failed_result(KT_STATUS_RUNTIME_ERROR);
    int rc = start_once(w, &r, why, sizeof why, diag);
    if (rc == KT_EWORKER && r.status == KT_STATUS_CRASH)
        rc = start_once(w, &r, why, sizeof why, diag);
    if (rc != KT_EWORKER)
        return rc;
    return kt_fail(diag, KT_EWORKER, "the measurement worker could not start: the "
                   "reference run failed: %s", why[0] ? why : r.detail);
}

/* -------------------------------------------------------------- public */

const char *kt_worker_phase_name(kt_worker_phase p)
{
#define KT_PHASE_NAME(name) #name,
    static const char *const NAMES[] = {KT_WORKER_PHASES(KT_PHASE_NAME)};
#undef KT_PHASE_NAME
    return p >= 0 && p < KT_PHASE_COUNT ? NAMES[p] : "?";
}

void kt_worker_phases_add(const kt_worker *w, double *phase_s)
{
    for (int p = 0; w && p < KT_PHASE_COUNT; p++)
        phase_s[p] += w->phase_s[p];
}

static int make_setup(kt_worker *w, const kt_backend *be, const kt_backend_opts *bo,
                      const kt_problem *prob, const char *ref_artifact,
                      const uint16_t *ref_cfg, kt_diag *diag)
{
    kt_args plan;
    int rc = kt_args_plan(w->spec, prob, &plan, diag);
    if (rc != KT_OK)
        return rc;
    uint64_t limit = w->opts.max_memory ? w->opts.max_memory : default_memory_limit();
    size_t *offsets = calloc(w->spec->nargs + 1, sizeof *offsets);
    rc = offsets ? check_memory(w->spec, &plan, limit, w->opts.max_memory != 0, diag)
                 : kt_fail(diag, KT_ENOMEM, "out of memory");
    size_t shared = rc == KT_OK ? worker_ref_offsets(w->spec, &plan, offsets) : 0;
    free(offsets);
    kt_args_clear(&plan);
    if (rc != KT_OK)
        return rc;
    w->shared_fd = memfd_create("ktune-reference", MFD_CLOEXEC);
    if (w->shared_fd < 0 || ftruncate(w->shared_fd, (off_t)shared) != 0 ||
        (w->shared_fd = high_fd(w->shared_fd)) < 0)
        return kt_fail(diag, KT_ENOMEM, "cannot make %zu bytes of shared memory: %s",
                       shared, strerror(errno));
    worker_setup s = {.spec_path = w->spec->path, .source_hash = w->spec->source_hash,
                      .problem = prob->key, .backend = (char *)be->name,
                      .cache_dir = (char *)bo->cache_dir, .compiler = (char *)bo->compiler,
                      .arch = (char *)bo->arch, .platform = (char *)bo->platform,
                      .device = bo->device, .ref_artifact = (char *)ref_artifact,
                      .ref_cfg = (uint16_t *)ref_cfg, .nparams = w->spec->nparams,
                      .opts = w->opts, .shared_bytes = shared,
                      .memory_limit = limit < UINT64_MAX / 2 ? 2 * limit + (4ull << 30) : 0};
    if (worker_setup_encode(&s, &w->setup, &w->setup_len) != KT_OK)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    return KT_OK;
}

int kt_worker_new(const kt_backend *be, const kt_backend_opts *be_opts,
                  const kt_spec *spec, const kt_problem *prob, const char *ref_artifact,
                  const uint16_t *ref_cfg, const kt_measure_opts *opts,
                  kt_worker **out, kt_diag *diag)
{
    *out = NULL;
    kt_worker *w = calloc(1, sizeof *w);
    if (!w)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    *w = (kt_worker){.spec = spec, .opts = *opts, .shared_fd = -1, .ref_ms = NAN,
                     .fd = -1};
    if (w->opts.max_reps < 1)
        w->opts.max_reps = 1;
    find_program(opts, w->path, sizeof w->path);
    int rc = make_setup(w, be, be_opts, prob, ref_artifact, ref_cfg, diag);
    if (rc == KT_OK)
        rc = start(w, diag);
    if (rc != KT_OK) {
        kt_worker_free(w);
        return rc;
    }
    *out = w;
    return KT_OK;
}

void kt_worker_free(kt_worker *w)
{
    if (!w)
        return;
    if (w->pid) {
        request q = {.kind = REQ_QUIT};
        kt_send_all(w->fd, &q, sizeof q);
        reap(w, false, NULL);
    }
    if (w->shared_fd >= 0)
        close(w->shared_fd);
    free(w->setup);
    free(w);
}

/* One evaluation in the running worker (started first if none runs);
 * *died tells whether the worker ended before it answered. */
static int eval_once(kt_worker *w, const char *artifact, const uint16_t *cfg,
                     kt_result *out, bool *died, kt_diag *diag)
{
    *died = false;
    if (!w->pid) {
        int rc = start(w, diag);
        if (rc != KT_OK)
            return rc;
    }
    *out = failed_result(KT_STATUS_RUNTIME_ERROR);
    size_t len = strlen(artifact), cfg_bytes = w->spec->nparams * sizeof *cfg;
    double warmup = !w->warmed && w->opts.energy_window_s > 0 ? w->opts.energy_warmup_s : 0;
    request q = {.kind = REQ_EVAL, .path_len = (uint32_t)len, .warmup_s = warmup};
    char why[256] = "";
    int got = GOT_EOF;
    double cap = w->opts.timeout_s > 0 ? kt_now() + w->opts.timeout_s : INFINITY;
    if (kt_send_all(w->fd, &q, sizeof q) && kt_send_all(w->fd, artifact, len) &&
        kt_send_all(w->fd, cfg, cfg_bytes))
        got = receive(w, out, cap, why, sizeof why);
    if (got == GOT_RESULT && out->status == KT_STATUS_OK)
        w->warmed = true; /* for every later worker process too */
    if (got == GOT_TIMEOUT) {
        reap(w, true, NULL);
        *out = failed_result(KT_STATUS_TIMEOUT);
        kt_strlcpy(out->detail, sizeof out->detail, why);
    } else if (got == GOT_EOF) {
        reap(w, false, out);
        *died = true;
    } else if (out->status != KT_STATUS_OK) {
        /* A wrong or failed kernel may have corrupted the worker: replace it. */
        request quit = {.kind = REQ_QUIT};
        kt_send_all(w->fd, &quit, sizeof quit);
        reap(w, false, NULL);
    }
    return KT_OK;
}

int kt_worker_eval(kt_worker *w, const char *artifact, const uint16_t *cfg,
                   kt_result *out, kt_diag *diag)
{
    bool died;
    int rc = eval_once(w, artifact, cfg, out, &died, diag);
    if (rc != KT_OK || !died)
        return rc;
    /* The signal may have come from outside (the OOM killer, a user's
     * kill): measure once more in a fresh worker before blaming the kernel. */
    char first[sizeof out->detail];
    kt_strlcpy(first, sizeof first, out->detail);
    rc = eval_once(w, artifact, cfg, out, &died, diag);
    if (rc != KT_OK)
        return rc;
    char note[2 * sizeof out->detail + 64]; /* cut to fit below */
    if (died)
        snprintf(note, sizeof note, "%s, in two workers in a row", out->detail);
    else
        snprintf(note, sizeof note, "%s%smeasured in a second worker: the first ended "
                 "(%s)", out->detail, out->detail[0] ? "; " : "", first);
    kt_strlcpy(out->detail, sizeof out->detail, note);
    return KT_OK;
}
