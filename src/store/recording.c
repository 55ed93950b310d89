/* recording.c - a recording read from its file with no spec (recording.h).
 *
 * Each file kind has a reader that gives rows (configuration key, result)
 * in file order plus the kernel, device and problem names; the rest is
 * shared: the parameters and their value lists come from the keys, each
 * row's key becomes value indices, and the rows inside the space become
 * the replay's space.  The keys are scanned in place (no per-value
 * allocation): a 20,000-row recording is read in a few milliseconds
 * beyond its parsing.
 */
#include "store/recording.h"
#include "core/util.h"
#include "store/csv_import.h"
#include "store/json_file.h"
#include "store/kerneltuner.h"
#include "store/recording_cache.h"
#include "store/t4.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VALUES 65535 /* values of one parameter: indices are uint16_t */

/* kt_recording_kind's answers. */
static const char KIND_KERNELTUNER[] = "Kernel Tuner cache";
static const char KIND_T4[] = "T4 results";
static const char KIND_DB[] = "ktune database";
static const char KIND_CSV[] = "ktune CSV export";

/* One recorded configuration, in file order. */
typedef struct row {
    const char *config;     /* key "NAME=v,...", the replay's */
    bool in_space;          /* not recorded as invalid (recording.h) */
} row;

/* What the reader of a file gathers. */
typedef struct reader {
    const char *path;
    const kt_recording_opts *o;
    kt_diag *diag;
    const char *kind;
    char kernel[128], device[128];
    char *problem;          /* key, owned */
    kt_replay *replay;      /* every row's result, from the first row on */
    row *rows;              /* file order */
    size_t n, cap;
    uint16_t *cells;        /* n * nparams: row i's value of parameter d is
                               pvals[d].texts[cells[i * nparams + d]] */
    json_object *root;      /* the JSON file but its rows, or NULL */
    json_object *keys;      /* Kernel Tuner's tune_params_keys, or NULL */
    double unit_ms;         /* a T4 file's time unit, in ms */
    json_object *lists;     /* Kernel Tuner's tune_params (value orders), or NULL */
    kt_rcache_key key;      /* the JSON file's content, when it is to be kept */
    bool keep;              /* parsed, to be kept in o->cache_dir once read */
} reader;

struct kt_recording {
    kt_spec *spec;
    kt_replay *replay;
    const char *kind;
    char *problem;
};

/* A text slice: a value inside a configuration key. */
typedef struct slice {
    const char *s;
    size_t len;
} slice;

/* One parameter's distinct values while the space is built. */
typedef struct pvals {
    char **texts;           /* in the order first seen */
    uint16_t *sorted;       /* indices of texts, by strcmp of the text */
    size_t n, cap;
    uint16_t *rank;         /* texts[i]'s place in the value list */
} pvals;

/* ------------------------------------------------------------- rows */

/* Append a row, its result to the replay (made at the first row, when
 * the device is known); takes config (freed on failure too). */
static int push_row(reader *rd, char *config, const kt_result *r)
{
    if (rd->n == rd->cap) {
        size_t cap = rd->cap ? 2 * rd->cap : 1024;
        row *grown = realloc(rd->rows, cap * sizeof *grown);
        if (!grown) {
            free(config);
            return kt_fail(rd->diag, KT_ENOMEM, "out of memory");
        }
        rd->rows = grown;
        rd->cap = cap;
    }
    int rc = rd->replay ? KT_OK : kt_replay_new(rd->device, &rd->replay, rd->diag);
    if (rc != KT_OK)
        free(config);
    else if ((rc = kt_replay_take(rd->replay, config, r, rd->diag)) == KT_OK)
        rd->rows[rd->n++] = (row){.config = config,
                                  .in_space = r->status != KT_STATUS_INVALID};
    return rc;
}

static void reader_clear(reader *rd)
{
    kt_replay_free(rd->replay);
    free(rd->rows);
    free(rd->cells);
    free(rd->problem);
    json_object_put(rd->root);
}

/* Back to nothing read, for another way of reading the file. */
static void reader_reset(reader *rd)
{
    reader_clear(rd);
    *rd = (reader){.path = rd->path, .o = rd->o, .diag = rd->diag};
}

/* Do the file's names match the options (NULL matches anything)? */
static int check_wanted(reader *rd)
{
    const kt_recording_opts *o = rd->o;
    const char *what = o->kernel && strcmp(o->kernel, rd->kernel) ? "kernel"
                       : o->device && strcmp(o->device, rd->device) ? "device"
                       : o->problem && strcmp(o->problem, rd->problem) ? "problem"
                                                                        : NULL;
    if (!what)
        return KT_OK;
    return kt_fail(rd->diag, KT_ENOTFOUND, "%s: records kernel '%s' problem '%s' on "
                   "device '%s' only: no such %s", rd->path, rd->kernel, rd->problem,
                   rd->device, what);
}

