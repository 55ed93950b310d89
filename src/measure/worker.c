/* worker.c - the isolated measurement worker: process management in the
 * tuner (top half) and evaluation inside the forked child (bottom half).
 *
 * Protocol over a socketpair: the tuner sends a request (kind, artifact
 * path); the child answers with one kt_result.  Both sides share the
 * binary, so the struct travels as bytes.  The child asks the kernel to
 * kill it when the tuner dies, so no worker outlives a killed tuner.
 */
#include "measure/worker.h"
#include "core/util.h"
#include "measure/measure.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum { REQ_EVAL = 1, REQ_QUIT = 2 };

/* Request header; the artifact path follows. */
typedef struct request {
    uint32_t kind;
    uint32_t path_len;
} request;

/* The start of the shared region; reference outputs follow. */
typedef struct shared_head {
    int ready;
    char pad[60];
} shared_head;

struct kt_worker {
    const kt_backend *be;
    void *be_ctx;
    const kt_spec *spec;
    const kt_problem *prob;
    uint16_t *ref_cfg;     /* the configuration whose geometry the reference uses */
    kt_measure_opts opts;
    char *ref_artifact;
    kt_args args;
    void *shared;          /* shared_head + reference outputs */
    size_t shared_bytes;
    size_t *ref_offset;    /* per argument: offset of its reference in shared */
    pid_t pid;             /* 0: no worker running */
    int fd;
};

kt_measure_opts kt_measure_defaults(void)
{
    return (kt_measure_opts){.min_reps = 5, .max_reps = 200, .min_time_s = 0.2,
                             .max_time_s = 3.0, .max_spread = 0.05,
                             .energy_window_s = 0.3, .timeout_s = 30.0, .seed = 1};
}

/* ====================================================== child (worker) */

/* What the child keeps between evaluations. */
typedef struct child {
    kt_worker *w;
    double *slots;         /* expression values of the configuration */
    void **bufs;           /* backend buffers of the vector arguments */
    void **argv;           /* argv[i] points to argument i's value */
    void *scratch;         /* host copy for read-back and poisoning */
    double *times;         /* max_reps timings */
} child;

static bool is_output(const kt_arg *a) { return !a->scalar && a->access != KT_READ; }

static int child_setup(child *ch, kt_diag *diag)
{
    kt_worker *w = ch->w;
    size_t n = w->args.n, biggest = 1;
    ch->bufs = calloc(n ? n : 1, sizeof *ch->bufs);
    ch->argv = calloc(n ? n : 1, sizeof *ch->argv);
    ch->times = calloc(2 * (size_t)w->opts.max_reps, sizeof *ch->times);
    ch->slots = calloc(w->spec->nnames + 1, sizeof *ch->slots);
    for (size_t i = 0; i < n; i++)
        biggest = w->args.bytes[i] > biggest ? w->args.bytes[i] : biggest;
    ch->scratch = malloc(biggest);
    if (!ch->bufs || !ch->argv || !ch->times || !ch->scratch || !ch->slots)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (w->spec->args[i].scalar) {
            ch->argv[i] = w->args.init[i];
            continue;
        }
        int rc = w->be->buffer_new(w->be_ctx, w->args.bytes[i], &ch->bufs[i], diag);
        if (rc != KT_OK)
            return rc;
        w->be->buffer_write(w->be_ctx, ch->bufs[i], w->args.init[i], w->args.bytes[i]);
        ch->argv[i] = &ch->bufs[i];
    }
    return KT_OK;
}

/* Outputs start poisoned (all bits set: NaN for floats), read-write
 * arguments from their initial contents, so stale data cannot pass. */
static void prepare_outputs(child *ch)
{
    kt_worker *w = ch->w;
    for (size_t i = 0; i < w->args.n; i++) {
        const kt_arg *a = &w->spec->args[i];
        if (!is_output(a))
            continue;
        const void *src = w->args.init[i];
        if (a->access == KT_WRITE) {
            memset(ch->scratch, 0xff, w->args.bytes[i]);
            src = ch->scratch;
        }
        w->be->buffer_write(w->be_ctx, ch->bufs[i], src, w->args.bytes[i]);
    }
}

