/* ubj.h - a strict, bounds-checked UBJSON reader for the subset XGBoost
 * writes (its "ubj" model format), so that a model's bytes can be checked
 * in full before XGBoost's own reader, which trusts every length and count,
 * sees them (xgb_check.c).  Not part of the public API.
 *
 * Accepted: objects '{' ('L' key value)* '}'; arrays with a count, either
 * typed ('[' '$' type '#' 'L' n, then n big-endian elements of type 'd'
 * float32, 'U' uint8, 'l' int32 or 'L' int64) or not ('[' '#' 'L' n, then n
 * values); strings 'S' 'L' length bytes; integers 'i' 'U' 'I' 'l' 'L'; and
 * float32 'd'.  Anything else is refused, as are a length or count beyond
 * the bytes left, a negative one, nesting deeper than UBJ_MAX_DEPTH, more
 * than UBJ_MAX_KEYS keys in an object, a key twice in one object (XGBoost
 * would keep the first, a checker might look at another), and bytes after
 * the top-level value.  Every value the parse returns lies inside the input
 * (strings and typed arrays point into it: the input must outlive them). */
#ifndef KT_UBJ_H
#define KT_UBJ_H

#include "core/base.h"

#include <stdint.h>

enum { UBJ_MAX_DEPTH = 16, UBJ_MAX_KEYS = 64 };

typedef enum ubj_kind { UBJ_OBJECT, UBJ_ARRAY, UBJ_TYPED, UBJ_STRING, UBJ_INT, UBJ_FLOAT } ubj_kind;

typedef struct ubj_value ubj_value;
struct ubj_value {
    ubj_kind kind;
    char type;                  /* UBJ_TYPED: the elements' marker (d, U, l, L) */
    size_t n;                   /* elements, keys, or a string's bytes */
    const unsigned char *data;  /* UBJ_STRING, UBJ_TYPED: in the input */
    int64_t i;                  /* UBJ_INT */
    double f;                   /* UBJ_FLOAT */
    ubj_value *items;           /* UBJ_ARRAY: n values; UBJ_OBJECT: n values */
    ubj_value *keys;            /* UBJ_OBJECT: n strings, in file order */
};

/* Parse len bytes holding exactly one value; *out is NULL on failure
 * (KT_EFORMAT with the offset and the reason, or KT_ENOMEM). */
int kt_ubj_parse(const void *bytes, size_t len, ubj_value **out, kt_diag *diag);
void kt_ubj_free(ubj_value *v);

/* An object's value for key, or NULL. */
const ubj_value *kt_ubj_get(const ubj_value *obj, const char *key);
/* Whether a string value is exactly s. */
bool kt_ubj_is(const ubj_value *v, const char *s);
/* Element i (< v->n) of a typed array, widened. */
int64_t kt_ubj_int_at(const ubj_value *v, size_t i);
double kt_ubj_float_at(const ubj_value *v, size_t i);

#endif /* KT_UBJ_H */