/* -------------------------------------------------- Kernel Tuner cache */

/* The cache's names, read at its first entry. */
static int kerneltuner_begin(reader *rd, json_object *root)
{
    kt_kerneltuner_head head;
    if (kt_kerneltuner_head_read(rd->path, root, &head, rd->diag) != KT_OK)
        return KT_EFORMAT;
    rd->kind = KIND_KERNELTUNER;
    rd->keys = head.keys;
    kt_strlcpy(rd->device, sizeof rd->device, head.device);
    kt_strlcpy(rd->kernel, sizeof rd->kernel, head.kernel);
    int rc = kt_kerneltuner_problem(rd->path, root, &rd->problem, rd->diag);
    return rc == KT_OK ? check_wanted(rd) : rc;
}

static int kerneltuner_entry(reader *rd, const char *key, json_object *entry)
{
    char *config = NULL;
    kt_result r;
    int rc = json_object_is_type(entry, json_type_object)
                 ? kt_kerneltuner_config_key(rd->path, rd->keys, key, &config, rd->diag)
                 : kt_fail(rd->diag, KT_EFORMAT, "%s: cache entry '%s' is not an object",
                           rd->path, key);
    if (rc == KT_OK)
        rc = kt_kerneltuner_result(rd->path, key, entry, &r, rd->diag);
    if (rc == KT_OK)
        return push_row(rd, config, &r);
    free(config);
    return rc;
}

/* ----------------------------------------------------------------- T4 */

/* The file's time unit, read at its first result. */
static int t4_begin(reader *rd, json_object *root)
{
    json_object *meta = NULL, *unit = NULL;
    rd->kind = KIND_T4;
    rd->unit_ms = 1;
    if (json_object_object_get_ex(root, "metadata", &meta) &&
        json_object_object_get_ex(meta, "timeunit", &unit) &&
        !(rd->unit_ms = kt_t4_unit_ms(json_object_get_string(unit))))
        return kt_fail(rd->diag, KT_EFORMAT, "%s: metadata.timeunit '%s' is not a time "
                       "unit", rd->path, json_object_get_string(unit));
    return KT_OK;
}

/* The kernel, device and problem that result i names (ktune's export names
 * them; other writers don't: the file's base name and "unknown"); all
 * results must name the same. */
static int t4_names(reader *rd, json_object *res, size_t i)
{
    const char *base = strrchr(rd->path, '/');
    const char *kernel = kt_json_text(res, "kernel", base ? base + 1 : rd->path);
    const char *device = kt_json_text(res, "device", "unknown");
    const char *problem = kt_json_text(res, "problem", "");
    if (i == 0) {
        kt_strlcpy(rd->kernel, sizeof rd->kernel, kernel);
        kt_strlcpy(rd->device, sizeof rd->device, device);
        return (rd->problem = kt_strdup(problem)) ? check_wanted(rd)
                                                   : kt_fail(rd->diag, KT_ENOMEM,
                                                             "out of memory");
    }
    if (strcmp(kernel, rd->kernel) == 0 && strcmp(device, rd->device) == 0 &&
        strcmp(problem, rd->problem) == 0)
        return KT_OK;
    return kt_fail(rd->diag, KT_EFORMAT, "%s: results[%zu]: kernel '%s' problem '%s' on "
                   "'%s', where results[0] is kernel '%s' problem '%s' on '%s': a replay "
                   "reads one recording (hint: 'ktune import t4' stores them all, and "
                   "'ktune db export' writes one)", rd->path, i, kernel, problem, device,
                   rd->kernel, rd->problem, rd->device);
}

static int t4_row(reader *rd, json_object *res)
{
    json_object *config = NULL;
    size_t i = rd->n;
    if (!json_object_is_type(res, json_type_object) ||
        !json_object_object_get_ex(res, "configuration", &config) ||
        !json_object_is_type(config, json_type_object))
        return kt_fail(rd->diag, KT_EFORMAT, "%s: results[%zu]: no 'configuration' "
                       "object", rd->path, i);
    char *key = NULL;
    kt_result r;
    int rc = kt_t4_result(rd->path, i, rd->unit_ms, res, &r, rd->diag);
    if (rc == KT_OK)
        rc = t4_names(rd, res, i);
    if (rc == KT_OK)
        rc = kt_t4_config_key(rd->path, i, config, &key, rd->diag);
    if (rc == KT_OK)
        return push_row(rd, key, &r);
    free(key);
    return rc;
}

/* ---------------------------------------------------------------- JSON */

