/* exec.c - the thin wrappers through which the tuner reaches an executor
 * (exec.h). */
#include "tune/exec.h"

int kt_exec_start(kt_exec *e, const uint16_t *const *cfgs, size_t n, kt_diag *diag)
{
    return e->ops->start(e->self, cfgs, n, diag);
}

int kt_exec_next(kt_exec *e, size_t *index, kt_result *result, kt_diag *diag)
{
    return e->ops->next(e->self, index, result, diag);
}

void kt_exec_end(kt_exec *e) { e->ops->end(e->self); }

void kt_exec_stats_add(const kt_exec *e, kt_exec_stats *out)
{
    if (e->ops)
        e->ops->stats(e->self, out);
}

void kt_exec_close(kt_exec *e)
{
    if (e->ops)
        e->ops->free(e->self);
    *e = (kt_exec){0};
}
