/* launch.c - grid, block and shared memory of a GPU launch (launch.h). */
#include "backend/launch.h"
#include "core/expr.h"
#include "core/util.h"

#include <math.h>

#include <limits.h>

#define DEFAULT_SHARED (48u * 1024) /* without cuFuncSetAttribute */

kt_launch_limits kt_launch_cuda_limits(int max_threads, int max_shared_optin)
{
    return (kt_launch_limits){.max_threads = max_threads,
                              .max_shared_optin = max_shared_optin,
                              .max_block = {1024, 1024, 64},
                              .max_grid = {2147483647.0, 65535, 65535}};
}

/* A per-axis limit, or what an unsigned count holds where there is none. */
static double axis_limit(double limit)
{
    return limit > 0 && limit < UINT_MAX ? limit : UINT_MAX;
}

/* The expression's value, or fallback where the spec gives none. */
static double eval_or(const kt_expr *e, const double *slots, double fallback, bool *ok)
{
    double v = fallback;
    if (e && kt_expr_eval(e, slots, &v) != KT_OK)
        *ok = false;
    return v;
}

int kt_launch_geometry(const kt_spec *s, const double *slots, bool reference,
                       const kt_launch_limits *lim, kt_launch *k, kt_diag *diag)
{
    bool own = reference && s->ref_global[0];
    bool ok = true;
    double threads = 1;
    for (int i = 0; i < 3; i++) {
        double b = floor(eval_or(own ? s->ref_local[i] : s->local[i], slots, 1, &ok));
        double g = floor(eval_or(own ? s->ref_global[i] : s->global[i], slots, 1, &ok));
        double blocks = s->grid_in_threads ? ceil(g / b) : g;
        if (!ok || !(b >= 1 && g >= 1))
            return kt_fail(diag, KT_ERANGE, "launch size out of range (axis %d: block "
                           "%.0f, global %.0f)", i, b, g);
        if (b > axis_limit(lim->max_block[i]) || blocks > axis_limit(lim->max_grid[i]))
            return kt_fail(diag, KT_ERANGE, "launch size out of range (axis %d: block "
                           "%.0f of at most %.0f, %.0f blocks of at most %.0f)", i, b,
                           axis_limit(lim->max_block[i]), blocks,
                           axis_limit(lim->max_grid[i]));
        k->block[i] = (unsigned)b;
        k->grid[i] = (unsigned)blocks;
        threads *= b;
    }
    double shared = eval_or(s->shared, slots, 0, &ok);
    if (!ok || !(shared >= 0 && shared <= 4294967295.0))
        return kt_fail(diag, KT_ERANGE, "shared memory size out of range (%.0f bytes)",
                       shared);
    k->shared = (unsigned)shared;
    if (threads > lim->max_threads)
        return kt_fail(diag, KT_ERANGE, "%.0f threads per block, the device allows %d",
                       threads, lim->max_threads);
    if ((double)k->shared > lim->max_shared_optin)
        return kt_fail(diag, KT_ERANGE, "%u bytes of shared memory, the device allows %d",
                       k->shared, lim->max_shared_optin);
    return KT_OK;
}

int kt_launch_registers(int regs, unsigned threads, kt_diag *diag)
{
    double warps = ceil(threads / 32.0);
    double per_warp = ceil(regs * 32 / 256.0) * 256;
    if (warps * per_warp > 65536)
        return kt_fail(diag, KT_ERANGE, "%d registers per thread: too many for %u threads",
                       regs, threads);
    return KT_OK;
}

int kt_launch_kernel_threads(int kernel_max, unsigned threads, kt_diag *diag)
{
    if (kernel_max > 0 && threads > (unsigned)kernel_max)
        return kt_fail(diag, KT_ERANGE, "%u threads per block, the compiled kernel allows "
                       "%d (its __launch_bounds__ or its registers)", threads, kernel_max);
    return KT_OK;
}

int kt_launch_shared(unsigned static_bytes, unsigned dynamic_bytes, int max_shared_optin,
                     bool *raise, kt_diag *diag)
{
    double total = (double)static_bytes + dynamic_bytes;
    *raise = dynamic_bytes > 0 && total > DEFAULT_SHARED;
    if (total > DEFAULT_SHARED && total > max_shared_optin)
        return kt_fail(diag, KT_ERANGE, "%u bytes of static and %u of dynamic shared "
                       "memory, the device allows %d", static_bytes, dynamic_bytes,
                       max_shared_optin);
    return KT_OK;
}

size_t kt_launch_params(const kt_spec *spec, void *const *args, void **params)
{
    size_t n = 0;
    for (size_t i = 0; i < spec->nargs; i++)
        if (!spec->args[i].symbol_only)
            params[n++] = args[i];
    return n;
}

int kt_launch_symbol_bytes(const kt_spec *spec, size_t i, const double *slots,
                           size_t symbol_bytes, size_t *bytes, kt_diag *diag)
{
    const kt_arg *a = &spec->args[i];
    double count = 0;
    if (kt_expr_eval(a->size, slots, &count) != KT_OK || !(count >= 1))
        return kt_fail(diag, KT_ESPEC, "argument '%s': size is not a positive number",
                       a->name);
    *bytes = (size_t)count * kt_dtype_size(a->type);
    if (*bytes > symbol_bytes)
        return kt_fail(diag, KT_ERANGE, "argument '%s' has %zu bytes, its __constant__ "
                       "symbol only %zu", a->name, *bytes, symbol_bytes);
    return KT_OK;
}
