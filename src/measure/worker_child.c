/* worker_child.c - inside the worker program: rebuild the tuner's problem
 * from the setup message, compute the reference once, then load, run,
 * verify and time each configuration the tuner sends (worker_proto.h).
 *
 * The worker asks the kernel to kill it when the tuner dies, so no worker
 * outlives a killed tuner, and it bounds its own address space where the
 * backend's buffers live in host memory, so a runaway kernel meets an
 * allocation failure instead of the machine's OOM killer.
 */
#include "core/util.h"
#include "measure/measure.h"
#include "measure/worker_proto.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

/* What the worker keeps between evaluations. */
typedef struct child {
    int fd;                /* the socket to the tuner */
    worker_setup set;
    const kt_backend *be;
    void *be_ctx;
    kt_spec *spec;
    kt_problem prob;
    kt_args args;
    void *shared;          /* shared_head + reference outputs */
    size_t *ref_offset;    /* per argument: offset of its reference in shared */
    double *ref_scale;     /* per argument: its reference's kt_verify_scale; NAN
                              until the first check needs it */
    double *slots;         /* expression values of the configuration */
    void **bufs;           /* backend buffers of the vector arguments */
    void **argv;           /* argv[i] points to argument i's value */
    void *scratch;         /* host copy for read-back and poisoning */
    double *times;         /* 2 * max_reps timings */
    kt_verify_job *pending; /* the last output's comparison, running while
                               the kernel is timed; NULL: none */
    size_t pending_arg;    /* its argument */
    double warmup_s;       /* the request under way's warm-up (request) */
    double phase_s[KT_PHASE_COUNT]; /* the evaluation under way: seconds per phase */
    double phase_t;        /* when the phase under way began */
} child;

/* ------------------------------------------------------------ messages */

static bool send_msg(child *ch, uint32_t kind, const void *payload, uint32_t len)
{
    msg_head h = {kind, len};
    return kt_send_all(ch->fd, &h, sizeof h) && kt_send_all(ch->fd, payload, len);
}

/* ---------------------------------------------------------- evaluation */

/* The phase under way ends now (worker.h, phases). */
static void phase_end(child *ch, kt_worker_phase p)
{
    double now = kt_now();
    ch->phase_s[p] += now - ch->phase_t;
    ch->phase_t = now;
}

static const kt_measure_opts *opts(const child *ch) { return &ch->set.opts; }

static int buffers_setup(child *ch, kt_diag *diag)
{
    size_t n = ch->args.n, biggest = 1;
    ch->bufs = calloc(n ? n : 1, sizeof *ch->bufs);
    ch->argv = calloc(n ? n : 1, sizeof *ch->argv);
    ch->times = calloc(2 * (size_t)opts(ch)->max_reps, sizeof *ch->times);
    ch->slots = calloc(ch->spec->nnames + 1, sizeof *ch->slots);
    for (size_t i = 0; i < n; i++)
        biggest = ch->args.bytes[i] > biggest ? ch->args.bytes[i] : biggest;
    ch->scratch = malloc(biggest);
    if (!ch->bufs || !ch->argv || !ch->times || !ch->scratch || !ch->slots)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (ch->spec->args[i].scalar) {
            ch->argv[i] = ch->args.init[i];
            continue;
        }
        int rc = ch->be->buffer_new(ch->be_ctx, ch->args.bytes[i], &ch->bufs[i], diag);
        if (rc != KT_OK)
            return rc;
        ch->be->buffer_write(ch->be_ctx, ch->bufs[i], ch->args.init[i], ch->args.bytes[i]);
        ch->argv[i] = &ch->bufs[i];
    }
    return KT_OK;
}

/* Outputs start poisoned (all bits set: NaN for floats), read-write
 * arguments from their initial contents, so stale data cannot pass. */
static void prepare_outputs(child *ch)
{
    for (size_t i = 0; i < ch->args.n; i++) {
        const kt_arg *a = &ch->spec->args[i];
        if (!worker_is_output(a))
            continue;
        const void *src = ch->args.init[i];
        if (a->access == KT_WRITE && ch->be->buffer_fill &&
            ch->be->buffer_fill(ch->be_ctx, ch->bufs[i], 0xff, ch->args.bytes[i]) == KT_OK)
            continue; /* on the device: no host copy to send */
        if (a->access == KT_WRITE) {
            memset(ch->scratch, 0xff, ch->args.bytes[i]);
            src = ch->scratch;
        }
        ch->be->buffer_write(ch->be_ctx, ch->bufs[i], src, ch->args.bytes[i]);
    }
}

