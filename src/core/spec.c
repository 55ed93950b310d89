/* spec.c - read a T1 JSON tuning spec (with ktune's extensions) into a
 * kt_spec, compiling every expression once.
 *
 * Every lookup goes through a key path ("KernelSpecification.Arguments[2].Size")
 * so that an error or a warning names exactly where the problem is.  JSON
 * syntax errors carry line and column.  The JSON itself is parsed by json-c.
 */
#include "core/spec.h"
#include "core/includes.h"
#include "core/json_text.h"
#include "core/pylist.h"
#include "core/t1schema.h"
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Everything the loader needs to report: the file, where warnings go, and
 * where an error's detail is written. */
typedef struct loader {
    const char *path;
    kt_warn_fn warn;
    void *warn_user;
    kt_diag *diag;
    kt_spec *spec;
    unsigned flags;         /* KT_SPEC_* */
    kt_spec_report *report; /* NULL: stop at the first error */
    const char *text;       /* the file's text, for an error's line and column */
} loader;

/* ------------------------------------------------------------ reporting */

static int spec_error(loader *L, const char *keypath, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* In a report, keep the error now in diag (rc, not KT_OK); rc comes back,
 * or KT_ENOMEM when it cannot be kept. */
static int record(loader *L, int rc)
{
    kt_spec_report *r = L->report;
    if (!r || rc == KT_OK || rc == KT_ENOMEM)
        return rc;
    char **g = realloc(r->errors, (r->nerrors + 1) * sizeof *g);
    if (!g)
        return KT_ENOMEM;
    r->errors = g;
    if (!(g[r->nerrors] = kt_strdup(L->diag->msg)))
        return KT_ENOMEM;
    r->nerrors++;
    return rc;
}

/* In a report, an element's error has been kept: go on with the next one
 * (true).  Otherwise, or on KT_ENOMEM, stop (false).  *rc keeps the first
 * error. */
static bool go_on(loader *L, int *rc, int step)
{
    if (step == KT_OK)
        return true;
    if (*rc == KT_OK || step == KT_ENOMEM)
        *rc = step;
    return L->report && step != KT_ENOMEM;
}

/* "where: keypath: detail", where is the file or file:line:col. */
static int spec_verror(loader *L, const char *where, const char *keypath, const char *fmt,
                       va_list ap)
{
    char *detail = kt_vasprintf(fmt, ap); /* whole: kt_fail cuts a long one */
    int rc = kt_fail(L->diag, KT_ESPEC, "%s: %s: %s", where, keypath,
                     detail ? detail : "out of memory");
    free(detail);
    return record(L, rc);
}

static int spec_error(loader *L, const char *keypath, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = spec_verror(L, L->path, keypath, fmt, ap);
    va_end(ap);
    return rc;
}

/* Where the key name of the top-level object parent is written (1-based;
 * 0, 0 when not found): json-c keeps no positions, so the text is
 * searched for "parent" and then for "name" followed by a colon. */
static void key_position(const char *text, const char *parent, const char *name,
                         size_t *line, size_t *col)
{
    *line = *col = 0;
    char pat[160];
    snprintf(pat, sizeof pat, "\"%s\"", parent);
    const char *p = text ? strstr(text, pat) : NULL;
    snprintf(pat, sizeof pat, "\"%s\"", name);
    size_t n = strlen(pat);
    while (p && (p = strstr(p + 1, pat)) != NULL && p[n + strspn(p + n, " \t\r\n")] != ':')
        ;
    if (!p)
        return;
    *line = 1;
    const char *bol = text;
    for (const char *q = text; q < p; q++)
        if (*q == '\n') {
            (*line)++;
            bol = q + 1;
        }
    *col = (size_t)(p - bol) + 1;
}

static int spec_error_key(loader *L, const char *parent, const char *name,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* An error about the key name of the object parent, at its line and column. */
static int spec_error_key(loader *L, const char *parent, const char *name,
                          const char *fmt, ...)
{
    size_t line, col;
    key_position(L->text, parent, name, &line, &col);
    char *where = line ? kt_asprintf("%s:%zu:%zu", L->path, line, col) : NULL;
    char *keypath = kt_asprintf("%s.%s", parent, name);
    va_list ap;
    va_start(ap, fmt);
    int rc = spec_verror(L, where ? where : L->path, keypath ? keypath : parent, fmt, ap);
    va_end(ap);
    free(where);
    free(keypath);
    return rc;
}

static void spec_warn(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Send "path: warning: ..." to the warning function, if any. */
static void spec_warn(loader *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kt_vwarn(L->warn, L->warn_user, L->path, fmt, ap);
    va_end(ap);
}

/* Warn about each key of obj that is not in known (NULL-terminated). */
static void warn_unknown(loader *L, json_object *obj, const char *keypath,
                         const char *const *known)
{
    if (!L->warn)
        return;
    json_object_object_foreach(obj, key, val) {
        (void)val;
        bool found = false;
        for (const char *const *k = known; *k && !found; k++)
            found = strcmp(*k, key) == 0;
        if (!found)
            spec_warn(L, "unknown key '%s%s%s' ignored", keypath, *keypath ? "." : "", key);
    }
}

static const char *json_kind(json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_null: return "null";
    case json_type_boolean: return "a boolean";
    case json_type_double:
    case json_type_int: return "a number";
    case json_type_object: return "an object";
    case json_type_array: return "an array";
    case json_type_string: return "a string";
    }
    return "a value";
}

/* Item i of the array at arrpath, which must be an object: its path goes
 * into path, and its unknown keys are warned about.  NULL after an error. */
static json_object *array_object(loader *L, json_object *arr, const char *arrpath,
                                 size_t i, const char *const *known, char *path,
                                 size_t pathlen)
{
    snprintf(path, pathlen, "%s[%zu]", arrpath, i);
    json_object *o = json_object_array_get_idx(arr, i);
    if (!json_object_is_type(o, json_type_object)) {
        spec_error(L, path, "expected an object");
        return NULL;
    }
    warn_unknown(L, o, path, known);
    return o;
}

/* Fetch key from obj, checking its JSON type.  *out is NULL when the key is
 * absent and not required. */
static int get_key(loader *L, json_object *obj, const char *keypath,
                   const char *key, json_type want, bool required,
                   json_object **out)
{
    char path[256];
    snprintf(path, sizeof path, "%s%s%s", keypath, *keypath ? "." : "", key);
    *out = NULL;
    json_object *v;
    if (!json_object_object_get_ex(obj, key, &v) || v == NULL) {
        if (required)
            return spec_error(L, path, "missing required key");
        return KT_OK;
    }
    json_type t = json_object_get_type(v);
    bool ok = t == want || (want == json_type_double && t == json_type_int);
    if (!ok) {
        const char *wanted = want == json_type_string   ? "a string"
                             : want == json_type_array  ? "an array"
                             : want == json_type_object ? "an object"
                                                        : "a number";
        return spec_error(L, path, "expected %s, found %s", wanted, json_kind(v));
    }
    *out = v;
    return KT_OK;
}

static int get_string(loader *L, json_object *obj, const char *keypath,
                      const char *key, bool required, const char **out)
{
    json_object *v;
    int rc = get_key(L, obj, keypath, key, json_type_string, required, &v);
    *out = v ? json_object_get_string(v) : NULL;
    return rc;
}

/* The number or expression string v at path, compiled. */
static int compile_value(loader *L, const char *path, json_object *v, kt_expr **out)
{
    json_type t = json_object_get_type(v);
    if (t != json_type_string && t != json_type_int && t != json_type_double)
        return spec_error(L, path, "expected a number or an expression string, found %s",
                          json_kind(v));
    const char *src = json_object_get_string(v);
    kt_diag d = {{0}};
    kt_spec *s = L->spec;
    int rc = kt_expr_compile_env(src, (const char *const *)s->names, s->nnames, &s->env,
                                 out, &d);
    if (rc != KT_OK)
        return spec_error(L, path, "in \"%s\": %s", src, d.msg);
    return KT_OK;
}

/* A value that may be written as a number or as an expression string. */
static int get_expr(loader *L, json_object *obj, const char *keypath,
                    const char *key, bool required, kt_expr **out)
{
    char path[256];
    snprintf(path, sizeof path, "%s.%s", keypath, key);
    *out = NULL;
    json_object *v;
    if (!json_object_object_get_ex(obj, key, &v) || v == NULL)
        return required ? spec_error(L, path, "missing required key") : KT_OK;
    return compile_value(L, path, v, out);
}

/* ------------------------------------------------------------ parameters */

static int parse_value_text(const char *text, double *out)
{
    if (strcmp(text, "True") == 0 || strcmp(text, "true") == 0) {
        *out = 1;
        return KT_OK;
    }
    if (strcmp(text, "False") == 0 || strcmp(text, "false") == 0) {
        *out = 0;
        return KT_OK;
    }
    char *end;
    *out = strtod(text, &end);
    return (end != text && *end == '\0' && isfinite(*out)) ? KT_OK : KT_ERANGE;
}

/* The code of string value t (see KT_EXPR_STRING), interning it in the
 * spec's string table. */
static int string_code(loader *L, const char *path, const char *t, double *code)
{
    kt_spec *s = L->spec;
    if (strpbrk(t, ",="))
        return spec_error(L, path, "string value '%s' contains ',' or '=', which "
                          "configuration keys (NAME=value,...) cannot hold", t);
    size_t i = 0;
    while (i < s->nstrings && strcmp(s->strings[i], t) != 0)
        i++;
    if (i == s->nstrings) {
        char **g = realloc(s->strings, (i + 1) * sizeof *g);
        if (!g || !(g[i] = kt_strdup(t))) {
            if (g)
                s->strings = g;
            return kt_fail(L->diag, KT_ENOMEM, "out of memory");
        }
        s->strings = g;
        s->nstrings++;
    }
    *code = KT_EXPR_STRING(i);
    return KT_OK;
}

/* How a value of a list is to be read. */
typedef enum value_kind {
    V_NUMBER, /* a number or a boolean (Python's evaluation of Values) */
    V_STRING, /* a Python string: its contents, verbatim */
    V_EITHER, /* a JSON array's string: a number if it reads as one */
} value_kind;

/* Add one value; strings_ok: the parameter's Type is "string" or absent. */
static int add_value(loader *L, kt_param_spec *p, const char *path,
                     const char *text, size_t len, value_kind kind, bool strings_ok)
{
    if (kind == V_EITHER) {
        while (len && isspace((unsigned char)*text))
            text++, len--;
        while (len && isspace((unsigned char)text[len - 1]))
            len--;
        if (len >= 2 && (text[0] == '"' || text[0] == '\'') && text[len - 1] == text[0])
            text++, len -= 2;
    }
    if (len == 0)
        return spec_error(L, path, "empty value in the list");
    char *t = kt_strndup(text, len);
    if (!t)
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    double v;
    int rc = KT_OK;
    if (kind == V_STRING || parse_value_text(t, &v) != KT_OK)
        rc = strings_ok ? string_code(L, path, t, &v)
                        : spec_error(L, path, "value '%s' is not a number or a boolean "
                                     "(a string value needs \"Type\": \"string\")", t);
    if (rc != KT_OK) {
        free(t);
        return rc;
    }
    for (size_t i = 0; i < p->nvalues; i++)
        if (p->values[i] == v) {
            int rc = spec_error(L, path, "value '%s' is listed twice", t);
            free(t);
            return rc;
        }
    p->texts[p->nvalues] = t;
    p->values[p->nvalues++] = v;
    return KT_OK;
}

/* T1 writes Values as a string holding a Python list expression
 * ("[16, 32, 64]", "list(range(32, 1025, 32))", "[2**i for i in range(5, 11)]"),
 * evaluated by pylist.c; a JSON array of numbers or strings is accepted too.
 * Indices are uint16_t, hence the bound on the count. */
static int parse_values(loader *L, kt_param_spec *p, json_object *v,
                        const char *path, bool strings_ok)
{
    kt_pyitem *items = NULL;
    size_t n;
    if (json_object_is_type(v, json_type_array)) {
        n = json_object_array_length(v);
        if (n > UINT16_MAX)
            return spec_error(L, path, "too many values (at most %d)", UINT16_MAX);
    } else {
        kt_diag d = {{0}};
        const char *src = json_object_get_string(v);
        int rc = kt_pylist_eval(src, UINT16_MAX, &items, &n, &d);
        if (rc == KT_ENOMEM)
            return kt_fail(L->diag, KT_ENOMEM, "out of memory");
        if (rc != KT_OK)
            return spec_error(L, path, "in \"%s\": %s", src, d.msg);
    }
    p->values = calloc(n ? n : 1, sizeof *p->values);
    p->texts = calloc(n ? n : 1, sizeof *p->texts);
    int rc = p->values && p->texts ? KT_OK : kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && rc == KT_OK; i++) {
        json_object *e = items ? NULL : json_object_array_get_idx(v, i);
        const char *t = items ? items[i].text : json_object_get_string(e);
        value_kind kind = items ? (items[i].is_str ? V_STRING : V_NUMBER)
                          : json_object_is_type(e, json_type_string) ? V_EITHER : V_NUMBER;
        rc = add_value(L, p, path, t ? t : "", t ? strlen(t) : 0, kind, strings_ok);
    }
    kt_pylist_free(items, n);
    if (rc == KT_OK && p->nvalues == 0)
        return spec_error(L, path, "a parameter needs at least one value");
    return rc;
}

static int parse_default(loader *L, kt_param_spec *p, json_object *obj,
                         const char *path)
{
    json_object *d;
    p->default_index = 0;
    if (!json_object_object_get_ex(obj, "Default", &d) || d == NULL)
        return KT_OK;
    double v;
    const char *text = json_object_get_string(d);
    bool number = parse_value_text(text, &v) == KT_OK;
    for (size_t i = 0; i < p->nvalues; i++)
        if (number ? p->values[i] == v : strcmp(p->texts[i], text) == 0) {
            p->default_index = i;
            return KT_OK;
        }
    /* BAT's hotspot spec has such defaults; the file is still usable */
    spec_warn(L, "%s: Default '%s' is not one of the Values; the first value is "
              "the default", path, text);
    return KT_OK;
}

static int parse_param(loader *L, json_object *arr, size_t i)
{
    static const char *const known[] = {"Name", "Type", "Values", "Default", NULL};
    char path[128];
    json_object *obj = array_object(L, arr, "ConfigurationSpace.TuningParameters", i,
                                    known, path, sizeof path);
    if (!obj)
        return KT_ESPEC;
    kt_param_spec *p = &L->spec->params[i];
    const char *name, *type;
    int rc = get_string(L, obj, path, "Name", true, &name);
    if (rc == KT_OK)
        rc = get_string(L, obj, path, "Type", false, &type);
    if (rc != KT_OK)
        return rc;
    if (!(p->name = kt_strdup(name)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    json_object *values;
    char vpath[160];
    snprintf(vpath, sizeof vpath, "%s.Values", path);
    if (!json_object_object_get_ex(obj, "Values", &values) || !values)
        return spec_error(L, vpath, "missing required key");
    if (!json_object_is_type(values, json_type_string) &&
        !json_object_is_type(values, json_type_array))
        return spec_error(L, vpath, "expected a string or an array, found %s",
                          json_kind(values));
    rc = parse_values(L, p, values, vpath, !type || strcmp(type, "string") == 0);
    if (rc == KT_OK)
        rc = parse_default(L, p, obj, path);
    return rc;
}

/* ---------------------------------------------------------------- names */

static bool valid_identifier(const char *s)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

static int parse_problem(loader *L, json_object *cs)
{
    static const char *const known[] = {"Name", "Default", NULL};
    json_object *arr;
    int rc = get_key(L, cs, "ConfigurationSpace", "ProblemParameters",
                     json_type_array, false, &arr);
    if (rc != KT_OK || !arr)
        return rc;
    size_t n = json_object_array_length(arr);
    kt_spec *s = L->spec;
    s->problem = calloc(n ? n : 1, sizeof *s->problem);
    if (!s->problem)
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char path[96];
        json_object *d, *o = array_object(L, arr, "ConfigurationSpace.ProblemParameters",
                                          i, known, path, sizeof path);
        if (!o)
            return KT_ESPEC;
        const char *name;
        if ((rc = get_string(L, o, path, "Name", true, &name)) != KT_OK ||
            (rc = get_key(L, o, path, "Default", json_type_double, true, &d)) != KT_OK)
            return rc;
        if (!(s->problem[i].name = kt_strdup(name)))
            return kt_fail(L->diag, KT_ENOMEM, "out of memory");
        s->problem[i].default_value = json_object_get_double(d);
        s->nproblem++;
    }
    return KT_OK;
}

/* Kernel Tuner's KernelSpecification.ProblemSize (a number or up to three
 * numbers) where there are no ProblemParameters: problem sizes named
 * problem_size_x, _y, _z (Kernel Tuner's own names for them), which the
 * spec's expressions read as ProblemSize[0], [1], [2].  Kernel Tuner also
 * allows expressions of tuning parameters there; ktune's problem sizes are
 * fixed per problem, so those are refused. */
static int parse_ks_problem(loader *L, json_object *root)
{
    static const char *const NAMES[] = {"problem_size_x", "problem_size_y",
                                        "problem_size_z"};
    const char *path = "KernelSpecification.ProblemSize";
    json_object *ks, *ps;
    if (!json_object_object_get_ex(root, "KernelSpecification", &ks) ||
        !json_object_is_type(ks, json_type_object) ||
        !json_object_object_get_ex(ks, "ProblemSize", &ps) || !ps)
        return KT_OK;
    kt_spec *s = L->spec;
    if (s->nproblem > 0)
        return spec_error(L, path, "give the problem either here or as "
                          "ConfigurationSpace.ProblemParameters, not both");
    bool list = json_object_is_type(ps, json_type_array);
    size_t n = list ? json_object_array_length(ps) : 1;
    if (n == 0 || n > 3)
        return spec_error(L, path, "expected a number or 1 to 3 numbers, found %zu", n);
    if (!(s->problem = calloc(n, sizeof *s->problem)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_object *v = list ? json_object_array_get_idx(ps, i) : ps;
        if (!json_object_is_type(v, json_type_int) &&
            !json_object_is_type(v, json_type_double))
            return spec_error(L, path, "item %zu: expected a number, found %s (ktune's "
                              "problem sizes do not depend on tuning parameters)", i,
                              json_kind(v));
        if (!(s->problem[i].name = kt_strdup(NAMES[i])))
            return kt_fail(L->diag, KT_ENOMEM, "out of memory");
        s->problem[i].default_value = json_object_get_double(v);
        s->nproblem++;
    }
    return KT_OK;
}

/* The value lists of the tuning parameters and the string table, which
 * every expression of the spec compiles against (kt_expr_env). */
static int build_env(loader *L)
{
    kt_spec *s = L->spec;
    if (!(s->lists = calloc(s->nnames ? s->nnames : 1, sizeof *s->lists)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nparams; i++)
        s->lists[i] = (kt_expr_list){s->params[i].values, s->params[i].nvalues};
    s->env = (kt_expr_env){s->lists, (const char *const *)s->strings, s->nstrings,
                           s->const_names, s->const_values, s->nconsts};
    return KT_OK;
}

/* The expression name table: parameters, then problem names, then
 * ProblemSize[i] aliases of the problem names. */
static int build_names(loader *L)
{
    kt_spec *s = L->spec;
    s->nnames = s->nparams + 2 * s->nproblem;
    s->names = calloc(s->nnames ? s->nnames : 1, sizeof *s->names);
    if (!s->names)
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nparams; i++) /* "": its error is in the report */
        s->names[i] = kt_strdup(s->params[i].name ? s->params[i].name : "");
    for (size_t i = 0; i < s->nproblem; i++) {
        s->names[s->nparams + i] = kt_strdup(s->problem[i].name);
        s->names[s->nparams + s->nproblem + i] = kt_asprintf("ProblemSize[%zu]", i);
    }
    for (size_t i = 0; i < s->nnames; i++)
        if (!s->names[i])
            return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nparams + s->nproblem; i++) {
        if (!*s->names[i])
            continue;
        if (!valid_identifier(s->names[i]))
            return spec_error(L, "ConfigurationSpace", "'%s' is not a valid name "
                              "(letters, digits and _; not starting with a digit)",
                              s->names[i]);
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->names[i], s->names[j]) == 0)
                return spec_error(L, "ConfigurationSpace", "name '%s' is defined twice",
                                  s->names[i]);
    }
    return KT_OK;
}

