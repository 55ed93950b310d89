/* validate.c - the public validation API (include/ktune.h): a spec checked
 * completely (core's kt_spec_load_with with a report and the official
 * schema's rules), then its space counted when that part is valid. */
#include "core/space.h"
#include "core/util.h"

#include <stdlib.h>

struct ktune_validation {
    kt_spec_report rep;
    char *count;           /* the exact count; NULL: none */
    char *count_problem;   /* why a valid space was not counted */
};

/* Count the space of a spec whose space part is valid, at the spec's
 * default problem. */
static int count_space(const kt_spec *spec, ktune_validation *v)
{
    kt_diag d = {{0}};
    kt_problem prob = {0};
    kt_space *space = NULL;
    int rc = kt_problem_parse(spec, NULL, &prob, &d);
    if (rc == KT_OK)
        rc = kt_space_new(spec, &prob, &space, &d);
    if (rc == KT_OK)
        rc = kt_space_count_text(space, &v->count, NULL);
    if (rc == KT_ERANGE)
        v->count_problem = kt_asprintf("the space was not counted: %s (`ktune space "
                                       "--max-evals 0` counts it without a bound)",
                                       kt_space_errmsg(space));
    else if (rc != KT_OK)
        v->count_problem = kt_asprintf("the space was not counted: %s",
                                       space ? kt_space_errmsg(space) : d.msg);
    kt_space_free(space);
    kt_problem_clear(&prob);
    return rc == KT_ENOMEM || (rc != KT_OK && !v->count_problem) ? KT_ENOMEM : KT_OK;
}

int ktune_spec_validate(const char *path, ktune_warn_fn warn, void *user,
                        ktune_validation **out, ktune_diag *diag)
{
    if (!path || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_spec_validate: %s is NULL",
                       path ? "out" : "path");
    ktune_validation *v = *out = calloc(1, sizeof *v);
    if (!v)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_spec_opts opts = {.flags = KT_SPEC_SCHEMA, .warn = warn, .warn_user = user,
                         .report = &v->rep};
    kt_spec *spec = NULL;
    int rc = kt_spec_load_with(path, &opts, &spec, diag);
    if (rc != KT_ENOMEM) /* any other failure is one of the problems */
        rc = spec && count_space(spec, v) != KT_OK
                 ? kt_fail(diag, KT_ENOMEM, "out of memory") : KT_OK;
    kt_spec_free(spec);
    if (rc != KT_OK) {
        ktune_validation_free(v);
        *out = NULL;
    }
    return rc;
}

void ktune_validation_free(ktune_validation *v)
{
    if (!v)
        return;
    kt_spec_report_clear(&v->rep);
    free(v->count);
    free(v->count_problem);
    free(v);
}

size_t ktune_validation_count(const ktune_validation *v)
{
    return v ? v->rep.nerrors : 0;
}

const char *ktune_validation_problem(const ktune_validation *v, size_t i)
{
    return v && i < v->rep.nerrors ? v->rep.errors[i] : NULL;
}

const char *ktune_validation_space(const ktune_validation *v)
{
    return v ? v->count : NULL;
}

const char *ktune_validation_space_problem(const ktune_validation *v)
{
    return v ? v->count_problem : NULL;
}
