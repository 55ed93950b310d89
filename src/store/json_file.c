/* json_file.c - a whole JSON file parsed for an import. */
#include "store/json_file.h"
#include "core/json_text.h"
#include "core/util.h"

#include <bzlib.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define JSON_MAX (INT32_MAX - 2) /* json-c takes an int length */

/* Kernel Tuner appends entries as it measures them and closes the object
 * at the end; it reads a file left open (ending with ',') as closed.
 * text has room for one more byte. */
static void close_open_cache(char *text, size_t *len)
{
    while (*len && isspace((unsigned char)text[*len - 1]))
        (*len)--;
    if (*len && text[*len - 1] == ',') {
        text[*len - 1] = '}';
        text[(*len)++] = '}';
    }
    text[*len] = '\0';
}

/* One step of a decompressor: what it said after filling at most room
 * bytes of out (*written of them). */
typedef enum { UNZ_MORE, UNZ_DONE, UNZ_NOMEM, UNZ_BAD } unz_state;
typedef unz_state (*unz_step_fn)(void *z, char *out, size_t room, size_t *written);

static unz_state bz2_step(void *zp, char *out, size_t room, size_t *written)
{
    bz_stream *z = zp;
    z->next_out = out;
    z->avail_out = (unsigned)room;
    int bz = BZ2_bzDecompress(z);
    *written = room - z->avail_out;
    if (bz == BZ_OK && z->avail_in == 0 && z->avail_out > 0)
        return UNZ_BAD; /* input ended inside the stream */
    return bz == BZ_STREAM_END ? UNZ_DONE : bz == BZ_OK ? UNZ_MORE
           : bz == BZ_MEM_ERROR ? UNZ_NOMEM : UNZ_BAD;
}

static unz_state gz_step(void *zp, char *out, size_t room, size_t *written)
{
    z_stream *z = zp;
    z->next_out = (Bytef *)out;
    z->avail_out = (uInt)room;
    int rc = inflate(z, Z_NO_FLUSH);
    *written = room - z->avail_out;
    if ((rc == Z_OK || rc == Z_BUF_ERROR) && z->avail_in == 0 && z->avail_out > 0)
        return UNZ_BAD; /* input ended inside the stream */
    return rc == Z_STREAM_END ? UNZ_DONE : rc == Z_OK || rc == Z_BUF_ERROR ? UNZ_MORE
           : rc == Z_MEM_ERROR ? UNZ_NOMEM : UNZ_BAD;
}

/* Compressed data (*text, *len) replaced by what step makes of it, with a
 * spare byte; refused past JSON_MAX bytes.  what: "bzip2", "gzip". */
static int decompress(const char *path, const char *what, void *z, unz_step_fn step,
                      char **text, size_t *len, kt_diag *diag)
{
    size_t cap = *len * 8 + 4096, n = 0;
    char *out = malloc(cap);
    unz_state st = out ? UNZ_MORE : UNZ_NOMEM;
    while (st == UNZ_MORE) {
        if (cap - n < 2 && cap <= JSON_MAX) {
            char *grown = realloc(out, cap *= 2);
            if (!grown) {
                st = UNZ_NOMEM;
                break;
            }
            out = grown;
        }
        if (cap - n < 2)
            break; /* past the limit */
        size_t room = cap - n - 1 < 1u << 30 ? cap - n - 1 : 1u << 30, written = 0;
        st = step(z, out + n, room, &written);
        n += written;
    }
    free(*text);
    *text = out;
    *len = n;
    if (st == UNZ_DONE)
        return KT_OK;
    return st == UNZ_NOMEM ? kt_fail(diag, KT_ENOMEM, "%s: out of memory decompressing",
                                     path)
           : st == UNZ_MORE ? kt_fail(diag, KT_EFORMAT, "%s: decompresses to over 2 GiB, "
                                      "too large", path)
                            : kt_fail(diag, KT_EFORMAT, "%s: corrupt or truncated %s data",
                                      path, what);
}

/* bzip2 (ktune's own recordings, MIOpen's databases) or gzip (the FAIR
 * benchmark hub's caches), told by the first bytes; anything else is left
 * as it is. */
static int uncompress_any(const char *path, char **text, size_t *len, kt_diag *diag)
{
    const unsigned char *b = (const unsigned char *)*text;
    if (*len >= 3 && memcmp(b, "BZh", 3) == 0) {
        bz_stream z = {0};
        if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK)
            return kt_fail(diag, KT_ENOMEM, "out of memory");
        z.next_in = *text;
        z.avail_in = (unsigned)*len;
        int rc = decompress(path, "bzip2", &z, bz2_step, text, len, diag);
        BZ2_bzDecompressEnd(&z);
        return rc;
    }
    if (*len >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
        z_stream z = {0};
        if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) /* 16: a gzip header */
            return kt_fail(diag, KT_ENOMEM, "out of memory");
        z.next_in = (Bytef *)*text;
        z.avail_in = (uInt)*len;
        int rc = decompress(path, "gzip", &z, gz_step, text, len, diag);
        inflateEnd(&z);
        return rc;
    }
    return KT_OK;
}

static int parse(const char *path, const char *what, const char *text, size_t len,
                 json_object **out, kt_diag *diag)
{
    kt_json_error e;
    if ((*out = kt_json_parse_text(text, len, &e)))
        return KT_OK;
    if (e.nomem)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    return kt_fail(diag, KT_EFORMAT, "%s:%zu:%zu: not %s: invalid JSON: %s", path, e.line,
                   e.col, what, e.why);
}

int kt_json_file_load(const char *path, const char *what, bool close_open,
                      json_object **root, kt_diag *diag)
{
    char *text = NULL;
    size_t len = 0;
    *root = NULL;
    int rc = kt_read_file(path, &text, &len, diag);
    if (rc == KT_OK)
        rc = uncompress_any(path, &text, &len, diag);
    if (rc != KT_OK) {
        free(text);
        return rc;
    }
    if (len > JSON_MAX) {
        free(text);
        return kt_fail(diag, KT_EFORMAT, "%s: over 2 GiB, too large for %s", path, what);
    }
    char *grown = close_open ? realloc(text, len + 2) : text;
    if (!grown) {
        free(text);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    text = grown;
    if (close_open)
        close_open_cache(text, &len);
    rc = parse(path, what, text, len, root, diag);
    free(text);
    return rc;
}

int kt_json_file_import(const char *path, const char *what, bool close_open,
                        kt_db *db, kt_json_import_fn fn, void *user, kt_diag *diag)
{
    json_object *root = NULL;
    int rc = kt_json_file_load(path, what, close_open, &root, diag);
    if (rc == KT_OK)
        rc = kt_db_begin(db, diag);
    if (rc == KT_OK) {
        rc = fn(user, root);
        if (rc == KT_OK)
            rc = kt_db_commit(db, diag);
        else
            kt_db_rollback(db);
    }
    json_object_put(root);
    return rc;
}

const char *kt_json_text(json_object *o, const char *name, const char *fallback)
{
    json_object *v = NULL;
    if (json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return fallback;
}