/* ------------------------------------------------------- BenchmarkConfig */

/* Entries of BAT's BenchmarkConfig that set up BAT's runner, not the
 * kernel: the repetitions ("iterations", read by BAT's Kernel Tuner
 * backend) and the compiler front end ("backend", "jitify", read by
 * cuda_kernel_runner.py's compile_kernel).  BAT's CUDA runner passes them
 * to the compiler too (-Diterations=3000, -Djitify=True); ktune leaves
 * them out: no kernel reads them, and True is no C value. */
static const char *const BAT_SETTINGS[] = {"iterations", "jitify", "backend", NULL};

/* The entry's define text and expression value: a number, or a string
 * that reads as a number or is an identifier (then its string code).
 * false for anything else (an object, a list, a boolean, null, text). */
static bool const_value(loader *L, const char *path, json_object *v, kt_const_spec *c,
                        int *rc)
{
    json_type t = json_object_get_type(v);
    const char *text = json_object_get_string(v);
    char *end = NULL;
    if (t == json_type_int || t == json_type_double)
        c->value = json_object_get_double(v);
    else if (t != json_type_string)
        return false;
    else if (*text && (c->value = strtod(text, &end), !*end) && isfinite(c->value))
        ;
    else if (!valid_identifier(text) || (*rc = string_code(L, path, text, &c->value)))
        return false;
    if (!(c->text = kt_strdup(text)))
        *rc = kt_fail(L->diag, KT_ENOMEM, "out of memory");
    return true;
}

