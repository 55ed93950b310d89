/* args.c - the kernel's arguments for one problem: sizes, scalar values,
 * and input data (seeded random, constant, generated, or read from a
 * file).  The tuner plans the sizes (to check them against the memory
 * limit before anything is allocated, and that data files match them);
 * each worker fills its own copy from the same seed and files. */
#include "core/half.h"
#include "core/util.h"
#include "measure/datafile.h"
#include "measure/measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Store v as element i of type t. */
static void store(kt_dtype t, void *p, size_t i, double v)
{
    switch (t) {
    case KT_DT_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case KT_DT_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case KT_DT_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case KT_DT_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case KT_DT_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case KT_DT_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case KT_DT_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case KT_DT_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case KT_DT_FLOAT: ((float *)p)[i] = (float)v; break;
    case KT_DT_DOUBLE: ((double *)p)[i] = v; break;
    case KT_DT_HALF: ((uint16_t *)p)[i] = kt_half_from_float((float)v); break;
    case KT_DT_BF16: ((uint16_t *)p)[i] = kt_bf16_from_float((float)v); break;
    case KT_DT_E4M3: ((uint8_t *)p)[i] = kt_e4m3_from_float((float)v); break;
    }
}

/* Random inputs: floats uniform in [-1, 1), integers uniform in [0, 100). */
/* Uniform random data: floats in [-1, 1), integers in [0, 100); with a
 * FillValue `end` (> 0), in [0, end) as KTT's loader draws them (its
 * CoulombSum specs need non-negative atoms: half_rsqrt of a negative
 * distance is NaN). */
static void fill_random(kt_dtype t, void *p, size_t count, uint64_t seed, double end)
{
    kt_rng rng;
    kt_rng_seed(&rng, seed);
    bool real = t >= KT_DT_FLOAT;
    for (size_t i = 0; i < count; i++) {
        double v = !real && !(end > 0) ? (double)kt_rng_below(&rng, 100)
                                       : kt_rng_unit(&rng);
        if (real || end > 0)
            v = !(end > 0) ? 2 * v - 1 : real ? v * end : floor(v * end);
        store(t, p, i, v);
    }
}

static int eval_problem(const kt_spec *spec, const kt_expr *e, const double *slots,
                        const char *arg, double *out, kt_diag *diag)
{
    if (!e) {
        *out = 0;
        return KT_OK;
    }
    if (kt_expr_eval(e, slots, out) != KT_OK || !isfinite(*out))
        return kt_fail(diag, KT_ESPEC, "%s: argument '%s': \"%s\" cannot be evaluated "
                       "for this problem", spec->path, arg, kt_expr_source(e));
    return KT_OK;
}

/* Where argument a's data or expected values come from a file, that the
 * file matches its count (when the data is used: not for an output-only
 * argument's initial contents). */
static int check_files(const kt_spec *spec, const kt_arg *a, size_t count, kt_diag *diag)
{
    int rc = KT_OK;
    if (a->access != KT_WRITE && (a->data.fill == KT_FILL_RAW || a->data.fill == KT_FILL_HDF5))
        rc = kt_datafile_check(spec, &a->data, a->type, count, diag);
    if (rc == KT_OK && (a->expect.fill == KT_FILL_RAW || a->expect.fill == KT_FILL_HDF5))
        rc = kt_datafile_check(spec, &a->expect, a->type, count, diag);
    return rc;
}

/* Argument i's element count, byte size and scalar value; no allocation. */
static int arg_plan(const kt_spec *spec, size_t i, const double *slots, kt_args *out,
                    double *value, kt_diag *diag)
{
    const kt_arg *a = &spec->args[i];
    double count = 1;
    int rc = eval_problem(spec, a->value, slots, a->name, value, diag);
    if (rc == KT_OK && !a->scalar)
        rc = eval_problem(spec, a->size, slots, a->name, &count, diag);
    if (rc != KT_OK)
        return rc;
    if (count > 1e12)
        return kt_fail(diag, KT_ERANGE, "%s: argument '%s': size %.17g is too large "
                       "(at most 1e12 elements)", spec->path, a->name, count);
    if (count < 1 || count != floor(count))
        return kt_fail(diag, KT_ESPEC, "%s: argument '%s': size %.17g is not a "
                       "positive whole number", spec->path, a->name, count);
    out->count[i] = (size_t)count;
    /* a tensor map: the backend encodes it over its Source before each run */
    out->bytes[i] = a->tmap ? KT_TMAP_BYTES : (size_t)count * kt_dtype_size(a->type);
    return a->scalar ? KT_OK : check_files(spec, a, out->count[i], diag);
}

/* A Generator fill: element k is the DataSource expression with "i" (the
 * slot after the spec's names) set to k. */
