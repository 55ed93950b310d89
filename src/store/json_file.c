/* json_file.c - a JSON file parsed for an import, whole, or with its one
 * large member streamed an element at a time (json_file.h). */
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

/* The file's text, decompressed, and closed when close_open (json_file.h),
 * with a spare byte. */
static int load_text(const char *path, const char *what, bool close_open, char **text,
                     size_t *len, kt_diag *diag)
{
    *text = NULL;
    *len = 0;
    int rc = kt_read_file(path, text, len, diag);
    if (rc == KT_OK)
        rc = uncompress_any(path, text, len, diag);
    if (rc == KT_OK && *len > JSON_MAX)
        rc = kt_fail(diag, KT_EFORMAT, "%s: over 2 GiB, too large for %s", path, what);
    char *grown = rc == KT_OK && close_open ? realloc(*text, *len + 2) : *text;
    if (rc == KT_OK && !grown)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc != KT_OK) {
        free(*text);
        *text = NULL;
        return rc;
    }
    *text = grown;
    if (close_open)
        close_open_cache(*text, len);
    return KT_OK;
}

int kt_json_file_load(const char *path, const char *what, bool close_open,
                      json_object **root, kt_diag *diag)
{
    char *text = NULL;
    size_t len = 0;
    *root = NULL;
    int rc = load_text(path, what, close_open, &text, &len, diag);
    if (rc == KT_OK)
        rc = parse(path, what, text, len, root, diag);
    free(text);
    return rc;
}

/* ------------------------------------------------------------ streaming */

/* A walk through a file's text: json-c parses each value it meets on its
 * own; the walk itself only steps over the punctuation of the root object
 * and of the streamed member. */
typedef struct walker {
    const char *path, *what;
    const char *text;
    size_t len, at;         /* the text, and the walk's place in it */
    json_tokener *tok;
    kt_diag *diag;
} walker;

/* Not valid JSON at offset at: file:line:column, as parse() says it. */
static int syntax_error(const walker *w, size_t at, const char *why)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < w->len; i++, col++)
        if (w->text[i] == '\n')
            line++, col = 0;
    return kt_fail(w->diag, KT_EFORMAT, "%s:%zu:%zu: not %s: invalid JSON: %s", w->path,
                   line, col, w->what, why);
}

static void skip_space(walker *w)
{
    while (w->at < w->len && isspace((unsigned char)w->text[w->at]))
        w->at++;
}

/* The next character past white space, taken when it is one of chars;
 * '\0' (nothing taken) otherwise. */
static char take_char(walker *w, const char *chars)
{
    skip_space(w);
    char c = w->at < w->len ? w->text[w->at] : '\0';
    if (!c || !strchr(chars, c))
        return '\0';
    w->at++;
    return c;
}

/* A character of chars must come next; why says what was expected. */
static int expect_char(walker *w, const char *chars, const char *why, char *got)
{
    *got = take_char(w, chars);
    if (*got)
        return KT_OK;
    return syntax_error(w, w->at, w->at < w->len ? why : "unexpected end of file");
}

/* The value at the walk's place, parsed by json-c, into *out (a JSON null
 * is NULL too). */
static int next_value(walker *w, json_object **out)
{
    json_tokener_reset(w->tok);
    *out = json_tokener_parse_ex(w->tok, w->text + w->at, (int)(w->len - w->at));
    enum json_tokener_error e = json_tokener_get_error(w->tok);
    size_t end = w->at + json_tokener_get_parse_end(w->tok);
    if (e == json_tokener_success) {
        w->at = end;
        return KT_OK;
    }
    json_object_put(*out);
    *out = NULL;
    return syntax_error(w, end, e == json_tokener_continue ? "unexpected end of file"
                                                           : json_tokener_error_desc(e));
}

/* A member's name and its ':' into *name (caller puts). */
static int member_name(walker *w, json_object **name)
{
    char colon;
    size_t at = w->at;
    int rc = next_value(w, name);
    if (rc == KT_OK && !json_object_is_type(*name, json_type_string))
        rc = syntax_error(w, at, "expected a member name (a string)");
    if (rc == KT_OK)
        rc = expect_char(w, ":", "expected ':' after a member name", &colon);
    return rc;
}