static void protect_inputs(child *ch, bool readonly)
{
    if (!ch->be->buffer_protect)
        return;
    for (size_t i = 0; i < ch->args.n; i++)
        if (!ch->spec->args[i].scalar && ch->spec->args[i].access == KT_READ)
            ch->be->buffer_protect(ch->be_ctx, ch->bufs[i], ch->args.bytes[i], readonly);
}

/* Run a batch of reps * inner calls, announced to the tuner, which gives
 * it a deadline in proportion (worker.h, hangs). */
static int run_protected(child *ch, void *kernel, int reps, int inner, double *times,
                         kt_diag *diag)
{
    double calls = (double)reps * inner;
    if (!send_msg(ch, MSG_RUN, &calls, sizeof calls))
        _exit(0); /* the tuner is gone */
    protect_inputs(ch, true);
    int rc = ch->be->run(ch->be_ctx, kernel, ch->argv, reps, inner, times, diag);
    protect_inputs(ch, false);
    if (!send_msg(ch, MSG_RAN, NULL, 0))
        _exit(0);
    return rc;
}

/* Threads that compare the last output while the GPU times the kernel
 * (its 4096^2 halves took longer to compare on one core than the timing). */
#define VERIFY_THREADS 4

/* Check every verified output against the shared reference: all but the
 * last at once, the last, on a device backend, in the background
 * (ch->pending, finish_check). */
static bool check_outputs(child *ch, kt_result *r)
{
    size_t last = ch->args.n; /* none in the background: a kernel that runs on
                                 the host's cores would be timed against it */
    for (size_t i = 0; i < ch->args.n && !ch->be->host_memory; i++)
        if (worker_is_output(&ch->spec->args[i]) && ch->spec->args[i].check != KT_CHECK_NONE)
            last = i;
    for (size_t i = 0; i < ch->args.n; i++) {
        const kt_arg *a = &ch->spec->args[i];
        if (!worker_is_output(a) || a->check == KT_CHECK_NONE)
            continue;
        ch->be->buffer_read(ch->be_ctx, ch->scratch, ch->bufs[i], ch->args.bytes[i]);
        phase_end(ch, KT_PHASE_read);
        double err;
        char detail[200];
        const char *ref = (const char *)ch->shared + ch->ref_offset[i];
        if (isnan(ch->ref_scale[i])) /* the reference never changes: once */
            ch->ref_scale[i] = kt_verify_scale(a->type, ref, ch->args.count[i]);
        if (i == last && kt_verify_start(a->type, a->check, a->threshold, ch->ref_scale[i],
                                         ch->scratch, ref, ch->args.count[i],
                                         VERIFY_THREADS, &ch->pending) == KT_OK) {
            ch->pending_arg = i;
            break;
        }
        bool ok = kt_verify_scaled(a->type, a->check, a->threshold, ch->ref_scale[i],
                                   ch->scratch, ref, ch->args.count[i], &err, detail,
                                   sizeof detail);
        phase_end(ch, KT_PHASE_verify);
        r->max_error = fmax(r->max_error, err);
        if (!ok) {
            r->status = KT_STATUS_WRONG_RESULT;
            snprintf(r->detail, sizeof r->detail, "%s: %s", a->name, detail);
            return false;
        }
    }
    return true;
}

/* The background comparison's verdict, which overrides the timing: a
 * wrong result is WRONG_RESULT whatever its times were. */
static void finish_check(child *ch, kt_result *r)
{
    if (!ch->pending)
        return;
    double err = 0;
    char detail[200];
    bool ok = kt_verify_finish(ch->pending, &err, detail, sizeof detail);
    ch->pending = NULL;
    phase_end(ch, KT_PHASE_verify);
    r->max_error = fmax(r->max_error, err);
    if (ok)
        return;
    kt_result wrong = {.status = KT_STATUS_WRONG_RESULT, .max_error = r->max_error,
                       .energy_j = NAN, .power_w = NAN, .time_ms = NAN, .min_ms = NAN,
                       .spread = NAN};
    snprintf(wrong.detail, sizeof wrong.detail, "%s: %s",
             ch->spec->args[ch->pending_arg].name, detail);
    *r = wrong;
}

/* Store the reference's outputs in shared memory; they must be complete.
 * Where ReferenceArguments give an output's expected values (a data file,
 * an expression), those replace what the reference run computed. */
