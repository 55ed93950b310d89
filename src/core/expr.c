/* expr.c - compile T1's Python-like expressions once, evaluate them fast.
 *
 * Compiling has three steps.  A scanner reads one token ahead.  A Pratt
 * parser builds a tree in one node array, folding constant subtrees as it
 * builds them.  An emitter walks the tree into a flat program for a small
 * stack machine.
 *
 * Why the instructions look the way they do: conditions such as
 * "MC % MR == 0 and ..." are evaluated millions of times while a search
 * space is enumerated, so one instruction does as much as it can.  It reads
 * its operands straight from a slot, an inline constant or the stack (a leaf
 * costs no instruction of its own), applies one operation, and then its
 * "tail" decides what becomes of the result: push it, return it, or take a
 * short-circuit jump.  `and`, `or`, `if`/`else` and chained comparisons are
 * tails, not separate jump instructions, so the loop runs about one
 * instruction per operator.
 *
 * Folding and evaluation share apply(), so a folded constant is bit for bit
 * what evaluation would have produced.  Every value the machine holds is
 * finite: slots are checked when read, constants when scanned, and every
 * result when computed; comparisons and truth tests can then trust them.
 */
#include "core/expr.h"
#include "core/pynum.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK_MAX 64   /* evaluation stack entries (eval keeps them on the C stack) */
#define NEST_MAX 100   /* nesting: parentheses, arguments, unary operators, `**`, `else` */
#define HEIGHT_MAX 500 /* tree height: bounds the emitter's recursion */
#define ARGS_MAX 64    /* arguments of one call */
#define CHAIN_MAX 32   /* comparisons in one chain (a < b < c ...) */
#define NONE UINT32_MAX

/* ------------------------------------------------------------ operations */

typedef enum opcode {
    /* unary: the operand is y */
    O_LOAD, O_NEG, O_NOT, O_CEIL, O_FLOOR, O_LOG2, O_ABS, O_INT, O_SQRT,
    /* binary: x op y */
    O_ADD, O_SUB, O_MUL, O_DIV, O_FLOORDIV, O_MOD, O_POW, O_MIN, O_MAX,
    O_EQ, O_NE, O_LT, O_LE, O_GT, O_GE,
} opcode;

/* v as an int32 when it is a whole number that fits, for the fast paths of
 * `//` and `%` (an integer divide is far cheaper than fmod).  The range is
 * open at -2^31 so that INT32_MIN / -1 cannot happen. */
static inline bool small_int(double v, int32_t *out)
{
    if (!(v > -2147483648.0 && v < 2147483648.0))
        return false;
    *out = (int32_t)v;
    return (double)*out == v;
}

/* Python's float a // b (b != 0): CPython's float_floor_div, which rounds
 * the quotient from fmod so that 1 // 0.1 == 9.0, not floor(10.0). */
static double float_floordiv(double a, double b)
{
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0)))
        div -= 1.0;
    if (div == 0)
        return copysign(0.0, a / b);
    double fl = floor(div);
    return div - fl > 0.5 ? fl + 1.0 : fl;
}

/* Python's float a % b (b != 0): the sign follows the divisor. */
static double float_mod(double a, double b)
{
    double mod = fmod(a, b);
    if (mod == 0)
        return copysign(0.0, b);
    return (b < 0) != (mod < 0) ? mod + b : mod;
}

/* a // b and a % b for b != 0; whole numbers take the integer unit. */
static inline double py_floordiv(double a, double b)
{
    int32_t ia, ib;
    if (small_int(a, &ia) && small_int(b, &ib)) {
        int32_t q = ia / ib;
        return q - (ia % ib != 0 && ((ia < 0) != (ib < 0)));
    }
    return float_floordiv(a, b);
}

static inline double py_mod(double a, double b)
{
    int32_t ia, ib;
    if (small_int(a, &ia) && small_int(b, &ib)) {
        int32_t m = ia % ib;
        return m != 0 && ((m < 0) != (ib < 0)) ? m + ib : m;
    }
    return float_mod(a, b);
}

/* r = x op y (unary operations read y).  False on a domain error: division
 * by zero, log2 or sqrt outside their domain, or a result that is not
 * finite (overflow, 0 ** -1, a negative number to a fractional power).
 * Forced inline: it is the body of the eval loop, and a call there costs
 * more than most operations. */
static inline __attribute__((always_inline)) bool apply(uint8_t op, double x, double y, double *out)
{
    double r;
    switch ((opcode)op) {
    case O_LOAD: r = y; break;
    case O_NEG: r = -y; break;
    case O_NOT: r = y == 0; break;
    case O_CEIL: r = ceil(y); break;
    case O_FLOOR: r = floor(y); break;
    case O_LOG2:
        if (!(y > 0)) /* Python raises for 0 as well as for negatives */
            return false;
        r = log2(y);
        break;
    case O_ABS: r = fabs(y); break;
    case O_INT: r = trunc(y); break;
    case O_SQRT:
        if (y < 0)
            return false;
        r = sqrt(y);
        break;
    case O_ADD: r = x + y; break;
    case O_SUB: r = x - y; break;
    case O_MUL: r = x * y; break;
    case O_DIV:
        if (y == 0)
            return false;
        r = x / y;
        break;
    case O_FLOORDIV:
        if (y == 0)
            return false;
        r = py_floordiv(x, y);
        break;
    case O_MOD:
        if (y == 0)
            return false;
        r = py_mod(x, y);
        break;
    case O_POW: r = pow(x, y); break;
    case O_MIN: r = y < x ? y : x; break; /* Python keeps the first on ties */
    case O_MAX: r = y > x ? y : x; break;
    case O_EQ: r = x == y; break;
    case O_NE: r = x != y; break;
    case O_LT: r = x < y; break;
    case O_LE: r = x <= y; break;
    case O_GT: r = x > y; break;
    case O_GE: r = x >= y; break;
    default: return false;
    }
    *out = r;
    return isfinite(r);
}

/* ---------------------------------------------------------------- program */

