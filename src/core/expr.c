/* expr.c - compile T1's Python-like expressions to a small stack program.
 *
 * Three steps: a tokenizer; a recursive-descent parser building a tree in
 * one array of nodes, folding constant subtrees as it goes; and an emitter
 * producing a flat instruction list that kt_expr_eval runs over a fixed
 * stack.  The operators' arithmetic lives in one place (apply_binary,
 * apply_call) shared by folding and evaluation, so both agree exactly.
 */
#include "core/expr.h"
#include "core/util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STACK 64   /* evaluation stack depth */
#define MAX_DEPTH 200  /* parser recursion depth */

/* ------------------------------------------------------------ operators */

typedef enum op {
    OP_CONST, OP_SLOT,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW,
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
    OP_NEG, OP_POS, OP_NOT,
    OP_CALL,
    OP_AND, OP_OR, OP_COND,    /* tree only: compiled to jumps */
    OP_JUMP_IF_FALSE_ELSE_POP, /* and: keep a falsy value, else drop it */
    OP_JUMP_IF_TRUE_ELSE_POP,  /* or: keep a truthy value, else drop it */
    OP_JUMP_IF_FALSE_POP,      /* if-else: test and drop */
    OP_JUMP
} op;

typedef enum fn { FN_MIN, FN_MAX, FN_CEIL, FN_FLOOR, FN_LOG2, FN_ABS, FN_INT,
                  FN_FLOAT, FN_SQRT } fn;

static const struct {
    const char *name;
    fn id;
    int min_args, max_args;
} FUNCS[] = {
    {"min", FN_MIN, 2, 255}, {"max", FN_MAX, 2, 255}, {"ceil", FN_CEIL, 1, 1},
    {"floor", FN_FLOOR, 1, 1}, {"log2", FN_LOG2, 1, 1}, {"abs", FN_ABS, 1, 1},
    {"int", FN_INT, 1, 1}, {"float", FN_FLOAT, 1, 1}, {"sqrt", FN_SQRT, 1, 1},
};

/* Python's a % b (b != 0).  Whole numbers take the integer unit, several
 * times faster than fmod, which conditions like "MC % MR == 0" hit all the
 * time; the answers are identical. */