static void protect_inputs(child *ch, bool readonly)
{
    kt_worker *w = ch->w;
    if (!w->be->buffer_protect)
        return;
    for (size_t i = 0; i < w->args.n; i++)
        if (!w->spec->args[i].scalar && w->spec->args[i].access == KT_READ)
            w->be->buffer_protect(w->be_ctx, ch->bufs[i], w->args.bytes[i], readonly);
}

static int run_protected(child *ch, void *kernel, int reps, int inner, double *times,
                         kt_diag *diag)
{
    protect_inputs(ch, true);
    int rc = ch->w->be->run(ch->w->be_ctx, kernel, ch->argv, reps, inner, times, diag);
    protect_inputs(ch, false);
    return rc;
}

/* Check every verified output against the shared reference. */
static bool check_outputs(child *ch, kt_result *r)
{
    kt_worker *w = ch->w;
    for (size_t i = 0; i < w->args.n; i++) {
        const kt_arg *a = &w->spec->args[i];
        if (!is_output(a) || a->check == KT_CHECK_NONE)
            continue;
        w->be->buffer_read(w->be_ctx, ch->scratch, ch->bufs[i], w->args.bytes[i]);
        double err;
        char detail[200];
        const char *ref = (const char *)w->shared + w->ref_offset[i];
        bool ok = kt_verify(a->type, a->check, a->threshold, ch->scratch, ref,
                            w->args.count[i], &err, detail, sizeof detail);
        r->max_error = fmax(r->max_error, err);
        if (!ok) {
            r->status = KT_STATUS_WRONG_RESULT;
            snprintf(r->detail, sizeof r->detail, "%s: %s", a->name, detail);
            return false;
        }
    }
    return true;
}

/* Store the reference's outputs in shared memory; they must be complete. */
static bool save_reference(child *ch, kt_result *r)
{
    kt_worker *w = ch->w;
    for (size_t i = 0; i < w->args.n; i++) {
        const kt_arg *a = &w->spec->args[i];
        if (!is_output(a))
            continue;
        char *dst = (char *)w->shared + w->ref_offset[i];
        w->be->buffer_read(w->be_ctx, dst, ch->bufs[i], w->args.bytes[i]);
        if (a->check != KT_CHECK_NONE && kt_has_nan(a->type, dst, w->args.count[i])) {
            r->status = KT_STATUS_WRONG_RESULT;
            snprintf(r->detail, sizeof r->detail, "the reference left NaN in '%s'",
                     a->name);
            return false;
        }
    }
    ((shared_head *)w->shared)->ready = 1;
    return true;
}

static double energy(const kt_worker *w)
{
    return w->be->energy_j ? w->be->energy_j(w->be_ctx) : kt_cpu_energy_j();
}

/* The device clock's mean over the samples taken (MHz; 0 if none). */
typedef struct clock_avg {
    double sum;
    int n;
} clock_avg;

/* Read the clock right after a batch: the device still runs at the clock
 * the batch ran at. */
static void sample_clock(const kt_worker *w, clock_avg *c)
{
    double mhz = w->be->clock_mhz ? w->be->clock_mhz(w->be_ctx) : 0;
    c->sum += mhz;
    c->n += mhz > 0;
}

/* Calls per sample: enough that one sample lasts about MIN_SAMPLE_MS, so
 * the clock's own cost (tens of nanoseconds) stays out of short kernels'
 * times. */
#define MIN_SAMPLE_MS 0.05
/* Calls per batch of the energy window: about this long each. */
#define ENERGY_BATCH_MS 5.0

/* Repeat in batches of samples until the timing is stable or a limit is
 * reached; r gets the statistics.  ch->times holds the samples, then as
 * many slots to sort a copy in.  False when a run failed. */
