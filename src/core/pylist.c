/* pylist.c - a safe evaluator for the Python list expressions of T1 Values
 * ("list(range(32, 1024+1, 32))", "[2**i for i in range(5, 11)]").
 *
 * A recursive-descent parser evaluates as it parses.  A comprehension's
 * element comes before its loop, so the parser can also run "dry" (check
 * the syntax, compute nothing): the element and the condition are parsed
 * dry once to find where they end, then parsed again from their saved
 * position for each value of the loop variable.  The same dry mode skips
 * the operand that `and`/`or` short-circuit past.  Work is bounded by a
 * token budget and the result by max_items, so no input can run long or
 * allocate without limit.
 */
#include "core/pylist.h"
#include "core/pynum.h"
#include "core/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEST_MAX 64          /* nesting of parentheses, lists, operators */
#define VARS_MAX 8           /* nested comprehension variables */
#define STEPS_MAX 20000000UL /* tokens read, comprehension passes included */
#define INT_EXACT 9007199254740992.0 /* 2^53 */

typedef enum vkind { V_NUM, V_STR, V_LIST } vkind;

typedef struct vlist vlist;

/* A value.  Strings and booleans carry a span of the source, their text
 * (True stays True, false stays false); a number's text is Python's repr,
 * as Python tools write it (1_000 is 1000, 0x10 is 16, 1e3 is 1000.0). */
typedef struct val {
    vkind kind;
    bool is_int;   /* a Python int (or bool) */
    bool is_bool;  /* True or False */
    double num;    /* V_NUM */
    size_t at;     /* span start (V_STR always; a boolean when len > 0) */
    size_t len;    /* span length; 0 for a number */
    vlist *list;   /* V_LIST (NULL in a dry run): owned */
} val;

struct vlist {
    val *v; /* scalars only */
    size_t n, cap;
};

enum { T_END, T_NUM, T_STR, T_NAME, T_OP };

typedef struct token {
    int kind;
    size_t at, len; /* in the source; a string's span includes its quotes */
    kt_pynum num;   /* T_NUM: the literal's value */
} token;

typedef struct var {
    size_t at, len; /* its name in the source */
    val v;
} var;

typedef struct parser {
    const char *src;
    size_t pos;         /* where the next token starts scanning */
    token t;            /* the current token */
    bool run;           /* false: check syntax only, compute nothing */
    int depth;          /* current nesting */
    unsigned long steps; /* tokens read so far */
    size_t max_items;
    var vars[VARS_MAX];
    size_t nvars;
    int err;
    kt_diag *diag;
} parser;

/* ------------------------------------------------------------ errors */