/* Where an instruction's operand comes from. */
enum { M_NONE, M_STACK, M_SLOT, M_CONST };

/* What happens to an instruction's result. */
typedef enum tailkind {
    TL_PUSH,      /* push it */
    TL_RET,       /* it is the value of the expression */
    TL_AND,       /* an operand of `and`: falsy: push it and jump; else drop it */
    TL_OR,        /* an operand of `or`: truthy: push it and jump; else drop it */
    TL_AND_RET,   /* TL_AND whose jump lands on the end: return a falsy result */
    TL_OR_RET,    /* TL_OR whose jump lands on the end: return a truthy result */
    TL_IF,        /* a condition: truthy: jump; drop it either way */
    TL_IFNOT,     /* a condition: falsy: jump; drop it either way */
    TL_CHAIN,     /* a link of a < b < c: falsy: push False and jump;
                     truthy: push y, the next link's left operand */
    TL_CHAIN_RET, /* TL_CHAIN whose jump lands on the end */
    TL_JUMP,      /* jump (the instruction reads nothing) */
} tailkind;

typedef struct insn {
    uint8_t op;      /* opcode */
    uint8_t lm, rm;  /* where x and y come from (M_*); the stack's y is on top */
    uint8_t tail;    /* what happens to the result (TL_*) */
    uint32_t target; /* jump target; while unpatched, the next jump to patch */
    uint32_t l, r;   /* the slot of an M_SLOT operand */
    double k;        /* the M_CONST operand (at most one per instruction) */
} insn;

/* One allocation: this header, then the code, the slots, the source. */
struct kt_expr {
    const insn *code;
    size_t ncode;
    const uint32_t *slots; /* distinct slots read, ascending */
    size_t nslots;
    const char *source;
};

/* ---------------------------------------------------------------- scanner */

typedef enum tokkind {
    K_END, K_NUM, K_NAME, K_LPAREN, K_RPAREN, K_LBRACK, K_RBRACK, K_COMMA,
    K_PLUS, K_MINUS, K_STAR, K_SLASH, K_DSLASH, K_PERCENT, K_DSTAR,
    K_EQ, K_NE, K_LT, K_LE, K_GT, K_GE,
    K_AND, K_OR, K_NOT, K_IF, K_ELSE, K_TRUE, K_FALSE, K_STR,
    K_COUNT
} tokkind;

typedef struct token {
    tokkind kind;
    size_t at, len; /* byte offset in the source (column - 1), length */
    double num;     /* K_NUM: the value */
    bool integer;   /* K_NUM: written as an integer (it may index NAME[i]) */
} token;

/* Tree nodes; children are indices into the node array, -1 for none. */
typedef enum nodekind { N_CONST, N_SLOT, N_UNARY, N_BINARY, N_CHAIN, N_AND, N_OR, N_IF } nodekind;

typedef struct node {
    uint8_t kind;    /* nodekind */
    uint8_t op;      /* N_UNARY, N_BINARY, N_CHAIN: the opcode */
    uint16_t height; /* 1 for a leaf */
    int32_t a, b, c; /* operands; N_CHAIN: a op b, then the link c (whose a
                        is this b); N_IF: b if a else c */
    uint32_t slot;   /* N_SLOT */
    size_t at;       /* where its operator or atom starts, for messages */
    double k;        /* N_CONST */
} node;

/* The state of one compilation: scanner, tree, program, outcome. */
typedef struct cc {
    const char *src;
    const char *const *names;
    size_t nnames;
    const kt_expr_env *env; /* NULL: none */
    size_t pos;      /* where the scanner goes on */
    token tok;       /* the current token */
    node *nodes;
    size_t nnodes, nodecap;
    int nest;        /* parser recursion depth */
    insn *code;
    size_t ncode, codecap;
    int depth;       /* stack entries at the end of the code emitted so far */
    int err;         /* the first error; KT_OK while none */
    kt_diag *diag;
} cc;