/* The elements of the object or array at the walk's place, to fn. */
static int stream_elements(walker *w, json_object *head, size_t which,
                           kt_json_element_fn fn, void *user)
{
    bool object = w->text[w->at++] == '{';
    const char *close = object ? "}" : "]", *more = object ? ",}" : ",]";
    const char *why = object ? "expected ',' or '}'" : "expected ',' or ']'";
    if (take_char(w, close))
        return KT_OK;
    int rc = KT_OK;
    for (char c = ','; rc == KT_OK && c == ',';) {
        json_object *name = NULL, *value = NULL;
        rc = object ? member_name(w, &name) : KT_OK;
        if (rc == KT_OK)
            rc = next_value(w, &value);
        if (rc == KT_OK)
            rc = fn(user, head, which, name ? json_object_get_string(name) : NULL, value);
        json_object_put(name);
        json_object_put(value);
        if (rc == KT_OK)
            rc = expect_char(w, more, why, &c);
    }
    return rc;
}

/* Past the object or array at the walk's place, by its brackets alone (a
 * string's are skipped): json-c checks its elements when they are streamed. */
static void skip_container(walker *w)
{
    size_t depth = 0;
    bool string = false;
    for (; w->at < w->len; w->at++) {
        char c = w->text[w->at];
        if (string && c == '\\')
            w->at++; /* the escaped character */
        else if (string)
            string = c != '"';
        else if (c == '"')
            string = true;
        else if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && --depth == 0) {
            w->at++;
            return;
        }
    }
    w->at = w->len;
}

/* Which of streams the member name is, at the walk's place (n if none). */
static size_t stream_of(const walker *w, const kt_json_stream *streams, size_t n,
                        const char *name)
{
    char first = w->at < w->len ? w->text[w->at] : '\0';
    for (size_t i = 0; i < n; i++)
        if (strcmp(streams[i].member, name) == 0 &&
            first == (streams[i].type == json_type_object ? '{' : '['))
            return i;
    return n;
}

/* Whether head holds every member that stream s needs. */
static bool has_needs(json_object *head, const kt_json_stream *s)
{
    for (const char *const *need = s->needs; need && *need; need++)
        if (!json_object_object_get_ex(head, *need, NULL))
            return false;
    return true;
}

/* The root object's members into head, the first streamed one's elements
 * to fn: at once, or after the other members when it comes before what it
 * needs. */
static int walk_root(walker *w, const kt_json_stream *streams, size_t n,
                     kt_json_element_fn fn, void *user, json_object *head)
{
    size_t which = n, later = 0; /* the streamed member, and where it starts if later */
    char c = take_char(w, "}") ? '}' : ',';
    int rc = KT_OK;
    while (rc == KT_OK && c == ',') {
        json_object *name = NULL, *value = NULL;
        rc = member_name(w, &name);
        skip_space(w);
        const char *key = rc == KT_OK ? json_object_get_string(name) : "";
        size_t s = rc == KT_OK && which == n ? stream_of(w, streams, n, key) : n;
        if (s < n) /* in head, empty, before its elements come */
            value = streams[s].type == json_type_object ? json_object_new_object()
                                                        : json_object_new_array();
        else if (rc == KT_OK)
            rc = next_value(w, &value);
        if (rc == KT_OK && ((s < n && !value) || json_object_object_add(head, key, value)))
            rc = kt_fail(w->diag, KT_ENOMEM, "out of memory");
        json_object_put(name);
        if (rc == KT_OK && s < n) {
            which = s;
            if (has_needs(head, &streams[s]))
                rc = stream_elements(w, head, s, fn, user);
            else {
                later = w->at;
                skip_container(w);
            }
        }
        if (rc == KT_OK)
            rc = expect_char(w, ",}", "expected ',' or '}'", &c);
    }
    if (rc == KT_OK)
        skip_space(w);
    if (rc == KT_OK && w->at < w->len)
        rc = syntax_error(w, w->at, "unexpected text after the JSON value");
    if (rc == KT_OK && later) {
        w->at = later;
        rc = stream_elements(w, head, which, fn, user);
    }
    return rc;
}

int kt_json_file_stream(const char *path, const char *what, bool close_open,
                        const kt_json_stream *streams, size_t n, kt_json_element_fn fn,
                        void *user, json_object **head, kt_diag *diag)
{
    walker w = {.path = path, .what = what, .diag = diag};
    char *text = NULL;
    *head = NULL;
    int rc = load_text(path, what, close_open, &text, &w.len, diag);
    w.text = text;
    if (rc == KT_OK && !take_char(&w, "{"))
        rc = parse(path, what, text, w.len, head, diag);
    else if (rc == KT_OK && (!(w.tok = json_tokener_new()) ||
                             !(*head = json_object_new_object())))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    else if (rc == KT_OK)
        rc = walk_root(&w, streams, n, fn, user, *head);
    if (w.tok)
        json_tokener_free(w.tok);
    free(text);
    if (rc != KT_OK) {
        json_object_put(*head);
        *head = NULL;
    }
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
