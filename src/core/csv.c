/* csv.c - RFC 4180 records, unquoted in place in the file's buffer. */
#include "core/csv.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* Where the parser stands. */
typedef struct cursor {
    const char *path;
    char *p;              /* next byte to read */
    char *line_start;     /* for column numbers */
    size_t line;
    kt_diag *diag;
} cursor;

static int syntax(cursor *c, const char *what)
{
    return kt_fail(c->diag, KT_ESYNTAX, "%s:%zu:%zu: %s", c->path, c->line,
                   (size_t)(c->p - c->line_start) + 1, what);
}

static void newline(cursor *c)
{
    c->line++;
    c->line_start = c->p;
}

/* A quoted field starting after its opening quote; written unquoted to
 * out (which trails the reading position). */
static int quoted(cursor *c, char *out, char **end)
{
    for (;;) {
        char ch = *c->p;
        if (ch == '\0')
            return syntax(c, "a quoted field is not closed");
        c->p++;
        if (ch == '"' && *c->p != '"')
            break;
        if (ch == '"')
            c->p++; /* "" is one quote */
        *out++ = ch;
        if (ch == '\n')
            newline(c);
    }
    if (*c->p != ',' && *c->p != '\n' && *c->p != '\r' && *c->p != '\0')
        return syntax(c, "text after a closing quote");
    *end = out;
    return KT_OK;
}

/* One field at c->p; on return c->p is at its delimiter. */
static int field(cursor *c, char **start)
{
    *start = c->p;
    char *end = c->p;
    if (*c->p == '"') {
        c->p++;
        int rc = quoted(c, *start, &end);
        if (rc != KT_OK)
            return rc;
    } else {
        while (*c->p != ',' && *c->p != '\n' && *c->p != '\r' && *c->p != '\0') {
            if (*c->p == '"')
                return syntax(c, "a quote inside an unquoted field");
            c->p++;
        }
        end = c->p;
    }
    char delim = *c->p;
    *end = '\0';
    *c->p = delim; /* end may be c->p itself */
    return KT_OK;
}

/* Collect the fields of one record into *fields (grown as needed). */
static int record(cursor *c, char ***fields, size_t *cap, size_t *n)
{
    *n = 0;
    for (;;) {
        if (*n == *cap) {
            size_t ncap = *cap ? 2 * *cap : 16;
            char **f = realloc(*fields, ncap * sizeof *f);
            if (!f)
                return kt_fail(c->diag, KT_ENOMEM, "out of memory");
            *fields = f;
            *cap = ncap;
        }
        int rc = field(c, &(*fields)[(*n)++]);
        if (rc != KT_OK)
            return rc;
        char delim = *c->p;
        if (delim != '\0')
            *c->p++ = '\0';
        if (delim != ',') {
            if (delim == '\r' && *c->p == '\n')
                c->p++;
            return KT_OK;
        }
    }
}

/* A NUL byte would end the text early, dropping the rest unseen: refuse
 * it, at its line and column. */
static int check_nul(cursor *c, size_t len)
{
    char *nul = memchr(c->p, '\0', len);
    if (!nul)
        return KT_OK;
    for (char *s = c->p; s < nul; s++)
        if (*s == '\n') {
            c->line++;
            c->line_start = s + 1;
        }
    c->p = nul;
    return syntax(c, "a NUL byte (is this a text file?)");
}

int kt_csv_read(const char *path, kt_csv_record_fn fn, void *user, kt_diag *diag)
{
    char *text;
    size_t len;
    int rc = kt_read_file(path, &text, &len, diag);
    if (rc != KT_OK)
        return rc;
    /* A UTF-8 byte order mark (spreadsheets write one) is not data. */
    size_t bom = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    cursor c = {.path = path, .p = text + bom, .line_start = text + bom, .line = 1,
                .diag = diag};
    rc = check_nul(&c, len - bom);
    char **fields = NULL;
    size_t cap = 0, n;
    while (rc == KT_OK && *c.p) {
        size_t line = c.line;
        if (*c.p == '\n' || *c.p == '\r') { /* a blank line */
            c.p += c.p[0] == '\r' && c.p[1] == '\n' ? 2 : 1;
            newline(&c);
            continue;
        }
        rc = record(&c, &fields, &cap, &n);
        if (rc == KT_OK)
            rc = fn(user, fields, n, line);
        newline(&c);
    }
    free(fields);
    free(text);
    return rc;
}
