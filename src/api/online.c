/* online.c - the public online tuning API (include/ktune.h) over the tune
 * layer's kt_online: options with their defaults, seeds given as
 * configuration keys parsed against the spec, and a model loaded from its
 * file and kept with the handle. */
#include "core/util.h"
#include "tune/online.h"

#include <stdlib.h>
#include <string.h>

struct ktune_online {
    kt_online *on;
    kt_model *model;
};

void ktune_online_opts_init(ktune_online_opts *o)
{
    if (!o)
        return;
    kt_online_opts d = kt_online_defaults();
    *o = (ktune_online_opts){.size = sizeof *o, .cache_dir = ".ktune-cache",
                             .explore_share = d.explore_share,
                             .explore_overhead = d.explore_overhead,
                             .drop_factor = d.drop_factor, .candidates = d.candidates,
                             .model_k = d.model_k, .warm = d.warm, .seed = d.seed};
}

/* The seeds' keys as value indices (caller frees *cfgs). */
static int parse_seeds(const kt_spec *spec, const ktune_online_opts *o, uint16_t **cfgs,
                       kt_diag *diag)
{
    *cfgs = NULL;
    if (o->nseeds == 0)
        return KT_OK;
    if (!o->seeds)
        return kt_fail(diag, KT_EINVAL, "nseeds is %zu but seeds is NULL", o->nseeds);
    size_t np = spec->nparams ? spec->nparams : 1;
    uint16_t *c = malloc(o->nseeds * np * sizeof *c);
    if (!c)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < o->nseeds; i++) {
        int rc = o->seeds[i] ? kt_spec_config_parse(spec, o->seeds[i], c + i * np, diag)
                             : kt_fail(diag, KT_EINVAL, "seed %zu is NULL", i);
        if (rc != KT_OK) {
            free(c);
            return rc == KT_ENOMEM ? rc : KT_EINVAL;
        }
    }
    *cfgs = c;
    return KT_OK;
}

static kt_online_opts internal_opts(const ktune_online_opts *o)
{
    kt_online_opts io = kt_online_defaults();
    io.db_path = o->db_path;
    io.backend.cache_dir = o->cache_dir;
    io.backend.compiler = o->compiler;
    io.measure.worker_path = o->worker_path;
    io.policy = o->policy;
    io.explore_share = o->explore_share;
    io.explore_overhead = o->explore_overhead;
    io.drop_factor = o->drop_factor;
    io.candidates = o->candidates;
    io.model_k = o->model_k;
    io.warm = o->warm;
    io.seed = o->seed;
    io.backend.device = o->device;
    io.stream = o->stream;
    io.verify = o->verify == KTUNE_ONLINE_VERIFY_NONE ? KT_ONLINE_VERIFY_NONE
                                               : KT_ONLINE_VERIFY_WORKER;
    return io;
}

int ktune_online_open(const ktune_spec *spec, const ktune_online_opts *opts,
                      ktune_online **out, ktune_diag *diag)
{
    if (!spec || !opts || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_online_open: NULL argument");
    *out = NULL;
    if (opts->size != sizeof *opts)
        return kt_fail(diag, KT_EINVAL, "ktune_online_open: options of another size "
                       "(%zu, not %zu): fill them with ktune_online_opts_init",
                       opts->size, sizeof *opts);
    ktune_online *h = calloc(1, sizeof *h);
    if (!h)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_online_opts io = internal_opts(opts);
    uint16_t *seeds = NULL;
    int rc = parse_seeds(spec, opts, &seeds, diag);
    if (rc == KT_OK && opts->model)
        rc = kt_model_load(opts->model, &h->model, diag);
    io.seeds = seeds;
    io.nseeds = seeds ? opts->nseeds : 0;
    io.model = h->model;
    if (rc == KT_OK)
        rc = kt_online_open(spec, &io, &h->on, diag);
    free(seeds);
    if (rc != KT_OK) {
        ktune_online_close(h);
        return rc;
    }
    *out = h;
    return KT_OK;
}

void ktune_online_close(ktune_online *h)
{
    if (!h)
        return;
    kt_online_close(h->on);
    kt_model_free(h->model);
    free(h);
}

int ktune_online_run(ktune_online *h, const ktune_problem *problem, void **args,
                     ktune_online_call *call, ktune_diag *diag)
{
    if (!h)
        return kt_fail(diag, KT_EINVAL, "ktune_online_run: NULL handle");
    return kt_online_run(h->on, problem, args, call, diag);
}

int ktune_online_report(ktune_online *h, const ktune_problem *problem,
                        ktune_online_state *out, ktune_diag *diag)
{
    if (!h)
        return kt_fail(diag, KT_EINVAL, "ktune_online_report: NULL handle");
    return kt_online_info_get(h->on, problem, out, diag);
}

void ktune_online_wait(ktune_online *h)
{
    if (h)
        kt_online_wait(h->on);
}

bool ktune_online_hold(ktune_online *h, bool wait)
{
    return !h || kt_online_hold(h->on, wait);
}