static void diag_set(kt_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void diag_set(kt_diag *d, const char *fmt, ...)
{
    if (!d)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
}

static int32_t fail_at(cc *c, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Record a syntax error at byte offset `at` (only the first one counts) and
 * return -1, the "no node" that callers pass up. */
static int32_t fail_at(cc *c, size_t at, const char *fmt, ...)
{
    if (c->err != KT_OK)
        return -1;
    char msg[448];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->err = KT_ESYNTAX;
    diag_set(c->diag, "column %zu: %s", at + 1, msg);
    return -1;
}

static int32_t fail_oom(cc *c)
{
    if (c->err == KT_OK) {
        c->err = KT_ENOMEM;
        diag_set(c->diag, "out of memory compiling an expression");
    }
    return -1;
}

/* ASCII classes: the scanner must not depend on the C locale. */
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
static bool is_alpha(char ch) { return (ch | 0x20) >= 'a' && (ch | 0x20) <= 'z'; }
static bool is_word(char ch) { return is_alpha(ch) || is_digit(ch) || ch == '_'; }
static bool is_space(char ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); }

/* A number literal, read as Python reads it (core/pynum.c). */
static void scan_number(cc *c, token *t)
{
    kt_pynum n;
    kt_diag d = {{0}};
    int rc = kt_pynum_scan(c->src + t->at, &n, &d);
    t->len = n.len;
    t->num = n.num;
    t->integer = n.is_int;
    if (rc != KT_OK) {
        fail_at(c, t->at, "%s", d.msg);
        t->kind = K_END;
    }
}

static const struct {
    const char *word;
    tokkind kind;
} KEYWORDS[] = {
    {"and", K_AND}, {"or", K_OR}, {"not", K_NOT}, {"if", K_IF},
    {"else", K_ELSE}, {"True", K_TRUE}, {"False", K_FALSE},
};

/* Two-character operators come first so that "**" is not read as "*". */
static const struct {
    const char *text;
    tokkind kind;
} PUNCT[] = {
    {"**", K_DSTAR}, {"//", K_DSLASH}, {"==", K_EQ}, {"!=", K_NE}, {"<=", K_LE},
    {">=", K_GE},    {"&&", K_AND},    {"||", K_OR}, {"(", K_LPAREN}, {")", K_RPAREN},
    {"[", K_LBRACK}, {"]", K_RBRACK},  {",", K_COMMA}, {"+", K_PLUS}, {"-", K_MINUS},
    {"*", K_STAR},   {"/", K_SLASH},   {"%", K_PERCENT}, {"<", K_LT}, {">", K_GT},
    {"!", K_NOT},
};

/* What the user probably meant by a character the grammar lacks. */
static const char *char_hint(char ch)
{
    switch (ch) {
    case '=': return " (use '==' to compare)";
    case '&': return " (use 'and' or '&&')";
    case '|': return " (use 'or' or '||')";
    case '\'':
    case '"': return " (unterminated string)";
    default: return "";
    }
}

static void scan_other(cc *c, token *t)
{
    const char *s = c->src + t->at;
    for (size_t i = 0; i < sizeof PUNCT / sizeof PUNCT[0]; i++) {
        size_t n = strlen(PUNCT[i].text);
        if (strncmp(s, PUNCT[i].text, n) == 0) {
            t->kind = PUNCT[i].kind;
            t->len = n;
            return;
        }
    }
    unsigned char ch = (unsigned char)s[0];
    if (ch >= 0x20 && ch < 0x7f)
        fail_at(c, t->at, "unexpected character '%c'%s", ch, char_hint((char)ch));
    else
        fail_at(c, t->at, "unexpected byte 0x%02x", ch);
    t->kind = K_END;
}

/* A string literal without escapes: the token spans its quotes. */
static void scan_string(cc *c, token *t)
{
    const char *s = c->src + t->at;
    const char *end = strchr(s + 1, s[0]);
    if (!end) {
        fail_at(c, t->at, "unterminated string");
        return;
    }
    if (memchr(s + 1, '\\', (size_t)(end - s - 1))) {
        fail_at(c, t->at, "escape sequences in strings are not supported");
        return;
    }
    t->kind = K_STR;
    t->len = (size_t)(end - s) + 1;
}

/* Advance to the next token.  A malformed one is reported and read as the
 * end, which stops the parser. */
static void next(cc *c)
{
    const char *s = c->src;
    size_t i = c->pos;
    while (is_space(s[i]))
        i++;
    token t = {.kind = K_END, .at = i};
    if (s[i] == '\0') {
        /* the end */
    } else if (is_digit(s[i]) || (s[i] == '.' && is_digit(s[i + 1]))) {
        t.kind = K_NUM;
        scan_number(c, &t);
    } else if (s[i] == '"' || s[i] == '\'') {
        scan_string(c, &t);
    } else if (is_alpha(s[i]) || s[i] == '_') {
        while (is_word(s[i + t.len]))
            t.len++;
        t.kind = K_NAME;
        for (size_t k = 0; k < sizeof KEYWORDS / sizeof KEYWORDS[0]; k++)
            if (strlen(KEYWORDS[k].word) == t.len && memcmp(KEYWORDS[k].word, s + i, t.len) == 0)
                t.kind = KEYWORDS[k].kind;
    } else {
        scan_other(c, &t);
    }
    c->pos = t.at + t.len;
    c->tok = t;
}

/* A token's text for a message, at most 40 characters. */
#define TOKTEXT(c, t) (int)((t).len < 40 ? (t).len : 40), (c)->src + (t).at

/* ------------------------------------------------------------------ tree */

static int32_t new_node(cc *c, node n)
{
    if (c->err != KT_OK)
        return -1;
    int32_t kids[3] = {n.a, n.b, n.c};
    unsigned h = 0;
    for (int i = 0; i < 3; i++)
        if (kids[i] >= 0 && c->nodes[kids[i]].height > h)
            h = c->nodes[kids[i]].height;
    if (h >= HEIGHT_MAX)
        return fail_at(c, n.at, "expression too long (more than %d nested operations)",
                       HEIGHT_MAX);
    n.height = (uint16_t)(h + 1);
    if (c->nnodes == c->nodecap) {
        size_t cap = c->nodecap ? 2 * c->nodecap : 32;
        node *g = realloc(c->nodes, cap * sizeof *g);
        if (!g)
            return fail_oom(c);
        c->nodes = g;
        c->nodecap = cap;
    }
    c->nodes[c->nnodes] = n;
    return (int32_t)c->nnodes++;
}

static int32_t make_const(cc *c, double v, size_t at)
{
    return new_node(c, (node){.kind = N_CONST, .a = -1, .b = -1, .c = -1, .k = v, .at = at});
}

static bool is_const(const cc *c, int32_t i) { return c->nodes[i].kind == N_CONST; }
static bool is_leaf(const cc *c, int32_t i) { return c->nodes[i].kind <= N_SLOT; }

static int32_t make_unary(cc *c, uint8_t op, int32_t a, size_t at)
{
    double v;
    if (a < 0)
        return -1;
    if (is_const(c, a) && apply(op, 0, c->nodes[a].k, &v))
        return make_const(c, v, at);
    if (op == O_LOAD) /* unary plus, float(): the value itself */
        return a;
    return new_node(c, (node){.kind = N_UNARY, .op = op, .a = a, .b = -1, .c = -1, .at = at});
}

/* A constant operation that fails (1 / 0) is left for evaluation, which
 * reports it only if that branch is taken. */
static int32_t make_binary(cc *c, uint8_t op, int32_t a, int32_t b, size_t at)
{
    double v;
    if (a < 0 || b < 0)
        return -1;
    if (is_const(c, a) && is_const(c, b) && apply(op, c->nodes[a].k, c->nodes[b].k, &v))
        return make_const(c, v, at);
    return new_node(c, (node){.kind = N_BINARY, .op = op, .a = a, .b = b, .c = -1, .at = at});
}

/* `a and b` is a when a is falsy, else b; `a or b` the other way round. */
static int32_t make_andor(cc *c, nodekind kind, int32_t a, int32_t b, size_t at)
{
    if (a < 0 || b < 0)
        return -1;
    if (is_const(c, a))
        return (c->nodes[a].k != 0) == (kind == N_AND) ? b : a;
    return new_node(c, (node){.kind = (uint8_t)kind, .a = a, .b = b, .c = -1, .at = at});
}

/* `then if cond else other`. */
static int32_t make_if(cc *c, int32_t cond, int32_t then, int32_t other, size_t at)
{
    if (cond < 0 || then < 0 || other < 0)
        return -1;
    if (is_const(c, cond))
        return c->nodes[cond].k != 0 ? then : other;
    return new_node(c, (node){.kind = N_IF, .a = cond, .b = then, .c = other, .at = at});
}

/* x0 op0 x1 op1 x2 ...: links of constants are decided from the left (a
 * false one decides the chain), the rest become N_CHAIN links that share
 * their middle operands, so each operand is computed once. */
static int32_t make_chain(cc *c, const int32_t *x, const uint8_t *op, const size_t *at,
                          size_t n)
{
    size_t i = 0;
    double v = 0;
    for (; i < n && is_const(c, x[i]) && is_const(c, x[i + 1]); i++) {
        apply(op[i], c->nodes[x[i]].k, c->nodes[x[i + 1]].k, &v); /* cannot fail */
        if (v == 0)
            return make_const(c, 0, at[i]);
    }
    if (i == n)
        return make_const(c, 1, at[n - 1]);
    if (n - i == 1)
        return make_binary(c, op[i], x[i], x[i + 1], at[i]);
    int32_t link = -1;
    for (size_t j = n; j-- > i;)
        link = new_node(c, (node){.kind = N_CHAIN, .op = op[j], .a = x[j], .b = x[j + 1],
                                  .c = link, .at = at[j]});
    return link;
}

/* ---------------------------------------------------------------- parser */

/* Binding powers, loosest first (the ternary sits below PREC_OR). */
enum { PREC_OR = 1, PREC_AND, PREC_NOT, PREC_CMP, PREC_SUM, PREC_TERM, PREC_UNARY, PREC_POW };

static const struct infix {
    uint8_t prec; /* 0: not an infix operator */
    uint8_t kind; /* N_BINARY, N_AND or N_OR (comparisons: N_CHAIN) */
    uint8_t op;
} INFIX[K_COUNT] = {
    [K_OR] = {PREC_OR, N_OR, 0},           [K_AND] = {PREC_AND, N_AND, 0},
    [K_EQ] = {PREC_CMP, N_CHAIN, O_EQ},    [K_NE] = {PREC_CMP, N_CHAIN, O_NE},
    [K_LT] = {PREC_CMP, N_CHAIN, O_LT},    [K_LE] = {PREC_CMP, N_CHAIN, O_LE},
    [K_GT] = {PREC_CMP, N_CHAIN, O_GT},    [K_GE] = {PREC_CMP, N_CHAIN, O_GE},
    [K_PLUS] = {PREC_SUM, N_BINARY, O_ADD}, [K_MINUS] = {PREC_SUM, N_BINARY, O_SUB},
    [K_STAR] = {PREC_TERM, N_BINARY, O_MUL}, [K_SLASH] = {PREC_TERM, N_BINARY, O_DIV},
    [K_DSLASH] = {PREC_TERM, N_BINARY, O_FLOORDIV},
    [K_PERCENT] = {PREC_TERM, N_BINARY, O_MOD},
    [K_DSTAR] = {PREC_POW, N_BINARY, O_POW},
};

static const struct func {
    const char *name;
    uint8_t op;
    bool variadic; /* min and max take one or more arguments, the rest one */
} FUNCS[] = {
    {"min", O_MIN, true},      {"max", O_MAX, true},    {"ceil", O_CEIL, false},
    {"floor", O_FLOOR, false}, {"log2", O_LOG2, false}, {"abs", O_ABS, false},
    {"int", O_INT, false},     {"float", O_LOAD, false}, {"sqrt", O_SQRT, false},
};

static int32_t parse_ternary(cc *c);
static int32_t parse_binary(cc *c, int minprec);

/* Each construct through which the parser can recurse without bound
 * (parentheses and arguments via parse_ternary, `else`, unary operators, the
 * right side of `**`) enters a level, so no input can exhaust the C stack;
 * between two levels the recursion is bounded by the precedence levels. */
static bool enter(cc *c)
{
    if (c->nest > NEST_MAX) { /* the top level is not nesting */
        fail_at(c, c->tok.at, "expression nested too deeply (more than %d levels)", NEST_MAX);
        return false;
    }
    c->nest++;
    return true;
}

static int32_t leave(cc *c, int32_t v)
{
    c->nest--;
    return v;
}

static const struct func *find_func(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof FUNCS / sizeof FUNCS[0]; i++)
        if (strlen(FUNCS[i].name) == len && memcmp(FUNCS[i].name, s, len) == 0)
            return &FUNCS[i];
    return NULL;
}