static bool save_reference(child *ch, kt_result *r)
{
    for (size_t i = 0; i < ch->args.n; i++) {
        const kt_arg *a = &ch->spec->args[i];
        if (!worker_is_output(a))
            continue;
        char *dst = (char *)ch->shared + ch->ref_offset[i];
        kt_diag diag = {{0}};
        if (a->expect.fill != KT_FILL_REFERENCE) {
            if (kt_args_expected(ch->spec, &ch->prob, i, ch->args.count[i], dst,
                                 &diag) == KT_OK)
                continue;
            kt_strlcpy(r->detail, sizeof r->detail, diag.msg);
            return false;
        }
        ch->be->buffer_read(ch->be_ctx, dst, ch->bufs[i], ch->args.bytes[i]);
        if (a->check != KT_CHECK_NONE && kt_has_nan(a->type, dst, ch->args.count[i])) {
            r->status = KT_STATUS_WRONG_RESULT;
            snprintf(r->detail, sizeof r->detail, "the reference left NaN in '%s'",
                     a->name);
            return false;
        }
    }
    ((shared_head *)ch->shared)->ready = 1;
    return true;
}

static double energy(const child *ch)
{
    return ch->be->energy_j ? ch->be->energy_j(ch->be_ctx) : kt_cpu_energy_j();
}

/* The device clock's mean over the samples taken (MHz; 0 if none). */
typedef struct clock_avg {
    double sum;
    int n;
} clock_avg;

/* Read the clock right after a batch: the device still runs at the clock
 * the batch ran at. */
static void sample_clock(const child *ch, clock_avg *c)
{
    double mhz = ch->be->clock_mhz ? ch->be->clock_mhz(ch->be_ctx) : 0;
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
    const kt_measure_opts *o = opts(ch);
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
        sample_clock(ch, clk);
        memcpy(sorted, times, (size_t)reps * sizeof *sorted);
        s = kt_summarize(sorted, (size_t)reps);
        bool enough = reps >= o->min_reps && total_ms >= o->min_time_s * 1e3;
        if (reps >= o->max_reps || total_ms >= o->max_time_s * 1e3 ||
            (enough && s.spread <= o->max_spread) || kt_verify_failing(ch->pending))
            break; /* (a wrong result's times are dropped: no more of them) */
    }
    r->time_ms = s.median;
    r->min_ms = s.min;
    r->spread = s.spread;
    r->reps = reps;
    return true;
}

/* The kernel back to back in batches of inner calls until step(arg,
 * idle_s, ms), called after each batch with its time per call, says stop.
 * With the backend's run_busy the next batch is already queued when step
 * runs, so the device does not idle while the host reads its counters, and
 * idle_s says how long it did anyway before the batch; without, each batch
 * is a run of its own and idle_s is 0 (the CPU's kernels run in the
 * calling thread). */
typedef struct busy_loop {
    child *ch;
    double calls; /* announced to the tuner before each batch: the ones
                     that may be queued (worker.h: a deadline in proportion) */
    bool (*step)(void *arg, double idle_s, double ms);
    void *arg;
} busy_loop;

static bool busy_between(void *vb, double idle_s, double ms)
{
    busy_loop *b = vb;
    if (!b->step(b->arg, idle_s, ms))
        return false;
    if (!send_msg(b->ch, MSG_RUN, &b->calls, sizeof b->calls))
        _exit(0); /* the tuner is gone */
    return true;
}

static int back_to_back(child *ch, void *kernel, int inner,
                        bool (*step)(void *arg, double idle_s, double ms), void *arg,
                        kt_diag *diag)
{
    double ms;
    if (!ch->be->run_busy) {
        int rc;
        while ((rc = run_protected(ch, kernel, 1, inner, &ms, diag)) == KT_OK &&
               step(arg, 0, ms)) {
        }
        return rc;
    }
    busy_loop b = {.ch = ch, .calls = (double)ch->be->run_busy_depth * inner, .step = step,
                   .arg = arg};
    if (!send_msg(ch, MSG_RUN, &b.calls, sizeof b.calls))
        _exit(0);
    protect_inputs(ch, true);
    int rc = ch->be->run_busy(ch->be_ctx, kernel, ch->argv, inner, busy_between, &b, diag);
    protect_inputs(ch, false);
    if (!send_msg(ch, MSG_RAN, NULL, 0))
        _exit(0);
    return rc;
}

/* Calls of ms each in a batch of about ENERGY_BATCH_MS. */
static int batch_calls(double ms)
{
    return ms > 0 ? (int)fmin(1e6, ceil(ENERGY_BATCH_MS / ms)) : 1;
}

