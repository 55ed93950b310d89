/* spec_util.h - write a T1 spec into a temporary file for a test and load
 * it.  The kernel file is the faulty test kernel (its contents do not
 * matter to spec and space tests). */
#ifndef KT_SPEC_UTIL_H
#define KT_SPEC_UTIL_H

#include "core/spec.h"
#include "test.h"

#include <limits.h>

/* The JSON of a spec with the given TuningParameters and Conditions arrays
 * and ProblemParameters array (each the text inside [...]). */
static inline char *spec_json(const char *params, const char *conds,
                              const char *problem)
{
    static char buf[16384];
    char kernel[PATH_MAX];
    if (!realpath(kt_test_path("tests/kernels/faulty.c"), kernel))
        snprintf(kernel, sizeof kernel, "faulty.c");
    snprintf(buf, sizeof buf,
             "{\"ConfigurationSpace\": {\"TuningParameters\": [%s],"
             " \"Conditions\": [%s], \"ProblemParameters\": [%s]},"
             " \"KernelSpecification\": {\"Language\": \"C\", \"KernelName\": \"scale\","
             " \"KernelFile\": \"%s\", \"Arguments\": []}}",
             params, conds, problem, kernel);
    return buf;
}

/* Write text to a fresh temporary file; returns its path (static). */
static inline const char *write_temp(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s", kt_test_tmp(name));
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Load a spec from JSON text; returns the error code, diag filled. */
static inline int load_text(const char *text, kt_spec **spec, kt_diag *d)
{
    return kt_spec_load(write_temp("spec.json", text), NULL, NULL, spec, d);
}

/* Load the spec at path (relative to the repository), which must load. */
static inline kt_spec *load_ok(const char *path)
{
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    int rc = kt_spec_load(kt_test_path(path), NULL, NULL, &spec, &d);
    if (rc != KT_OK)
        fprintf(stderr, "%s: %s\n", path, d.msg);
    CHECK(rc == KT_OK);
    return spec;
}

#endif /* KT_SPEC_UTIL_H */