/* min(NAME) or max(NAME) of one name: with a value list in the
 * environment, its smallest or largest value; else the name itself. */
static int32_t list_extreme(cc *c, uint8_t op, int32_t arg, size_t at)
{
    const kt_expr_list *l = c->env && c->env->lists ? &c->env->lists[c->nodes[arg].slot]
                                                     : NULL;
    if (!l || l->n == 0)
        return arg;
    double v = l->values[0];
    for (size_t i = 1; i < l->n; i++)
        apply(op, v, l->values[i], &v);
    return make_const(c, v, at);
}

/* A string literal: the code of the environment's string it equals. */
static int32_t parse_string(cc *c, token t)
{
    const char *s = c->src + t.at + 1;
    size_t len = t.len - 2;
    size_t n = c->env ? c->env->nstrings : 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(c->env->strings[i]) == len && memcmp(c->env->strings[i], s, len) == 0)
            return make_const(c, KT_EXPR_STRING(i), t.at);
    if (n == 0)
        return fail_at(c, t.at, "strings are not supported here (no parameter takes "
                                "string values)");
    return fail_at(c, t.at, "string %.*s is not a value of any string parameter",
                   TOKTEXT(c, t));
}

/* name(args...): min/max fold into a left-leaning tree of binary nodes. */
static int32_t parse_call(cc *c, token name)
{
    const struct func *f = find_func(c->src + name.at, name.len);
    if (!f)
        return fail_at(c, name.at, "unknown function '%.*s' (known: min, max, ceil, "
                                   "floor, log2, abs, int, float, sqrt)", TOKTEXT(c, name));
    next(c); /* ( */
    int32_t args[ARGS_MAX];
    int n = 0;
    while (c->err == KT_OK && c->tok.kind != K_RPAREN) {
        if (n == ARGS_MAX)
            return fail_at(c, c->tok.at, "too many arguments (more than %d)", ARGS_MAX);
        if ((args[n++] = parse_ternary(c)) < 0)
            return -1;
        if (c->tok.kind != K_COMMA)
            break;
        next(c);
    }
    if (c->tok.kind != K_RPAREN)
        return fail_at(c, c->tok.at, "expected ')' after arguments");
    next(c);
    if (n == 0 || (n > 1 && !f->variadic))
        return fail_at(c, name.at, "%s() takes %s one argument (%d given)", f->name,
                       f->variadic ? "at least" : "exactly", n);
    if (!f->variadic)
        return make_unary(c, f->op, args[0], name.at);
    if (n == 1 && c->nodes[args[0]].kind == N_SLOT)
        return list_extreme(c, f->op, args[0], name.at);
    int32_t v = args[0];
    for (int i = 1; i < n; i++)
        v = make_binary(c, f->op, v, args[i], name.at);
    return v;
}