static bool time_samples(child *ch, void *kernel, int inner, clock_avg *clk,
                           kt_result *r, kt_diag *diag)
{
    const kt_measure_opts *o = &ch->w->opts;
    double *times = ch->times, *sorted = ch->times + o->max_reps, total_ms = 0;
    int reps = 0;
    kt_summary s;
    for (;;) {
        int k = o->max_reps - reps < 5 ? o->max_reps - reps : 5;
        if (run_protected(ch, kernel, k, inner, times + reps, diag) != KT_OK)
            return false;
        for (int i = 0; i < k; i++)
            total_ms += times[reps + i] * inner;
        reps += k;
        sample_clock(ch->w, clk);
        memcpy(sorted, times, (size_t)reps * sizeof *sorted);
        s = kt_summarize(sorted, (size_t)reps);
        bool enough = reps >= o->min_reps && total_ms >= o->min_time_s * 1e3;
        if (reps >= o->max_reps || total_ms >= o->max_time_s * 1e3 ||
            (enough && s.spread <= o->max_spread))
            break;
    }
    r->time_ms = s.median;
    r->min_ms = s.min;
    r->spread = s.spread;
    r->reps = reps;
    return true;
}

/* The most the ends of an energy span may be uncertain by, as a fraction
 * of the span. */
#define ENERGY_MAX_ERROR 0.05

/* Average power while the kernel runs back to back, read between two
 * steps of the energy counter at least energy_window_s apart: NVML's
 * counter moves in steps tens of milliseconds apart, so a reading over an
 * arbitrary span is off by up to a step (a 0.3 s span on the H100 read
 * from 128 to 822 W), while one between steps is not.  A step is dated at
 * the middle of the batch (about ENERGY_BATCH_MS of calls) in which it
 * appeared, so each end is known to half its batch; the span ends at the
 * first step that keeps both halves within ENERGY_MAX_ERROR of it (a
 * descheduled process makes batches longer).  *watts is NAN when no such
 * span came; returns KT_OK unless a run failed. */
static int energy_window(child *ch, void *kernel, double ms, clock_avg *clk, double *watts,
                         kt_diag *diag)
{
    const kt_worker *w = ch->w;
    int inner = ms > 0 ? (int)fmin(1e6, ceil(ENERGY_BATCH_MS / ms)) : 1;
    double window = w->opts.energy_window_s, dummy;
    double e_prev = energy(w), t_prev = kt_now(), e_a = NAN, t_a = 0, half_a = 0;
    double give_up = t_prev + 3 * window + 1;
    *watts = NAN;
    for (;;) {
        if (run_protected(ch, kernel, 1, inner, &dummy, diag) != KT_OK)
            return KT_EBACKEND;
        sample_clock(w, clk);
        double e = energy(w), t = kt_now(), mid = (t_prev + t) / 2, half = (t - t_prev) / 2;
        if (e != e_prev && isnan(e_a) && half < window / 8) {
            e_a = e;
            t_a = mid;
            half_a = half;
        } else if (e != e_prev && !isnan(e_a) && mid - t_a >= window &&
                   half_a + half <= ENERGY_MAX_ERROR * (mid - t_a)) {
            *watts = (e - e_a) / (mid - t_a);
            return KT_OK;
        }
        if (t > give_up)
            return KT_OK;
        e_prev = e;
        t_prev = t;
    }
}

/* Time the kernel, then read its average power (energy per call is that
 * power times the median time) and the SM clock. */
static void time_kernel(child *ch, void *kernel, kt_result *r, kt_diag *diag)
{
    double warm;
    if (run_protected(ch, kernel, 1, 1, &warm, diag) != KT_OK)
        return;
    int inner = warm >= MIN_SAMPLE_MS ? 1
                : warm <= MIN_SAMPLE_MS / 10000 ? 10000
                                                : (int)ceil(MIN_SAMPLE_MS / warm);
    clock_avg clk = {0};
    if (!time_samples(ch, kernel, inner, &clk, r, diag))
        return;
    double watts = NAN;
    if (!isnan(energy(ch->w)) && ch->w->opts.energy_window_s > 0 &&
        energy_window(ch, kernel, r->time_ms, &clk, &watts, diag) != KT_OK)
        return;
    r->status = KT_STATUS_OK;
    r->power_w = watts > 0 ? watts : NAN;
    r->energy_j = r->power_w * r->time_ms * 1e-3;
    r->sm_clock_mhz = clk.n ? clk.sum / clk.n : 0;
}

