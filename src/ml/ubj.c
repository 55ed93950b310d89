/* ubj.c - the strict UBJSON reader; see ubj.h.  Every read first checks
 * the bytes left, every count is checked against them before anything is
 * allocated for it, and recursion is bounded, so no input can make it read
 * outside the buffer, allocate more than a small multiple of the input, or
 * run out of stack. */
#include "ml/ubj.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const unsigned char *start, *p, *end;
    kt_diag *diag;
    int rc;          /* the first failure */
} parser;

static bool fail(parser *ps, const char *why)
{
    if (ps->rc == KT_OK)
        ps->rc = kt_fail(ps->diag, KT_EFORMAT, "ubjson: at byte %zu: %s",
                         (size_t)(ps->p - ps->start), why);
    return false;
}

static size_t left(const parser *ps) { return (size_t)(ps->end - ps->p); }

static bool take(parser *ps, unsigned char *c)
{
    if (left(ps) < 1)
        return fail(ps, "truncated");
    *c = *ps->p++;
    return true;
}

static bool expect(parser *ps, unsigned char want, const char *why)
{
    unsigned char c;
    return take(ps, &c) && (c == want || fail(ps, why));
}

/* A big-endian signed integer of w bytes. */
static int64_t big_endian(const unsigned char *p, size_t w)
{
    uint64_t v = 0;
    for (size_t i = 0; i < w; i++)
        v = v << 8 | p[i];
    if (w < 8 && (v >> (8 * w - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * w); /* sign-extend */
    return (int64_t)v;
}

static size_t width(unsigned char marker)
{
    switch (marker) {
    case 'i': case 'U': return 1;
    case 'I': return 2;
    case 'l': case 'd': return 4;
    case 'L': return 8;
    default: return 0;
    }
}

static bool number(parser *ps, unsigned char marker, ubj_value *v)
{
    size_t w = width(marker);
    if (left(ps) < w)
        return fail(ps, "truncated number");
    if (marker == 'd') {
        uint32_t bits = (uint32_t)big_endian(ps->p, 4);
        float f;
        memcpy(&f, &bits, sizeof f);
        *v = (ubj_value){.kind = UBJ_FLOAT, .f = f};
    } else {
        int64_t i = marker == 'U' ? ps->p[0] : big_endian(ps->p, w);
        *v = (ubj_value){.kind = UBJ_INT, .i = i};
    }
    ps->p += w;
    return true;
}

/* 'L' and a count or length of items of at least `unit` bytes each, which
 * the bytes after it must hold. */
static bool count(parser *ps, size_t unit, size_t *n)
{
    if (!expect(ps, 'L', "a length or count that is not an int64 ('L')"))
        return false;
    if (left(ps) < 8)
        return fail(ps, "truncated length");
    int64_t c = big_endian(ps->p, 8);
    ps->p += 8;
    if (c < 0 || (uint64_t)c > left(ps) / unit)
        return fail(ps, "a length or count beyond the bytes left");
    *n = (size_t)c;
    return true;
}

/* A string after its 'S' (or an object's key): 'L', length, bytes. */
static bool string(parser *ps, ubj_value *v)
{
    size_t n;
    if (!count(ps, 1, &n))
        return false;
    *v = (ubj_value){.kind = UBJ_STRING, .n = n, .data = ps->p};
    ps->p += n;
    return true;
}

static bool value(parser *ps, ubj_value *v, int depth);

static bool typed_array(parser *ps, ubj_value *v)
{
    unsigned char type;
    size_t n;
    if (!take(ps, &type))
        return false;
    size_t w = type && strchr("dUlL", type) ? width(type) : 0;
    if (w == 0)
        return fail(ps, "a typed array of a type XGBoost does not write");
    if (!expect(ps, '#', "a typed array without a count") || !count(ps, w, &n))
        return false;
    *v = (ubj_value){.kind = UBJ_TYPED, .type = (char)type, .n = n, .data = ps->p};
    ps->p += n * w;
    return true;
}

static bool array(parser *ps, ubj_value *v, int depth)
{
    if (left(ps) >= 1 && *ps->p == '$') {
        ps->p++;
        return typed_array(ps, v);
    }
    size_t n;
    /* each value takes at least two bytes ("{}", "i" and its byte) */
    if (!expect(ps, '#', "an array without a count") || !count(ps, 2, &n))
        return false;
    *v = (ubj_value){.kind = UBJ_ARRAY, .n = n};
    if (n && !(v->items = calloc(n, sizeof *v->items))) {
        ps->rc = kt_fail(ps->diag, KT_ENOMEM, "out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (!value(ps, &v->items[i], depth + 1)) {
            v->n = i + 1; /* what kt_ubj_free must release, the failed value too */
            return false;
        }
    return true;
}

static bool has_key(const ubj_value *obj, const ubj_value *key)
{
    for (size_t i = 0; i < obj->n; i++)
        if (obj->keys[i].n == key->n && memcmp(obj->keys[i].data, key->data, key->n) == 0)
            return true;
    return false;
}

/* Room for one more key: the arrays grow as keys arrive, so that memory
 * stays proportional to the input. */
static bool grow(parser *ps, ubj_value *v, size_t *cap)
{
    if (v->n < *cap)
        return true;
    if (v->n == UBJ_MAX_KEYS)
        return fail(ps, "an object with too many keys");
    size_t c = *cap ? 2 * *cap : 4;
    ubj_value *k = realloc(v->keys, c * sizeof *k);
    if (k)
        v->keys = k;
    ubj_value *it = k ? realloc(v->items, c * sizeof *it) : NULL;
    if (!it) {
        ps->rc = kt_fail(ps->diag, KT_ENOMEM, "out of memory");
        return false;
    }
    v->items = it;
    memset(it + v->n, 0, (c - v->n) * sizeof *it);
    *cap = c;
    return true;
}

static bool object(parser *ps, ubj_value *v, int depth)
{
    *v = (ubj_value){.kind = UBJ_OBJECT};
    size_t cap = 0;
    for (;;) {
        if (left(ps) < 1)
            return fail(ps, "an unterminated object");
        if (*ps->p == '}') {
            ps->p++;
            return true;
        }
        ubj_value key;
        if (!grow(ps, v, &cap) || !string(ps, &key))
            return false;
        if (has_key(v, &key))
            return fail(ps, "a key twice in one object");
        v->keys[v->n] = key;
        bool ok = value(ps, &v->items[v->n], depth + 1);
        v->n++; /* kt_ubj_free releases what a failed value holds, too */
        if (!ok)
            return false;
    }
}

static bool value(parser *ps, ubj_value *v, int depth)
{
    unsigned char marker;
    if (depth > UBJ_MAX_DEPTH)
        return fail(ps, "nested too deeply");
    if (!take(ps, &marker))
        return false;
    switch (marker) {
    case '{': return object(ps, v, depth);
    case '[': return array(ps, v, depth);
    case 'S': return string(ps, v);
    case 'i': case 'U': case 'I': case 'l': case 'L': case 'd': return number(ps, marker, v);
    default: ps->p--; return fail(ps, "a marker XGBoost does not write");
    }
}

int kt_ubj_parse(const void *bytes, size_t len, ubj_value **out, kt_diag *diag)
{
    *out = NULL;
    parser ps = {bytes, bytes, (const unsigned char *)bytes + len, diag, KT_OK};
    ubj_value *v = calloc(1, sizeof *v);
    if (!v)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    if (value(&ps, v, 0) && ps.p != ps.end)
        fail(&ps, "bytes after the value");
    if (ps.rc != KT_OK) {
        kt_ubj_free(v);
        return ps.rc;
    }
    *out = v;
    return KT_OK;
}

static void release(ubj_value *v)
{
    if (v->kind != UBJ_ARRAY && v->kind != UBJ_OBJECT)
        return;
    for (size_t i = 0; v->items && i < v->n; i++)
        release(&v->items[i]);
    free(v->items);
    free(v->keys);
}

void kt_ubj_free(ubj_value *v)
{
    if (!v)
        return;
    release(v);
    free(v);
}

const ubj_value *kt_ubj_get(const ubj_value *obj, const char *key)
{
    ubj_value k = {.kind = UBJ_STRING, .n = strlen(key), .data = (const unsigned char *)key};
    for (size_t i = 0; obj && obj->kind == UBJ_OBJECT && i < obj->n; i++)
        if (obj->keys[i].n == k.n && memcmp(obj->keys[i].data, key, k.n) == 0)
            return &obj->items[i];
    return NULL;
}

bool kt_ubj_is(const ubj_value *v, const char *s)
{
    return v && v->kind == UBJ_STRING && v->n == strlen(s) && memcmp(v->data, s, v->n) == 0;
}

int64_t kt_ubj_int_at(const ubj_value *v, size_t i)
{
    size_t w = width((unsigned char)v->type);
    return v->type == 'U' ? v->data[i] : big_endian(v->data + i * w, w);
}

double kt_ubj_float_at(const ubj_value *v, size_t i)
{
    uint32_t bits = (uint32_t)big_endian(v->data + i * 4, 4);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
