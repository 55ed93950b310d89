/* json_file.c - a whole JSON file parsed for an import. */
#include "store/json_file.h"
#include "core/util.h"

#include <bzlib.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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

/* bzip2 data (*text, *len) decompressed in memory in its place, with a
 * spare byte; refused past JSON_MAX bytes. */
static int bunzip(const char *path, char **text, size_t *len, kt_diag *diag)
{
    bz_stream z = {0};
    if (BZ2_bzDecompressInit(&z, 0, 0) != BZ_OK)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    size_t cap = *len * 8 + 4096, n = 0;
    char *out = malloc(cap);
    z.next_in = *text;
    z.avail_in = (unsigned)*len;
    int bz = out ? BZ_OK : BZ_MEM_ERROR;
    while (bz == BZ_OK) {
        if (cap - n < 2 && cap <= JSON_MAX) {
            char *grown = realloc(out, cap *= 2);
            if (!grown) {
                bz = BZ_MEM_ERROR;
                break;
            }
            out = grown;
        }
        if (cap - n < 2)
            break; /* past the limit */
        z.next_out = out + n;
        z.avail_out = (unsigned)(cap - n - 1 < 1u << 30 ? cap - n - 1 : 1u << 30);
        bz = BZ2_bzDecompress(&z);
        n = (size_t)z.total_out_lo32 | (size_t)z.total_out_hi32 << 32;
        if (bz == BZ_OK && z.avail_in == 0 && z.avail_out > 0)
            bz = BZ_UNEXPECTED_EOF; /* input ended inside the stream */
    }
    BZ2_bzDecompressEnd(&z);
    free(*text);
    *text = out;
    *len = n;
    if (bz == BZ_STREAM_END)
        return KT_OK;
    return bz == BZ_MEM_ERROR ? kt_fail(diag, KT_ENOMEM, "%s: out of memory "
                                        "decompressing", path)
           : bz == BZ_OK      ? kt_fail(diag, KT_EFORMAT, "%s: decompresses to over 2 "
                                        "GiB, too large", path)
                              : kt_fail(diag, KT_EFORMAT, "%s: corrupt or truncated "
                                        "bzip2 data", path);
}

static int parse(const char *path, const char *what, const char *text, size_t len,
                 json_object **out, kt_diag *diag)
{
    json_tokener *tok = json_tokener_new();
    if (!tok)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    *out = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error err = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    while (end < len && isspace((unsigned char)text[end]))
        end++;
    if (*out && err == json_tokener_success && end == len)
        return KT_OK;
    json_object_put(*out);
    *out = NULL;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < end && i < len; i++, col++)
        if (text[i] == '\n')
            line++, col = 0;
    return kt_fail(diag, KT_EFORMAT, "%s:%zu:%zu: not %s: invalid JSON: %s", path, line,
                   col, what,
                   err == json_tokener_success    ? "text after the JSON value"
                   : err == json_tokener_continue ? "unexpected end of file"
                                                  : json_tokener_error_desc(err));
}

int kt_json_file_load(const char *path, const char *what, bool close_open,
                      json_object **root, kt_diag *diag)
{
    char *text = NULL;
    size_t len = 0;
    *root = NULL;
    int rc = kt_read_file(path, &text, &len, diag);
    if (rc == KT_OK && len >= 3 && memcmp(text, "BZh", 3) == 0)
        rc = bunzip(path, &text, &len, diag);
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