/* ASCII case-insensitive equality of cand with the n bytes at s. */
static bool same_letters(const char *cand, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cand[i] == '\0' || (cand[i] | 0x20) != (s[i] | 0x20))
            return false;
    return cand[n] == '\0';
}

static int32_t unknown_name(cc *c, token name, const char *suffix)
{
    const char *s = c->src + name.at;
    if (find_func(s, name.len) && !*suffix)
        return fail_at(c, name.at, "unknown name '%.*s' (it is a function: call it as "
                                   "%.*s(...))", TOKTEXT(c, name), TOKTEXT(c, name));
    for (size_t i = 0; i < c->nnames && !*suffix; i++)
        if (c->names[i] && same_letters(c->names[i], s, name.len))
            return fail_at(c, name.at, "unknown name '%.*s'; did you mean '%s'?",
                           TOKTEXT(c, name), c->names[i]);
    return fail_at(c, name.at, "unknown name '%.*s%s'", TOKTEXT(c, name), suffix);
}

/* A name, or NAME[i] with an integer literal i, looked up as "NAME[i]". */
static int32_t parse_name(cc *c, token name)
{
    char suffix[32] = "";
    if (c->tok.kind == K_LBRACK) {
        next(c);
        token ix = c->tok;
        if (ix.kind != K_NUM || !ix.integer)
            return fail_at(c, ix.at, "expected an integer index after '['");
        if (ix.num > 9007199254740992.0)
            return fail_at(c, ix.at, "index '%.*s' is too large", TOKTEXT(c, ix));
        snprintf(suffix, sizeof suffix, "[%.0f]", ix.num);
        next(c);
        if (c->tok.kind != K_RBRACK)
            return fail_at(c, c->tok.at, "expected ']' after the index");
        next(c);
    }
    const char *s = c->src + name.at;
    for (size_t i = 0; i < c->nnames; i++) {
        const char *cand = c->names[i];
        if (cand && strncmp(cand, s, name.len) == 0 && strcmp(cand + name.len, suffix) == 0)
            return new_node(c, (node){.kind = N_SLOT, .a = -1, .b = -1, .c = -1,
                                      .slot = (uint32_t)i, .at = name.at});
    }
    for (size_t i = 0; c->env && !*suffix && i < c->env->nconsts; i++)
        if (strncmp(c->env->consts[i], s, name.len) == 0 && !c->env->consts[i][name.len])
            return make_const(c, c->env->const_values[i], name.at);
    return unknown_name(c, name, suffix);
}

static int32_t parse_atom(cc *c)
{
    token t = c->tok;
    int32_t v;
    switch (t.kind) {
    case K_NUM:
        next(c);
        return make_const(c, t.num, t.at);
    case K_TRUE:
    case K_FALSE:
        next(c);
        return make_const(c, t.kind == K_TRUE, t.at);
    case K_STR:
        next(c);
        return parse_string(c, t);
    case K_NAME:
        next(c);
        return c->tok.kind == K_LPAREN ? parse_call(c, t) : parse_name(c, t);
    case K_LPAREN:
        next(c);
        if ((v = parse_ternary(c)) < 0)
            return -1;
        if (c->tok.kind != K_RPAREN)
            return fail_at(c, c->tok.at, "expected ')' to close the '(' at column %zu",
                           t.at + 1);
        next(c);
        return v;
    case K_END:
        return fail_at(c, t.at, "unexpected end of expression");
    default:
        return fail_at(c, t.at, "expected an operand, found '%.*s'", TOKTEXT(c, t));
    }
}

/* not x (below comparisons), unary - and + (below `**`), or an atom. */
static int32_t parse_prefix(cc *c, int minprec)
{
    token t = c->tok;
    if (t.kind == K_NOT) {
        if (minprec > PREC_NOT) /* Python too rejects a + not b */
            return fail_at(c, t.at, "unexpected '%.*s' (put it and its operand in "
                                    "parentheses)", TOKTEXT(c, t));
        if (!enter(c))
            return -1;
        next(c);
        return leave(c, make_unary(c, O_NOT, parse_binary(c, PREC_NOT), t.at));
    }
    if (t.kind == K_MINUS || t.kind == K_PLUS) {
        if (!enter(c))
            return -1;
        next(c);
        return leave(c, make_unary(c, t.kind == K_MINUS ? O_NEG : O_LOAD,
                                   parse_binary(c, PREC_UNARY), t.at));
    }
    return parse_atom(c);
}