/* The members that hold a recording's rows, streamed (store/json_file.h);
 * what their rows need of the rest of the file comes first. */
static const char *const KERNELTUNER_NEEDS[] = {"device_name", "kernel_name",
                                                "tune_params_keys", "problem_size", NULL};
static const char *const T4_NEEDS[] = {"metadata", NULL};
static const kt_json_stream STREAMS[] = {
    {"cache", json_type_object, KERNELTUNER_NEEDS},
    {"results", json_type_array, T4_NEEDS},
};

static int json_element(void *user, json_object *root, size_t which, const char *key,
                        json_object *value)
{
    reader *rd = user;
    int rc = rd->kind ? KT_OK : which == 0 ? kerneltuner_begin(rd, root) : t4_begin(rd, root);
    if (rc != KT_OK)
        return rc;
    return which == 0 ? kerneltuner_entry(rd, key, value) : t4_row(rd, value);
}

/* A file that streamed no row: an empty cache or results array, or no
 * recording at all; the error that says which. */
static int no_rows(reader *rd, json_object *root)
{
    json_object *results = NULL;
    bool object = json_object_is_type(root, json_type_object);
    if (object && json_object_object_get_ex(root, "cache", NULL))
        return kerneltuner_begin(rd, root); /* empty (then read_file says so) or no object */
    if (object && json_object_object_get_ex(root, "results", &results) &&
        json_object_is_type(results, json_type_array))
        return kt_fail(rd->diag, KT_EFORMAT, "%s: no results", rd->path);
    return kt_fail(rd->diag, KT_EFORMAT, "%s: not a recording: a JSON object with "
                   "neither 'cache' (a Kernel Tuner cache) nor a 'results' array (T4)",
                   rd->path);
}

static int read_json(reader *rd)
{
    int rc = kt_json_file_stream(rd->path, "a recording (a Kernel Tuner cache or T4 "
                                 "results)", true, STREAMS, 2, json_element, rd, &rd->root,
                                 rd->diag);
    if (rc == KT_OK && !rd->kind)
        rc = no_rows(rd, rd->root);
    if (rc == KT_OK && rd->kind == KIND_KERNELTUNER &&
        (!json_object_object_get_ex(rd->root, "tune_params", &rd->lists) ||
         !json_object_is_type(rd->lists, json_type_object)))
        rd->lists = NULL;
    return rc;
}

/* ------------------------------------------------------- kept JSON rows */

/* What reading a kept entry needs at its first row. */
typedef struct kept {
    reader *rd;
    const kt_rcache_names *names;
} kept;

/* The entry's names as the reader's (KT_ENOTFOUND, a miss, for a kind
 * this reader does not know). */
static int kept_begin(reader *rd, const kt_rcache_names *names)
{
    rd->kind = strcmp(names->kind, KIND_KERNELTUNER) == 0 ? KIND_KERNELTUNER
               : strcmp(names->kind, KIND_T4) == 0        ? KIND_T4
                                                          : NULL;
    if (!rd->kind)
        return KT_ENOTFOUND;
    kt_strlcpy(rd->kernel, sizeof rd->kernel, names->kernel);
    kt_strlcpy(rd->device, sizeof rd->device, names->device);
    if (!(rd->problem = kt_strdup(names->problem)))
        return kt_fail(rd->diag, KT_ENOMEM, "out of memory");
    if (*names->lists && !(rd->root = json_tokener_parse(names->lists)))
        return KT_ENOTFOUND;
    rd->lists = json_object_is_type(rd->root, json_type_object) ? rd->root : NULL;
    return KT_OK;
}

static int kept_row(void *user, char *config, const kt_result *r)
{
    kept *k = user;
    int rc = k->rd->n ? KT_OK : kept_begin(k->rd, k->names);
    if (rc == KT_OK)
        return push_row(k->rd, config, r);
    free(config);
    return rc;
}

/* The rows kept in dir for the file's content; KT_ENOTFOUND (a miss) when
 * there are none to trust. */
static int read_kept(reader *rd, const char *dir)
{
    kt_rcache_names names;
    char *blob = NULL;
    kept k = {.rd = rd, .names = &names};
    int rc = kt_rcache_load(dir, rd->key, &names, &blob, kept_row, &k, rd->diag);
    free(blob);
    return rc == KT_OK && rd->n == 0 ? KT_ENOTFOUND : rc;
}

/* A JSON file: from its kept rows when there are some to trust, else
 * parsed (and kept once the recording is built, kt_recording_open). */