static double int_mod(double a, double b)
{
    const double exact = 9007199254740992.0; /* 2^53 */
    double r;
    if (fabs(a) <= exact && fabs(b) <= exact && a == (double)(int64_t)a &&
        b == (double)(int64_t)b) {
        int64_t m = (int64_t)a % (int64_t)b;
        r = (double)m;
    } else {
        r = fmod(a, b);
    }
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

/* a (op) b; false on a domain error (division by zero, NaN, overflow). */
static bool apply_binary(op o, double a, double b, double *out)
{
    double r;
    switch (o) {
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: r = a * b; break;
    case OP_DIV:
        if (b == 0)
            return false;
        r = a / b;
        break;
    case OP_FLOORDIV:
        if (b == 0)
            return false;
        r = floor(a / b);
        break;
    case OP_MOD: /* Python: the result takes the sign of the divisor */
        if (b == 0)
            return false;
        r = int_mod(a, b);
        break;
    case OP_POW:
        if (a == 0 && b < 0)
            return false;
        r = pow(a, b);
        break;
    case OP_EQ: r = a == b; break;
    case OP_NE: r = a != b; break;
    case OP_LT: r = a < b; break;
    case OP_LE: r = a <= b; break;
    case OP_GT: r = a > b; break;
    case OP_GE: r = a >= b; break;
    default: return false;
    }
    *out = r;
    return isfinite(r);
}

static bool apply_unary(op o, double a, double *out)
{
    *out = o == OP_NEG ? -a : o == OP_NOT ? (double)(a == 0) : a;
    return true;
}

static bool apply_call(fn f, const double *args, int n, double *out)
{
    double x = args[0], r = x;
    switch (f) {
    case FN_MIN:
    case FN_MAX:
        for (int i = 1; i < n; i++)
            r = (f == FN_MIN) == (args[i] < r) ? args[i] : r;
        break;
    case FN_CEIL: r = ceil(x); break;
    case FN_FLOOR: r = floor(x); break;
    case FN_LOG2:
        if (x <= 0)
            return false;
        r = log2(x);
        break;
    case FN_ABS: r = fabs(x); break;
    case FN_INT: r = trunc(x); break;
    case FN_FLOAT: r = x; break;
    case FN_SQRT:
        if (x < 0)
            return false;
        r = sqrt(x);
        break;
    }
    *out = r;
    return isfinite(r);
}

/* ------------------------------------------------------------- tokenizer */

typedef enum tok {
    T_END, T_NUM, T_NAME, T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_COMMA,
    T_PLUS, T_MINUS, T_STAR, T_SLASH, T_DSLASH, T_PERCENT, T_DSTAR,
    T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_AND, T_OR, T_NOT, T_IF, T_ELSE, T_BAD
} tok;

typedef struct token {
    tok kind;
    int col;            /* 1-based */
    const char *start;
    size_t len;
    double num;
} token;

static const struct {
    const char *text;
    tok kind;
} PUNCT[] = {
    {"**", T_DSTAR}, {"//", T_DSLASH}, {"==", T_EQ}, {"!=", T_NE}, {"<=", T_LE},
    {">=", T_GE},    {"&&", T_AND},    {"||", T_OR}, {"(", T_LPAREN}, {")", T_RPAREN},
    {"[", T_LBRACK}, {"]", T_RBRACK},  {",", T_COMMA}, {"+", T_PLUS}, {"-", T_MINUS},
    {"*", T_STAR},   {"/", T_SLASH},   {"%", T_PERCENT}, {"<", T_LT}, {">", T_GT},
    {"!", T_NOT},
};

static const struct {
    const char *text;
    tok kind;
} WORDS[] = {{"and", T_AND}, {"or", T_OR}, {"not", T_NOT}, {"if", T_IF},
             {"else", T_ELSE}};

static token next_token(const char *src, const char **pos)
{
    const char *p = *pos;
    while (isspace((unsigned char)*p))
        p++;
    token t = {T_END, (int)(p - src) + 1, p, 0, 0};
    if (*p == '\0') {
        *pos = p;
        return t;
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        char *end;
        t.num = strtod(p, &end); /* decimal, exponent and 0x forms */
        t.kind = isalpha((unsigned char)*end) || *end == '_' ? T_BAD : T_NUM;
        t.len = (size_t)(end - p);
    } else if (isalpha((unsigned char)*p) || *p == '_') {
        const char *e = p;
        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        t.kind = T_NAME;
        t.len = (size_t)(e - p);
        for (size_t i = 0; i < KT_ARRAY_LEN(WORDS); i++)
            if (strlen(WORDS[i].text) == t.len && strncmp(WORDS[i].text, p, t.len) == 0)
                t.kind = WORDS[i].kind;
    } else {
        t.kind = T_BAD;
        t.len = 1;
        for (size_t i = 0; i < KT_ARRAY_LEN(PUNCT); i++) {
            size_t n = strlen(PUNCT[i].text);
            if (strncmp(PUNCT[i].text, p, n) == 0) {
                t.kind = PUNCT[i].kind;
                t.len = n;
                break;
            }
        }
    }
    *pos = p + t.len;
    return t;
}

/* ---------------------------------------------------------------- parser */

/* A tree node; children are indices into the parser's node array. */
typedef struct node {
    op o;
    fn f;               /* OP_CALL */
    double value;       /* OP_CONST */
    uint32_t slot;      /* OP_SLOT */
    int kids[3];
    int nkids;
    int *args;          /* OP_CALL arguments */
    int nargs;
} node;

typedef struct parser {
    const char *src, *pos;
    token cur;
    const char *const *names;
    size_t nnames;
    node *nodes;
    int nnodes, cap;
    int depth;
    kt_diag *diag;
    int err;            /* first error, KT_OK while none */
} parser;

static void advance(parser *p) { p->cur = next_token(p->src, &p->pos); }

static int syntax_error(parser *p, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int syntax_error(parser *p, int col, const char *fmt, ...)
{
    if (p->err != KT_OK)
        return -1;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->err = kt_fail(p->diag, KT_ESYNTAX, "column %d: %s", col, msg);
    return -1;
}

static int new_node(parser *p, node n)
{
    if (p->err != KT_OK)
        return -1;
    if (p->nnodes == p->cap) {
        int cap = p->cap ? p->cap * 2 : 16;
        node *g = realloc(p->nodes, (size_t)cap * sizeof *g);
        if (!g) {
            p->err = kt_fail(p->diag, KT_ENOMEM, "out of memory");
            return -1;
        }
        p->nodes = g;
        p->cap = cap;
    }
    p->nodes[p->nnodes] = n;
    return p->nnodes++;
}

static int constant(parser *p, double v)
{
    return new_node(p, (node){.o = OP_CONST, .value = v});
}

static bool is_const(const parser *p, int i) { return p->nodes[i].o == OP_CONST; }

/* Build a unary or binary node, folding it when its operands are constant
 * and the result is defined (a domain error stays for run time). */
static int combine(parser *p, op o, int a, int b)
{
    if (a < 0 || (b < 0 && o != OP_NEG && o != OP_POS && o != OP_NOT))
        return -1;
    double v;
    bool unary = o == OP_NEG || o == OP_POS || o == OP_NOT;
    if (unary && is_const(p, a) && apply_unary(o, p->nodes[a].value, &v))
        return constant(p, v);
    if (!unary && o != OP_AND && o != OP_OR && is_const(p, a) && is_const(p, b) &&
        apply_binary(o, p->nodes[a].value, p->nodes[b].value, &v))
        return constant(p, v);
    if ((o == OP_AND || o == OP_OR) && is_const(p, a)) {
        bool truthy = p->nodes[a].value != 0;
        return (o == OP_AND) == truthy ? b : a; /* Python: the deciding operand */
    }
    return new_node(p, (node){.o = o, .kids = {a, b}, .nkids = unary ? 1 : 2});
}

static int parse_expr(parser *p);

static bool enter(parser *p)
{
    if (++p->depth > MAX_DEPTH) {
        syntax_error(p, p->cur.col, "expression nested too deeply");
        return false;
    }
    return true;
}

static int expect(parser *p, tok kind, const char *what)
{
    if (p->cur.kind != kind)
        return syntax_error(p, p->cur.col, "expected %s", what);
    advance(p);
    return 0;
}

static int parse_call(parser *p, token name)
{
    int which = -1;
    for (size_t i = 0; i < KT_ARRAY_LEN(FUNCS); i++)
        if (strlen(FUNCS[i].name) == name.len &&
            strncmp(FUNCS[i].name, name.start, name.len) == 0)
            which = (int)i;
    if (which < 0)
        return syntax_error(p, name.col, "unknown function '%.*s'", (int)name.len,
                            name.start);
    advance(p); /* ( */
    int args[256], n = 0;
    bool all_const = true;
    while (p->err == KT_OK && p->cur.kind != T_RPAREN) {
        if (n == 255)
            return syntax_error(p, p->cur.col, "too many arguments");
        args[n] = parse_expr(p);
        if (args[n] < 0)
            return -1;
        all_const &= is_const(p, args[n]);
        n++;
        if (p->cur.kind != T_COMMA)
            break;
        advance(p);
    }
    if (expect(p, T_RPAREN, "')' after the arguments") < 0)
        return -1;
    if (n < FUNCS[which].min_args || n > FUNCS[which].max_args)
        return syntax_error(p, name.col, "%s() takes %s%d argument%s", FUNCS[which].name,
                            FUNCS[which].max_args > 1 ? "at least " : "",
                            FUNCS[which].min_args, FUNCS[which].min_args > 1 ? "s" : "");
    double vals[256], v;
    for (int i = 0; all_const && i < n; i++)
        vals[i] = p->nodes[args[i]].value;
    if (all_const && apply_call(FUNCS[which].id, vals, n, &v))
        return constant(p, v);
    int *copy = malloc((size_t)n * sizeof *copy);
    if (!copy) {
        p->err = kt_fail(p->diag, KT_ENOMEM, "out of memory");
        return -1;
    }
    memcpy(copy, args, (size_t)n * sizeof *copy);
    int id = new_node(p, (node){.o = OP_CALL, .f = FUNCS[which].id, .args = copy,
                                .nargs = n});
    if (id < 0)
        free(copy);
    return id;
}

/* A name, or NAME[i] looked up as the name "NAME[i]". */
static int parse_name(parser *p, token name)
{
    char key[256];
    int col = name.col;
    if (name.len >= 200)
        return syntax_error(p, col, "name too long");
    snprintf(key, sizeof key, "%.*s", (int)name.len, name.start);
    if (p->cur.kind == T_LBRACK) {
        advance(p);
        if (p->cur.kind != T_NUM || p->cur.num != floor(p->cur.num) || p->cur.num < 0)
            return syntax_error(p, p->cur.col, "expected a whole-number index");
        size_t len = strlen(key);
        snprintf(key + len, sizeof key - len, "[%.0f]", p->cur.num);
        advance(p);
        if (expect(p, T_RBRACK, "']'") < 0)
            return -1;
    }
    for (size_t i = 0; i < p->nnames; i++)
        if (strcmp(p->names[i], key) == 0)
            return new_node(p, (node){.o = OP_SLOT, .slot = (uint32_t)i});
    if (strcmp(key, "True") == 0 || strcmp(key, "False") == 0)
        return constant(p, key[0] == 'T');
    return syntax_error(p, col, "unknown name '%s'", key);
}

static int parse_atom(parser *p)
{
    token t = p->cur;
    switch (t.kind) {
    case T_NUM:
        advance(p);
        return constant(p, t.num);
    case T_NAME:
        advance(p);
        return p->cur.kind == T_LPAREN ? parse_call(p, t) : parse_name(p, t);
    case T_LPAREN: {
        advance(p);
        int e = parse_expr(p);
        return expect(p, T_RPAREN, "')'") < 0 ? -1 : e;
    }
    case T_END:
        return syntax_error(p, t.col, "unexpected end of expression");
    case T_BAD:
        return syntax_error(p, t.col, "unexpected character '%.*s'", (int)t.len, t.start);
    default:
        return syntax_error(p, t.col, "unexpected '%.*s'", (int)t.len, t.start);
    }
}

static int parse_unary(parser *p);

/* power := atom ['**' unary]  (right-associative, above unary minus) */
static int parse_power(parser *p)
{
    int base = parse_atom(p);
    if (base < 0 || p->cur.kind != T_DSTAR)
        return base;
    advance(p);
    return combine(p, OP_POW, base, parse_unary(p));
}

static int parse_unary(parser *p)
{
    tok k = p->cur.kind;
    if (k != T_MINUS && k != T_PLUS)
        return parse_power(p);
    if (!enter(p))
        return -1;
    advance(p);
    int e = combine(p, k == T_MINUS ? OP_NEG : OP_POS, parse_unary(p), -1);
    p->depth--;
    return e;
}

typedef int (*parse_fn)(parser *p);

/* One left-associative level: operand (OPERATOR operand)*. */
static int parse_level(parser *p, parse_fn operand, const tok *toks, const op *ops,
                       int n)
{
    int left = operand(p);
    for (;;) {
        int i = 0;
        while (i < n && p->cur.kind != toks[i])
            i++;
        if (left < 0 || i == n)
            return left;
        advance(p);
        left = combine(p, ops[i], left, operand(p));
    }
}

static int parse_term(parser *p)
{
    static const tok T[] = {T_STAR, T_SLASH, T_DSLASH, T_PERCENT};
    static const op O[] = {OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD};
    return parse_level(p, parse_unary, T, O, 4);
}

static int parse_sum(parser *p)
{
    static const tok T[] = {T_PLUS, T_MINUS};
    static const op O[] = {OP_ADD, OP_SUB};
    return parse_level(p, parse_term, T, O, 2);
}

/* a < b <= c means (a < b) and (b <= c); b's subtree is shared. */
static int parse_comparison(parser *p)
{
    static const tok T[] = {T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE};
    static const op O[] = {OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE};
    int left = parse_sum(p), result = -2;
    for (;;) {
        int i = 0;
        while (i < 6 && p->cur.kind != T[i])
            i++;
        if (left < 0 || i == 6)
            return result == -2 ? left : result;
        advance(p);
        int right = parse_sum(p);
        int cmp = combine(p, O[i], left, right);
        result = result == -2 ? cmp : combine(p, OP_AND, result, cmp);
        left = right;
    }
}

static int parse_not(parser *p)
{
    if (p->cur.kind != T_NOT)
        return parse_comparison(p);
    if (!enter(p))
        return -1;
    advance(p);
    int e = combine(p, OP_NOT, parse_not(p), -1);
    p->depth--;
    return e;
}

static int parse_and(parser *p)
{
    static const tok T[] = {T_AND};
    static const op O[] = {OP_AND};
    return parse_level(p, parse_not, T, O, 1);
}

static int parse_or(parser *p)
{
    static const tok T[] = {T_OR};
    static const op O[] = {OP_OR};
    return parse_level(p, parse_and, T, O, 1);
}

/* expr := or ['if' or 'else' expr] */
static int parse_expr(parser *p)
{
    if (!enter(p))
        return -1;
    int value = parse_or(p);
    if (value >= 0 && p->cur.kind == T_IF) {
        advance(p);
        int cond = parse_or(p);
        if (expect(p, T_ELSE, "'else'") < 0)
            value = -1;
        int other = value < 0 ? -1 : parse_expr(p);
        if (cond < 0 || other < 0)
            value = -1;
        else if (is_const(p, cond))
            value = p->nodes[cond].value != 0 ? value : other;
        else
            value = new_node(p, (node){.o = OP_COND, .kids = {cond, value, other},
                                       .nkids = 3});
    }
    p->depth--;
    return value;
}

/* --------------------------------------------------------------- emitter */

typedef struct insn {
    uint8_t o;          /* op */
    uint8_t f;          /* OP_CALL: fn */
    uint16_t n;         /* OP_CALL: argument count */
    uint32_t arg;       /* OP_SLOT: slot; jumps: target */
    double v;           /* OP_CONST */
} insn;

struct kt_expr {
    insn *code;
    size_t ncode;
    uint32_t *slots;    /* distinct slots read, ascending */
    size_t nslots;
    char *source;
};

typedef struct emitter {
    const parser *p;
    insn *code;
    size_t n, cap;
    int depth, max_depth;
    bool oom;
} emitter;

static size_t emit(emitter *e, insn i, int stack_change)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 16;
        insn *g = realloc(e->code, cap * sizeof *g);
        if (!g) {
            e->oom = true;
            return 0;
        }
        e->code = g;
        e->cap = cap;
    }
    e->depth += stack_change;
    if (e->depth > e->max_depth)
        e->max_depth = e->depth;
    e->code[e->n] = i;
    return e->n++;
}

