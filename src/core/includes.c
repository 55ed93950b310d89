/* includes.c - the quoted local includes of a CUDA kernel, for NVRTC's
 * include path and the kernel's hashes (includes.h). */
#include "core/includes.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *dir;
    kt_buf text;     /* "name\ntext\n" per header */
    char **seen;     /* header names already collected */
    size_t nseen;
} collector;

char *kt_path_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return kt_strdup(".");
    return slash == path ? kt_strdup("/") : kt_strndup(path, (size_t)(slash - path));
}

/* The name of a quoted include on the line at p ("#include "x"", spaces
 * allowed around '#'), as a new string in *name, else *name = NULL. */
static int include_name(const char *p, char **name)
{
    *name = NULL;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p++ != '#')
        return KT_OK;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "include", 7) != 0)
        return KT_OK;
    p += 7;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '"')
        return KT_OK; /* <system> headers are NVRTC's */
    size_t len = strcspn(p + 1, "\"\n");
    if (p[1 + len] != '"')
        return KT_OK; /* not a well-formed include: the compiler will say */
    *name = kt_strndup(p + 1, len);
    return *name ? KT_OK : KT_ENOMEM;
}

static bool seen(const collector *c, const char *name)
{
    for (size_t i = 0; i < c->nseen; i++)
        if (strcmp(c->seen[i], name) == 0)
            return true;
    return false;
}

static int collect(collector *c, const char *path, const char *src, int depth,
                   kt_diag *diag);

/* Read and collect one header named at path:line. */
static int collect_header(collector *c, const char *path, int line, char *name,
                          int depth, kt_diag *diag)
{
    if (name[0] == '\0' || strchr(name, '/'))
        return kt_fail(diag, KT_EINVAL, "%s:%d: '#include \"%s\"': a kernel's quoted "
                       "includes name files in its own directory", path, line, name);
    if (depth >= KT_INCLUDE_DEPTH)
        return kt_fail(diag, KT_EINVAL, "%s:%d: '#include \"%s\"': local includes nest "
                       "deeper than %d", path, line, name, KT_INCLUDE_DEPTH);
    char **g = realloc(c->seen, (c->nseen + 1) * sizeof *g);
    if (!g)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    c->seen = g;
    c->seen[c->nseen++] = name;
    char *file = kt_asprintf("%s/%s", c->dir, name), *text = NULL;
    if (!file)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = kt_read_file(file, &text, NULL, diag);
    if (rc == KT_EIO)
        rc = kt_fail(diag, KT_EINVAL, "%s:%d: included file '%s' cannot be read", path,
                     line, file);
    if (rc == KT_OK) {
        kt_buf_appendf(&c->text, "%s\n%s\n", name, text);
        rc = collect(c, file, text, depth + 1, diag);
    }
    free(text);
    free(file);
    return rc;
}

/* Collect the headers src names, line by line. */
static int collect(collector *c, const char *path, const char *src, int depth,
                   kt_diag *diag)
{
    int line = 1;
    for (const char *p = src; *p; line++) {
        char *name;
        int rc = include_name(p, &name);
        if (rc != KT_OK)
            return kt_fail(diag, rc, "out of memory");
        if (name && seen(c, name))
            free(name);
        else if (name && (rc = collect_header(c, path, line, name, depth, diag)) != KT_OK)
            return rc;
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    return KT_OK;
}

int kt_includes_collect(const char *path, const char *src, char **out, kt_diag *diag)
{
    *out = NULL;
    collector c = {.dir = NULL};
    char *dir = kt_path_dir(path);
    if (!dir)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    c.dir = dir;
    int rc = collect(&c, path, src, 0, diag);
    for (size_t i = 0; i < c.nseen; i++)
        free(c.seen[i]);
    free(c.seen);
    free(dir);
    bool oom = c.text.oom;
    char *text = kt_buf_take(&c.text);
    if (rc == KT_OK && (oom || !text))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK && text && text[0])
        *out = text;
    else
        free(text);
    return rc;
}
