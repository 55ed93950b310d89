/* pylist.h - evaluate the Python list expressions that T1 files write as a
 * parameter's Values, safely (a fixed grammar, no code execution).
 *
 * Accepted (Python semantics): list displays of numbers, strings, True and
 * False; range(stop), range(start, stop[, step]); list(x); comprehensions
 * [e for v in it] and [e for v in it if cond]; + on numbers and on lists
 * (concatenation); - * / // % ** and unary - +; comparisons (chained),
 * and, or, not; parentheses.  The only names are True, False and the
 * variables of enclosing comprehensions.  Anything else (another call, an
 * attribute, an index, another name) is a KT_ESYNTAX error with
 * "column N: ..." (1-based) in diag.
 *
 * Integers are exact up to 2^53; a larger integer result is an error.
 */
#ifndef KT_PYLIST_H
#define KT_PYLIST_H

#include "core/base.h"

#include <stdbool.h>
#include <stddef.h>

/* One element of the result. */
typedef struct kt_pyitem {
    char *text;  /* a string's contents, a boolean's word as written (True,
                    false), a number as Python prints it (0x10 is 16) */
    double num;  /* the number (True 1, False 0); 0 for a string */
    bool is_str; /* a string element */
} kt_pyitem;

/* Evaluate src, which must yield a list of at most max_items scalars.  On
 * success *items (caller frees with kt_pylist_free) holds *n elements. */
int kt_pylist_eval(const char *src, size_t max_items, kt_pyitem **items, size_t *n,
                   kt_diag *diag);

void kt_pylist_free(kt_pyitem *items, size_t n);

#endif /* KT_PYLIST_H */