/* A name both here and in the space: BAT gives the kernel both defines and
 * its expressions the tuning parameter's value, which agree only when the
 * parameter has this one value (BAT's hotspot repeats MAX_THREADS so).
 * *dup: the parameter's own define covers it. */
static int const_collides(loader *L, const kt_const_spec *c, bool *dup)
{
    const kt_spec *s = L->spec;
    *dup = false;
    for (size_t i = 0; i < s->nparams; i++)
        if (s->params[i].name && strcmp(s->params[i].name, c->name) == 0) {
            *dup = s->params[i].nvalues == 1 && s->params[i].values[0] == c->value;
            return *dup ? KT_OK
                        : spec_error_key(L, "BenchmarkConfig", c->name, "'%s' is also a "
                                         "tuning parameter, with other values; rename "
                                         "one of them", c->name);
        }
    for (size_t i = 0; i < s->nproblem; i++)
        if (strcmp(s->problem[i].name, c->name) == 0)
            return spec_error_key(L, "BenchmarkConfig", c->name, "'%s' is also a problem "
                                  "parameter; rename one of them", c->name);
    return KT_OK;
}

/* One entry: kept as a constant, left out (BAT's own settings, a value no
 * define can hold: warned), or an error. */
static int parse_const(loader *L, const char *key, json_object *v)
{
    for (const char *const *k = BAT_SETTINGS; *k; k++)
        if (strcmp(*k, key) == 0)
            return KT_OK;
    kt_spec *s = L->spec;
    char path[160];
    snprintf(path, sizeof path, "BenchmarkConfig.%s", key);
    kt_const_spec c = {.name = kt_strdup(key)};
    int rc = c.name ? KT_OK : kt_fail(L->diag, KT_ENOMEM, "out of memory");
    bool dup = false;
    if (rc == KT_OK && !valid_identifier(key))
        rc = spec_error_key(L, "BenchmarkConfig", key, "'%s' is not a valid name "
                            "(letters, digits and _; not starting with a digit)", key);
    else if (rc == KT_OK && !const_value(L, path, v, &c, &rc) && rc == KT_OK)
        spec_warn(L, "%s: %s is not a number or an identifier: not defined for the "
                  "kernel", path, json_kind(v));
    else if (rc == KT_OK && c.text && (rc = const_collides(L, &c, &dup)) == KT_OK && !dup) {
        s->consts[s->nconsts++] = c;
        return KT_OK;
    }
    free(c.name);
    free(c.text);
    return rc;
}

/* BAT's top-level BenchmarkConfig (BAT's cuda_kernel_runner.py): each
 * scalar entry is a define of every compilation and a name of the spec's
 * expressions, and the spec gets BAT's launch defines (backend/defines.h). */
static int parse_bench_config(loader *L, json_object *root)
{
    json_object *bc;
    int rc = get_key(L, root, "", "BenchmarkConfig", json_type_object, false, &bc);
    if (rc != KT_OK || !bc)
        return rc;
    kt_spec *s = L->spec;
    size_t n = (size_t)json_object_object_length(bc);
    s->bat_launch = true;
    s->consts = calloc(n ? n : 1, sizeof *s->consts);
    s->const_names = calloc(n ? n : 1, sizeof *s->const_names);
    s->const_values = calloc(n ? n : 1, sizeof *s->const_values);
    if (!s->consts || !s->const_names || !s->const_values)
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    json_object_object_foreach(bc, key, val) {
        if (!go_on(L, &rc, parse_const(L, key, val)))
            return rc;
    }
    for (size_t i = 0; i < s->nconsts; i++) {
        s->const_names[i] = s->consts[i].name;
        s->const_values[i] = s->consts[i].value;
    }
    return rc;
}

/* --------------------------------------------------- configuration space */

static int parse_conditions(loader *L, json_object *cs)
{
    static const char *const known[] = {"Parameters", "Expression", NULL};
    json_object *arr;
    int rc = get_key(L, cs, "ConfigurationSpace", "Conditions", json_type_array,
                     false, &arr);
    if (rc != KT_OK || !arr)
        return rc;
    kt_spec *s = L->spec;
    size_t n = json_object_array_length(arr);
    s->conds = calloc(n ? n : 1, sizeof *s->conds);
    if (!s->conds)
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char path[96];
        json_object *ignored, *o = array_object(L, arr, "ConfigurationSpace.Conditions",
                                                i, known, path, sizeof path);
        int step = !o ? KT_ESPEC
                   : get_key(L, o, path, "Parameters", json_type_array, false, &ignored);
        if (step == KT_OK)
            step = get_key(L, o, path, "Expression", json_type_string, true, &ignored);
        if (step == KT_OK)
            step = get_expr(L, o, path, "Expression", true, &s->conds[s->nconds]);
        if (step == KT_OK)
            s->nconds++;
        else if (!go_on(L, &rc, step))
            return rc;
    }
    return rc;
}

/* True when e reads a tuning parameter (not only problem names). */
static bool reads_param(const kt_spec *s, const kt_expr *e)
{
    const uint32_t *slots = kt_expr_slots(e);
    for (size_t i = 0; i < kt_expr_nslots(e); i++)
        if (slots[i] < s->nparams)
            return true;
    return false;
}

static const char *const MEASURED[] = {
    [KT_MEASURED_ENERGY] = "energy", [KT_MEASURED_POWER] = "power",
    [KT_MEASURED_TIME] = "time",
};

const char *kt_measured_name(kt_measured m)
{
    return m > KT_MEASURED_NONE && m <= KT_MEASURED_TIME ? MEASURED[m] : NULL;
}

const kt_behaviour_dim *kt_spec_energy_dim(const kt_spec *spec)
{
    for (size_t i = 0; spec && i < spec->ndims; i++)
        if (spec->dims[i].measured == KT_MEASURED_ENERGY ||
            spec->dims[i].measured == KT_MEASURED_POWER)
            return &spec->dims[i];
    return NULL;
}

static int parse_measured(loader *L, const char *path, const char *text, kt_measured *out)
{
    for (kt_measured m = KT_MEASURED_ENERGY; m <= KT_MEASURED_TIME; m++)
        if (strcmp(text, MEASURED[m]) == 0) {
            *out = m;
            return KT_OK;
        }
    char where[128];
    snprintf(where, sizeof where, "%s.Measured", path);
    return spec_error(L, where, "\"%s\" is not one of \"energy\" (joules per call), "
                      "\"power\" (watts), \"time\" (ms per call)", text);
}

/* What gives dimension d its values: an Expression that reads a tuning
 * parameter, or what a measurement Measured; exactly one of the two. */
static int dim_source(loader *L, json_object *o, const char *path, kt_behaviour_dim *d)
{
    json_object *text, *measured;
    int rc;
    if ((rc = get_key(L, o, path, "Expression", json_type_string, false, &text)) ||
        (rc = get_key(L, o, path, "Measured", json_type_string, false, &measured)))
        return rc;
    if (text && measured)
        return spec_error(L, path, "give Expression or Measured, not both");
    if (measured)
        return parse_measured(L, path, json_object_get_string(measured), &d->measured);
    if (!text)
        return spec_error(L, path, "missing Expression (computed from the configuration) "
                          "or Measured (\"energy\", \"power\" or \"time\")");
    if ((rc = get_expr(L, o, path, "Expression", true, &d->expr)))
        return rc;
    if (!reads_param(L->spec, d->expr))
        return spec_error(L, path, "Expression \"%s\" reads no tuning parameter, so "
                          "it cannot tell configurations apart", kt_expr_source(d->expr));
    return KT_OK;
}