static void patch(emitter *e, size_t at)
{
    if (!e->oom)
        e->code[at].arg = (uint32_t)e->n;
}

static void emit_node(emitter *e, int id)
{
    const node *nd = &e->p->nodes[id];
    size_t jump, end;
    switch (nd->o) {
    case OP_CONST: emit(e, (insn){.o = OP_CONST, .v = nd->value}, 1); break;
    case OP_SLOT: emit(e, (insn){.o = OP_SLOT, .arg = nd->slot}, 1); break;
    case OP_CALL:
        for (int i = 0; i < nd->nargs; i++)
            emit_node(e, nd->args[i]);
        emit(e, (insn){.o = OP_CALL, .f = (uint8_t)nd->f, .n = (uint16_t)nd->nargs},
             1 - nd->nargs);
        break;
    case OP_AND:
    case OP_OR:
        emit_node(e, nd->kids[0]);
        jump = emit(e, (insn){.o = nd->o == OP_AND ? OP_JUMP_IF_FALSE_ELSE_POP
                                                   : OP_JUMP_IF_TRUE_ELSE_POP}, -1);
        emit_node(e, nd->kids[1]);
        patch(e, jump);
        break;
    case OP_COND:
        emit_node(e, nd->kids[0]);
        jump = emit(e, (insn){.o = OP_JUMP_IF_FALSE_POP}, -1);
        emit_node(e, nd->kids[1]);
        end = emit(e, (insn){.o = OP_JUMP}, -1); /* the other branch starts level */
        patch(e, jump);
        emit_node(e, nd->kids[2]);
        patch(e, end);
        break;
    default:
        for (int i = 0; i < nd->nkids; i++)
            emit_node(e, nd->kids[i]);
        emit(e, (insn){.o = (uint8_t)nd->o}, 1 - nd->nkids);
        break;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The distinct slots the code reads, sorted. */
static bool collect_slots(kt_expr *x)
{
    x->slots = malloc((x->ncode ? x->ncode : 1) * sizeof *x->slots);
    if (!x->slots)
        return false;
    for (size_t i = 0; i < x->ncode; i++)
        if (x->code[i].o == OP_SLOT)
            x->slots[x->nslots++] = x->code[i].arg;
    qsort(x->slots, x->nslots, sizeof *x->slots, cmp_u32);
    size_t n = 0;
    for (size_t i = 0; i < x->nslots; i++)
        if (n == 0 || x->slots[n - 1] != x->slots[i])
            x->slots[n++] = x->slots[i];
    x->nslots = n;
    return true;
}

/* -------------------------------------------------------------- compile */

static void free_nodes(parser *p)
{
    for (int i = 0; i < p->nnodes; i++)
        if (p->nodes[i].o == OP_CALL)
            free(p->nodes[i].args);
    free(p->nodes);
}

int kt_expr_compile(const char *src, const char *const *names, size_t nnames,
                    kt_expr **out, kt_diag *diag)
{
    *out = NULL;
    parser p = {.src = src, .pos = src, .names = names, .nnames = nnames,
                .diag = diag, .err = KT_OK};
    advance(&p);
    int root = parse_expr(&p);
    if (p.err == KT_OK && p.cur.kind != T_END)
        syntax_error(&p, p.cur.col, "unexpected %s'%.*s'%s",
                     p.cur.kind == T_BAD ? "character " : "", (int)p.cur.len,
                     p.cur.start, p.cur.kind == T_BAD ? "" : " after the expression");
    emitter e = {.p = &p};
    if (p.err == KT_OK && root >= 0)
        emit_node(&e, root);
    int rc = p.err;
    if (rc == KT_OK && e.oom)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK && e.max_depth > MAX_STACK)
        rc = kt_fail(diag, KT_ESYNTAX, "column 1: expression too complex (needs a "
                     "stack of %d, the limit is %d)", e.max_depth, MAX_STACK);
    free_nodes(&p);
    kt_expr *x = rc == KT_OK ? calloc(1, sizeof *x) : NULL;
    if (rc == KT_OK && x) {
        x->code = e.code;
        x->ncode = e.n;
        e.code = NULL;
        x->source = kt_strdup(src);
        if (!x->source || !collect_slots(x)) {
            kt_expr_free(x);
            x = NULL;
        }
    }
    free(e.code);
    if (rc == KT_OK && !x)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    *out = x;
    return rc;
}

void kt_expr_free(kt_expr *e)
{
    if (!e)
        return;
    free(e->code);
    free(e->slots);
    free(e->source);
    free(e);
}

/* ------------------------------------------------------------- evaluate */

int kt_expr_eval(const kt_expr *e, const double *slots, double *out)
{
    double st[MAX_STACK];
    int sp = 0;
    const insn *code = e->code;
    size_t pc = 0, n = e->ncode;
    while (pc < n) {
        const insn *i = &code[pc++];
        switch ((op)i->o) {
        case OP_CONST: st[sp++] = i->v; break;
        case OP_SLOT: st[sp++] = slots[i->arg]; break;
        case OP_NEG: st[sp - 1] = -st[sp - 1]; break;
        case OP_POS: break;
        case OP_NOT: st[sp - 1] = st[sp - 1] == 0; break;
        case OP_CALL:
            sp -= i->n;
            if (!apply_call((fn)i->f, st + sp, i->n, &st[sp]))
                return KT_EDOMAIN;
            sp++;
            break;
        case OP_JUMP_IF_FALSE_ELSE_POP:
            if (st[sp - 1] == 0)
                pc = i->arg;
            else
                sp--;
            break;
        case OP_JUMP_IF_TRUE_ELSE_POP:
            if (st[sp - 1] != 0)
                pc = i->arg;
            else
                sp--;
            break;
        case OP_JUMP_IF_FALSE_POP:
            if (st[--sp] == 0)
                pc = i->arg;
            break;
        case OP_JUMP: pc = i->arg; break;
        default:
            sp--;
            if (!apply_binary((op)i->o, st[sp - 1], st[sp], &st[sp - 1]))
                return KT_EDOMAIN;
            break;
        }
    }
    *out = st[0];
    return isfinite(st[0]) ? KT_OK : KT_EDOMAIN;
}

size_t kt_expr_nslots(const kt_expr *e) { return e->nslots; }
const uint32_t *kt_expr_slots(const kt_expr *e) { return e->slots; }
bool kt_expr_is_constant(const kt_expr *e) { return e->nslots == 0; }
const char *kt_expr_source(const kt_expr *e) { return e->source; }