static int read_json_kept(reader *rd)
{
    const char *dir = rd->o->cache_dir;
    if (!dir)
        return read_json(rd);
    int rc = kt_rcache_key_of(rd->path, &rd->key, rd->diag);
    if (rc == KT_OK)
        rc = read_kept(rd, dir);
    if (rc == KT_OK)
        return check_wanted(rd);
    if (rc != KT_ENOTFOUND)
        return rc;
    kt_rcache_key key = rd->key;
    reader_reset(rd);
    rd->key = key;
    rd->keep = true;
    return read_json(rd);
}

/* Keep what was parsed of the file for the next replay of it; best
 * effort (an unwritable cache only costs that replay the parse), so a
 * failure is a warning. */
static void keep_rows(const reader *rd, const kt_replay *replay)
{
    kt_diag why = {{0}};
    const char *lists = rd->lists ? json_object_to_json_string_ext(rd->lists,
                                                                   JSON_C_TO_STRING_PLAIN)
                                  : "";
    kt_rcache_names names = {.kind = rd->kind, .kernel = rd->kernel, .device = rd->device,
                             .problem = rd->problem, .lists = lists};
    if (kt_rcache_save(rd->o->cache_dir, rd->key, &names, replay, &why) != KT_OK)
        kt_warn(rd->o->warn, rd->o->warn_user, rd->path, "its rows are not kept for the "
                "next replay: %s", why.msg);
}

/* ------------------------------------------- database and CSV export */

/* What the database visitor keeps of the first row's keys. */
typedef struct db_reader {
    reader *rd;
    char source_hash[128];
    char other[512];        /* another recording the rows hold, "" if none */
    int err;
} db_reader;

static int db_row(void *user, const kt_db_row *w)
{
    db_reader *D = user;
    reader *rd = D->rd;
    if (rd->n == 0) {
        kt_strlcpy(rd->kernel, sizeof rd->kernel, w->kernel);
        kt_strlcpy(rd->device, sizeof rd->device, w->device);
        kt_strlcpy(D->source_hash, sizeof D->source_hash, w->source_hash);
        if (!(rd->problem = kt_strdup(w->problem)))
            return D->err = KT_ENOMEM, 1;
    } else if (strcmp(rd->kernel, w->kernel) || strcmp(rd->device, w->device) ||
               strcmp(rd->problem, w->problem) || strcmp(D->source_hash, w->source_hash)) {
        snprintf(D->other, sizeof D->other, "kernel '%s' (source %.8s) problem '%s' on "
                 "'%s'", w->kernel, w->source_hash, w->problem, w->device);
        return 1;
    }
    char *config = kt_strdup(w->config);
    if (!config)
        return D->err = KT_ENOMEM, 1;
    if (push_row(rd, config, &w->result) != KT_OK)
        return D->err = KT_ENOMEM, 1;
    return 0;
}

/* The rows of a database or CSV export, checked: those of one recording,
 * which the options chose where it holds several. */
static int rows_chosen(reader *rd, const db_reader *D)
{
    if (D->err)
        return kt_fail(rd->diag, D->err, "out of memory");
    if (D->other[0])
        return kt_fail(rd->diag, KT_EINVAL, "%s holds several recordings, kernel '%s' "
                       "problem '%s' on '%s' and %s at least: choose one with --kernel, "
                       "--problem and --device (as 'ktune db list' shows them)", rd->path,
                       rd->kernel, rd->problem, rd->device, D->other);
    if (rd->n == 0)
        return kt_fail(rd->diag, KT_ENOTFOUND, "%s: no recorded configuration%s", rd->path,
                       rd->o->kernel || rd->o->problem || rd->o->device
                           ? " matches --kernel, --problem and --device" : "");
    return KT_OK;
}

static int read_db(reader *rd)
{
    kt_db *db = NULL;
    db_reader D = {.rd = rd};
    kt_db_filter f = {.kernel = rd->o->kernel, .problem = rd->o->problem,
                      .device = rd->o->device};
    rd->kind = KIND_DB;
    int rc = kt_db_open_mode(rd->path, KT_DB_EXISTING, &db, rd->diag);
    if (rc == KT_OK)
        rc = kt_db_list(db, &f, db_row, &D, rd->diag);
    /* other problems' winners, for --warm: only a database whose problem was
     * chosen can hold any (else it holds the one, or read_db refuses it), and
     * the query costs as much as the rest of the load */
    if (rc == KT_OK && rd->o->problem && !D.err && !D.other[0] && rd->n > 0)
        rc = kt_replay_load_winners(rd->replay, db, rd->kernel, D.source_hash, rd->problem,
                                    rd->diag);
    kt_db_close(db);
    return rc == KT_OK ? rows_chosen(rd, &D) : rc;
}

/* A row of a CSV export, when it is of the recording the options choose
 * (a database's query chooses them in read_db). */