static int parse_dim(loader *L, json_object *arr, size_t i)
{
    static const char *const known[] = {"Name", "Expression", "Measured", "Bins", NULL};
    char path[96];
    json_object *bins, *o = array_object(L, arr, "ConfigurationSpace.BehaviourDimensions",
                                         i, known, path, sizeof path);
    if (!o)
        return KT_ESPEC;
    kt_spec *s = L->spec;
    kt_behaviour_dim *d = &s->dims[i];
    const char *name;
    int rc;
    if ((rc = get_string(L, o, path, "Name", true, &name)) ||
        (rc = dim_source(L, o, path, d)) ||
        (rc = get_key(L, o, path, "Bins", json_type_double, false, &bins)))
        return rc;
    if (!(d->name = kt_strdup(name)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    if (!*name)
        return spec_error(L, path, "Name must not be empty");
    for (size_t j = 0; j < i; j++)
        if (s->dims[j].name && strcmp(s->dims[j].name, name) == 0)
            return spec_error(L, path, "dimension '%s' is defined twice", name);
    double b = bins ? json_object_get_double(bins) : KT_BEHAVIOUR_DEFAULT_BINS;
    if (!(b >= 1 && b <= KT_BEHAVIOUR_MAX_BINS && b == floor(b)))
        return spec_error(L, path, "Bins must be a whole number from 1 to %d, not %g",
                          KT_BEHAVIOUR_MAX_BINS, b);
    d->bins = (size_t)b;
    return KT_OK;
}

/* Extension: the behaviour dimensions of the MAP-Elites search. */
static int parse_behaviour(loader *L, json_object *cs)
{
    json_object *arr;
    int rc = get_key(L, cs, "ConfigurationSpace", "BehaviourDimensions",
                     json_type_array, false, &arr);
    if (rc != KT_OK || !arr)
        return rc;
    kt_spec *s = L->spec;
    size_t n = json_object_array_length(arr);
    if (n == 0 || n > KT_BEHAVIOUR_MAX_DIMS)
        return spec_error(L, "ConfigurationSpace.BehaviourDimensions",
                          "give 1 to %d dimensions, not %zu", KT_BEHAVIOUR_MAX_DIMS, n);
    if (!(s->dims = calloc(n, sizeof *s->dims)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        s->ndims = i + 1;
        if (!go_on(L, &rc, parse_dim(L, arr, i)))
            return rc;
    }
    return rc;
}

static int parse_space(loader *L, json_object *root)
{
    static const char *const known[] = {"TuningParameters", "Conditions",
                                        "ProblemParameters", "BehaviourDimensions",
                                        NULL};
    json_object *cs, *params;
    if (json_object_object_get_ex(root, "configuration_space", &cs) &&
        !json_object_object_get_ex(root, "ConfigurationSpace", NULL))
        return spec_error(L, "ConfigurationSpace", "missing required key (the file is "
                          "written in BAT's draft layout from before T1, with "
                          "'configuration_space' and 'function_specification'; write "
                          "it as T1)");
    int rc = get_key(L, root, "", "ConfigurationSpace", json_type_object, true, &cs);
    if (rc != KT_OK)
        return rc;
    warn_unknown(L, cs, "ConfigurationSpace", known);
    rc = get_key(L, cs, "ConfigurationSpace", "TuningParameters", json_type_array,
                 true, &params);
    if (rc != KT_OK)
        return rc;
    kt_spec *s = L->spec;
    size_t n = json_object_array_length(params);
    if (n == 0)
        return spec_error(L, "ConfigurationSpace.TuningParameters",
                          "at least one tuning parameter is needed");
    if (!(s->params = calloc(n, sizeof *s->params)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        s->nparams = i + 1;
        if (!go_on(L, &rc, parse_param(L, params, i)))
            return rc;
    }
    if (go_on(L, &rc, parse_problem(L, cs)) && go_on(L, &rc, parse_ks_problem(L, root)) &&
        go_on(L, &rc, build_names(L)) && go_on(L, &rc, parse_bench_config(L, root)) &&
        go_on(L, &rc, build_env(L)) &&
        go_on(L, &rc, parse_conditions(L, cs)))
        go_on(L, &rc, parse_behaviour(L, cs));
    return rc;
}

/* ------------------------------------------------------------- arguments */

typedef struct name_code {
    const char *name;
    int code;
} name_code;

static const name_code DTYPES[] = {
    {"int8", KT_DT_INT8},     {"uint8", KT_DT_UINT8},   {"int16", KT_DT_INT16},
    {"uint16", KT_DT_UINT16}, {"int32", KT_DT_INT32},   {"uint32", KT_DT_UINT32},
    {"int64", KT_DT_INT64},   {"uint64", KT_DT_UINT64}, {"float", KT_DT_FLOAT},
    {"double", KT_DT_DOUBLE}, {"bool", KT_DT_UINT8},    {"int", KT_DT_INT32},
    {"half", KT_DT_HALF},     {"bfloat16", KT_DT_BF16}, {"bf16", KT_DT_BF16},
    {"float8_e4m3", KT_DT_E4M3}, {"e4m3", KT_DT_E4M3},
};

size_t kt_dtype_size(kt_dtype t)
{
    static const size_t SIZES[] = {
        [KT_DT_INT8] = 1,  [KT_DT_UINT8] = 1,  [KT_DT_INT16] = 2, [KT_DT_UINT16] = 2,
        [KT_DT_INT32] = 4, [KT_DT_UINT32] = 4, [KT_DT_INT64] = 8, [KT_DT_UINT64] = 8,
        [KT_DT_FLOAT] = 4, [KT_DT_DOUBLE] = 8, [KT_DT_HALF] = 2,  [KT_DT_BF16] = 2,
        [KT_DT_E4M3] = 1,
    };
    return SIZES[t];
}

/* T1's vector types (float2 ... float16, double2 ..., half2 ...) and CUDA's
 * int2 ... uint4: an array of them is lanes times as many elements of the
 * element type.  So "float16" is 16 floats, as in T1 and KTT; the 16-bit
 * float is "half".  The integers stop at 4 lanes: int8 and int16 are the
 * 8- and 16-bit integers. */
static const struct {
    const char *base;
    kt_dtype type;
    unsigned max_lanes;
} VECTORS[] = {
    {"float", KT_DT_FLOAT, 16}, {"double", KT_DT_DOUBLE, 16}, {"half", KT_DT_HALF, 16},
    {"int", KT_DT_INT32, 4},    {"uint", KT_DT_UINT32, 4},
};

/* A Generator fill's DataSource: an expression of the element index i
 * (and the spec's names), compiled by the same safe evaluator as the
 * conditions. */
static int parse_generator(loader *L, json_object *o, const char *path, kt_data *d)
{
    const char *src;
    int rc = get_string(L, o, path, "DataSource", true, &src);
    if (rc != KT_OK)
        return rc;
    kt_spec *s = L->spec;
    const char **names = malloc((s->nnames + 1) * sizeof *names);
    if (!names)
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    memcpy(names, s->names, s->nnames * sizeof *names);
    names[s->nnames] = "i";
    kt_diag diag = {{0}};
    rc = kt_expr_compile(src, names, s->nnames + 1, &d->generator, &diag);
    free(names);
    if (rc != KT_OK)
        return spec_error(L, path, "DataSource: in \"%s\": %s", src, diag.msg);
    return KT_OK;
}

/* A data file's DataSource: a path relative to the spec's folder.  A
 * missing file is only a warning here, so that a spec whose data is not at
 * hand (KTT ships CoulombSum3d without its 64 MB expected output) still
 * counts its space; making the arguments (measure/args.c) refuses it. */
static int parse_file(loader *L, json_object *o, const char *path, const char *name,
                      kt_data *d)
{
    const char *src;
    int rc = get_string(L, o, path, "DataSource", true, &src);
    if (rc != KT_OK)
        return rc;
    if (!*src)
        return spec_error(L, path, "DataSource: an empty file name");
    d->file = src[0] == '/' ? kt_strdup(src) : kt_asprintf("%s/%s", L->spec->dir, src);
    d->dataset = d->fill == KT_FILL_HDF5 ? kt_strdup(name) : NULL;
    if (!d->file || (d->fill == KT_FILL_HDF5 && !d->dataset))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    if (access(d->file, R_OK) != 0)
        spec_warn(L, "%s.DataSource: cannot read '%s' (%s); tuning needs it", path,
                  d->file, strerror(errno));
    return KT_OK;
}

/* Arguments[i].Type: a scalar type (lanes 1) or a vector type. */
static int parse_type(loader *L, json_object *o, const char *path, int *type,
                      unsigned *lanes)
{
    const char *t;
    int rc = get_string(L, o, path, "Type", true, &t);
    if (rc != KT_OK)
        return rc;
    *lanes = 1;
    for (size_t i = 0; i < KT_ARRAY_LEN(DTYPES); i++)
        if (strcmp(t, DTYPES[i].name) == 0) {
            *type = DTYPES[i].code;
            return KT_OK;
        }
    for (size_t i = 0; i < KT_ARRAY_LEN(VECTORS); i++) {
        size_t n = strlen(VECTORS[i].base);
        char *end = (char *)t;
        long l = strncmp(t, VECTORS[i].base, n) == 0 && isdigit((unsigned char)t[n])
                     ? strtol(t + n, &end, 10) : 0;
        if (l >= 2 && *end == '\0' && (l <= 4 || l == 8 || l == 16) &&
            l <= (long)VECTORS[i].max_lanes) {
            *type = VECTORS[i].type;
            *lanes = (unsigned)l;
            return KT_OK;
        }
    }
    char tpath[160];
    snprintf(tpath, sizeof tpath, "%s.Type", path);
    return spec_error(L, tpath, "unsupported value \"%s\" (expected a scalar type such "
                      "as float, double, half, int32 or uint8, or a vector type such as "
                      "float4, double2, half8 or int2)", t);
}

/* Size times the lanes of a vector type, compiled from "(Size) * lanes". */
static int scale_size(loader *L, json_object *o, const char *path, unsigned lanes,
                      kt_expr **size)
{
    json_object *v;
    if (lanes == 1 || !json_object_object_get_ex(o, "Size", &v))
        return KT_OK;
    char *src = kt_asprintf("(%s) * %u", json_object_get_string(v), lanes);
    if (!src)
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    kt_expr_free(*size);
    *size = NULL;
    kt_diag d = {{0}};
    kt_spec *s = L->spec;
    int rc = kt_expr_compile_env(src, (const char *const *)s->names, s->nnames, &s->env,
                                 size, &d);
    free(src);
    return rc == KT_OK ? KT_OK : spec_error(L, path, "Size: %s", d.msg);
}
static const name_code ACCESS[] = {
    {"ReadOnly", KT_READ}, {"WriteOnly", KT_WRITE}, {"ReadWrite", KT_READ_WRITE}};
/* Symbol: a vector copied to the __constant__ global of its name instead
 * of being passed (Kernel Tuner's cmem_args) */
enum { MEM_VECTOR, MEM_SCALAR, MEM_SYMBOL, MEM_TENSORMAP };
static const name_code MEMORY[] = {
    {"Scalar", MEM_SCALAR}, {"Vector", MEM_VECTOR}, {"Symbol", MEM_SYMBOL},
    {"TensorMap", MEM_TENSORMAP}};
static const name_code SWIZZLES[] = {
    {"None", KT_SWIZZLE_NONE}, {"32B", KT_SWIZZLE_32B}, {"64B", KT_SWIZZLE_64B},
    {"128B", KT_SWIZZLE_128B}};
static const name_code MEMTYPES[] = {{"Constant", 1}};
/* T1's "Script" runs a program to make the data: refused (FILL_SCRIPT). */
#define FILL_SCRIPT (-1)
static const name_code FILLS[] = {
    {"Random", KT_FILL_RANDOM},  {"Constant", KT_FILL_CONSTANT},
    {"Generator", KT_FILL_GENERATOR}, {"BinaryRaw", KT_FILL_RAW},
    {"BinaryHDF", KT_FILL_HDF5}, {"Script", FILL_SCRIPT}};
static const name_code CHECKS[] = {
    {"AbsoluteDifference", KT_CHECK_ABSOLUTE},
    {"SideBySideComparison", KT_CHECK_ABSOLUTE},
    {"SideBySideRelativeComparison", KT_CHECK_RELATIVE}};
static const name_code LANGUAGES[] = {
    {"C", KT_LANG_C}, {"CUDA", KT_LANG_CUDA}, {"OpenCL", KT_LANG_OPENCL},
    {"None", KT_LANG_NONE}};

/* Map the string at key to a code through table; absent keeps *out. */
static int get_enum(loader *L, json_object *obj, const char *keypath,
                    const char *key, bool required, const name_code *table,
                    size_t n, int *out)
{
    const char *v;
    int rc = get_string(L, obj, keypath, key, required, &v);
    if (rc != KT_OK || !v)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (strcmp(table[i].name, v) == 0) {
            *out = table[i].code;
            return KT_OK;
        }
    char allowed[256] = "";
    for (size_t i = 0; i < n; i++) {
        strncat(allowed, i ? ", " : "", sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, table[i].name, sizeof allowed - strlen(allowed) - 1);
    }
    char path[192];
    snprintf(path, sizeof path, "%s.%s", keypath, key);
    return spec_error(L, path, "unsupported value \"%s\" (expected one of: %s)", v,
                      allowed);
}

/* Size and scalar values are fixed per problem: they may not depend on a
 * tuning parameter, because buffers are allocated once per problem. */
static int check_problem_only(loader *L, const char *path, const kt_expr *e)
{
    if (!e)
        return KT_OK;
    const uint32_t *slots = kt_expr_slots(e);
    for (size_t i = 0; i < kt_expr_nslots(e); i++)
        if (slots[i] < L->spec->nparams)
            return spec_error(L, path, "may use problem parameters only, not "
                              "the tuning parameter '%s'",
                              L->spec->names[slots[i]]);
    return KT_OK;
}

/* Where the data at path comes from, by its FillType (fill): FillValue,
 * DataSource as an expression or as a file, RandomSeed.  name picks the
 * dataset of an HDF5 file that holds several. */
static int parse_data(loader *L, json_object *o, const char *path, int fill,
                      const char *name, kt_data *d)
{
    char sub[192];
    json_object *seed;
    int rc = get_key(L, o, path, "RandomSeed", json_type_double, false, &seed);
    d->fill = (kt_fill)fill;
    d->seed = seed ? (uint64_t)json_object_get_int64(seed) : 0;
    if (rc == KT_OK && !(d->key = kt_strdup(path)))
        rc = kt_fail(L->diag, KT_ENOMEM, "out of memory");
    if (rc != KT_OK)
        return rc;
    switch (fill) {
    case KT_FILL_RANDOM: /* FillValue, where given, is the range's end (KTT's) */
    case KT_FILL_CONSTANT:
        snprintf(sub, sizeof sub, "%s.FillValue", path);
        rc = get_expr(L, o, path, "FillValue", fill == KT_FILL_CONSTANT, &d->value);
        if (rc != KT_OK || !d->value)
            return rc;
        return rc == KT_OK ? check_problem_only(L, sub, d->value) : rc;
    case KT_FILL_GENERATOR:
        return parse_generator(L, o, path, d);
    case KT_FILL_RAW:
    case KT_FILL_HDF5:
        return parse_file(L, o, path, name, d);
    case FILL_SCRIPT:
        snprintf(sub, sizeof sub, "%s.FillType", path);
        return spec_error(L, sub, "\"Script\" runs a program to make the data, and "
                          "ktune runs no code from a spec: give the values as a "
                          "Generator expression or a data file (BinaryRaw, BinaryHDF)");
    }
    return KT_OK;
}

/* TensorMap.Dims or .Box at path: an array of 1 .. KT_TMAP_MAX_RANK
 * expressions; its length is the rank, which both must share. */
static int parse_tmap_list(loader *L, json_object *o, const char *path, const char *key,
                           kt_expr **out, size_t *rank)
{
    json_object *arr;
    char sub[160];
    int rc = get_key(L, o, path, key, json_type_array, true, &arr);
    if (rc != KT_OK)
        return rc;
    size_t n = json_object_array_length(arr);
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    if (n < 1 || n > KT_TMAP_MAX_RANK || (*rank && n != *rank))
        return spec_error(L, sub, "expected %s%zu expressions, innermost dimension first, "
                          "found %zu", *rank ? "" : "1 to ",
                          *rank ? *rank : (size_t)KT_TMAP_MAX_RANK, n);
    *rank = n;
    for (size_t d = 0; d < n && rc == KT_OK; d++) {
        snprintf(sub, sizeof sub, "%s.%s[%zu]", path, key, d);
        rc = compile_value(L, sub, json_object_array_get_idx(arr, d), &out[d]);
    }
    return rc;
}

/* The vector argument named by a TensorMap's Source: one before it. */
static int tmap_source(loader *L, json_object *o, const char *path, size_t i, kt_arg *a)
{
    const char *src;
    int rc = get_string(L, o, path, "Source", true, &src);
    if (rc != KT_OK)
        return rc;
    const kt_spec *s = L->spec;
    for (size_t j = 0; j < i; j++) {
        const kt_arg *b = &s->args[j];
        if (b->name && strcmp(b->name, src) == 0 && !b->scalar && !b->symbol_only) {
            a->tmap->source = j;
            a->type = b->type;
            return KT_OK;
        }
    }
    return spec_error(L, path, "Source '%s' is not a vector argument listed before this "
                      "one", src);
}

/* MemoryType "TensorMap" (extension): Source, Dims (over problem names),
 * Box and Swizzle; passed by value, so a ReadOnly scalar to the worker. */
static int parse_tmap(loader *L, json_object *o, const char *path, size_t i, kt_arg *a)
{
    char sub[160];
    int swizzle = KT_SWIZZLE_NONE;
    if (L->spec->language != KT_LANG_CUDA)
        return spec_error(L, path, "a TensorMap argument needs \"Language\": \"CUDA\"");
    if (!(a->tmap = calloc(1, sizeof *a->tmap)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    a->scalar = true;
    int rc = tmap_source(L, o, path, i, a);
    if (rc == KT_OK)
        rc = get_enum(L, o, path, "Swizzle", false, SWIZZLES, KT_ARRAY_LEN(SWIZZLES),
                      &swizzle);
    a->tmap->swizzle = (kt_swizzle)swizzle;
    if (rc == KT_OK)
        rc = parse_tmap_list(L, o, path, "Dims", a->tmap->dims, &a->tmap->rank);
    for (size_t d = 0; rc == KT_OK && d < a->tmap->rank; d++) {
        snprintf(sub, sizeof sub, "%s.Dims[%zu]", path, d);
        rc = check_problem_only(L, sub, a->tmap->dims[d]);
    }
    if (rc == KT_OK)
        rc = parse_tmap_list(L, o, path, "Box", a->tmap->box, &a->tmap->rank);
    return rc;
}

static int parse_arg(loader *L, json_object *arr, size_t i)
{
    static const char *const known[] = {"Name", "Type", "MemoryType", "AccessType",
                                        "FillType", "FillValue", "Size",
                                        "TypeSize", "RandomSeed", "DataSource",
                                        "MemType", "Source", "Dims", "Box", "Swizzle",
                                        NULL};
    char path[96];
    json_object *o = array_object(L, arr, "KernelSpecification.Arguments", i, known,
                                  path, sizeof path);
    if (!o)
        return KT_ESPEC;
    kt_arg *a = &L->spec->args[i];
    const char *name;
    int type = KT_DT_FLOAT, mem = MEM_VECTOR, access = KT_READ, fill = KT_FILL_RANDOM;
    int constant = 0;
    unsigned lanes;
    int rc;
    if ((rc = get_string(L, o, path, "Name", false, &name)) != KT_OK ||
        (rc = get_enum(L, o, path, "MemoryType", true, MEMORY, KT_ARRAY_LEN(MEMORY),
                       &mem)))
        return rc;
    /* T1 does not require names; ReferenceArguments can use these */
    if (!(a->name = name ? kt_strdup(name) : kt_asprintf("arg%zu", i)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    if (mem == MEM_TENSORMAP)
        return parse_tmap(L, o, path, i, a);
    if ((rc = parse_type(L, o, path, &type, &lanes)) ||
        (rc = get_enum(L, o, path, "MemType", false, MEMTYPES, KT_ARRAY_LEN(MEMTYPES),
                       &constant)) ||
        (rc = get_enum(L, o, path, "AccessType", false, ACCESS, KT_ARRAY_LEN(ACCESS),
                       &access)) ||
        (rc = get_enum(L, o, path, "FillType", false, FILLS, KT_ARRAY_LEN(FILLS),
                       &fill)))
        return rc;
    bool scalar = mem == MEM_SCALAR;
    if (scalar && lanes > 1)
        return spec_error(L, path, "a vector type cannot be a Scalar argument");
    a->type = (kt_dtype)type;
    a->scalar = scalar;
    a->symbol = mem == MEM_SYMBOL || constant;
    a->symbol_only = mem == MEM_SYMBOL;
    a->access = (kt_access)access;
    a->expect.fill = KT_FILL_REFERENCE;
    char sub[192];
    snprintf(sub, sizeof sub, "%s.%s", path, scalar ? "FillValue" : "Size");
    rc = get_expr(L, o, path, scalar ? "FillValue" : "Size", true,
                  scalar ? &a->value : &a->size);
    if (rc == KT_OK)
        rc = check_problem_only(L, sub, scalar ? a->value : a->size);
    if (rc == KT_OK && !scalar)
        rc = scale_size(L, o, path, lanes, &a->size);
    if (rc == KT_OK && !scalar)
        rc = parse_data(L, o, path, fill, a->name, &a->data);
    if (rc == KT_OK && scalar && access != KT_READ)
        rc = spec_error(L, path, "a Scalar argument must be ReadOnly");
    if (rc == KT_OK && a->symbol && (scalar || access != KT_READ))
        rc = spec_error(L, path, "a __constant__ symbol (MemoryType \"Symbol\" or "
                        "\"MemType\": \"Constant\") must be a ReadOnly vector: "
                        "kernels cannot write it");
    return rc;
}

static double default_threshold(kt_dtype t)
{
    return t == KT_DT_FLOAT    ? 1e-4
           : t == KT_DT_DOUBLE ? 1e-10
           : t == KT_DT_HALF   ? 1e-2  /* a few ulps of an 11-bit significand */
           : t == KT_DT_BF16   ? 3e-2  /* of an 8-bit one */
           : t == KT_DT_E4M3   ? 1.25e-1 /* an ulp of a 4-bit one */
                               : 0;
}

/* The output argument that ReferenceArguments[k] at path names. */
static int reference_target(loader *L, json_object *o, const char *path, kt_arg **out)
{
    const char *target;
    int rc = get_string(L, o, path, "TargetName", true, &target);
    if (rc != KT_OK)
        return rc;
    kt_spec *s = L->spec;
    *out = NULL;
    for (size_t j = 0; j < s->nargs && !*out; j++)
        if (strcmp(s->args[j].name, target) == 0)
            *out = &s->args[j];
    if (!*out || (*out)->scalar || (*out)->access == KT_READ)
        return spec_error(L, path, "TargetName '%s' is not a writable vector "
                          "argument", target);
    return KT_OK;
}

/* Where ReferenceArguments[k]'s expected values come from.  "Generator"
 * without a DataSource is ktune's way of saying the reference run computes
 * them; with one, its expression does, as in KTT.  Random gives none. */
static int parse_expected(loader *L, json_object *o, const char *path, kt_arg *a)
{
    int fill = KT_FILL_GENERATOR;
    int rc = get_enum(L, o, path, "FillType", false, FILLS, KT_ARRAY_LEN(FILLS), &fill);
    if (rc != KT_OK)
        return rc;
    if (fill == KT_FILL_RANDOM)
        return spec_error(L, path, "FillType \"Random\" gives no expected values: use "
                          "Generator (computed by the reference, or by a DataSource "
                          "expression), Constant, BinaryRaw or BinaryHDF");
    if (fill == KT_FILL_GENERATOR && !json_object_object_get_ex(o, "DataSource", NULL))
        fill = KT_FILL_REFERENCE;
    return parse_data(L, o, path, fill, a->name, &a->expect);
}

static int parse_reference_args(loader *L, json_object *ks)
{
    static const char *const known[] = {"Name", "TargetName", "FillType", "FillValue",
                                        "DataSource", "RandomSeed", "ValidationMethod",
                                        "ValidationThreshold", NULL};
    kt_spec *s = L->spec;
    json_object *arr;
    int rc = get_key(L, ks, "KernelSpecification", "ReferenceArguments",
                     json_type_array, false, &arr);
    if (rc != KT_OK)
        return rc;
    for (size_t i = 0; i < s->nargs; i++) {
        kt_arg *a = &s->args[i];
        bool out = !a->scalar && a->access != KT_READ;
        /* Without ReferenceArguments every output is checked; with them,
         * only the listed ones. */
        a->check = (out && !arr) ? (a->type >= KT_DT_FLOAT ? KT_CHECK_RELATIVE
                                                          : KT_CHECK_ABSOLUTE)
                                 : KT_CHECK_NONE;
        a->threshold = default_threshold(a->type);
    }
    size_t n = arr ? json_object_array_length(arr) : 0;
    for (size_t i = 0; i < n; i++) {
        char path[96];
        json_object *thr, *o = array_object(L, arr, "KernelSpecification.ReferenceArguments",
                                            i, known, path, sizeof path);
        if (!o)
            return KT_ESPEC;
        int method = KT_CHECK_RELATIVE;
        kt_arg *a;
        if ((rc = reference_target(L, o, path, &a)) ||
            (rc = get_enum(L, o, path, "ValidationMethod", false, CHECKS,
                           KT_ARRAY_LEN(CHECKS), &method)) ||
            (rc = get_key(L, o, path, "ValidationThreshold", json_type_double, false,
                          &thr)))
            return rc;
        if (a->expect.key)
            return spec_error(L, path, "'%s' already has expected values, from %s",
                              a->name, a->expect.key);
        if ((rc = parse_expected(L, o, path, a)) != KT_OK)
            return rc;
        a->check = (kt_check)method;
        if (thr)
            a->threshold = json_object_get_double(thr);
    }
    return KT_OK;
}

static void data_free(kt_data *d)
{
    kt_expr_free(d->value);
    kt_expr_free(d->generator);
    free(d->file);
    free(d->dataset);
    free(d->key);
}

static void tmap_free(kt_tmap *t)
{
    for (size_t d = 0; t && d < KT_TMAP_MAX_RANK; d++) {
        kt_expr_free(t->dims[d]);
        kt_expr_free(t->box[d]);
    }
    free(t);
}

static int parse_args(loader *L, json_object *ks)
{
    json_object *arr;
    int rc = get_key(L, ks, "KernelSpecification", "Arguments", json_type_array,
                     true, &arr);
    if (rc != KT_OK)
        return rc;
    kt_spec *s = L->spec;
    size_t n = json_object_array_length(arr);
    if (!(s->args = calloc(n ? n : 1, sizeof *s->args)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        s->nargs = i + 1;
        if (!go_on(L, &rc, parse_arg(L, arr, i)))
            return rc;
        /* a reported argument keeps a name, for ReferenceArguments */
        if (!s->args[i].name && !(s->args[i].name = kt_asprintf("arg%zu", i)))
            return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    }
    go_on(L, &rc, parse_reference_args(L, ks));
    return rc;
}

/* ---------------------------------------------------------------- kernel */

/* A kernel file's text, and for CUDA the local headers it includes
 * (core/includes.h), which the source hash covers. */
static int load_source(loader *L, const char *keypath, const char *file,
                       char **path_out, char **source_out, char **includes_out)
{
    kt_spec *s = L->spec;
    *path_out = file[0] == '/' ? kt_strdup(file) : kt_asprintf("%s/%s", s->dir, file);
    if (!*path_out)
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    int rc = kt_read_file(*path_out, source_out, NULL, L->diag);
    if (rc == KT_OK && s->language == KT_LANG_CUDA)
        rc = kt_includes_collect(*path_out, *source_out, includes_out, L->diag);
    if (rc != KT_OK)
        kt_diag_prefix(L->diag, keypath);
    if (rc != KT_OK)
        kt_diag_prefix(L->diag, L->path);
    return record(L, rc);
}

static int parse_grid(loader *L, json_object *obj, const char *parent, const char *key,
                      bool required, kt_expr **dims)
{
    static const char *const known[] = {"X", "Y", "Z", NULL};
    static const char *const axes[] = {"X", "Y", "Z"};
    char path[96];
    snprintf(path, sizeof path, "%s.%s", parent, key);
    json_object *g;
    int rc = get_key(L, obj, parent, key, json_type_object, required, &g);
    if (rc != KT_OK || !g)
        return rc;
    warn_unknown(L, g, path, known);
    for (int i = 0; i < 3; i++)
        if (!go_on(L, &rc, get_expr(L, g, path, axes[i], i == 0, &dims[i])))
            break;
    return rc;
}

static const char *const GRID_DIVS[] = {"GridDivX", "GridDivY", "GridDivZ"};

/* Whether the spec gives Kernel Tuner's grid divisors (a non-empty list). */
static bool has_grid_divs(json_object *ks)
{
    json_object *v;
    for (int i = 0; i < 3; i++)
        if (json_object_object_get_ex(ks, GRID_DIVS[i], &v) &&
            json_object_is_type(v, json_type_array) && json_object_array_length(v) > 0)
            return true;
    return false;
}

/* Kernel Tuner's divisor of axis i: the product of the GridDiv list's
 * entries, each an expression truncated to an integer (int(eval(...)));
 * with no list, block_size_x (_y, _z) where that is a tuning parameter,
 * else 1.  Appends "(d1) * (d2) ..." to buf. */
static int grid_divisor(loader *L, json_object *ks, int i, char *buf, size_t len)
{
    static const char *const BLOCK[] = {"block_size_x", "block_size_y", "block_size_z"};
    json_object *arr;
    size_t n = json_object_object_get_ex(ks, GRID_DIVS[i], &arr) &&
                       json_object_is_type(arr, json_type_array)
                   ? json_object_array_length(arr) : 0;
    const kt_spec *s = L->spec;
    size_t start = strlen(buf), used = start;
    char path[64];
    snprintf(path, sizeof path, "KernelSpecification.%s", GRID_DIVS[i]);
    for (size_t k = 0; k < n && used < len; k++) {
        json_object *e = json_object_array_get_idx(arr, k);
        if (!json_object_is_type(e, json_type_string) &&
            !json_object_is_type(e, json_type_int))
            return spec_error(L, path, "item %zu: expected an expression string "
                              "or an integer, found %s", k, json_kind(e));
        used += (size_t)snprintf(buf + used, len - used, "%sint(%s)", k ? " * " : "",
                                 json_object_get_string(e));
    }
    /* s->names, not params[].name: a parameter whose Name was reported
     * missing (validate goes on) has none */
    for (size_t p = 0; n == 0 && s->names && p < s->nparams; p++)
        if (strcmp(s->names[p], BLOCK[i]) == 0)
            used += (size_t)snprintf(buf + used, len - used, "%s", BLOCK[i]);
    if (used == start)
        used += (size_t)snprintf(buf + used, len - used, "1");
    return used < len ? KT_OK : spec_error(L, path, "too long");
}

/* Kernel Tuner's grid (GridDivX/Y/Z): ceil(ProblemSize[i] / divisor) blocks
 * on each axis that has a problem size, 1 on the others, as its T1 reader
 * computes it; GlobalSize is then not read (Kernel Tuner ignores it too). */
static int parse_grid_divs(loader *L, json_object *ks)
{
    kt_spec *s = L->spec;
    json_object *g;
    if (s->nproblem == 0)
        return spec_error(L, "KernelSpecification.GridDivX",
                          "grid divisors need KernelSpecification.ProblemSize");
    if (json_object_object_get_ex(ks, "GlobalSize", &g) && g)
        spec_warn(L, "KernelSpecification.GlobalSize is not used: the grid is "
                  "ceil(ProblemSize / GridDiv), as Kernel Tuner computes it");
    for (int i = 0; i < 3 && i < (int)s->nproblem; i++) {
        char src[1024];
        snprintf(src, sizeof src, "ceil(ProblemSize[%d] / (", i);
        int rc = grid_divisor(L, ks, i, src, sizeof src - 3);
        if (rc != KT_OK)
            return rc;
        strcat(src, "))");
        kt_diag d = {{0}};
        rc = kt_expr_compile_env(src, (const char *const *)s->names, s->nnames, &s->env,
                                 &s->global[i], &d);
        if (rc != KT_OK)
            return spec_error(L, "KernelSpecification.GridDiv", "in \"%s\": %s", src,
                              d.msg);
    }
    s->grid_in_threads = false; /* the divisions count blocks */
    return KT_OK;
}

static int parse_reference_kernel(loader *L, json_object *ks)
{
    static const char *const known[] = {"KernelName", "KernelFile", "GlobalSize",
                                        "LocalSize", NULL};
    const char *path = "KernelSpecification.ReferenceKernel";
    json_object *rk;
    int rc = get_key(L, ks, "KernelSpecification", "ReferenceKernel",
                     json_type_object, false, &rk);
    if (rc != KT_OK || !rk)
        return rc;
    warn_unknown(L, rk, path, known);
    const char *name, *file;
    kt_spec *s = L->spec;
    if ((rc = get_string(L, rk, path, "KernelName", true, &name)) ||
        (rc = get_string(L, rk, path, "KernelFile", true, &file)) ||
        (rc = parse_grid(L, rk, path, "GlobalSize", false, s->ref_global)) ||
        (rc = parse_grid(L, rk, path, "LocalSize", false, s->ref_local)))
        return rc;
    if (!(s->ref_name = kt_strdup(name)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    return load_source(L, path, file, &s->ref_file, &s->ref_source, &s->ref_includes);
}

/* GlobalSizeType "OpenCL" counts threads, "CUDA" blocks.  Without it, a
 * kernel's GlobalSize counts as its own language's launch does: an OpenCL
 * kernel's counts work-items (KTT's OpenCL engine's default, which its
 * CoulombSum2d spec relies on), any other's blocks. */
static int parse_grid_type(loader *L, json_object *ks)
{
    static const name_code TYPES[] = {{"CUDA", 0}, {"OpenCL", 1}, {"Vulkan", 0}};
    int in_threads = L->spec->language == KT_LANG_OPENCL;
    int rc = get_enum(L, ks, "KernelSpecification", "GlobalSizeType", false, TYPES,
                      KT_ARRAY_LEN(TYPES), &in_threads);
    L->spec->grid_in_threads = in_threads;
    return rc;
}

static int parse_options(loader *L, json_object *ks)
{
    json_object *arr;
    int rc = get_key(L, ks, "KernelSpecification", "CompilerOptions",
                     json_type_array, false, &arr);
    if (rc != KT_OK || !arr)
        return rc;
    kt_spec *s = L->spec;
    size_t n = json_object_array_length(arr);
    if (!(s->compiler_options = calloc(n ? n : 1, sizeof(char *))))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx(arr, i);
        if (!json_object_is_type(o, json_type_string))
            return spec_error(L, "KernelSpecification.CompilerOptions",
                              "item %zu: expected a string", i);
        if (!(s->compiler_options[i] = kt_strdup(json_object_get_string(o))))
            return kt_fail(L->diag, KT_ENOMEM, "out of memory");
        s->ncompiler_options++;
    }
    return KT_OK;
}

/* No KernelSpecification: with KT_SPEC_SPACE_ONLY a space only (BAT's
 * MD and Reduction are such files), else an error that says so. */
static int no_kernel(loader *L, json_object *root)
{
    kt_spec *s = L->spec;
    char hint[160] = "";
    json_object_object_foreach(root, key, val) { /* BAT's MD: "kernelSpecification" */
        (void)val;
        if (strcasecmp(key, "KernelSpecification") == 0)
            snprintf(hint, sizeof hint, " (the file has '%.60s': keys are "
                     "case-sensitive)", key);
    }
    if (!(L->flags & KT_SPEC_SPACE_ONLY))
        return spec_error(L, "KernelSpecification", "missing required key%s; without "
                          "it the file describes a space only: `ktune space` and "
                          "`ktune validate` read it, `ktune tune` needs a kernel", hint);
    spec_warn(L, "no KernelSpecification%s: the spec describes a space only", hint);
    s->language = KT_LANG_NONE;
    if (!(s->kernel_name = kt_strdup(s->name ? s->name : "space")))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    return KT_OK;
}

static int parse_kernel(loader *L, json_object *root)
{
    static const char *const known[] = {
        "Language", "KernelName", "KernelFile", "CompilerOptions", "GlobalSize",
        "LocalSize", "GlobalSizeType", "Arguments", "ReferenceArguments",
        "ReferenceKernel", "FlopCount", "SharedMemory", "Device", "Profiling",
        "BenchmarkConfig", "ProblemSize", "GridDivX", "GridDivY", "GridDivZ",
        "SimulationInput", "Stream", "BenchmarkName", NULL};
    const char *kp = "KernelSpecification";
    kt_spec *s = L->spec;
    json_object *ks;
    if (!json_object_object_get_ex(root, kp, &ks) || !ks)
        return no_kernel(L, root);
    int rc = get_key(L, root, "", kp, json_type_object, true, &ks);
    if (rc != KT_OK)
        return rc;
    warn_unknown(L, ks, kp, known);
    int lang = KT_LANG_C;
    const char *name = NULL, *file = NULL;
    if (!go_on(L, &rc, get_enum(L, ks, kp, "Language", true, LANGUAGES,
                                KT_ARRAY_LEN(LANGUAGES), &lang)) ||
        !go_on(L, &rc, get_string(L, ks, kp, "KernelName", true, &name)))
        return rc;
    s->language = (kt_language)lang;
    if (name && !(s->kernel_name = kt_strdup(name)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    if (s->language == KT_LANG_NONE) /* a space only: nothing to compile or call */
        return rc;
    bool gpu = s->language == KT_LANG_CUDA || s->language == KT_LANG_OPENCL;
    bool divs = has_grid_divs(ks);
    /* each step goes on after a reported error (go_on) */
    (void)(go_on(L, &rc, get_string(L, ks, kp, "KernelFile", true, &file)) &&
           go_on(L, &rc, !file ? KT_OK
                               : load_source(L, "KernelSpecification.KernelFile", file,
                                             &s->kernel_file, &s->kernel_source,
                                             &s->kernel_includes)) &&
           go_on(L, &rc, parse_options(L, ks)) &&
           go_on(L, &rc, divs ? parse_grid_divs(L, ks)
                              : parse_grid(L, ks, kp, "GlobalSize", gpu, s->global)) &&
           go_on(L, &rc, parse_grid(L, ks, kp, "LocalSize", gpu, s->local)) &&
           go_on(L, &rc, divs ? KT_OK : parse_grid_type(L, ks)) &&
           go_on(L, &rc, get_expr(L, ks, kp, "SharedMemory", false, &s->shared)) &&
           go_on(L, &rc, get_expr(L, ks, kp, "FlopCount", false, &s->flops)) &&
           go_on(L, &rc, parse_args(L, ks)) &&
           go_on(L, &rc, parse_reference_kernel(L, ks)));
    return rc;
}

/* BAT's launch defines (GRID_SIZE_X...) are compiled in, and the
 * compilation does not know the problem: where a launch size reads a
 * problem name (BAT's pnpoly, whose grid is Kernel Tuner's, from
 * ProblemSize), they are left out, with a warning. */
static int check_bat_launch(loader *L)
{
    kt_spec *s = L->spec;
    const kt_expr *const sizes[] = {s->global[0], s->global[1], s->global[2], s->local[0],
                                    s->local[1], s->local[2], s->shared};
    static const char *const KEYS[] = {"GlobalSize", "LocalSize", "SharedMemory"};
    for (size_t i = 0; s->bat_launch && i < KT_ARRAY_LEN(sizes); i++) {
        size_t n = sizes[i] ? kt_expr_nslots(sizes[i]) : 0;
        if (n && kt_expr_slots(sizes[i])[n - 1] >= s->nparams) { /* ascending */
            s->bat_launch = false;
            spec_warn(L, "BenchmarkConfig: KernelSpecification.%s reads a problem size, "
                      "so BAT's GRID_SIZE_X... are not defined for the kernel", KEYS[i / 3]);
        }
    }
    return KT_OK;
}

/* ------------------------------------------------------- general, budget */

/* One budget object; path is "Budget[0]" or "Budget". */
static int parse_budget_object(loader *L, json_object *o, const char *path)
{
    static const name_code KINDS[] = {{"ConfigurationCount", KT_BUDGET_COUNT},
                                      {"TuningDuration", KT_BUDGET_SECONDS},
                                      {"ConfigurationFraction", KT_BUDGET_FRACTION}};
    static const char *const known[] = {"Type", "BudgetValue", NULL};
    json_object *v;
    warn_unknown(L, o, path, known);
    int kind = KT_BUDGET_NONE, rc;
    if ((rc = get_enum(L, o, path, "Type", true, KINDS, KT_ARRAY_LEN(KINDS), &kind)) ||
        (rc = get_key(L, o, path, "BudgetValue", json_type_double, true, &v)))
        return rc;
    L->spec->budget.kind = (kt_budget_kind)kind;
    L->spec->budget.value = json_object_get_double(v);
    if (!(L->spec->budget.value > 0)) {
        char vpath[64];
        snprintf(vpath, sizeof vpath, "%s.BudgetValue", path);
        return spec_error(L, vpath, "must be positive");
    }
    return KT_OK;
}

/* The schema's Budget is an array (T1 allows several budgets; ktune honours
 * the first); BAT's specs write one object, so that is read too. */
static int parse_budget(loader *L, json_object *root)
{
    json_object *b;
    if (!json_object_object_get_ex(root, "Budget", &b) || !b)
        return KT_OK;
    if (json_object_is_type(b, json_type_object))
        return parse_budget_object(L, b, "Budget");
    if (!json_object_is_type(b, json_type_array))
        return spec_error(L, "Budget", "expected an array or an object, found %s",
                          json_kind(b));
    if (json_object_array_length(b) == 0)
        return KT_OK;
    json_object *o = json_object_array_get_idx(b, 0);
    if (!json_object_is_type(o, json_type_object))
        return spec_error(L, "Budget[0]", "expected an object");
    return parse_budget_object(L, o, "Budget[0]");
}

/* Search.Name: the names Kernel Tuner, KTT and BAT use, lower-cased with
 * everything but letters and digits dropped, and ktune's equivalent. */
static const struct {
    const char *t1, *ktune;
} SEARCHES[] = {
    {"bruteforce", "brute_force"},   {"exhaustive", "brute_force"},
    {"fullsearch", "brute_force"},   {"random", "random"},
    {"randomsample", "random"},      {"randomsearch", "random"},
    {"annealing", "annealing"},      {"simulatedannealing", "annealing"},
    {"genetic", "genetic"},          {"geneticalgorithm", "genetic"},
    {"pso", "pso"},                  {"particleswarm", "pso"},
    {"diffevo", "diff_evo"},         {"differentialevolution", "diff_evo"},
    {"localsearch", "local_search"}, {"mls", "local_search"},
    {"greedymls", "local_search"},   {"greedyils", "local_search"},
};

/* Search: the default strategy when the command line names none.  An
 * unknown name, like ktune's lack of per-strategy options, is a warning. */
static int parse_search(loader *L, json_object *root)
{
    static const char *const known[] = {"Name", "Attributes", NULL};
    json_object *o, *attrs;
    const char *name;
    int rc = get_key(L, root, "", "Search", json_type_object, false, &o);
    if (rc != KT_OK || !o)
        return rc;
    warn_unknown(L, o, "Search", known);
    if ((rc = get_string(L, o, "Search", "Name", true, &name)) != KT_OK)
        return rc;
    char key[64];
    size_t n = 0;
    for (const char *c = name; *c && n + 1 < sizeof key; c++)
        if (isalnum((unsigned char)*c))
            key[n++] = (char)tolower((unsigned char)*c);
    key[n] = '\0';
    for (size_t i = 0; i < KT_ARRAY_LEN(SEARCHES) && !L->spec->strategy; i++)
        if (strcmp(key, SEARCHES[i].t1) == 0)
            L->spec->strategy = SEARCHES[i].ktune;
    if (!L->spec->strategy)
        spec_warn(L, "Search.Name '%.200s' has no ktune equivalent; the default "
                  "strategy is used", name);
    if (json_object_object_get_ex(o, "Attributes", &attrs) && attrs)
        spec_warn(L, "Search.Attributes are ignored (ktune's strategies take no "
                  "options)");
    return KT_OK;
}

static int parse_general(loader *L, json_object *root)
{
    static const char *const known[] = {"BenchmarkName", "FormatVersion",
                                        "LoggingLevel", "TimeUnit", "OutputFile",
                                        "OutputFormat", NULL};
    json_object *g;
    int rc = get_key(L, root, "", "General", json_type_object, false, &g);
    if (rc != KT_OK || !g)
        return rc;
    warn_unknown(L, g, "General", known);
    const char *name;
    rc = get_string(L, g, "General", "BenchmarkName", false, &name);
    if (rc == KT_OK && name && !(L->spec->name = kt_strdup(name)))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    return rc;
}

static void compute_hash(kt_spec *s)
{
    uint64_t h = KT_HASH_INIT;
    h = kt_hash(h, &s->language, sizeof s->language);
    h = kt_hash_str(h, s->kernel_name);
    h = kt_hash_str(h, s->kernel_source);
    h = kt_hash_str(h, s->ref_name);
    h = kt_hash_str(h, s->ref_source);
    if (s->kernel_includes || s->ref_includes) /* else as before headers counted */
        h = kt_hash_str(kt_hash_str(h, s->kernel_includes), s->ref_includes);
    for (size_t i = 0; i < s->ncompiler_options; i++)
        h = kt_hash_str(h, s->compiler_options[i]);
    for (size_t i = 0; i < s->nconsts; i++) { /* nothing without a BenchmarkConfig */
        h = kt_hash_str(h, s->consts[i].name);
        h = kt_hash_str(h, s->consts[i].text);
    }
    if (s->bat_launch)
        h = kt_hash_str(h, "BAT launch defines");
    s->source_hash = kt_asprintf("%016llx", (unsigned long long)h);
}

/* ------------------------------------------------------------------ load */

static int parse_json(loader *L, const char *text, json_object **out)
{
    kt_json_error e;
    if ((*out = kt_json_parse_text(text, strlen(text), &e)))
        return KT_OK;
    if (e.nomem)
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    return kt_fail(L->diag, KT_ESYNTAX, "%s:%zu:%zu: invalid JSON: %s", L->path, e.line,
                   e.col, e.why);
}

/* Whether the loader has reported an error at keypath (spec_error's
 * "path: keypath: " prefix). */
static bool reported_at(const loader *L, const char *keypath)
{
    char *prefix = L->report ? kt_asprintf("%s: %s: ", L->path, keypath) : NULL;
    bool found = false;
    for (size_t i = 0; prefix && i < L->report->nerrors && !found; i++)
        found = strncmp(L->report->errors[i], prefix, strlen(prefix)) == 0;
    free(prefix);
    return found;
}

/* A rule of the official schema that the spec breaks (core/t1schema.h);
 * nothing where the loader has already refused the key, so that each
 * problem is reported once (a "ktune reads it" warning would be wrong
 * there, too). */
static void schema_problem(void *user, bool error, const char *keypath, const char *msg)
{
    loader *L = user;
    if (reported_at(L, keypath))
        return;
    if (error)
        spec_error(L, keypath, "%s", msg);
    else
        spec_warn(L, "%s: %s", keypath, msg);
}

/* The sections, in order; with a report, each one's errors are kept and
 * the next one is read. */
static int read_sections(loader *L, json_object *root)
{
    int rc = KT_OK;
    size_t before = L->report ? L->report->nerrors : 0;
    if (!go_on(L, &rc, parse_general(L, root)) || !go_on(L, &rc, parse_space(L, root)))
        return rc;
    if (L->report)
        L->report->space_ok = rc == KT_OK && L->report->nerrors == before;
    if (go_on(L, &rc, parse_kernel(L, root)) && go_on(L, &rc, check_bat_launch(L)) &&
        go_on(L, &rc, parse_budget(L, root)))
        go_on(L, &rc, parse_search(L, root));
    return rc;
}

static int fill_spec(loader *L, json_object *root)
{
    static const char *const known[] = {"General", "ConfigurationSpace", "Search",
                                        "Budget", "KernelSpecification",
                                        "BenchmarkConfig", NULL};
    if (!json_object_is_type(root, json_type_object))
        return record(L, kt_fail(L->diag, KT_ESPEC, "%s: the top level must be an object",
                                 L->path));
    warn_unknown(L, root, "", known);
    int rc = read_sections(L, root);
    /* after the loader, so that a key it refused is not reported again;
     * without a report, the loader's error is the one to return */
    if ((L->flags & KT_SPEC_SCHEMA) && rc != KT_ENOMEM && (L->report || rc == KT_OK))
        kt_t1_schema_check(root, schema_problem, L);
    if (rc != KT_OK)
        return rc;
    kt_spec *s = L->spec;
    if (!s->name && !(s->name = kt_strdup(s->kernel_name ? s->kernel_name : "unnamed")))
        return kt_fail(L->diag, KT_ENOMEM, "out of memory");
    compute_hash(s);
    return s->source_hash ? KT_OK : kt_fail(L->diag, KT_ENOMEM, "out of memory");
}

int kt_spec_load(const char *path, kt_warn_fn warn, void *warn_user,
                 kt_spec **out, kt_diag *diag)
{
    kt_spec_opts o = {.warn = warn, .warn_user = warn_user};
    return kt_spec_load_with(path, &o, out, diag);
}

int kt_spec_load_with(const char *path, const kt_spec_opts *opts, kt_spec **out,
                      kt_diag *diag)
{
    *out = NULL;
    kt_diag own = {{0}};
    loader L = {path, opts->warn, opts->warn_user, diag ? diag : &own,
                calloc(1, sizeof(kt_spec)), opts->flags, opts->report, NULL};
    diag = L.diag;
    if (!L.spec)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    char *text = NULL;
    json_object *root = NULL;
    const char *slash = strrchr(path, '/');
    L.spec->path = kt_strdup(path);
    L.spec->dir = slash ? kt_strndup(path, (size_t)(slash - path)) : kt_strdup(".");
    int rc = (!L.spec->path || !L.spec->dir) ? kt_fail(diag, KT_ENOMEM, "out of memory")
                                             : record(&L, kt_read_file(path, &text, NULL,
                                                                       diag));
    L.text = text;
    if (rc == KT_OK)
        rc = record(&L, parse_json(&L, text, &root));
    if (rc == KT_OK)
        rc = fill_spec(&L, root);
    json_object_put(root);
    free(text);
    bool keep = rc == KT_OK || (L.report && L.report->space_ok && rc != KT_ENOMEM);
    if (L.report && L.report->nerrors > 0 && rc != KT_ENOMEM)
        rc = KT_ESPEC;
    if (!keep) {
        kt_spec_free(L.spec);
        return rc;
    }
    *out = L.spec;
    return rc;
}

void kt_spec_report_clear(kt_spec_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nerrors; i++)
        free(r->errors[i]);
    free(r->errors);
    *r = (kt_spec_report){0};
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void kt_spec_free(kt_spec *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nparams; i++) {
        free(s->params[i].name);
        free(s->params[i].values);
        free_strings(s->params[i].texts, s->params[i].nvalues);
    }
    free(s->params);
    for (size_t i = 0; i < s->nproblem; i++)
        free(s->problem[i].name);
    free(s->problem);
    for (size_t i = 0; i < s->nconsts; i++) {
        free(s->consts[i].name);
        free(s->consts[i].text);
    }
    free(s->consts);
    free(s->const_names);
    free(s->const_values);
    for (size_t i = 0; i < s->nargs; i++) {
        free(s->args[i].name);
        kt_expr_free(s->args[i].size);
        kt_expr_free(s->args[i].value);
        data_free(&s->args[i].data);
        data_free(&s->args[i].expect);
        tmap_free(s->args[i].tmap);
    }
    free(s->args);
    for (size_t i = 0; i < s->nconds; i++)
        kt_expr_free(s->conds[i]);
    free(s->conds);
    for (size_t i = 0; i < s->ndims; i++) {
        free(s->dims[i].name);
        kt_expr_free(s->dims[i].expr);
    }
    free(s->dims);
    for (int i = 0; i < 3; i++) {
        kt_expr_free(s->global[i]);
        kt_expr_free(s->local[i]);
        kt_expr_free(s->ref_global[i]);
        kt_expr_free(s->ref_local[i]);
    }
    kt_expr_free(s->shared);
    kt_expr_free(s->flops);
    free_strings(s->compiler_options, s->ncompiler_options);
    free_strings(s->names, s->nnames);
    free_strings(s->strings, s->nstrings);
    free(s->lists);
    free(s->path);
    free(s->dir);
    free(s->name);
    free(s->kernel_name);
    free(s->kernel_file);
    free(s->kernel_source);
    free(s->kernel_includes);
    free(s->ref_includes);
    free(s->ref_name);
    free(s->ref_file);
    free(s->ref_source);
    free(s->source_hash);
    free(s);
}
