/* energy.c - energy readings: the CPU's from the Linux powercap (RAPL)
 * interface, and average power from a stepping energy counter (NVML's, or
 * RAPL's) read between batches of calls.
 *
 * RAPL needs /sys/class/powercap/intel-rapl:0/energy_uj (Intel, and AMD
 * Zen on recent kernels) to exist and be readable; virtual machines usually
 * lack it, and then energy is recorded as unknown rather than guessed. */
#include "measure/measure.h"

#include <math.h>
#include <stdio.h>

double kt_cpu_energy_j(void)
{
    FILE *f = fopen("/sys/class/powercap/intel-rapl:0/energy_uj", "r");
    if (!f)
        return NAN;
    unsigned long long uj = 0;
    int ok = fscanf(f, "%llu", &uj) == 1;
    fclose(f);
    return ok ? (double)uj * 1e-6 : NAN;
}

/* The most the ends of a span may be uncertain by, as a fraction of it. */
#define ENERGY_MAX_ERROR 0.05
/* The most a span's device may idle: its idle power (a tenth to a sixth of
 * a busy GPU's) would otherwise count as the kernel's. */
#define ENERGY_MAX_IDLE 0.02
/* The most time added for long batches: a span read from batches of b
 * seconds needs about 20 b (each end dated to b / 2) plus the wait for its
 * steps, and the deadline adds 40 b, so batches up to about 400 ms get
 * their power, longer ones a reason. */
#define ENERGY_MAX_EXTRA_S 8.0

void kt_energy_span_init(kt_energy_span *s, double window_s, double t_lo, double e)
{
    *s = (kt_energy_span){.window_s = window_s, .t0 = t_lo, .t_prev = t_lo, .e_prev = e,
                          .e_a = NAN, .watts = NAN, .call_s = NAN};
}

/* The span starts (again) at the step e dated to mid +- half. */
static void span_start(kt_energy_span *s, double e, double mid, double half)
{
    s->e_a = e;
    s->t_a = mid;
    s->half_a = half;
    s->idle_s = s->busy_s = s->calls = 0;
}

/* The span starts at the first step, however loosely dated: with long
 * batches every step is dated to half a batch, and a start that waited for
 * a tighter one (the rule until 2026-11-24: an eighth of the window) never
 * came for a 72 ms SGEMM.  It ends at the first step at least a window
 * later that keeps both ends' uncertainty within ENERGY_MAX_ERROR and in
 * which the device idled no more than ENERGY_MAX_IDLE of the time, else
 * starts again there. */
bool kt_energy_span_add(kt_energy_span *s, double t_lo, double t_hi, double e)
{
    double mid = (s->t_prev + t_hi) / 2, half = (t_hi - s->t_prev) / 2;
    bool step = e != s->e_prev;
    s->steps += step;
    s->longest_s = fmax(s->longest_s, t_hi - s->t_prev);
    s->t_prev = t_lo;
    s->e_prev = e;
    s->idle_s += s->idle_new;
    s->busy_s += s->busy_new;
    s->calls += s->calls_new;
    s->idle_new = s->busy_new = s->calls_new = 0;
    if (step && isnan(s->e_a)) {
        span_start(s, e, mid, half);
    } else if (step && mid - s->t_a >= s->window_s &&
               s->half_a + half <= ENERGY_MAX_ERROR * (mid - s->t_a)) {
        if (s->idle_s <= ENERGY_MAX_IDLE * (mid - s->t_a)) {
            s->watts = (e - s->e_a) / (mid - s->t_a);
            s->call_s = s->calls > 0 && s->busy_s > 0 ? s->busy_s / s->calls : NAN;
            return true;
        }
        s->restarts++;
        s->idle_share = s->idle_s / (mid - s->t_a);
        span_start(s, e, mid, half);
    }
    return false;
}

void kt_energy_span_batch(kt_energy_span *s, double idle_s, double busy_s, double calls)
{
    if (idle_s > 0)
        s->idle_new += idle_s;
    if (busy_s > 0 && calls > 0) {
        s->busy_new += busy_s;
        s->calls_new += calls;
    }
}

double kt_energy_span_deadline(const kt_energy_span *s)
{
    return s->t0 + 3 * s->window_s + 1 +
           fmin(ENERGY_MAX_EXTRA_S, 2 * s->longest_s / ENERGY_MAX_ERROR);
}

void kt_energy_span_why(const kt_energy_span *s, double now, char *buf, size_t len)
{
    double took = now - s->t0;
    if (s->steps == 0)
        snprintf(buf, len, "energy unknown: the counter did not move in %.1f s", took);
    else if (s->restarts > 0)
        snprintf(buf, len, "energy unknown: the device idled between its calls in %d span%s "
                 "of %.1f s (the last %.0f%% of the time; a busy host?)", s->restarts,
                 s->restarts > 1 ? "s" : "", took, 100 * s->idle_share);
    else
        snprintf(buf, len, "energy unknown: no two of the counter's %d steps in %.1f s "
                 "were dated within %.0f%% of their span (batches of calls up to %.0f ms "
                 "long)", s->steps, took, 100 * ENERGY_MAX_ERROR, s->longest_s * 1e3);
}