/* x0 op0 x1 op1 x2 ... for comparison operators, x0 already parsed. */
static int32_t parse_chain(cc *c, int32_t first)
{
    int32_t x[CHAIN_MAX + 1] = {first};
    uint8_t op[CHAIN_MAX];
    size_t at[CHAIN_MAX], n = 0;
    while (INFIX[c->tok.kind].prec == PREC_CMP) {
        if (n == CHAIN_MAX)
            return fail_at(c, c->tok.at, "too many chained comparisons (more than %d)",
                           CHAIN_MAX);
        op[n] = INFIX[c->tok.kind].op;
        at[n] = c->tok.at;
        next(c);
        if ((x[++n] = parse_binary(c, PREC_SUM)) < 0)
            return -1;
    }
    return make_chain(c, x, op, at, n);
}

/* Operators that bind at least as tightly as minprec (precedence
 * climbing); `**` is right-associative and its right side may be negated. */
static int32_t parse_binary(cc *c, int minprec)
{
    int32_t left = parse_prefix(c, minprec);
    for (;;) {
        struct infix in = INFIX[c->tok.kind];
        if (left < 0 || in.prec == 0 || in.prec < minprec)
            break;
        if (in.prec == PREC_CMP) {
            left = parse_chain(c, left);
            continue;
        }
        size_t at = c->tok.at;
        bool pow = in.prec == PREC_POW;
        if (pow && !enter(c))
            return -1;
        next(c);
        int32_t right = parse_binary(c, pow ? PREC_UNARY : in.prec + 1);
        if (pow)
            leave(c, 0);
        left = in.kind == N_BINARY ? make_binary(c, in.op, left, right, at)
                                   : make_andor(c, (nodekind)in.kind, left, right, at);
    }
    return left;
}

/* test := or_test ['if' or_test 'else' test] */
static int32_t parse_ternary(cc *c)
{
    if (!enter(c))
        return -1;
    int32_t v = parse_binary(c, PREC_OR);
    if (v >= 0 && c->tok.kind == K_IF) {
        size_t at = c->tok.at;
        next(c);
        int32_t cond = parse_binary(c, PREC_OR);
        if (cond >= 0 && c->tok.kind != K_ELSE)
            cond = fail_at(c, c->tok.at, "expected 'else' after the condition of the 'if' "
                                         "at column %zu", at + 1);
        if (cond >= 0)
            next(c);
        v = cond < 0 ? -1 : make_if(c, cond, v, parse_ternary(c), at);
    }
    return leave(c, v);
}

/* --------------------------------------------------------------- emitter */

/* Append an instruction, tracking the stack it needs; `at` locates the
 * error if it needs more than STACK_MAX entries. */
static uint32_t emit(cc *c, insn i, size_t at)
{
    if (c->ncode == c->codecap) {
        size_t cap = c->codecap ? 2 * c->codecap : 32;
        insn *g = realloc(c->code, cap * sizeof *g);
        if (!g) {
            fail_oom(c);
            return NONE;
        }
        c->code = g;
        c->codecap = cap;
    }
    c->depth -= (i.lm == M_STACK) + (i.rm == M_STACK);
    bool pushes = i.tail == TL_PUSH || i.tail == TL_CHAIN;
    bool jump_pushes = i.tail == TL_AND || i.tail == TL_OR;
    if ((pushes || jump_pushes) && c->depth + 1 > STACK_MAX)
        fail_at(c, at, "expression too complex: it needs more than %d stack entries",
                STACK_MAX);
    c->depth += pushes;
    c->code[c->ncode] = i;
    return (uint32_t)c->ncode++;
}

/* Jumps still to be patched form a list threaded through their target
 * fields; *list is its head. */
static void emit_jump(cc *c, insn i, size_t at, uint32_t *list)
{
    i.target = *list;
    uint32_t id = emit(c, i, at);
    if (id != NONE)
        *list = id;
}

static void patch_here(cc *c, uint32_t list)
{
    while (list != NONE && c->err == KT_OK) {
        uint32_t next_jump = c->code[list].target;
        c->code[list].target = (uint32_t)c->ncode;
        list = next_jump;
    }
}

static bool jumps(uint8_t tail) { return tail != TL_PUSH && tail != TL_RET; }

static void emit_value(cc *c, int32_t id, uint8_t tail, uint32_t *list);

/* Make node id an operand of the next instruction: a slot or a constant is
 * read in place (one constant per instruction), anything else is computed
 * onto the stack first. */
static void operand(cc *c, int32_t id, insn *i, bool left)
{
    const node *n = &c->nodes[id];
    uint8_t mode = M_STACK;
    if (n->kind == N_SLOT) {
        mode = M_SLOT;
        *(left ? &i->l : &i->r) = n->slot;
    } else if (n->kind == N_CONST && i->lm != M_CONST && i->rm != M_CONST) {
        mode = M_CONST;
        i->k = n->k;
    } else {
        emit_value(c, id, TL_PUSH, NULL);
    }
    *(left ? &i->lm : &i->rm) = mode;
}

static void emit_insn(cc *c, insn i, size_t at, uint8_t tail, uint32_t *list)
{
    i.tail = tail;
    if (jumps(tail))
        emit_jump(c, i, at, list);
    else
        emit(c, i, at);
}

/* The operands of a run of `and` (or of `or`): all but the last get
 * mid_tail, the last gets last_tail. */
static void emit_flat(cc *c, int32_t id, uint8_t kind, uint8_t mid_tail, uint32_t *mid_list,
                      uint8_t last_tail, uint32_t *last_list)
{
    const node *n = &c->nodes[id];
    if (n->kind != kind) {
        emit_value(c, id, last_tail, last_list);
        return;
    }
    int32_t b = n->b;
    emit_flat(c, n->a, kind, mid_tail, mid_list, mid_tail, mid_list);
    emit_flat(c, b, kind, mid_tail, mid_list, last_tail, last_list);
}