static int csv_row(void *user, const kt_db_row *w)
{
    const kt_recording_opts *o = ((db_reader *)user)->rd->o;
    bool wanted = (!o->kernel || strcmp(o->kernel, w->kernel) == 0) &&
                  (!o->problem || strcmp(o->problem, w->problem) == 0) &&
                  (!o->device || strcmp(o->device, w->device) == 0);
    return wanted ? db_row(user, w) : 0;
}

static int read_csv(reader *rd)
{
    db_reader D = {.rd = rd};
    rd->kind = KIND_CSV;
    int rc = kt_csv_rows(rd->path, csv_row, &D, rd->diag);
    return rc < 0 ? rc : rows_chosen(rd, &D);
}

/* ------------------------------------------------------------ the keys */

/* The next item "NAME=VALUE" of the key at *p into name and value; false
 * at the end. */
static bool next_item(const char **p, slice *name, slice *value)
{
    if (!**p)
        return false;
    const char *eq = strchr(*p, '=');
    size_t len = strcspn(*p, ",");
    if (!eq || eq > *p + len)
        eq = *p + len; /* no '=': checked keys have one */
    *name = (slice){*p, (size_t)(eq - *p)};
    *value = (slice){eq + (eq < *p + len), (size_t)(*p + len - eq - (eq < *p + len))};
    *p += len + ((*p)[len] == ',');
    return true;
}

/* strcmp of a slice and a string. */
static int slice_cmp(slice a, const char *b)
{
    int c = strncmp(a.s, b, a.len);
    return c ? c : b[a.len] ? -1 : 0;
}

/* The place of v in p->sorted: found (*at its place) or where it goes. */
static bool pvals_find(const pvals *p, slice v, size_t *at)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = slice_cmp(v, p->texts[p->sorted[mid]]);
        if (c == 0) {
            *at = mid;
            return true;
        }
        if (c > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *at = lo;
    return false;
}

/* The index of value v in p->texts into *index, added when new;
 * KT_ERANGE past MAX_VALUES values. */
static int pvals_add(pvals *p, slice v, uint16_t *index)
{
    size_t at;
    if (pvals_find(p, v, &at)) {
        *index = p->sorted[at];
        return KT_OK;
    }
    if (p->n == MAX_VALUES)
        return KT_ERANGE;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        char **texts = realloc(p->texts, cap * sizeof *texts);
        p->texts = texts ? texts : p->texts;
        uint16_t *sorted = texts ? realloc(p->sorted, cap * sizeof *sorted) : NULL;
        if (!sorted)
            return KT_ENOMEM;
        p->sorted = sorted;
        p->cap = cap;
    }
    char *text = kt_strndup(v.s, v.len);
    if (!text)
        return KT_ENOMEM;
    memmove(p->sorted + at + 1, p->sorted + at, (p->n - at) * sizeof *p->sorted);
    p->sorted[at] = *index = (uint16_t)p->n;
    p->texts[p->n++] = text;
    return KT_OK;
}

static void pvals_clear(pvals *p, size_t np)
{
    for (size_t d = 0; p && d < np; d++) {
        for (size_t i = 0; i < p[d].n; i++)
            free(p[d].texts[i]);
        free(p[d].texts);
        free(p[d].sorted);
        free(p[d].rank);
    }
    free(p);
}

/* The parameter names of the first row, checked against every row, and
 * every row's values into vals (np entries, calloc'ed) and rd->cells. */
static int collect(reader *rd, pvals **vals, size_t *np)
{
    const char *first = rd->rows[0].config, *p = first;
    slice name, value, fname, fvalue;
    for (*np = 0; next_item(&p, &name, &value);)
        (*np)++;
    if (*np == 0)
        return kt_fail(rd->diag, KT_EFORMAT, "%s: the recording has no tuning "
                       "parameters", rd->path);
    if (!(*vals = calloc(*np, sizeof **vals)) ||
        !(rd->cells = malloc(rd->n * *np * sizeof *rd->cells)))
        return kt_fail(rd->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < rd->n; i++) {
        const char *f = first;
        size_t d = 0;
        bool same = true;
        for (p = rd->rows[i].config; same && next_item(&p, &name, &value); d++) {
            same = d < *np && next_item(&f, &fname, &fvalue) && name.len == fname.len &&
                   memcmp(name.s, fname.s, name.len) == 0;
            int rc = same ? pvals_add(&(*vals)[d], value, &rd->cells[i * *np + d]) : KT_OK;
            if (rc == KT_ERANGE)
                return kt_fail(rd->diag, KT_EFORMAT, "%s: parameter '%.*s' has more "
                               "than %d values", rd->path, (int)name.len, name.s,
                               MAX_VALUES);
            if (rc != KT_OK)
                return kt_fail(rd->diag, KT_ENOMEM, "out of memory");
        }
        if (!same || d != *np)
            return kt_fail(rd->diag, KT_EFORMAT, "%s: configuration '%.200s' does not "
                           "have the parameters of the first one, '%.200s'", rd->path,
                           rd->rows[i].config, first);
    }
    return KT_OK;
}

