/* constraint.c - output tokens against a spec's conditions (constraint.h). */
#include "ml/constraint.h"
#include "core/util.h"
#include "store/miopen.h"

#include <stdlib.h>
#include <string.h>

#define NO_VALUE UINT16_MAX

struct kt_constraint {
    kt_spec *spec;
    kt_problem prob;
    kt_space *space;      /* bound to prob; NULL before the first bind */
    size_t nout;
    uint16_t **value_of;  /* per position, per token: spec value index */
    uint16_t *cfg;        /* scratch */
    bool *bound;          /* scratch */
};

static int map_tokens(kt_constraint *c, const kt_model_info *info, kt_diag *diag)
{
    c->value_of = calloc(c->nout + 1, sizeof *c->value_of);
    if (!c->value_of)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t p = 0; p < c->nout; p++) {
        const kt_param_spec *ps = &c->spec->params[p];
        if (strcmp(ps->name, info->out_names[p]) != 0)
            return kt_fail(diag, KT_ESPEC, "%s: parameter %zu is '%s', the model's "
                           "output %zu is '%s'", c->spec->path, p, ps->name, p,
                           info->out_names[p]);
        const kt_vocab *v = &info->out_vocab[p];
        if (!(c->value_of[p] = malloc(v->n * sizeof **c->value_of)))
            return kt_fail(diag, KT_ENOMEM, "out of memory");
        for (size_t t = 0; t < v->n; t++) {
            c->value_of[p][t] = NO_VALUE;
            double x = strtod(v->words[t], NULL);
            for (size_t i = 0; t && i < ps->nvalues; i++)
                if (ps->values[i] == x)
                    c->value_of[p][t] = (uint16_t)i;
        }
    }
    return KT_OK;
}

int kt_constraint_new(const char *spec_path, kt_warn_fn warn, void *warn_user,
                      const kt_model_info *info, kt_constraint **out, kt_diag *diag)
{
    *out = NULL;
    kt_constraint *c = calloc(1, sizeof *c);
    if (!c)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    c->nout = info->nout;
    int rc = kt_spec_load(spec_path, warn, warn_user, &c->spec, diag);
    if (rc == KT_OK && c->spec->nparams != info->nout)
        rc = kt_fail(diag, KT_ESPEC, "%s has %zu tuning parameters, the model %zu",
                     spec_path, c->spec->nparams, info->nout);
    if (rc == KT_OK)
        rc = map_tokens(c, info, diag);
    if (rc == KT_OK && (!(c->cfg = calloc(c->nout + 1, sizeof *c->cfg)) ||
                        !(c->bound = calloc(c->nout + 1, sizeof *c->bound))))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc != KT_OK) {
        kt_constraint_free(c);
        return rc;
    }
    *out = c;
    return KT_OK;
}

void kt_constraint_free(kt_constraint *c)
{
    if (!c)
        return;
    for (size_t p = 0; c->value_of && p < c->nout; p++)
        free(c->value_of[p]);
    free(c->value_of);
    kt_space_free(c->space);
    kt_problem_clear(&c->prob);
    kt_spec_free(c->spec);
    free(c->cfg);
    free(c->bound);
    free(c);
}

int kt_constraint_bind(kt_constraint *c, const char *problem_key, kt_diag *diag)
{
    kt_space_free(c->space);
    c->space = NULL;
    kt_problem_clear(&c->prob);
    int rc = kt_problem_parse(c->spec, problem_key, &c->prob, NULL);
    if (rc != KT_OK) { /* an imported MIOpen key: translate it */
        char *overrides = NULL;
        rc = kt_miopen_problem_overrides(problem_key, &overrides, diag);
        if (rc == KT_OK)
            rc = kt_problem_parse(c->spec, overrides, &c->prob, diag);
        free(overrides);
    }
    if (rc == KT_OK)
        rc = kt_space_new(c->spec, &c->prob, &c->space, diag);
    return rc;
}

/* Tokens to value indices; false when a token has no value in the spec. */
static bool to_values(kt_constraint *c, const uint16_t *tokens, size_t len)
{
    for (size_t p = 0; p < c->nout; p++) {
        c->bound[p] = p < len;
        c->cfg[p] = 0;
        if (p < len && (c->cfg[p] = c->value_of[p][tokens[p]]) == NO_VALUE)
            return false;
    }
    return true;
}

bool kt_constraint_prefix_ok(void *vc, const uint16_t *prefix, size_t len)
{
    kt_constraint *c = vc;
    bool sat = false;
    return c->space && to_values(c, prefix, len) &&
           kt_space_satisfiable(c->space, c->cfg, c->bound, &sat) == KT_OK && sat;
}

bool kt_constraint_valid(kt_constraint *c, const uint16_t *tokens)
{
    return c->space && to_values(c, tokens, c->nout) &&
           kt_space_is_valid(c->space, c->cfg);
}

bool kt_constraint_values(kt_constraint *c, const uint16_t *tokens, uint16_t *cfg)
{
    if (!to_values(c, tokens, c->nout))
        return false;
    memcpy(cfg, c->cfg, c->nout * sizeof *cfg);
    return true;
}