/* An energy window being read: the counter after each batch of inner
 * calls. */
typedef struct window_read {
    child *ch;
    clock_avg *clk;
    int inner;
    kt_energy_span span;
    char *why;
    size_t nwhy;
} window_read;

static bool window_step(void *arg, double idle_s, double ms)
{
    window_read *w = arg;
    sample_clock(w->ch, w->clk);
    double t_lo = kt_now(), e = energy(w->ch), t = kt_now();
    kt_energy_span_batch(&w->span, idle_s, ms * w->inner * 1e-3, w->inner);
    if (kt_energy_span_add(&w->span, t_lo, t, e))
        return false;
    if (t > kt_energy_span_deadline(&w->span)) {
        kt_energy_span_why(&w->span, t, w->why, w->nwhy);
        return false;
    }
    return true;
}

/* Average power while the kernel runs back to back (back_to_back, batches
 * of about ENERGY_BATCH_MS), read between two steps of the energy counter
 * at least energy_window_s apart (kt_energy_span: NVML's counter moves in
 * steps tens of milliseconds apart, so a reading over an arbitrary span is
 * off by up to a step; a 0.3 s span on the H100 read from 128 to 822 W),
 * and the span's own time per call.  span->watts is NAN when no span came,
 * and why says why; returns KT_OK unless a run failed. */
static int energy_window(child *ch, void *kernel, double ms, clock_avg *clk,
                         kt_energy_span *span, char *why, size_t nwhy, kt_diag *diag)
{
    window_read w = {.ch = ch, .clk = clk, .inner = batch_calls(ms), .why = why,
                     .nwhy = nwhy};
    double t_lo = kt_now();
    kt_energy_span_init(&w.span, opts(ch)->energy_window_s, t_lo, energy(ch));
    int rc = back_to_back(ch, kernel, w.inner, window_step, &w, diag);
    *span = w.span;
    return rc == KT_OK ? KT_OK : KT_EBACKEND;
}

static bool before(void *end, double idle_s, double ms)
{
    (void)idle_s;
    (void)ms;
    return kt_now() < *(const double *)end;
}

/* The request's warm-up (worker.h: energy_warmup_s), where energy will be
 * read: the kernel back to back (one call of ms each) for warmup_s
 * seconds, announced to the tuner first.  False when a run failed or the
 * tuner is gone. */
static bool warm_up(child *ch, void *kernel, double ms, kt_diag *diag)
{
    if (!(ch->warmup_s > 0) || !(opts(ch)->energy_window_s > 0) || isnan(energy(ch)))
        return true;
    if (!send_msg(ch, MSG_WARM, &ch->warmup_s, sizeof ch->warmup_s)) {
        kt_fail(diag, KT_EWORKER, "the tuner is gone");
        return false;
    }
    double end = kt_now() + ch->warmup_s;
    return back_to_back(ch, kernel, batch_calls(ms), before, &end, diag) == KT_OK;
}

/* Time the kernel, then read its average power and the SM clock; energy
 * per call is that power times the time per call of the calls it was read
 * over (at a power limit the clock, and so the time, may differ from the
 * timing's: the FP16 GEMMs on the H200 took 0.98-1.13x their timing's
 * time per call while their power was read).  The request's warm-up, if
 * any, comes first, so that both are read warm. */
static void time_kernel(child *ch, void *kernel, kt_result *r, kt_diag *diag)
{
    double warm;
    if (run_protected(ch, kernel, 1, 1, &warm, diag) != KT_OK ||
        !warm_up(ch, kernel, warm, diag))
        return;
    int inner = warm >= MIN_SAMPLE_MS ? 1
                : warm <= MIN_SAMPLE_MS / 10000 ? 10000
                                                : (int)ceil(MIN_SAMPLE_MS / warm);
    clock_avg clk = {0};
    if (!time_samples(ch, kernel, inner, &clk, r, diag))
        return;
    kt_energy_span span = {.watts = NAN, .call_s = NAN};
    if (opts(ch)->energy_window_s <= 0)
        kt_strlcpy(r->detail, sizeof r->detail, "energy not read (--energy-window 0)");
    else if (isnan(energy(ch)))
        kt_strlcpy(r->detail, sizeof r->detail, "energy unknown: no energy counter here "
                   "(NVML for a GPU, RAPL for the CPU)");
    else if (energy_window(ch, kernel, r->time_ms, &clk, &span, r->detail,
                           sizeof r->detail, diag) != KT_OK)
        return;
    if (!isnan(span.watts) && !(span.watts > 0))
        snprintf(r->detail, sizeof r->detail, "energy unknown: the counter read %.3g W",
                 span.watts);
    r->status = KT_STATUS_OK;
    r->power_w = span.watts > 0 ? span.watts : NAN;
    r->energy_j = r->power_w * (span.call_s > 0 ? span.call_s : r->time_ms * 1e-3);
    r->sm_clock_mhz = clk.n ? clk.sum / clk.n : 0;
}