/* ------------------------------------------------------- value orders */

/* text as a number, if all of it is one. */
static bool number_of(const char *text, double *out)
{
    char *end;
    *out = strtod(text, &end);
    return *text && !*end && isfinite(*out);
}

/* How a value sorts: by k1, then k2. */
typedef struct order_key {
    double k1, k2;
    size_t i;               /* index into the sorted texts */
} order_key;

static int by_key(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    return x->k1 != y->k1 ? (x->k1 > y->k1) - (x->k1 < y->k1)
                          : (x->k2 > y->k2) - (x->k2 < y->k2);
}

/* A tune_params value as a cache key writes it (Python's str()). */
static const char *list_text(json_object *v)
{
    if (json_object_is_type(v, json_type_boolean))
        return json_object_get_boolean(v) ? "True" : "False";
    return json_object_get_string(v);
}

/* Where text stands in the file's list of the parameter's values; -1 when
 * it is not there. */
static long list_place(json_object *list, const char *text)
{
    double x, y;
    bool num = number_of(text, &x);
    for (size_t j = 0; j < json_object_array_length(list); j++) {
        const char *t = list_text(json_object_array_get_idx(list, j));
        if (t && (strcmp(t, text) == 0 || (num && number_of(t, &y) && x == y)))
            return (long)j;
    }
    return -1;
}

/* p->rank: the value order of parameter name (recording.h). */
static int order_values(pvals *p, const char *name, json_object *lists)
{
    order_key *k = malloc(p->n * sizeof *k);
    if (!k || !(p->rank = malloc(p->n * sizeof *p->rank))) {
        free(k);
        return KT_ENOMEM;
    }
    bool numeric = true;
    for (size_t j = 0; j < p->n; j++) { /* k2: the place by strcmp */
        size_t i = p->sorted[j];
        k[i] = (order_key){.k1 = (double)j, .k2 = (double)j, .i = i};
        numeric = numeric && number_of(p->texts[i], &k[i].k1);
    }
    if (!numeric)
        for (size_t i = 0; i < p->n; i++)
            k[i].k1 = k[i].k2;
    qsort(k, p->n, sizeof *k, by_key);
    json_object *list = NULL;
    if (lists && json_object_object_get_ex(lists, name, &list) &&
        json_object_is_type(list, json_type_array)) {
        size_t len = json_object_array_length(list);
        for (size_t r = 0; r < p->n; r++) {
            long at = list_place(list, p->texts[k[r].i]);
            k[r].k1 = at >= 0 ? (double)at : (double)(len + r);
            k[r].k2 = (double)r;
        }
        qsort(k, p->n, sizeof *k, by_key);
    }
    for (size_t r = 0; r < p->n; r++)
        p->rank[k[r].i] = (uint16_t)r;
    free(k);
    return KT_OK;
}

/* ---------------------------------------------------------------- spec */

/* The problem key's items as problem parameters, when every value is a
 * number (then the run's problem key is the recorded one). */
static int spec_problem(kt_spec *s, const char *key)
{
    char **names = NULL, **values = NULL;
    size_t n = 0;
    double v;
    if (!*key || kt_key_fields(key, &names, &values, &n) != KT_OK)
        return KT_OK;
    bool numeric = true;
    for (size_t i = 0; i < n; i++)
        numeric = numeric && number_of(values[i], &v);
    if (numeric && (s->problem = calloc(n, sizeof *s->problem))) {
        for (size_t i = 0; i < n; i++) {
            s->problem[i] = (kt_problem_spec){.name = names[i]};
            number_of(values[i], &s->problem[i].default_value);
            names[i] = NULL;
        }
        s->nproblem = n;
    }
    kt_key_fields_free(names, values, n);
    return numeric && !s->problem ? KT_ENOMEM : KT_OK;
}

/* The expression names, as spec.c lays them out: parameters, problem
 * names, ProblemSize[i]. */
static int spec_names(kt_spec *s)
{
    s->nnames = s->nparams + 2 * s->nproblem;
    if (!(s->names = calloc(s->nnames, sizeof *s->names)))
        return KT_ENOMEM;
    for (size_t i = 0; i < s->nparams; i++)
        s->names[i] = kt_strdup(s->params[i].name);
    for (size_t i = 0; i < s->nproblem; i++) {
        s->names[s->nparams + i] = kt_strdup(s->problem[i].name);
        s->names[s->nparams + s->nproblem + i] = kt_asprintf("ProblemSize[%zu]", i);
    }
    for (size_t i = 0; i < s->nnames; i++)
        if (!s->names[i])
            return KT_ENOMEM;
    return KT_OK;
}