static bool fail(parser *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Record the first error at byte offset at; returns false for the caller
 * to pass up. */
static bool fail(parser *p, size_t at, const char *fmt, ...)
{
    if (p->err != KT_OK)
        return false;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->err = KT_ESYNTAX;
    if (p->diag)
        snprintf(p->diag->msg, sizeof p->diag->msg, "column %zu: %s", at + 1, msg);
    return false;
}

static bool fail_oom(parser *p)
{
    if (p->err == KT_OK) {
        p->err = KT_ENOMEM;
        if (p->diag)
            snprintf(p->diag->msg, sizeof p->diag->msg, "out of memory");
    }
    return false;
}

/* ------------------------------------------------------------ values */

static void val_free(val *v)
{
    if (v->kind == V_LIST && v->list) {
        free(v->list->v);
        free(v->list);
    }
    v->list = NULL;
}

static const char *kind_name(const val *v)
{
    if (v->kind == V_LIST)
        return "list";
    if (v->kind == V_STR)
        return "str";
    return v->is_bool ? "bool" : v->is_int ? "int" : "float";
}

static val num_val(double x, bool is_int)
{
    return (val){.kind = V_NUM, .is_int = is_int, .num = x};
}

static bool new_list(parser *p, val *out)
{
    *out = (val){.kind = V_LIST};
    if (!p->run)
        return true;
    if (!(out->list = calloc(1, sizeof *out->list)))
        return fail_oom(p);
    return true;
}

static bool list_push(parser *p, size_t at, vlist *l, val x)
{
    if (l->n >= p->max_items)
        return fail(p, at, "more than %zu values", p->max_items);
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        val *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return fail_oom(p);
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = x;
    return true;
}

static bool truthy(const val *v)
{
    if (v->kind == V_LIST)
        return v->list && v->list->n > 0;
    return v->kind == V_STR ? v->len > 0 : v->num != 0;
}

/* ------------------------------------------------------------ scanner */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_word(char c)
{
    return is_digit(c) || c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

static const char *const OPS[] = {"**", "//", "==", "!=", "<=", ">=", "+", "-",
                                  "*",  "/",  "%",  "<",  ">",  "(", ")", "[",
                                  "]",  ",",  ".",  "{",  "}",  ":", "=", NULL};

static bool scan_other(parser *p, token *t)
{
    const char *s = p->src + t->at;
    if (*s == '\'' || *s == '"') {
        const char *q = s + 1;
        while (*q && *q != *s && *q != '\\' && *q != '\n')
            q++;
        if (*q != *s)
            return fail(p, t->at, *q == '\\' ? "escape sequences in strings are not supported"
                                             : "unterminated string");
        t->kind = T_STR, t->len = (size_t)(q - s) + 1;
        return true;
    }
    for (const char *const *o = OPS; *o; o++)
        if (strncmp(s, *o, strlen(*o)) == 0) {
            t->kind = T_OP, t->len = strlen(*o);
            return true;
        }
    return fail(p, t->at, "unexpected character '%c'", *s);
}

/* Read the token at p->pos into p->t. */
static bool next(parser *p)
{
    const char *s = p->src;
    while (s[p->pos] == ' ' || (s[p->pos] >= '\t' && s[p->pos] <= '\r'))
        p->pos++;
    if (++p->steps > STEPS_MAX)
        return fail(p, p->pos, "the expression takes too long to evaluate");
    token t = {.kind = T_END, .at = p->pos};
    char c = s[p->pos];
    if (c == '\0') {
        t.len = 0;
    } else if (is_digit(c) || (c == '.' && is_digit(s[p->pos + 1]))) {
        kt_diag d = {{0}};
        t.kind = T_NUM;
        if (kt_pynum_scan(s + p->pos, &t.num, &d) != KT_OK)
            return fail(p, t.at, "%s", d.msg);
        t.len = t.num.len;
    } else if (is_word(c)) {
        t.kind = T_NAME;
        while (is_word(s[p->pos + t.len]))
            t.len++;
    } else if (!scan_other(p, &t)) {
        return false;
    }
    p->t = t;
    p->pos = t.at + t.len;
    return true;
}

/* Scan again from byte offset at (a comprehension's saved position). */
static bool seek(parser *p, size_t at)
{
    p->pos = at;
    return next(p);
}

static bool is_op(const parser *p, const char *op)
{
    return p->t.kind == T_OP && p->t.len == strlen(op) &&
           strncmp(p->src + p->t.at, op, p->t.len) == 0;
}

static bool is_name(const parser *p, const char *name)
{
    return p->t.kind == T_NAME && p->t.len == strlen(name) &&
           strncmp(p->src + p->t.at, name, p->t.len) == 0;
}

/* The current token quoted for a message. */
static const char *tok_text(const parser *p, char *buf, size_t size)
{
    if (p->t.kind == T_END)
        return "the end";
    snprintf(buf, size, "'%.*s'", (int)(p->t.len > 40 ? 40 : p->t.len), p->src + p->t.at);
    return buf;
}

static bool expect_op(parser *p, const char *op)
{
    if (is_op(p, op))
        return next(p);
    char b[64];
    return fail(p, p->t.at, "expected '%s', found %s", op, tok_text(p, b, sizeof b));
}

/* ------------------------------------------------------------ arithmetic */

static double py_mod(double a, double b)
{
    double m = fmod(a, b);
    if (m != 0 && (m < 0) != (b < 0))
        m += b;
    return m;
}

static bool int_pow(double a, double b, double *out)
{
    double r = 1;
    for (long i = 0; i < (long)b && fabs(r) <= INT_EXACT; i++)
        r *= a;
    *out = r;
    return fabs(r) <= INT_EXACT;
}

/* a op b on numbers, Python's int/float rules. */
static bool num_op(parser *p, size_t at, char op, char op2, val a, val b, val *out)
{
    bool ints = a.is_int && b.is_int;
    double x = a.num, y = b.num, r;
    if ((op == '/' || op == '%') && y == 0)
        return fail(p, at, "division by zero");
    switch (op) {
    case '+': r = x + y; break;
    case '-': r = x - y; break;
    case '*':
        if (op2 == '*') {
            if (ints && y >= 0) {
                if (!int_pow(x, y, &r))
                    return fail(p, at, "integer result too large");
                break;
            }
            if (x == 0 && y < 0)
                return fail(p, at, "0 cannot be raised to a negative power");
            if (x < 0 && y != floor(y))
                return fail(p, at, "a negative number to a fractional power is complex");
            ints = false;
            r = pow(x, y);
        } else {
            r = x * y;
        }
        break;
    case '/':
        if (op2 == '/') {
            r = (x - py_mod(x, y)) / y;
            break;
        }
        ints = false;
        r = x / y;
        break;
    default: r = py_mod(x, y); break;
    }
    if (!isfinite(r) || (ints && fabs(r) > INT_EXACT))
        return fail(p, at, "result too large");
    *out = num_val(r, ints);
    return true;
}

/* a + b on lists: concatenation (consumes both). */
static bool concat(parser *p, size_t at, val *a, val *b, val *out)
{
    *out = *a;
    for (size_t i = 0; b->list && i < b->list->n; i++)
        if (!list_push(p, at, a->list, b->list->v[i]))
            return false;
    val_free(b);
    a->list = NULL;
    return true;
}

/* Apply a binary arithmetic operator; consumes a and b. */
static bool binary(parser *p, token op, val *a, val *b, val *out)
{
    char o = p->src[op.at], o2 = op.len > 1 ? p->src[op.at + 1] : 0;
    bool ok;
    if (!p->run) {
        *out = num_val(0, true);
        ok = true;
    } else if (o == '+' && a->kind == V_LIST && b->kind == V_LIST) {
        ok = concat(p, op.at, a, b, out);
    } else if (a->kind == V_NUM && b->kind == V_NUM) {
        ok = num_op(p, op.at, o, o2, *a, *b, out);
    } else {
        ok = fail(p, op.at, "unsupported operand types for %.*s: '%s' and '%s'",
                  (int)op.len, p->src + op.at, kind_name(a), kind_name(b));
    }
    val_free(a);
    val_free(b);
    if (!ok)
        *out = num_val(0, true); /* owns nothing */
    return ok;
}

/* ------------------------------------------------------------ grammar */

static bool parse_test(parser *p, val *out);
static bool parse_unary(parser *p, val *out);

static bool enter(parser *p)
{
    if (++p->depth > NEST_MAX)
        return fail(p, p->t.at, "nested too deeply");
    return true;
}

static bool leave(parser *p, bool ok)
{
    p->depth--;
    return ok;
}

static bool want_int(parser *p, size_t at, const val *v, const char *what)
{
    if (!p->run || (v->kind == V_NUM && v->is_int))
        return true;
    return fail(p, at, "%s must be an integer, found %s", what, kind_name(v));
}

/* range(...) once its arguments are known. */
static bool make_range(parser *p, size_t at, const double *a, size_t n, val *out)
{
    double start = n > 1 ? a[0] : 0, stop = n > 1 ? a[1] : a[0], step = n > 2 ? a[2] : 1;
    if (step == 0)
        return fail(p, at, "range() step must not be zero");
    double count = step > 0 ? ceil((stop - start) / step) : ceil((start - stop) / -step);
    if (count > (double)p->max_items)
        return fail(p, at, "more than %zu values", p->max_items);
    if (!new_list(p, out))
        return false;
    for (double i = 0; i < count; i++)
        if (!list_push(p, at, out->list, num_val(start + i * step, true))) {
            val_free(out);
            return false;
        }
    return true;
}

/* The arguments of a call, after its '(' (up to max; stops at ')'). */
static bool parse_args(parser *p, val *args, size_t max, size_t *n, size_t *at)
{
    *n = 0;
    while (!is_op(p, ")")) {
        if (*n == max)
            return fail(p, p->t.at, "too many arguments");
        at[*n] = p->t.at;
        if (!parse_test(p, &args[*n]))
            return false;
        ++*n;
        if (!is_op(p, ")") && !expect_op(p, ","))
            return false;
    }
    return next(p);
}

/* range(...) or list(...), the only calls; the name is the current token. */
static bool parse_call(parser *p, val *out)
{
    token name = p->t;
    bool range = is_name(p, "range");
    val a[3] = {{0}};
    size_t n = 0, at[3];
    bool ok = next(p) && next(p) && parse_args(p, a, range ? 3 : 1, &n, at);
    if (ok && range && n == 0)
        ok = fail(p, name.at, "range() needs 1 to 3 arguments");
    if (ok && range) {
        double x[3];
        for (size_t i = 0; i < n && ok; i++) {
            ok = want_int(p, at[i], &a[i], "a range() argument");
            x[i] = a[i].num;
        }
        ok = ok && (p->run ? make_range(p, name.at, x, n, out) : new_list(p, out));
    } else if (ok && n == 0) {
        ok = new_list(p, out);
    } else if (ok) {
        if (p->run && a[0].kind != V_LIST)
            ok = fail(p, at[0], "list() needs a list or a range, found %s", kind_name(&a[0]));
        *out = a[0];
        a[0].list = NULL;
    }
    for (size_t i = 0; i < n; i++)
        val_free(&a[i]);
    return ok;
}

/* A name: True/False, a call, or a comprehension variable. */
static bool parse_name(parser *p, val *out)
{
    token t = p->t;
    const char *s = p->src + t.at;
    if (!next(p))
        return false;
    if (is_op(p, "(")) {
        if ((t.len == 5 && strncmp(s, "range", 5) == 0) ||
            (t.len == 4 && strncmp(s, "list", 4) == 0)) {
            p->t = t, p->pos = t.at + t.len; /* parse_call starts at the name */
            return parse_call(p, out);
        }
        return fail(p, t.at, "calling '%.*s' is not allowed (only range() and list())",
                    (int)t.len, s);
    }
    static const char *const BOOLS[] = {"False", "True", "false", "true"};
    for (size_t i = 0; i < 4; i++)
        if (t.len == strlen(BOOLS[i]) && strncmp(s, BOOLS[i], t.len) == 0) {
            *out = num_val(i % 2, true);
            out->is_bool = true, out->at = t.at, out->len = t.len;
            return true;
        }
    for (size_t i = p->nvars; i-- > 0;)
        if (p->vars[i].len == t.len && strncmp(p->src + p->vars[i].at, s, t.len) == 0) {
            *out = p->vars[i].v;
            return true;
        }
    if (!p->run) {
        *out = num_val(0, true);
        return true;
    }
    return fail(p, t.at, "unknown name '%.*s' (only a comprehension's variable, "
                "True and False may be used)", (int)t.len, s);
}

static bool parse_list(parser *p, val *out);

static bool parse_atom(parser *p, val *out)
{
    token t = p->t;
    char b[64];
    if (t.kind == T_NUM) {
        if (!t.num.exact)
            return fail(p, t.at, "integer literal '%.*s' is too large (more than 2**53)",
                        (int)(t.len > 40 ? 40 : t.len), p->src + t.at);
        *out = num_val(t.num.num, t.num.is_int);
        return next(p);
    }
    if (t.kind == T_STR) {
        *out = (val){.kind = V_STR, .at = t.at + 1, .len = t.len - 2};
        return next(p);
    }
    if (t.kind == T_NAME && !is_name(p, "for") && !is_name(p, "in") && !is_name(p, "if") &&
        !is_name(p, "else") && !is_name(p, "and") && !is_name(p, "or") && !is_name(p, "not"))
        return parse_name(p, out);
    if (is_op(p, "(")) {
        if (!next(p) || !parse_test(p, out))
            return false;
        if (!expect_op(p, ")")) {
            val_free(out);
            return false;
        }
        return true;
    }
    if (is_op(p, "["))
        return parse_list(p, out);
    return fail(p, t.at, "unexpected %s", tok_text(p, b, sizeof b));
}

/* An atom and a check that nothing Python would apply to it follows. */
static bool parse_primary(parser *p, val *out)
{
    if (!enter(p) || !parse_atom(p, out))
        return leave(p, false);
    const char *what = is_op(p, ".") ? "attribute access" : is_op(p, "[") ? "indexing"
                     : is_op(p, "(") ? "calling a value" : NULL;
    if (what) {
        val_free(out);
        return leave(p, fail(p, p->t.at, "%s is not allowed", what));
    }
    return leave(p, true);
}

static bool parse_power(parser *p, val *out)
{
    if (!parse_primary(p, out))
        return false;
    if (!is_op(p, "**"))
        return true;
    token op = p->t;
    val b = {0};
    if (!next(p) || !parse_unary(p, &b)) {
        val_free(out);
        return false;
    }
    val a = *out;
    return binary(p, op, &a, &b, out);
}

static bool parse_unary(parser *p, val *out)
{
    if (!is_op(p, "-") && !is_op(p, "+"))
        return parse_power(p, out);
    token op = p->t;
    if (!enter(p) || !next(p) || !parse_unary(p, out))
        return leave(p, false);
    if (p->run && out->kind != V_NUM) {
        val_free(out);
        return leave(p, fail(p, op.at, "bad operand type for unary %c: '%s'",
                             p->src[op.at], kind_name(out)));
    }
    if (p->src[op.at] == '-')
        out->num = -out->num;
    out->is_bool = false;
    out->len = 0; /* -True is the number -1 */
    return leave(p, true);
}

/* Left-associative levels: "+ -" over parse_term, "* / // %" over unary. */
static bool parse_level(parser *p, int level, val *out)
{
    static const char *const OPS_OF[2][4] = {{"+", "-", NULL}, {"*", "/", "//", "%"}};
    if (!(level ? parse_unary(p, out) : parse_level(p, 1, out)))
        return false;
    for (;;) {
        bool found = false;
        for (size_t i = 0; i < 4 && OPS_OF[level][i] && !found; i++)
            found = is_op(p, OPS_OF[level][i]);
        if (!found)
            return true;
        token op = p->t;
        val a = *out, b = {0};
        if (!next(p) || !(level ? parse_unary(p, &b) : parse_level(p, 1, &b))) {
            val_free(out);
            return false;
        }
        if (!binary(p, op, &a, &b, out))
            return false;
    }
}

static const char *const CMPS[] = {"==", "!=", "<=", ">=", "<", ">", NULL};

static bool compare(parser *p, token op, const val *a, const val *b, bool *res)
{
    const char *o = p->src + op.at;
    int c;
    if (a->kind == V_NUM && b->kind == V_NUM) {
        c = (a->num > b->num) - (a->num < b->num);
    } else if (a->kind == V_STR && b->kind == V_STR) {
        size_t m = a->len < b->len ? a->len : b->len;
        c = strncmp(p->src + a->at, p->src + b->at, m);
        c = c ? c : (a->len > b->len) - (a->len < b->len);
    } else if (a->kind != V_LIST && b->kind != V_LIST && o[1] == '=' &&
               (o[0] == '=' || o[0] == '!')) {
        c = 1; /* a number never equals a string */
    } else {
        return fail(p, op.at, "cannot compare '%s' with '%s'", kind_name(a), kind_name(b));
    }
    switch (o[0]) {
    case '=': *res = c == 0; break;
    case '!': *res = c != 0; break;
    case '<': *res = op.len == 2 ? c <= 0 : c < 0; break;
    default: *res = op.len == 2 ? c >= 0 : c > 0; break;
    }
    return true;
}

static bool is_cmp(const parser *p)
{
    for (const char *const *c = CMPS; *c; c++)
        if (is_op(p, *c))
            return true;
    return false;
}

/* Chained comparisons: a < b < c is a < b and b < c. */
static bool parse_comparison(parser *p, val *out)
{
    if (!parse_level(p, 0, out))
        return false;
    if (!is_cmp(p))
        return true;
    val left = *out;
    bool all = true;
    while (is_cmp(p)) {
        token op = p->t;
        val right = {0};
        bool res = true;
        bool ok = next(p) && parse_level(p, 0, &right) &&
                  (!p->run || !all || compare(p, op, &left, &right, &res));
        val_free(&left);
        left = right;
        if (!ok) {
            val_free(&left);
            *out = num_val(0, true);
            return false;
        }
        all = all && res;
    }
    val_free(&left);
    *out = num_val(all, true);
    out->is_bool = true;
    return true;
}

static bool parse_not(parser *p, val *out)
{
    if (!is_name(p, "not"))
        return parse_comparison(p, out);
    if (!enter(p) || !next(p) || !parse_not(p, out))
        return leave(p, false);
    bool t = truthy(out);
    val_free(out);
    *out = num_val(!t, true);
    out->is_bool = true;
    return leave(p, true);
}

/* `and` (level 1) over parse_not, `or` (level 0) over `and`: the deciding
 * operand is the result; the skipped one is parsed dry. */
static bool parse_logic(parser *p, int level, val *out)
{
    const char *word = level ? "and" : "or";
    if (!(level ? parse_not(p, out) : parse_logic(p, 1, out)))
        return false;
    while (is_name(p, word)) {
        bool decided = p->run && truthy(out) == (level == 0);
        bool run = p->run;
        val b = {0};
        p->run = run && !decided;
        bool ok = next(p) && (level ? parse_not(p, &b) : parse_logic(p, 1, &b));
        p->run = run;
        if (!ok || !decided) {
            val_free(out);
            *out = b;
        }
        if (!ok)
            return false;
    }
    return true;
}

static bool parse_test(parser *p, val *out)
{
    *out = num_val(0, true);
    return parse_logic(p, 0, out);
}

/* A list element must be a scalar. */
static bool push_item(parser *p, size_t at, val *list, val *x)
{
    if (!p->run) {
        val_free(x);
        return true;
    }
    if (x->kind == V_LIST) {
        val_free(x);
        return fail(p, at, "a list inside a list is not supported");
    }
    return list_push(p, at, list->list, *x);
}

/* Run the loop of a comprehension: for each item of it, bind the variable,
 * test the condition (parsed again from cond, if any) and evaluate the
 * element (parsed again from elem). */
static bool run_loop(parser *p, var v, const val *it, size_t elem, size_t cond, val *out)
{
    if (it->kind != V_LIST)
        return fail(p, elem, "a comprehension iterates over a list or a range, not %s",
                    kind_name(it));
    if (!new_list(p, out))
        return false;
    bool ok = true;
    p->vars[p->nvars++] = v;
    for (size_t i = 0; ok && i < it->list->n; i++) {
        p->vars[p->nvars - 1].v = it->list->v[i];
        bool keep = true;
        val x = {0};
        if (cond != SIZE_MAX) {
            ok = seek(p, cond) && parse_logic(p, 0, &x);
            keep = truthy(&x);
            val_free(&x);
        }
        if (ok && keep)
            ok = seek(p, elem) && parse_test(p, &x) && push_item(p, elem, out, &x);
    }
    p->nvars--;
    if (!ok)
        val_free(out);
    return ok;
}

/* The rest of [e for v in it if c] from 'for', e having been parsed dry
 * from elem. */
static bool parse_comprehension(parser *p, size_t elem, val *out)
{
    if (!next(p))
        return false;
    if (p->t.kind != T_NAME || is_name(p, "in"))
        return fail(p, p->t.at, "expected a variable name after 'for'");
    if (p->nvars == VARS_MAX)
        return fail(p, p->t.at, "comprehensions nested too deeply");
    var v = {.at = p->t.at, .len = p->t.len};
    if (!next(p))
        return false;
    if (!is_name(p, "in"))
        return fail(p, p->t.at, "expected 'in' (one variable per 'for')");
    val it = {0}, c = {0};
    if (!next(p) || !parse_logic(p, 0, &it))
        return false;
    size_t cond = SIZE_MAX;
    bool run = p->run, ok = true;
    if (is_name(p, "if")) {
        cond = p->pos;
        p->run = false;
        ok = next(p) && parse_logic(p, 0, &c);
        p->run = run;
    }
    if (ok && (is_name(p, "for") || is_name(p, "if")))
        ok = fail(p, p->t.at, "only one 'for' and one 'if' per comprehension are supported");
    if (ok && !is_op(p, "]")) {
        char b[64];
        ok = fail(p, p->t.at, "expected ']', found %s", tok_text(p, b, sizeof b));
    }
    size_t end = p->t.at;
    if (ok && run)
        ok = run_loop(p, v, &it, elem, cond, out);
    else if (ok)
        ok = new_list(p, out);
    val_free(&it);
    if (ok && !(seek(p, end) && next(p))) {
        val_free(out);
        ok = false;
    }
    return ok;
}

/* The elements after the first (already parsed, and pushed when running). */
static bool parse_rest(parser *p, val *out)
{
    bool ok = true;
    while (ok && !is_op(p, "]")) {
        ok = expect_op(p, ",");
        if (ok && !is_op(p, "]")) {
            size_t at = p->t.at;
            val x = {0};
            ok = parse_test(p, &x) && push_item(p, at, out, &x);
        }
    }
    return ok && next(p);
}

/* [a, b, ...] or a comprehension, from its '['. */
static bool parse_list(parser *p, val *out)
{
    if (!enter(p) || !next(p))
        return leave(p, false);
    if (is_op(p, "]"))
        return leave(p, next(p) && new_list(p, out));
    size_t elem = p->t.at;
    bool run = p->run;
    val x = {0};
    p->run = false; /* a comprehension's element cannot be evaluated yet */
    bool ok = parse_test(p, &x);
    p->run = run;
    if (!ok)
        return leave(p, false);
    if (is_name(p, "for"))
        return leave(p, parse_comprehension(p, elem, out));
    if (!new_list(p, out))
        return leave(p, false);
    if (run)
        ok = seek(p, elem) && parse_test(p, &x) && push_item(p, elem, out, &x);
    ok = ok && parse_rest(p, out);
    if (!ok)
        val_free(out);
    return leave(p, ok);
}

/* ------------------------------------------------------------ results */

/* Python's repr of a float: the shortest digits that read back the same,
 * written out in full for exponents -4 to 15 (1000.0, 0.0015) and in
 * scientific notation beyond (1e+16, 1.5e-05), as CPython does. */
static char *float_text(double x)
{
    char buf[64];
    int prec = 1;
    for (; prec < 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    snprintf(buf, sizeof buf, "%.*e", prec - 1, x);
    int exp = atoi(strchr(buf, 'e') + 1);
    if (exp < -4 || exp >= 16)
        return kt_strdup(buf);
    int decimals = prec - 1 - exp;
    snprintf(buf, sizeof buf, "%.*f", decimals > 0 ? decimals : 0, x);
    if (decimals <= 0)
        strcat(buf, ".0");
    return kt_strdup(buf);
}

static char *item_text(const parser *p, const val *v)
{
    if (v->kind == V_STR || v->len)
        return kt_strndup(p->src + v->at, v->len);
    if (v->is_bool)
        return kt_strdup(v->num ? "True" : "False");
    if (v->is_int) /* + 0.0: -0 is 0 */
        return kt_asprintf("%.0f", v->num + 0.0);
    return float_text(v->num);
}

static bool to_items(parser *p, const vlist *l, kt_pyitem **items, size_t *n)
{
    *items = calloc(l->n ? l->n : 1, sizeof **items);
    if (!*items)
        return fail_oom(p);
    for (size_t i = 0; i < l->n; i++) {
        kt_pyitem *it = &(*items)[i];
        it->is_str = l->v[i].kind == V_STR;
        it->num = it->is_str ? 0 : l->v[i].num;
        if (!(it->text = item_text(p, &l->v[i]))) {
            kt_pylist_free(*items, i);
            *items = NULL;
            return fail_oom(p);
        }
    }
    *n = l->n;
    return true;
}

int kt_pylist_eval(const char *src, size_t max_items, kt_pyitem **items, size_t *n,
                   kt_diag *diag)
{
    parser p = {.src = src, .run = true, .max_items = max_items, .diag = diag};
    *items = NULL;
    *n = 0;
    val v = {0};
    char b[64];
    bool parsed = next(&p) && parse_test(&p, &v), ok = parsed;
    if (ok && v.kind != V_LIST)
        ok = fail(&p, 0, "expected a list like \"[1, 2, 4]\", found %s", kind_name(&v));
    if (ok && p.t.kind != T_END)
        ok = fail(&p, p.t.at, "unexpected %s after the list", tok_text(&p, b, sizeof b));
    ok = ok && to_items(&p, v.list, items, n);
    if (parsed) /* a failed parse owns nothing */
        val_free(&v);
    return ok ? KT_OK : p.err;
}

void kt_pylist_free(kt_pyitem *items, size_t n)
{
    for (size_t i = 0; items && i < n; i++)
        free(items[i].text);
    free(items);
}
