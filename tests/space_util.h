/* space_util.h - a built space of a spec written for a test (spec_util.h):
 * the spec, its default problem and the space, opened and closed
 * together. */
#ifndef KT_SPACE_UTIL_H
#define KT_SPACE_UTIL_H

#include "core/space.h"
#include "spec_util.h"

typedef struct fixture {
    kt_spec *spec;
    kt_problem prob;
    kt_space *space;
} fixture;

/* The space of spec_json(params, conds, problem) at its default problem;
 * the test stops when the spec does not load. */
static inline fixture fixture_open(const char *params, const char *conds,
                                   const char *problem)
{
    fixture f = {0};
    kt_diag d = {{0}};
    if (load_text(spec_json(params, conds, problem), &f.spec, &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    CHECK(kt_problem_parse(f.spec, NULL, &f.prob, &d) == KT_OK);
    CHECK(kt_space_new(f.spec, &f.prob, &f.space, &d) == KT_OK);
    CHECK(kt_space_build(f.space, 1u << 20, &d) == KT_OK);
    return f;
}

static inline void fixture_close(fixture *f)
{
    kt_space_free(f->space);
    kt_problem_clear(&f->prob);
    kt_spec_free(f->spec);
}

#endif /* KT_SPACE_UTIL_H */
