/* spec.c - the public spec and problem API (include/ktune.h) over core's
 * kt_spec and kt_problem, which are the public structs themselves; the
 * one parser of a problem's text for every command and program. */
#include "core/spec.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ktune_spec_load(const char *path, ktune_warn_fn warn, void *user, ktune_spec **out,
                    ktune_diag *diag)
{
    if (!path || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_spec_load: %s is NULL",
                       path ? "out" : "path");
    *out = NULL;
    return kt_spec_load(path, warn, user, out, diag);
}

int ktune_spec_load_space(const char *path, ktune_warn_fn warn, void *user,
                          ktune_spec **out, ktune_diag *diag)
{
    if (!path || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_spec_load_space: %s is NULL",
                       path ? "out" : "path");
    kt_spec_opts opts = {.flags = KT_SPEC_SPACE_ONLY, .warn = warn, .warn_user = user};
    *out = NULL;
    return kt_spec_load_with(path, &opts, out, diag);
}

void ktune_spec_free(ktune_spec *spec) { kt_spec_free(spec); }

const char *ktune_spec_name(const ktune_spec *spec) { return spec ? spec->name : NULL; }

size_t ktune_spec_nparams(const ktune_spec *spec) { return spec ? spec->nparams : 0; }

const char *ktune_spec_param_name(const ktune_spec *spec, size_t i)
{
    return spec && i < spec->nparams ? spec->params[i].name : NULL;
}

size_t ktune_spec_nproblem(const ktune_spec *spec) { return spec ? spec->nproblem : 0; }

const char *ktune_spec_problem_name(const ktune_spec *spec, size_t i)
{
    return spec && i < spec->nproblem ? spec->problem[i].name : NULL;
}

double ktune_spec_problem_default(const ktune_spec *spec, size_t i)
{
    return spec && i < spec->nproblem ? spec->problem[i].default_value : NAN;
}

/* The names of spec's problem parameters that text does not set, as
 * "K, N" (empty: none); NULL when out of memory.  text parsed already. */
static char *problem_missing(const kt_spec *spec, const char *text)
{
    char **names, **values;
    size_t n;
    if (kt_key_fields(text, &names, &values, &n) != KT_OK)
        return NULL;
    kt_buf b = {0};
    kt_buf_append(&b, "");
    for (size_t p = 0; p < spec->nproblem; p++) {
        size_t i = 0;
        while (i < n && strcmp(names[i], spec->problem[p].name) != 0)
            i++;
        if (i == n)
            kt_buf_appendf(&b, "%s%s", b.len ? ", " : "", spec->problem[p].name);
    }
    kt_key_fields_free(names, values, n);
    return kt_buf_take(&b);
}

/* KT_ENOTFOUND naming what text leaves unset, with the defaults. */
static int check_complete(const kt_spec *spec, const char *text, kt_diag *diag)
{
    char *missing = text ? problem_missing(spec, text) : kt_strdup("");
    kt_problem defaults = {0};
    int rc = missing && *missing ? kt_problem_parse(spec, NULL, &defaults, diag) : KT_OK;
    if (!missing || rc != KT_OK)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    else if (*missing)
        rc = kt_fail(diag, KT_ENOTFOUND, "does not set %s: give every problem parameter "
                     "of '%s' (its defaults: %s)", missing, spec->name, defaults.key);
    free(missing);
    kt_problem_clear(&defaults);
    return rc;
}

int ktune_problem_parse(const ktune_spec *spec, const char *text, unsigned flags,
                        ktune_problem **out, ktune_diag *diag)
{
    if (!spec || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_problem_parse: %s is NULL",
                       spec ? "out" : "spec");
    *out = calloc(1, sizeof **out);
    if (!*out)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = kt_problem_parse(spec, text, *out, diag);
    if (rc == KT_OK && !(flags & KTUNE_PROBLEM_PARTIAL))
        rc = check_complete(spec, text, diag);
    if (rc != KT_OK) {
        ktune_problem_free(*out);
        *out = NULL;
    }
    return rc;
}

void ktune_problem_free(ktune_problem *problem)
{
    if (problem)
        kt_problem_clear(problem);
    free(problem);
}

const char *ktune_problem_key(const ktune_problem *problem)
{
    return problem ? problem->key : NULL;
}