/* `and`/`or`.  As a value: operands jump to the end with the deciding one.
 * As a condition (if/else): they jump straight to the branch, so
 * "x if a and b else y" tests a and b without materialising a value. */
static bool emit_andor(cc *c, int32_t id, uint8_t tail, uint32_t *list)
{
    uint8_t kind = c->nodes[id].kind;
    uint32_t own = NONE;
    if (tail == TL_PUSH)
        emit_flat(c, id, kind, kind == N_AND ? TL_AND : TL_OR, &own, TL_PUSH, NULL);
    else if (kind == N_AND && tail == TL_IFNOT)
        emit_flat(c, id, kind, TL_IFNOT, list, TL_IFNOT, list);
    else if (kind == N_OR && tail == TL_IF)
        emit_flat(c, id, kind, TL_IF, list, TL_IF, list);
    else if (kind == N_AND && tail == TL_IF)
        emit_flat(c, id, kind, TL_IFNOT, &own, TL_IF, list);
    else if (kind == N_OR && tail == TL_IFNOT)
        emit_flat(c, id, kind, TL_IF, &own, TL_IFNOT, list);
    else
        return false;
    patch_here(c, own);
    return true;
}

/* a < b < c: each link but the last falls through with its right operand
 * as the next link's left one (re-read in place when it is a leaf, kept on
 * the stack by TL_CHAIN otherwise); a false link jumps out with False. */
static void emit_chain(cc *c, int32_t id)
{
    uint32_t out = NONE;
    bool kept = false; /* the previous link left its right operand on the stack */
    for (int32_t link = id; link >= 0 && c->err == KT_OK; link = c->nodes[link].c) {
        const node n = c->nodes[link];
        insn i = {.op = n.op};
        if (kept)
            i.lm = M_STACK;
        else
            operand(c, n.a, &i, true);
        operand(c, n.b, &i, false);
        kept = n.c >= 0 && !is_leaf(c, n.b);
        emit_insn(c, i, n.at, n.c < 0 ? TL_PUSH : kept ? TL_CHAIN : TL_AND, &out);
    }
    patch_here(c, out);
}

/* then if cond else other: the arms share the caller's tail. */
static void emit_if(cc *c, const node *n, uint8_t tail, uint32_t *list)
{
    int32_t cond = n->a, then = n->b, other = n->c;
    size_t at = n->at;
    uint32_t to_else = NONE, to_end = NONE;
    emit_value(c, cond, TL_IFNOT, &to_else);
    int depth = c->depth;
    emit_value(c, then, tail, list);
    emit_jump(c, (insn){.tail = TL_JUMP}, at, &to_end);
    patch_here(c, to_else);
    c->depth = depth;
    emit_value(c, other, tail, list);
    patch_here(c, to_end);
}

/* Code that computes node id and then does `tail` with it (jumps of the
 * tail join *list). */
static void emit_value(cc *c, int32_t id, uint8_t tail, uint32_t *list)
{
    const node *n = &c->nodes[id];
    insn i = {.op = n->op};
    size_t at = n->at;
    if (c->err != KT_OK)
        return;
    switch ((nodekind)n->kind) {
    case N_CONST:
    case N_SLOT:
        i.op = O_LOAD;
        operand(c, id, &i, false);
        break;
    case N_UNARY:
        operand(c, n->a, &i, false);
        break;
    case N_BINARY: {
        int32_t b = n->b;
        operand(c, n->a, &i, true);
        operand(c, b, &i, false);
        break;
    }
    case N_IF:
        emit_if(c, n, tail, list);
        return;
    case N_AND:
    case N_OR:
        if (emit_andor(c, id, tail, list))
            return;
        emit_andor(c, id, TL_PUSH, NULL);
        i = (insn){.op = O_LOAD, .rm = M_STACK}; /* then test the pushed value */
        break;
    case N_CHAIN:
        emit_chain(c, id);
        if (tail == TL_PUSH)
            return;
        i = (insn){.op = O_LOAD, .rm = M_STACK};
        break;
    }
    emit_insn(c, i, at, tail, list);
}

static bool is_end(const insn *i)
{
    return i->op == O_LOAD && i->rm == M_STACK && i->lm == M_NONE && i->tail == TL_RET;
}

static bool is_goto(const insn *i) { return i->tail == TL_JUMP; }

/* Shortcuts once all targets are known: jumps to jumps go straight on, a
 * short-circuit that lands on the end returns at once, and a push that the
 * end would pop again returns instead. */
static void optimize(insn *code, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        insn *i = &code[k];
        if (!jumps(i->tail))
            continue;
        while (is_goto(&code[i->target]))
            i->target = code[i->target].target;
        if (is_end(&code[i->target]))
            i->tail = i->tail == TL_AND ? TL_AND_RET : i->tail == TL_OR ? TL_OR_RET
                    : i->tail == TL_CHAIN ? TL_CHAIN_RET : i->tail;
    }
    for (size_t k = 0; k + 1 < n; k++) {
        const insn *after = &code[k + 1];
        if (code[k].tail == TL_PUSH &&
            (is_end(after) || (is_goto(after) && is_end(&code[after->target]))))
            code[k].tail = TL_RET;
    }
}

/* ---------------------------------------------------------------- compile */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The slots the code reads, sorted and distinct, into out (room for 2 per
 * instruction); returns how many. */
static size_t collect_slots(const insn *code, size_t n, uint32_t *out)
{
    size_t m = 0, d = 0;
    for (size_t k = 0; k < n; k++) {
        if (code[k].lm == M_SLOT)
            out[m++] = code[k].l;
        if (code[k].rm == M_SLOT)
            out[m++] = code[k].r;
    }
    qsort(out, m, sizeof *out, cmp_u32);
    for (size_t k = 0; k < m; k++)
        if (d == 0 || out[d - 1] != out[k])
            out[d++] = out[k];
    return d;
}