/* Evaluate one configuration, or (reference) compute the reference; the
 * reference's r->time_ms is its one call's time, which sets the tuner's
 * hang deadlines. */
static void child_eval(child *ch, const char *artifact, const uint16_t *cfg,
                       bool reference, kt_result *r)
{
    kt_diag diag = {{0}};
    *r = (kt_result){.status = KT_STATUS_RUNTIME_ERROR, .energy_j = NAN,
                     .power_w = NAN, .time_ms = NAN, .min_ms = NAN, .spread = NAN};
    void *kernel = NULL;
    memset(ch->phase_s, 0, sizeof ch->phase_s);
    ch->phase_t = kt_now();
    kt_spec_slots(ch->spec, cfg, &ch->prob, ch->slots);
    int rc = ch->be->load(ch->be_ctx, artifact, ch->slots, reference, &kernel, &diag);
    phase_end(ch, KT_PHASE_load);
    if (rc != KT_OK) {
        if (rc == KT_ERANGE)
            r->status = KT_STATUS_INVALID;
        kt_strlcpy(r->detail, sizeof r->detail, diag.msg);
        return;
    }
    prepare_outputs(ch);
    phase_end(ch, KT_PHASE_prepare);
    double once;
    rc = run_protected(ch, kernel, 1, 1, &once, &diag);
    phase_end(ch, KT_PHASE_first_run);
    if (rc != KT_OK)
        kt_strlcpy(r->detail, sizeof r->detail, diag.msg);
    else if (reference ? save_reference(ch, r) : check_outputs(ch, r))
        r->status = KT_STATUS_OK;
    if (r->status == KT_STATUS_OK && reference)
        r->time_ms = once;
    if (r->status == KT_STATUS_OK && !reference) {
        r->status = KT_STATUS_RUNTIME_ERROR;
        time_kernel(ch, kernel, r, &diag);
        phase_end(ch, KT_PHASE_time);
        if (r->status != KT_STATUS_OK)
            kt_strlcpy(r->detail, sizeof r->detail, diag.msg);
    }
    finish_check(ch, r);
    ch->be->unload(ch->be_ctx, kernel);
    phase_end(ch, KT_PHASE_unload);
}

/* --------------------------------------------------------------- setup */

/* Bound the address space where buffers live in host memory: the limit
 * leaves room for the program and its libraries.  Sanitizer builds map
 * terabytes of shadow memory, so they are left unbounded. */
static void limit_memory(const child *ch)
{
#if !defined(__SANITIZE_ADDRESS__)
    if (!ch->be->host_memory || !ch->set.memory_limit)
        return;
    struct rlimit lim = {.rlim_cur = ch->set.memory_limit, .rlim_max = ch->set.memory_limit};
    setrlimit(RLIMIT_AS, &lim);
#else
    (void)ch;
#endif
}

/* Load what the setup names: the spec (the same kernel the tuner has),
 * the problem, the backend, the shared region and the arguments. */