static void child_eval(child *ch, const char *artifact, const uint16_t *cfg,
                       bool reference, kt_result *r)
{
    kt_worker *w = ch->w;
    kt_diag diag = {{0}};
    *r = (kt_result){.status = KT_STATUS_RUNTIME_ERROR, .energy_j = NAN,
                     .power_w = NAN, .time_ms = NAN, .min_ms = NAN, .spread = NAN};
    void *kernel = NULL;
    kt_spec_slots(w->spec, cfg, w->prob, ch->slots);
    int rc = w->be->load(w->be_ctx, artifact, ch->slots, reference, &kernel, &diag);
    if (rc != KT_OK) {
        if (rc == KT_ERANGE)
            r->status = KT_STATUS_INVALID;
        kt_strlcpy(r->detail, sizeof r->detail, diag.msg);
        return;
    }
    prepare_outputs(ch);
    double once;
    if (run_protected(ch, kernel, 1, 1, &once, &diag) != KT_OK)
        kt_strlcpy(r->detail, sizeof r->detail, diag.msg);
    else if (reference ? save_reference(ch, r) : check_outputs(ch, r))
        r->status = KT_STATUS_OK;
    if (r->status == KT_STATUS_OK && !reference) {
        r->status = KT_STATUS_RUNTIME_ERROR;
        time_kernel(ch, kernel, r, &diag);
        if (r->status != KT_STATUS_OK)
            kt_strlcpy(r->detail, sizeof r->detail, diag.msg);
    }
    w->be->unload(w->be_ctx, kernel);
}

/* Send exactly n bytes; false when the peer is gone.  Never raises
 * SIGPIPE: a dead peer is an ordinary outcome here. */
static bool send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

/* The child's whole life: set up, compute the reference if nobody has,
 * report ready, then serve requests until told to quit or orphaned. */
static void child_main(kt_worker *w, int fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* A kernel that prints must not corrupt the tuner's stdout (--json). */
    dup2(STDERR_FILENO, STDOUT_FILENO);
    child ch = {.w = w};
    kt_diag diag = {{0}};
    kt_result r = {.status = KT_STATUS_OK};
    if (child_setup(&ch, &diag) != KT_OK) {
        r.status = KT_STATUS_RUNTIME_ERROR;
        kt_strlcpy(r.detail, sizeof r.detail, diag.msg);
    } else if (!((shared_head *)w->shared)->ready) {
        child_eval(&ch, w->ref_artifact, w->ref_cfg, true, &r);
    }
    if (!send_all(fd, &r, sizeof r) || r.status != KT_STATUS_OK)
        _exit(0);
    request q;
    char path[4096];
    uint16_t *cfg = malloc((w->spec->nparams + 1) * sizeof *cfg);
    size_t cfg_bytes = w->spec->nparams * sizeof *cfg;
    while (cfg && kt_read_all(fd, &q, sizeof q) && q.kind == REQ_EVAL &&
           q.path_len < sizeof path && kt_read_all(fd, path, q.path_len) &&
           kt_read_all(fd, cfg, cfg_bytes)) {
        path[q.path_len] = '\0';
        child_eval(&ch, path, cfg, false, &r);
        if (!send_all(fd, &r, sizeof r))
            break;
    }
    _exit(0);
}

/* ====================================================== parent (tuner) */

/* Wait for one result until the deadline: 0 got it, -1 the worker closed
 * the connection, -2 timed out. */
static int receive(int fd, kt_result *r, double deadline)
{
    char *p = (char *)r;
    size_t left = sizeof *r;
    while (left > 0) {
        double wait_s = deadline - kt_now();
        if (wait_s <= 0)
            return -2;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)(wait_s * 1e3) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            continue; /* re-checks the deadline */
        ssize_t k = read(fd, p, left);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        left -= (size_t)k;
    }
    return 0;
}

/* Stop the worker (killing it if asked) and describe how it ended. */
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
    if (!r || kill_it)
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

/* Fork a worker and wait until it is ready (reference computed). */
static int start(kt_worker *w, kt_diag *diag)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return kt_fail(diag, KT_EWORKER, "cannot create a socket pair: %s",
                       strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return kt_fail(diag, KT_EWORKER, "cannot fork a worker: %s", strerror(errno));
    }
    if (pid == 0) {
        close(sv[0]);
        child_main(w, sv[1]);
    }
    close(sv[1]);
    w->pid = pid;
    w->fd = sv[0];
    kt_result r = {0};
    /* The first start runs the reference, which may be slow and unoptimised. */
    int got = receive(w->fd, &r, kt_now() + 10 * w->opts.timeout_s);
    if (got == 0 && r.status == KT_STATUS_OK)
        return KT_OK;
    if (got == -1)
        reap(w, false, &r);
    else
        reap(w, true, NULL);
    const char *why = got == -2 ? "timed out" : r.detail;
    return kt_fail(diag, KT_EWORKER, "the measurement worker could not start: the "
                   "reference run failed: %s", why);
}