/* Parameter d: its name from the first key, its values in their order
 * (v->rank set here). */
static int spec_param(kt_param_spec *p, slice name, pvals *v, json_object *lists)
{
    if (!(p->name = kt_strndup(name.s, name.len)) ||
        !(p->texts = calloc(v->n, sizeof *p->texts)) ||
        !(p->values = malloc(v->n * sizeof *p->values)))
        return KT_ENOMEM;
    p->nvalues = v->n;
    if (order_values(v, p->name, lists) != KT_OK)
        return KT_ENOMEM;
    bool numeric = true;
    for (size_t i = 0; i < v->n; i++)
        numeric = numeric && number_of(v->texts[i], &p->values[v->rank[i]]);
    for (size_t i = 0; i < v->n; i++) {
        if (!(p->texts[v->rank[i]] = kt_strdup(v->texts[i])))
            return KT_ENOMEM;
        if (!numeric)
            p->values[v->rank[i]] = v->rank[i];
    }
    return KT_OK;
}

static int build_spec(reader *rd, pvals *vals, size_t np, kt_spec **out)
{
    kt_spec *s = *out = calloc(1, sizeof *s);
    if (!s || !(s->params = calloc(np, sizeof *s->params)))
        return kt_fail(rd->diag, KT_ENOMEM, "out of memory");
    s->nparams = np;
    s->language = KT_LANG_NONE;
    s->budget.kind = KT_BUDGET_NONE;
    int rc = (s->path = kt_strdup(rd->path)) && (s->name = kt_strdup(rd->kernel)) &&
                     (s->kernel_name = kt_strdup(rd->kernel)) &&
                     (s->source_hash = kt_strdup("recording"))
                 ? KT_OK
                 : KT_ENOMEM;
    const char *p = rd->rows[0].config;
    slice name, value;
    for (size_t d = 0; rc == KT_OK && d < np && next_item(&p, &name, &value); d++)
        rc = spec_param(&s->params[d], name, &vals[d], rd->lists);
    if (rc == KT_OK)
        rc = spec_problem(s, rd->problem);
    if (rc == KT_OK)
        rc = spec_names(s);
    return rc == KT_OK ? KT_OK : kt_fail(rd->diag, rc, "out of memory");
}

/* --------------------------------------------------------------- space */

static int cfg_order(const void *a, const void *b, void *np)
{
    const uint16_t *x = a, *y = b;
    for (size_t d = 0; d < *(const size_t *)np; d++)
        if (x[d] != y[d])
            return x[d] < y[d] ? -1 : 1;
    return 0;
}

/* Sort n configurations and drop repeats; returns how many stay. */
static size_t sort_unique(uint16_t *cfgs, size_t n, size_t np)
{
    qsort_r(cfgs, n, np * sizeof *cfgs, cfg_order, &np);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || cfg_order(cfgs + (kept - 1) * np, cfgs + i * np, &np))
            memmove(cfgs + kept++ * np, cfgs + i * np, np * sizeof *cfgs);
    return kept;
}

/* The rows inside the space (recording.h) as the replay's space, the first
 * of them the spec's default; the replay, finished, into *out. */
static int build_replay(reader *rd, kt_spec *spec, const pvals *vals, kt_replay **out)
{
    size_t np = spec->nparams, n = 0;
    uint16_t *space = malloc(rd->n * np * sizeof *space);
    if (!space)
        return kt_fail(rd->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < rd->n; i++) {
        if (!rd->rows[i].in_space)
            continue;
        for (size_t d = 0; d < np; d++)
            space[n * np + d] = vals[d].rank[rd->cells[i * np + d]];
        for (size_t d = 0; n == 0 && d < np; d++)
            spec->params[d].default_index = space[d];
        n++;
    }
    if (n == 0) {
        free(space);
        return kt_fail(rd->diag, KT_EEMPTY, "%s: every recorded configuration is invalid "
                       "(outside the space): nothing to replay", rd->path);
    }
    int rc = kt_replay_finish(rd->replay, rd->diag);
    if (rc != KT_OK) {
        free(space);
        return rc;
    }
    kt_replay_set_space(rd->replay, space, sort_unique(space, n, np));
    *out = rd->replay;
    rd->replay = NULL;
    return KT_OK;
}

/* ---------------------------------------------------------------- public */

/* A ktune CSV export starts with a column name (after a UTF-8 byte order
 * mark, which its reader skips); JSON with '{' or white space, bzip2 with
 * "BZh", gzip with 0x1f 0x8b. */
