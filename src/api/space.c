/* space.c - the public space API (include/ktune.h) over core's kt_space,
 * which is the public struct: counts, listings and samples as keys, with
 * the bound, cancel flag and progress of long work; and ktune_free. */
#include "core/space.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>

void ktune_free(void *p) { free(p); }

void ktune_space_opts_init(ktune_space_opts *o)
{
    if (!o)
        return;
    *o = (ktune_space_opts){.size = sizeof *o, .max_evals = KTUNE_SPACE_MAX_EVALS};
}

int ktune_space_new(const ktune_spec *spec, const ktune_problem *problem,
                    const ktune_space_opts *opts, ktune_space **out, ktune_diag *diag)
{
    if (!spec || !problem || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_space_new: %s is NULL",
                       !spec ? "spec" : !problem ? "problem" : "out");
    if (opts && opts->size != sizeof *opts)
        return kt_fail(diag, KT_EINVAL, "ktune_space_opts of %zu bytes, not %zu: fill "
                       "it with ktune_space_opts_init", opts->size, sizeof *opts);
    *out = NULL;
    int rc = kt_space_new(spec, problem, out, diag);
    if (rc == KT_OK && opts)
        kt_space_set_ctl(*out, &(kt_space_ctl){.max_evals = opts->max_evals,
                                               .cancel = opts->cancel,
                                               .progress = opts->progress,
                                               .user = opts->user});
    return rc;
}

void ktune_space_free(ktune_space *space) { kt_space_free(space); }

/* rc with the space's message (where a bound or a signal stopped it). */
static int space_fail(const kt_space *s, int rc, kt_diag *diag)
{
    const char *m = kt_space_errmsg(s);
    return rc == KT_OK ? KT_OK : kt_fail(diag, rc, "%s", *m ? m : kt_strerror(rc));
}

int ktune_space_count(ktune_space *space, char **count, ktune_space_stats *stats,
                      ktune_diag *diag)
{
    if (!space || !count)
        return kt_fail(diag, KT_EINVAL, "ktune_space_count: %s is NULL",
                       !space ? "space" : "count");
    *count = NULL;
    return space_fail(space, kt_space_count_text(space, count, stats), diag);
}

/* What a listing passes through: the caller's function, with keys. */
typedef struct lister {
    const kt_spec *spec;
    ktune_config_fn fn;
    void *user;
    bool oom;
} lister;

static int list_one(void *user, const uint16_t *cfg)
{
    lister *l = user;
    char *key = kt_spec_config_key(l->spec, cfg);
    int stop = key ? l->fn(l->user, key) : 1;
    l->oom |= !key;
    free(key);
    return stop;
}

int ktune_space_list(ktune_space *space, ktune_config_fn fn, void *user,
                     ktune_space_stats *stats, ktune_diag *diag)
{
    if (!space || !fn)
        return kt_fail(diag, KT_EINVAL, "ktune_space_list: %s is NULL",
                       !space ? "space" : "fn");
    lister l = {.spec = kt_space_spec(space), .fn = fn, .user = user};
    int rc = kt_space_enumerate(space, list_one, &l, stats);
    if (rc == KT_OK && l.oom)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    return space_fail(space, rc, diag);
}

int ktune_space_sample(ktune_space *space, uint64_t n, uint64_t seed, ktune_config_fn fn,
                       void *user, ktune_diag *diag)
{
    if (!space || !fn)
        return kt_fail(diag, KT_EINVAL, "ktune_space_sample: %s is NULL",
                       !space ? "space" : "fn");
    kt_rng rng;
    kt_rng_seed(&rng, seed);
    int rc = kt_space_build_sample(space, n, &rng, diag);
    lister l = {.spec = kt_space_spec(space), .fn = fn, .user = user};
    for (uint64_t i = 0; rc == KT_OK && i < kt_space_size(space); i++)
        if (list_one(&l, kt_space_at(space, i)))
            break;
    return rc == KT_OK && l.oom ? kt_fail(diag, KT_ENOMEM, "out of memory") : rc;
}

void ktune_space_cartesian(const ktune_space *space, char *buf, size_t size)
{
    if (!space || !buf) {
        if (buf && size)
            *buf = '\0';
        return;
    }
    uint64_t n = kt_space_cartesian(space);
    double approx = 1;
    for (size_t i = 0; i < kt_space_nparams(space); i++)
        approx *= (double)kt_space_spec(space)->params[i].nvalues;
    if (n == UINT64_MAX)
        snprintf(buf, size, "%.3g", approx);
    else
        snprintf(buf, size, "%llu", (unsigned long long)n);
}

size_t ktune_space_ngroups(const ktune_space *space)
{
    return space ? kt_space_ngroups(space) : 0;
}
