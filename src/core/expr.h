/* expr.h - compile-once, evaluate-fast Python-like expressions.
 *
 * T1 specs write conditions, sizes and grid formulas as Python expressions
 * over tuning-parameter and problem names ("MC % MR == 0", "ceil(M / 64)",
 * "ProblemSize[0] * 2").  kt_expr_compile turns one into a flat stack
 * program over numbered slots; kt_expr_eval runs it against a slot array.
 *
 * Grammar (lowest to highest precedence), Python semantics:
 *   a if c else b
 *   or, ||          (short-circuit, yield the deciding operand)
 *   and, &&
 *   not, !          (unary)
 *   == != < <= > >= (chained: a < b < c means a < b and b < c)
 *   + -
 *   * / // %        (/ true division, // floor division, % Python modulo:
 *                    the sign follows the divisor)
 *   unary + -
 *   **              (right-associative, binds tighter than unary minus on
 *                    its left: -2**2 == -4)
 *   atoms: numbers (123, 1.5, 1e3, 0x1f), True, False, names, NAME[int],
 *          (expr), calls min(a, b, ...), max(a, b, ...), ceil(x), floor(x),
 *          log2(x), abs(x), int(x), float(x), sqrt(x); with an environment
 *          (kt_expr_env), string literals "s" or 's' and min(NAME)/max(NAME)
 *          of a name that has a value list
 *
 * Values are doubles; integers are exact up to 2^53.  A name is resolved to
 * a slot index at compile time through the caller's name table.  NAME[i]
 * with an integer literal i is looked up as the name "NAME[i]" (so the spec
 * layer binds "ProblemSize[0]" to a slot).
 *
 * Errors: compile failures return KT_ESYNTAX with "column N: ..." (1-based
 * column in the source) in diag.  Evaluation returns KT_EDOMAIN for division
 * or modulo by zero, log2/sqrt of a negative number, and any NaN result;
 * callers treat such a condition as false.
 *
 * Threads: a compiled kt_expr is immutable; kt_expr_eval may be called on
 * one kt_expr from several threads at once.
 */
#ifndef KT_EXPR_H
#define KT_EXPR_H

#include "core/base.h"

typedef struct kt_expr kt_expr;

/* Compile src.  names[0..nnames) are the known names; the slot of a name is
 * its index in that array.  An unknown name is a KT_ESYNTAX error naming it
 * and its column.  On success *out owns a new expression. */
int kt_expr_compile(const char *src, const char *const *names, size_t nnames,
                    kt_expr **out, kt_diag *diag);

/* What a spec knows beyond the names (both parts optional).
 *   lists[i]: the value list of name i (Kernel Tuner's tune_params), or
 *     n == 0 for none.  min(NAME) and max(NAME) with that one argument are
 *     then the smallest and largest value of the list, a constant, as in
 *     Kernel Tuner's "max(filter_width)" (Python would reject max() of a
 *     number, so no valid expression changes meaning).
 *   strings[0..nstrings): the string values of string-valued parameters; a
 *     string literal compiles to KT_EXPR_STRING(i) of the one it equals, so
 *     `T == "float"` compares codes.  A literal that is none of them is an
 *     error (it could only ever compare unequal: most likely a typo).
 *     Strings are compared for (in)equality only; < and > order codes. */
typedef struct kt_expr_list {
    const double *values;
    size_t n;
} kt_expr_list;

typedef struct kt_expr_env {
    const kt_expr_list *lists;   /* nnames entries, or NULL */
    const char *const *strings;
    size_t nstrings;
    const char *const *consts;   /* names bound to a fixed value at compile */
    const double *const_values;  /* time (BAT's BenchmarkConfig); looked up */
    size_t nconsts;              /* after the slot names */
} kt_expr_env;

/* The code of string i: past 2^53, where no whole number of a spec lies
 * (Values are exact integers up to 2^53), and even, as doubles there are. */
#define KT_EXPR_STRING(i) (9007199254740992.0 + 2.0 * ((double)(i) + 1))

/* kt_expr_compile with an environment (env may be NULL). */
int kt_expr_compile_env(const char *src, const char *const *names, size_t nnames,
                        const kt_expr_env *env, kt_expr **out, kt_diag *diag);

void kt_expr_free(kt_expr *e);

/* Evaluate against slots (indexed like the names given to compile). */
int kt_expr_eval(const kt_expr *e, const double *slots, double *out);

/* The distinct slots the expression reads, in ascending order. */
size_t kt_expr_nslots(const kt_expr *e);
const uint32_t *kt_expr_slots(const kt_expr *e);

/* True when the expression reads no slot (its value is a constant). */
bool kt_expr_is_constant(const kt_expr *e);

/* The source text it was compiled from. */
const char *kt_expr_source(const kt_expr *e);

#endif /* KT_EXPR_H */