static int generate(const kt_spec *spec, const kt_arg *a, const kt_expr *gen, void *p,
                    size_t count, double *slots, kt_diag *diag)
{
    for (size_t k = 0; k < count; k++) {
        double v;
        slots[spec->nnames] = (double)k;
        if (kt_expr_eval(gen, slots, &v) != KT_OK || !isfinite(v))
            return kt_fail(diag, KT_ESPEC, "%s: argument '%s': its DataSource \"%s\" "
                           "cannot be evaluated for element %zu", spec->path, a->name,
                           kt_expr_source(gen), k);
        store(a->type, p, k, v);
    }
    return KT_OK;
}

/* Fill p (count elements of argument a) from d: a's initial contents or
 * its expected values.  slots holds the problem's values and one more slot
 * for a generator's element index; seed is for random data. */
static int data_fill(const kt_spec *spec, const kt_arg *a, const kt_data *d, void *p,
                     size_t count, double *slots, uint64_t seed, kt_diag *diag)
{
    double v;
    int rc;
    switch (d->fill) {
    case KT_FILL_RANDOM:
        if ((rc = eval_problem(spec, d->value, slots, a->name, &v, diag)) != KT_OK)
            return rc;
        fill_random(a->type, p, count, d->seed ? d->seed : seed, v);
        return KT_OK;
    case KT_FILL_CONSTANT:
        if ((rc = eval_problem(spec, d->value, slots, a->name, &v, diag)) != KT_OK)
            return rc;
        for (size_t k = 0; k < count; k++)
            store(a->type, p, k, v);
        return KT_OK;
    case KT_FILL_GENERATOR:
        return generate(spec, a, d->generator, p, count, slots, diag);
    case KT_FILL_RAW:
    case KT_FILL_HDF5:
        return kt_datafile_read(spec, d, a->type, count, p, diag);
    case KT_FILL_REFERENCE:
        break;
    }
    return KT_OK;
}

/* Allocate argument i and fill it: the scalar's value, or the input's
 * contents (an output-only vector stays zeroed). */
static int arg_fill(const kt_spec *spec, size_t i, double value, uint64_t seed,
                    double *slots, kt_args *out, kt_diag *diag)
{
    const kt_arg *a = &spec->args[i];
    out->init[i] = calloc(1, out->bytes[i]);
    if (!out->init[i])
        return kt_fail(diag, KT_ENOMEM, "argument '%s': cannot allocate %zu bytes",
                       a->name, out->bytes[i]);
    if (a->scalar)
        store(a->type, out->init[i], 0, value);
    else if (a->access != KT_WRITE)
        return data_fill(spec, a, &a->data, out->init[i], out->count[i], slots,
                         kt_hash(seed, &i, sizeof i), diag);
    return KT_OK;
}

/* Sizes (and, when seed is not NULL, contents) of every argument. */
static int args_make(const kt_spec *spec, const kt_problem *prob, const uint64_t *seed,
                     kt_args *out, kt_diag *diag)
{
    *out = (kt_args){0};
    size_t n = spec->nargs;
    out->count = calloc(n ? n : 1, sizeof *out->count);
    out->bytes = calloc(n ? n : 1, sizeof *out->bytes);
    out->init = calloc(n ? n : 1, sizeof *out->init);
    double *slots = calloc(spec->nnames + 1, sizeof *slots); /* + a generator's i */
    int rc = out->count && out->bytes && out->init && slots
                 ? KT_OK
                 : kt_fail(diag, KT_ENOMEM, "out of memory");
    out->n = n;
    if (rc == KT_OK)
        kt_spec_slots(spec, NULL, prob, slots);
    for (size_t i = 0; rc == KT_OK && i < n; i++) {
        double value = 0;
        rc = arg_plan(spec, i, slots, out, &value, diag);
        if (rc == KT_OK && seed)
            rc = arg_fill(spec, i, value, *seed, slots, out, diag);
    }
    free(slots);
    if (rc != KT_OK)
        kt_args_clear(out);
    return rc;
}

int kt_args_plan(const kt_spec *spec, const kt_problem *prob, kt_args *out,
                 kt_diag *diag)
{
    return args_make(spec, prob, NULL, out, diag);
}

int kt_args_new(const kt_spec *spec, const kt_problem *prob, uint64_t seed,
                kt_args *out, kt_diag *diag)
{
    return args_make(spec, prob, &seed, out, diag);
}

int kt_args_expected(const kt_spec *spec, const kt_problem *prob, size_t i, size_t count,
                     void *dst, kt_diag *diag)
{
    double *slots = calloc(spec->nnames + 1, sizeof *slots); /* + a generator's i */
    if (!slots)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_spec_slots(spec, NULL, prob, slots);
    const kt_arg *a = &spec->args[i];
    int rc = data_fill(spec, a, &a->expect, dst, count, slots, 0, diag);
    free(slots);
    return rc;
}

void kt_args_clear(kt_args *a)
{
    for (size_t i = 0; a->init && i < a->n; i++)
        free(a->init[i]);
    free(a->init);
    free(a->count);
    free(a->bytes);
    *a = (kt_args){0};
}
