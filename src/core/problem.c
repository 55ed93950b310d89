/* problem.c - bind a spec to one problem (its sizes) and name configurations.
 *
 * A problem is the spec's problem parameters with the command line's
 * overrides applied ("M=1024,N=512").  An override is checked, not
 * guessed at: each parameter is set at most once, and a parameter whose
 * default is a whole number (a size) takes whole numbers, at most 2^53 (the
 * largest a double holds with every whole number below it).  Configurations are vectors of value
 * indices, one per tuning parameter; their canonical text form
 * "MC=64,NC=256,..." (spec order, values as written in the spec) is the key
 * the results database stores.
 */
#include "core/spec.h"
#include "core/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int find_problem(const kt_spec *spec, const char *name, size_t len)
{
    for (size_t i = 0; i < spec->nproblem; i++)
        if (strlen(spec->problem[i].name) == len &&
            strncmp(spec->problem[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

#define WHOLE_MAX 9007199254740992.0 /* 2^53 */

/* Whether v suits problem parameter p (see the top of the file). */
static int check_value(const kt_problem_spec *p, const char *text, double v,
                       kt_diag *diag)
{
    if (p->default_value != floor(p->default_value))
        return KT_OK;
    if (v != floor(v))
        return kt_fail(diag, KT_EINVAL, "problem parameter '%s' takes whole numbers "
                       "(its default is %.17g), not '%s'", p->name, p->default_value,
                       text);
    if (fabs(v) > WHOLE_MAX)
        return kt_fail(diag, KT_ERANGE, "problem value %s=%s is too large: at most "
                       "%.17g", p->name, text, WHOLE_MAX);
    return KT_OK;
}

static int apply_override(const kt_spec *spec, const char *item, size_t len,
                          double *values, bool *set, kt_diag *diag)
{
    const char *eq = memchr(item, '=', len);
    if (!eq)
        return kt_fail(diag, KT_EINVAL, "problem setting '%.*s' is not NAME=VALUE",
                       (int)len, item);
    int idx = find_problem(spec, item, (size_t)(eq - item));
    if (idx < 0)
        return kt_fail(diag, KT_EINVAL, "'%.*s' is not a problem parameter of '%s'",
                       (int)(eq - item), item, spec->name);
    char num[64];
    size_t n = len - (size_t)(eq - item) - 1;
    if (n == 0 || n >= sizeof num)
        return kt_fail(diag, KT_EINVAL, "bad value in problem setting '%.*s'",
                       (int)len, item);
    memcpy(num, eq + 1, n);
    num[n] = '\0';
    char *end;
    double v = strtod(num, &end);
    if (*end != '\0' || !isfinite(v))
        return kt_fail(diag, KT_EINVAL, "problem value '%s' is not a number", num);
    if (set[idx])
        return kt_fail(diag, KT_EINVAL, "problem parameter '%s' is set twice",
                       spec->problem[idx].name);
    set[idx] = true;
    values[idx] = v;
    return check_value(&spec->problem[idx], num, v, diag);
}

int kt_problem_parse(const kt_spec *spec, const char *overrides, kt_problem *out,
                     kt_diag *diag)
{
    *out = (kt_problem){0};
    double *values = calloc(spec->nproblem ? spec->nproblem : 1, sizeof *values);
    bool *set = calloc(spec->nproblem ? spec->nproblem : 1, sizeof *set);
    if (!values || !set) {
        free(values);
        free(set);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < spec->nproblem; i++)
        values[i] = spec->problem[i].default_value;
    const char *s = overrides ? overrides : "";
    while (*s) {
        size_t len = strcspn(s, ",");
        int rc = len ? apply_override(spec, s, len, values, set, diag)
                     : kt_fail(diag, KT_EINVAL, "empty problem setting in '%s'",
                               overrides);
        if (rc != KT_OK) {
            free(values);
            free(set);
            return rc;
        }
        s += len + (s[len] == ',');
    }
    free(set);
    kt_buf key = {0};
    for (size_t i = 0; i < spec->nproblem; i++)
        kt_buf_appendf(&key, "%s%s=%.17g", i ? "," : "", spec->problem[i].name,
                       values[i]);
    out->key = kt_buf_take(&key);
    if (!out->key) {
        free(values);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    out->n = spec->nproblem;
    out->values = values;
    return KT_OK;
}

void kt_problem_clear(kt_problem *p)
{
    free(p->values);
    free(p->key);
    *p = (kt_problem){0};
}

void kt_spec_slots(const kt_spec *spec, const uint16_t *cfg, const kt_problem *prob,
                   double *slots)
{
    if (cfg)
        for (size_t i = 0; i < spec->nparams; i++)
            slots[i] = spec->params[i].values[cfg[i]];
    for (size_t i = 0; i < spec->nproblem && prob; i++) {
        slots[spec->nparams + i] = prob->values[i];
        slots[spec->nparams + spec->nproblem + i] = prob->values[i];
    }
}

char *kt_spec_config_key(const kt_spec *spec, const uint16_t *cfg)
{
    kt_buf b = {0};
    for (size_t i = 0; i < spec->nparams; i++)
        kt_buf_appendf(&b, "%s%s=%s", i ? "," : "", spec->params[i].name,
                       spec->params[i].texts[cfg[i]]);
    return kt_buf_take(&b);
}

static int parse_assignment(const kt_param_spec *p, const char *text, size_t len,
                            uint16_t *out, kt_diag *diag)
{
    for (size_t v = 0; v < p->nvalues; v++)
        if (strlen(p->texts[v]) == len && strncmp(p->texts[v], text, len) == 0) {
            *out = (uint16_t)v;
            return KT_OK;
        }
    return kt_fail(diag, KT_EINVAL, "'%.*s' is not a value of parameter '%s'",
                   (int)len, text, p->name);
}

int kt_spec_config_parse(const kt_spec *spec, const char *key, uint16_t *cfg,
                         kt_diag *diag)
{
    bool *seen = calloc(spec->nparams ? spec->nparams : 1, sizeof *seen);
    if (!seen)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = KT_OK;
    const char *s = key;
    while (rc == KT_OK && *s) {
        size_t len = strcspn(s, ",");
        const char *eq = memchr(s, '=', len);
        size_t p = 0;
        while (eq && p < spec->nparams &&
               !(strlen(spec->params[p].name) == (size_t)(eq - s) &&
                 strncmp(spec->params[p].name, s, (size_t)(eq - s)) == 0))
            p++;
        if (!eq || p == spec->nparams)
            rc = kt_fail(diag, KT_EINVAL, "'%.*s' does not name a tuning parameter",
                         (int)len, s);
        else
            rc = parse_assignment(&spec->params[p], eq + 1, len - (size_t)(eq - s) - 1,
                                  &cfg[p], diag);
        if (rc == KT_OK)
            seen[p] = true;
        s += len + (s[len] == ',');
    }
    for (size_t p = 0; rc == KT_OK && p < spec->nparams; p++)
        if (!seen[p])
            rc = kt_fail(diag, KT_EINVAL, "configuration does not set '%s'",
                         spec->params[p].name);
    free(seen);
    return rc;
}