/* Lay the program out in one allocation (see struct kt_expr). */
static int assemble(cc *c, kt_expr **out)
{
    size_t len = strlen(c->src) + 1;
    size_t code_bytes = c->ncode * sizeof(insn), slot_room = 2 * c->ncode;
    kt_expr *x = malloc(sizeof *x + code_bytes + slot_room * sizeof(uint32_t) + len);
    if (!x) {
        fail_oom(c);
        return c->err;
    }
    insn *code = (insn *)(x + 1);
    memcpy(code, c->code, code_bytes);
    uint32_t *slots = (uint32_t *)((char *)code + code_bytes);
    x->nslots = collect_slots(code, c->ncode, slots);
    char *source = (char *)(slots + slot_room);
    memcpy(source, c->src, len);
    x->code = code;
    x->ncode = c->ncode;
    x->slots = slots;
    x->source = source;
    *out = x;
    return KT_OK;
}

int kt_expr_compile(const char *src, const char *const *names, size_t nnames,
                    kt_expr **out, kt_diag *diag)
{
    return kt_expr_compile_env(src, names, nnames, NULL, out, diag);
}

int kt_expr_compile_env(const char *src, const char *const *names, size_t nnames,
                        const kt_expr_env *env, kt_expr **out, kt_diag *diag)
{
    if (out)
        *out = NULL;
    if (!src || !out || (!names && nnames) || nnames > UINT32_MAX) {
        diag_set(diag, "kt_expr_compile: invalid argument");
        return KT_EINVAL;
    }
    cc c = {.src = src, .names = names, .nnames = nnames, .env = env, .err = KT_OK,
            .diag = diag};
    next(&c);
    int32_t root = -1;
    if (c.tok.kind == K_END)
        fail_at(&c, 0, "empty expression");
    else
        root = parse_ternary(&c);
    if (root >= 0 && c.tok.kind != K_END)
        fail_at(&c, c.tok.at, c.tok.kind == K_RPAREN ? "unmatched '%.*s'"
                                                     : "expected an operator, found '%.*s'",
                TOKTEXT(&c, c.tok));
    if (c.err == KT_OK) {
        emit_value(&c, root, TL_PUSH, NULL);
        emit(&c, (insn){.op = O_LOAD, .rm = M_STACK, .tail = TL_RET}, 0);
    }
    if (c.err == KT_OK) {
        optimize(c.code, c.ncode);
        assemble(&c, out);
    }
    free(c.nodes);
    free(c.code);
    return c.err;
}

void kt_expr_free(kt_expr *e) { free(e); }

/* ---------------------------------------------------------------- evaluate */

/* The machine's stack keeps its top in a variable (a register) and the
 * entries below it in an array: the result of one instruction is usually
 * the operand of the next, and a round trip through memory would put a
 * store-to-load delay on that path. */
typedef struct stack {
    double top;            /* the top entry, when there is one */
    size_t n;              /* entries in all */
    double below[STACK_MAX]; /* below[n - 1] is under top; below[0] was the
                              * (unused) top of the empty stack */
} stack;

static inline double pop(stack *s)
{
    double v = s->top;
    s->top = s->below[--s->n];
    return v;
}

static inline void push(stack *s, double v)
{
    s->below[s->n++] = s->top;
    s->top = v;
}

/* One operand (see M_*); false if a slot holds NaN or an infinity. */
static inline bool fetch(uint8_t mode, uint32_t slot, double k, const double *slots,
                         stack *s, double *v)
{
    switch (mode) {
    case M_STACK: *v = pop(s); return true;
    case M_SLOT: *v = slots[slot]; return isfinite(*v);
    case M_CONST: *v = k; return true;
    default: return true;
    }
}

/* The stack needs no bounds checks: compile proved it never holds more
 * than STACK_MAX entries, and every jump goes forward to an instruction. */
int kt_expr_eval(const kt_expr *e, const double *slots, double *out)
{
    if (!e || !out || (!slots && e->nslots))
        return KT_EINVAL;
    stack s;
    s.top = 0;
    s.n = 0;
    size_t pc = 0;
    const insn *code = e->code;
    for (;;) {
        const insn *i = &code[pc++];
        double x = 0, y = 0, r;
        if (!fetch(i->rm, i->r, i->k, slots, &s, &y) ||
            !fetch(i->lm, i->l, i->k, slots, &s, &x) || !apply(i->op, x, y, &r))
            return KT_EDOMAIN;
        switch ((tailkind)i->tail) {
        case TL_PUSH: push(&s, r); break;
        case TL_RET: *out = r; return KT_OK;
        case TL_AND:
            if (r == 0) {
                push(&s, r);
                pc = i->target;
            }
            break;
        case TL_OR:
            if (r != 0) {
                push(&s, r);
                pc = i->target;
            }
            break;
        case TL_AND_RET:
            if (r == 0) {
                *out = r;
                return KT_OK;
            }
            break;
        case TL_OR_RET:
            if (r != 0) {
                *out = r;
                return KT_OK;
            }
            break;
        case TL_IF:
            if (r != 0)
                pc = i->target;
            break;
        case TL_IFNOT:
            if (r == 0)
                pc = i->target;
            break;
        case TL_CHAIN:
            push(&s, r != 0 ? y : 0);
            if (r == 0)
                pc = i->target;
            break;
        case TL_CHAIN_RET:
            if (r == 0) {
                *out = 0;
                return KT_OK;
            }
            push(&s, y);
            break;
        case TL_JUMP: pc = i->target; break;
        }
    }
}

size_t kt_expr_nslots(const kt_expr *e) { return e->nslots; }

const uint32_t *kt_expr_slots(const kt_expr *e) { return e->slots; }

bool kt_expr_is_constant(const kt_expr *e) { return e->nslots == 0; }

const char *kt_expr_source(const kt_expr *e) { return e->source; }