static bool is_csv(const char *head, size_t n)
{
    size_t at = n >= 3 && memcmp(head, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    return at < n && head[at] >= 'a' && head[at] <= 'z';
}

/* The first 16 bytes of the file at path into head (zeros past its end);
 * how many there were. */
static size_t file_head(const char *path, char head[16])
{
    memset(head, 0, 16);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, 16, f) : 0;
    if (f)
        fclose(f);
    return n;
}

static bool is_sqlite(const char *head, size_t n)
{
    return n == 16 && memcmp(head, "SQLite format 3", 16) == 0;
}

/* The rows of the file, by its kind: an SQLite header is a database, a
 * column name a CSV export, anything else is read as JSON (compressed or
 * not). */
static int read_file(reader *rd)
{
    char head[16];
    size_t n = file_head(rd->path, head);
    int rc = is_sqlite(head, n) ? read_db(rd)
             : is_csv(head, n)  ? read_csv(rd)
                                : read_json_kept(rd);
    if (rc == KT_OK && rd->n == 0)
        rc = kt_fail(rd->diag, KT_EFORMAT, "%s: records no configuration", rd->path);
    return rc;
}

int kt_recording_open(const char *path, const kt_recording_opts *o, kt_recording **out,
                      kt_diag *diag)
{
    static const kt_recording_opts NONE = {0};
    reader rd = {.path = path, .o = o ? o : &NONE, .diag = diag};
    kt_recording *r = calloc(1, sizeof *r);
    pvals *vals = NULL;
    size_t np = 0;
    *out = NULL;
    int rc = r ? read_file(&rd) : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = collect(&rd, &vals, &np);
    if (rc == KT_OK)
        rc = build_spec(&rd, vals, np, &r->spec);
    if (rc == KT_OK)
        rc = build_replay(&rd, r->spec, vals, &r->replay);
    if (rc == KT_OK && rd.keep)
        keep_rows(&rd, r->replay);
    if (r) {
        r->kind = rd.kind;
        r->problem = rd.problem;
        rd.problem = NULL;
    }
    pvals_clear(vals, np);
    reader_clear(&rd);
    if (rc != KT_OK)
        kt_recording_free(r);
    else
        *out = r;
    return rc;
}

void kt_recording_free(kt_recording *r)
{
    if (!r)
        return;
    kt_spec_free(r->spec);
    kt_replay_free(r->replay);
    free(r->problem);
    free(r);
}

const kt_spec *kt_recording_spec(const kt_recording *r) { return r->spec; }
const kt_replay *kt_recording_replay(const kt_recording *r) { return r->replay; }
const char *kt_recording_kind(const kt_recording *r) { return r->kind; }
const char *kt_recording_problem(const kt_recording *r) { return r->problem ? r->problem : ""; }

/* ------------------------------------------------------------ for a spec */

/* KT_OK when the recording's parameters are the spec's, the same names in
 * the same order (its configuration keys are then the spec's), else
 * KT_EFORMAT naming the first that differs. */
static int same_params(const kt_spec *rec, const kt_spec *spec, const char *path,
                       kt_diag *diag)
{
    size_t n = rec->nparams < spec->nparams ? rec->nparams : spec->nparams;
    for (size_t d = 0; d < n; d++)
        if (strcmp(rec->params[d].name, spec->params[d].name) != 0)
            return kt_fail(diag, KT_EFORMAT, "%s: its parameter %zu is '%s', the spec's "
                           "'%s': a recording replays a spec of the same parameters in "
                           "the same order", path, d + 1, rec->params[d].name,
                           spec->params[d].name);
    if (rec->nparams != spec->nparams)
        return kt_fail(diag, KT_EFORMAT, "%s: %zu parameters, the spec has %zu", path,
                       rec->nparams, spec->nparams);
    return KT_OK;
}

int kt_replay_open_for_spec(const char *path, const kt_spec *spec, const char *problem,
                            const kt_recording_opts *o, kt_replay **out, kt_diag *diag)
{
    static const kt_recording_opts NONE = {0};
    char head[16];
    *out = NULL;
    o = o ? o : &NONE;
    size_t n = file_head(path, head);
    if (n == 0 || is_sqlite(head, n)) /* a missing file is a missing database */
        return kt_replay_open(path, spec->name, spec->source_hash, problem, o->device, out,
                              diag);
    kt_recording *r = NULL;
    int rc = kt_recording_open(path, o, &r, diag);
    if (rc == KT_OK)
        rc = same_params(r->spec, spec, path, diag);
    if (rc == KT_OK) {
        kt_replay_set_space(r->replay, NULL, 0); /* the spec's conditions make it */
        *out = r->replay;
        r->replay = NULL;
    }
    kt_recording_free(r);
    return rc;
}