static int child_open(child *ch, const kt_backend *be, kt_diag *diag)
{
    worker_setup *s = &ch->set;
    int rc = kt_spec_load(s->spec_path, NULL, NULL, &ch->spec, diag);
    if (rc == KT_OK && (!s->source_hash || strcmp(s->source_hash, ch->spec->source_hash)))
        rc = kt_fail(diag, KT_ESPEC, "%s changed while tuning: the worker read another "
                     "kernel than the tuner", s->spec_path);
    if (rc == KT_OK)
        rc = kt_problem_parse(ch->spec, s->problem, &ch->prob, diag);
    ch->be = be ? be : kt_backend_find(s->backend);
    if (rc == KT_OK && !ch->be)
        rc = kt_fail(diag, KT_EBACKEND, "the worker has no backend '%s'", s->backend);
    kt_backend_opts bo = {.cache_dir = s->cache_dir, .jobs = 1, .compiler = s->compiler,
                          .arch = s->arch, .platform = s->platform,
                          .device = s->device, .worker = true};
    if (rc == KT_OK)
        rc = ch->be->open(ch->spec, &bo, &ch->be_ctx, diag);
    if (rc != KT_OK)
        return rc;
    limit_memory(ch);
    ch->shared = mmap(NULL, s->shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
                      WORKER_SHARED_FD, 0);
    if (ch->shared == MAP_FAILED) {
        ch->shared = NULL;
        return kt_fail(diag, KT_EWORKER, "cannot map the shared reference: %s",
                       strerror(errno));
    }
    rc = kt_args_new(ch->spec, &ch->prob, s->opts.seed, &ch->args, diag);
    ch->ref_offset = rc == KT_OK ? calloc(ch->spec->nargs + 1, sizeof *ch->ref_offset)
                                 : NULL;
    ch->ref_scale = rc == KT_OK ? malloc((ch->spec->nargs + 1) * sizeof *ch->ref_scale)
                                : NULL;
    if (rc == KT_OK && (!ch->ref_offset || !ch->ref_scale))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; rc == KT_OK && i <= ch->spec->nargs; i++)
        ch->ref_scale[i] = NAN;
    if (rc == KT_OK &&
        worker_ref_offsets(ch->spec, &ch->args, ch->ref_offset) > s->shared_bytes)
        rc = kt_fail(diag, KT_EWORKER, "the shared reference is smaller than the outputs");
    return rc == KT_OK ? buffers_setup(ch, diag) : rc;
}

/* The setup message: a u32 length, then the encoding. */
static int read_setup(child *ch, kt_diag *diag)
{
    uint32_t len = 0;
    if (!kt_read_all(ch->fd, &len, sizeof len) || len > (64u << 20))
        return kt_fail(diag, KT_EWORKER, "no setup from the tuner");
    char *buf = malloc(len ? len : 1);
    int rc = buf && kt_read_all(ch->fd, buf, len)
                 ? worker_setup_decode(buf, len, &ch->set, diag)
                 : kt_fail(diag, KT_EWORKER, "no setup from the tuner");
    free(buf);
    return rc;
}

/* ---------------------------------------------------------- the serving */

/* Answer evaluation requests until told to quit or the tuner is gone. */
static void serve_requests(child *ch)
{
    request q;
    char path[4096];
    kt_result r;
    size_t cfg_bytes = ch->spec->nparams * sizeof(uint16_t);
    uint16_t *cfg = malloc(cfg_bytes + sizeof(uint16_t));
    while (cfg && kt_read_all(ch->fd, &q, sizeof q) && q.kind == REQ_EVAL &&
           q.path_len < sizeof path && kt_read_all(ch->fd, path, q.path_len) &&
           kt_read_all(ch->fd, cfg, cfg_bytes)) {
        path[q.path_len] = '\0';
        ch->warmup_s = q.warmup_s > 0 ? q.warmup_s : 0;
        child_eval(ch, path, cfg, false, &r);
        if (!send_msg(ch, MSG_PHASES, ch->phase_s, sizeof ch->phase_s) ||
            !send_msg(ch, MSG_RESULT, &r, sizeof r))
            break;
    }
    free(cfg);
}

int kt_worker_serve(int argc, char **argv, const kt_backend *be)
{
    if (argc != 3 || strcmp(argv[1], KT_WORKER_ARG) != 0)
        return 2;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != (pid_t)atol(argv[2]))
        return 0; /* the tuner died before the line above */
    /* A kernel that prints must not corrupt the tuner's stdout (--json). */
    dup2(STDERR_FILENO, STDOUT_FILENO);
    child ch = {.fd = WORKER_SOCK_FD};
    kt_diag diag = {{0}};
    kt_result r = {.status = KT_STATUS_OK, .time_ms = NAN};
    if (read_setup(&ch, &diag) != KT_OK || child_open(&ch, be, &diag) != KT_OK) {
        r.status = KT_STATUS_RUNTIME_ERROR;
        kt_strlcpy(r.detail, sizeof r.detail, diag.msg);
    } else if (!((shared_head *)ch.shared)->ready) {
        child_eval(&ch, ch.set.ref_artifact, ch.set.ref_cfg, true, &r);
    }
    if (send_msg(&ch, MSG_RESULT, &r, sizeof r) && r.status == KT_STATUS_OK)
        serve_requests(&ch);
    /* Exit without tearing down: the tuner only needs the process gone. */
    _exit(0);
}
