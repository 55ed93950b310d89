/* pynum.c - scan a Python 3 numeric literal (see pynum.h).
 *
 * The grammar is Python's (Language Reference, "Numeric literals"):
 *   decinteger:  nonzerodigit (["_"] digit)* | "0"+ (["_"] "0")*
 *   0x/0o/0b:    "0" prefix (["_"] digit-of-the-base)+
 *   float:       [digitpart] "." digitpart | digitpart "." , then an
 *                optional exponent ("e" ["+"|"-"] digitpart)
 *   digitpart:   digit (["_"] digit)*
 * so an underscore stands only between two digits (or after a base
 * prefix).  Imaginary literals (1j) are refused: no T1 value is complex.
 * The value is read with strtod from "<digits>e<exponent>", which has no
 * decimal point, so the C locale cannot change it.
 */
#include "core/pynum.h"
#include "core/util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIGITS_MAX 400 /* significant digits of one literal */
#define EXP_MAX 100000 /* exponents beyond this are out of range anyway */
#define INT_EXACT (UINT64_C(1) << 53)

/* ASCII classes: the scanner must not depend on the C locale. */
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_word(char c)
{
    return is_digit(c) || c == '_' || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* The digit c in base 16 or less; 99 when c is not a hexadecimal digit. */
static int digit_value(char c)
{
    if (is_digit(c))
        return c - '0';
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        return (c | 0x20) - 'a' + 10;
    return 99;
}

/* A run of digits of base at s with single underscores between them: its
 * length (0: none).  *bad: an underscore not followed by a digit. */
static size_t digit_run(const char *s, int base, bool *bad)
{
    size_t i = 0;
    while (digit_value(s[i]) < base) {
        i++;
        if (s[i] == '_') {
            if (digit_value(s[i + 1]) >= base) {
                *bad = true;
                break;
            }
            i++;
        }
    }
    return i;
}

/* Whether the digits of base in s[0..n) (underscores skipped) make an int
 * of at most 2^53, so that its double is exact. */
static bool int_exact(const char *s, size_t n, int base)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_' && (v = v * (uint64_t)base + (uint64_t)digit_value(s[i])) > INT_EXACT)
            return false;
    return true;
}

/* Copy the digits of s[0..n) without underscores to buf (at *k). */
static void copy_digits(const char *s, size_t n, char *buf, size_t *k)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            buf[(*k)++] = s[i];
}

/* The literal's text for a message: at most 40 characters. */
#define LIT(n, s) (int)((n) < 40 ? (n) : 40), (s)

/* The end of the malformed word that a literal's start at s is part of:
 * past every letter, digit, '_' and '.' from `from` on. */
static size_t word_end(const char *s, size_t from)
{
    while (is_word(s[from]) || s[from] == '.')
        from++;
    return from;
}

static int malformed(const char *s, size_t from, const char *kind, kt_pynum *out,
                     kt_diag *diag)
{
    out->len = word_end(s, from);
    return kt_fail(diag, KT_ESYNTAX, "invalid %s literal '%.*s'", kind, LIT(out->len, s));
}

/* 0x1f, 0o17, 0b101 (s[1] is the prefix's letter). */
static int scan_radix(const char *s, int base, const char *kind, kt_pynum *out,
                      kt_diag *diag)
{
    size_t i = 2 + (s[2] == '_');
    bool bad = false;
    size_t n = digit_run(s + i, base, &bad);
    double v = 0;
    for (size_t k = i; k < i + n; k++)
        if (s[k] != '_')
            v = v * base + digit_value(s[k]);
    i += n;
    if (!bad && base < 10 && is_digit(s[i])) { /* Python's words for 0b2, 0o8 */
        out->len = word_end(s, i);
        return kt_fail(diag, KT_ESYNTAX, "invalid digit '%c' in %s literal '%.*s'", s[i],
                       kind, LIT(out->len, s));
    }
    if (bad || n == 0 || is_word(s[i]) || s[i] == '.')
        return malformed(s, i, kind, out, diag);
    *out = (kt_pynum){.num = v, .is_int = true, .exact = int_exact(s + 2, i - 2, base),
                      .len = i};
    if (!isfinite(v))
        return kt_fail(diag, KT_ESYNTAX, "number literal '%.*s' is too large", LIT(i, s));
    return KT_OK;
}

/* An exponent's digits (underscores skipped), clamped. */
static long exponent_value(const char *s, size_t n)
{
    long e = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            e = e < EXP_MAX ? e * 10 + (s[i] - '0') : e;
    return e;
}

/* 123, 1_000, 1.5, .5, 5., 1e3, 2.5E-3. */
static int scan_decimal(const char *s, kt_pynum *out, kt_diag *diag)
{
    bool bad = false, point = false;
    size_t nint = digit_run(s, 10, &bad), i = nint, frac = 0, nfrac = 0, nexp = 0;
    if (!bad && s[i] == '.') {
        point = true;
        frac = ++i;
        nfrac = digit_run(s + i, 10, &bad);
        i += nfrac;
    }
    long exp = 0;
    if (!bad && (s[i] | 0x20) == 'e') {
        size_t j = i + 1 + (s[i + 1] == '+' || s[i + 1] == '-');
        nexp = digit_run(s + j, 10, &bad);
        exp = exponent_value(s + j, nexp) * (s[i + 1] == '-' ? -1 : 1);
        i = nexp ? j + nexp : i + 1; /* "1e" and "1e+" are malformed */
        bad = bad || nexp == 0;
    }
    if ((s[i] | 0x20) == 'j' && !bad)
        return kt_fail(diag, KT_ESYNTAX, "imaginary literal '%.*s' is not supported",
                       LIT(i + 1, s));
    if (bad || is_word(s[i]) || s[i] == '.')
        return malformed(s, i, "decimal", out, diag);
    out->len = i;
    out->is_int = !point && nexp == 0;
    size_t zeros = strspn(s, "0_");
    if (out->is_int && zeros < nint && zeros > 0)
        return kt_fail(diag, KT_ESYNTAX, "leading zeros in decimal integer literals are "
                       "not permitted; use an 0o prefix for octal integers");
    char buf[DIGITS_MAX + 32];
    size_t k = 0;
    if (nint + nfrac > DIGITS_MAX)
        return kt_fail(diag, KT_ESYNTAX, "number literal too long (more than %d digits)",
                       DIGITS_MAX);
    copy_digits(s, nint, buf, &k);
    size_t kint = k;
    copy_digits(s + frac, nfrac, buf, &k);
    snprintf(buf + k, 32, "e%ld", exp - (long)(k - kint));
    out->num = strtod(buf, NULL);
    out->exact = !out->is_int || int_exact(s, nint, 10);
    if (!isfinite(out->num))
        return kt_fail(diag, KT_ESYNTAX, "number literal '%.*s' is too large", LIT(i, s));
    return KT_OK;
}

int kt_pynum_scan(const char *s, kt_pynum *out, kt_diag *diag)
{
    static const struct {
        char letter;
        int base;
        const char *kind;
    } RADIX[] = {{'x', 16, "hexadecimal"}, {'o', 8, "octal"}, {'b', 2, "binary"}};
    *out = (kt_pynum){0};
    for (size_t r = 0; s[0] == '0' && r < sizeof RADIX / sizeof RADIX[0]; r++)
        if ((s[1] | 0x20) == RADIX[r].letter)
            return scan_radix(s, RADIX[r].base, RADIX[r].kind, out, diag);
    return scan_decimal(s, out, diag);
}
