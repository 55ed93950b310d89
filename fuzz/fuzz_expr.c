/* fuzz_expr.c - libFuzzer harness for the expression compiler
 * (src/core/expr.c): any text either compiles or is refused with
 * KT_ESYNTAX, and a compiled expression evaluates, on ordinary, zero,
 * negative and huge slot values, to a value or KT_EDOMAIN, never crashing
 * nor invoking undefined behaviour.  Seeds: fuzz/corpus/expr/. */
#include "core/expr.h"

#include "fuzz.h"

#include <math.h>

static const char *const NAMES[] = {"M", "N", "K", "MR", "NR", "VEC", "THREADS",
                                    "ProblemSize[0]", "ProblemSize[1]", "x"};
enum { NNAMES = sizeof NAMES / sizeof NAMES[0] };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = fuzz_string(data, size);
    kt_expr *e = NULL;
    kt_diag d = {{0}};
    int rc = kt_expr_compile(src, NAMES, NNAMES, &e, &d);
    if (rc == KT_OK) {
        static const double fills[] = {3, 0, -7, 0.5, 1e300, -1e300, 4294967296.0,
                                       INFINITY, NAN};
        double slots[NNAMES];
        for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
            for (size_t i = 0; i < NNAMES; i++)
                slots[i] = fills[f] * (double)(i + 1);
            double v;
            rc = kt_expr_eval(e, slots, &v);
            if (rc != KT_OK && rc != KT_EDOMAIN)
                abort(); /* evaluation knows only these two outcomes */
        }
        (void)kt_expr_source(e);
        (void)kt_expr_is_constant(e);
        for (size_t i = 0; i < kt_expr_nslots(e); i++)
            if (kt_expr_slots(e)[i] >= NNAMES)
                abort(); /* a slot the name table does not have */
    } else if (e != NULL || d.msg[0] == '\0') {
        abort(); /* a refusal leaves no expression and says why */
    }
    kt_expr_free(e);
    free(src);
    return 0;
}
