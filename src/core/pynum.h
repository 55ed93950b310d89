/* pynum.h - Python 3 numeric literals (0x1F, 0o17, 0b101, 1_000, 1e3,
 * 1.5e-3, .5, 5.), read one way by both expression evaluators: the
 * conditions and sizes of core/expr.c and the Values lists of
 * core/pylist.c.  T1 files are written for Python tools, so a literal must
 * mean what Python makes of it, and what Python refuses (1__0, 1_, 0b2,
 * 017, 0x) is refused here too.
 */
#ifndef KT_PYNUM_H
#define KT_PYNUM_H

#include "core/base.h"

#include <stdbool.h>
#include <stddef.h>

/* One scanned literal. */
typedef struct kt_pynum {
    double num;  /* the value: finite; an int above 2^53 is rounded */
    bool is_int; /* Python reads an int: no '.', no exponent, or 0x/0o/0b */
    bool exact;  /* not an int above 2^53, which a double may round */
    size_t len;  /* characters read; on an error, the whole malformed word */
} kt_pynum;

/* Scan the literal at s, which starts with a digit or with '.' and a digit
 * (the caller's test for "a number starts here").  The literal ends at the
 * first character that cannot continue it; a letter, digit, '_' or '.'
 * there makes the whole word malformed, as in Python ("12abc", "1.2.3").
 * Returns KT_OK, or KT_ESYNTAX with Python's reason and the literal's text
 * in diag (no column: the caller knows where s is). */
int kt_pynum_scan(const char *s, kt_pynum *out, kt_diag *diag);

#endif /* KT_PYNUM_H */