int kt_worker_new(const kt_backend *be, void *be_ctx, const kt_spec *spec,
                  const kt_problem *prob, const char *ref_artifact,
                  const uint16_t *ref_cfg, const kt_measure_opts *opts,
                  kt_worker **out, kt_diag *diag)
{
    *out = NULL;
    kt_worker *w = calloc(1, sizeof *w);
    if (!w)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    *w = (kt_worker){.be = be, .be_ctx = be_ctx, .spec = spec, .prob = prob,
                     .opts = *opts, .fd = -1};
    if (w->opts.max_reps < 1)
        w->opts.max_reps = 1;
    w->ref_artifact = kt_strdup(ref_artifact);
    w->ref_offset = calloc(spec->nargs ? spec->nargs : 1, sizeof *w->ref_offset);
    w->ref_cfg = malloc((spec->nparams + 1) * sizeof *w->ref_cfg);
    int rc = w->ref_artifact && w->ref_offset && w->ref_cfg
                 ? KT_OK
                 : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        memcpy(w->ref_cfg, ref_cfg, spec->nparams * sizeof *ref_cfg);
    if (rc == KT_OK)
        rc = kt_args_new(spec, prob, opts->seed, &w->args, diag);
    size_t total = sizeof(shared_head);
    for (size_t i = 0; rc == KT_OK && i < spec->nargs; i++) {
        w->ref_offset[i] = total;
        if (is_output(&spec->args[i]))
            total += (w->args.bytes[i] + 63) & ~(size_t)63;
    }
    if (rc == KT_OK) {
        w->shared = mmap(NULL, total, PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        w->shared_bytes = total;
        if (w->shared == MAP_FAILED) {
            w->shared = NULL;
            rc = kt_fail(diag, KT_ENOMEM, "cannot map %zu bytes of shared memory", total);
        }
    }
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
        request q = {REQ_QUIT, 0};
        send_all(w->fd, &q, sizeof q);
        reap(w, false, NULL);
    }
    if (w->shared)
        munmap(w->shared, w->shared_bytes);
    kt_args_clear(&w->args);
    free(w->ref_offset);
    free(w->ref_artifact);
    free(w->ref_cfg);
    free(w);
}

int kt_worker_eval(kt_worker *w, const char *artifact, const uint16_t *cfg,
                   kt_result *out, kt_diag *diag)
{
    if (!w->pid) {
        int rc = start(w, diag);
        if (rc != KT_OK)
            return rc;
    }
    *out = (kt_result){.status = KT_STATUS_RUNTIME_ERROR, .energy_j = NAN,
                       .power_w = NAN, .time_ms = NAN, .min_ms = NAN, .spread = NAN};
    size_t len = strlen(artifact);
    request q = {REQ_EVAL, (uint32_t)len};
    int got = -1;
    if (send_all(w->fd, &q, sizeof q) && send_all(w->fd, artifact, len) &&
        send_all(w->fd, cfg, w->spec->nparams * sizeof *cfg))
        got = receive(w->fd, out, kt_now() + w->opts.timeout_s);
    if (got == -2) {
        reap(w, true, NULL);
        *out = (kt_result){.status = KT_STATUS_TIMEOUT, .energy_j = NAN,
                           .power_w = NAN, .time_ms = NAN, .min_ms = NAN,
                           .spread = NAN};
        snprintf(out->detail, sizeof out->detail, "no result within %.3g s",
                 w->opts.timeout_s);
    } else if (got == -1) {
        reap(w, false, out);
    } else if (out->status != KT_STATUS_OK) {
        /* A wrong or failed kernel may have corrupted the worker: replace it. */
        request quit = {REQ_QUIT, 0};
        send_all(w->fd, &quit, sizeof quit);
        reap(w, false, NULL);
    }
    return KT_OK;
}
