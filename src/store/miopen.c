/* miopen.c - read an MIOpen performance database (SQLite, or bzip2 of one,
 * decompressed with libbz2 into memory, within a limit) and store each row
 * that is a configuration of its solver as an ok measurement without a
 * time (see miopen.h). */
#include "store/miopen.h"
#include "core/spec.h"
#include "core/util.h"

#include <bzlib.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------ parameter names */

static const char *const ASM_1X1U[] = {
    "read_size", "k_mult", "chunks_per_wave", "chunk_size",
    "n_mult", "c_mult", "waves_c_in_group", "waves_k_in_group"};
static const char *const OCL_FWD_1X1[] = {
    "grp_tile1", "grp_tile0", "in_tile1", "in_tile0", "out_pix_tile1",
    "out_pix_tile0", "n_out_pix_tiles", "n_in_data_tiles", "n_stacks"};
static const char *const ASM_WRW_1X1[] = {
    "chunk_size", "c_per_gpr", "c_mult", "k_per_gpr", "k_mult",
    "n_per_gpr", "n_part_cnt", "read_size", "short_store", "data_prefetch"};
static const char *const ASM_WRW_3X3[] = {
    "limit_wave_cnt", "reverse_inout", "chunk_size", "k_per_wave",
    "pipe_lines_depth", "n_per_group"};

static const struct {
    const char *solver;
    const char *const *names;
    size_t n;
} SOLVERS[] = {
    {"ConvAsm1x1U", ASM_1X1U, KT_ARRAY_LEN(ASM_1X1U)},
    {"ConvOclDirectFwd1x1", OCL_FWD_1X1, KT_ARRAY_LEN(OCL_FWD_1X1)},
    {"ConvAsmBwdWrW1x1", ASM_WRW_1X1, KT_ARRAY_LEN(ASM_WRW_1X1)},
    {"ConvAsmBwdWrW3x3", ASM_WRW_3X3, KT_ARRAY_LEN(ASM_WRW_3X3)},
};

const char *const *kt_miopen_param_names(const char *solver, size_t *n)
{
    for (size_t i = 0; i < KT_ARRAY_LEN(SOLVERS); i++)
        if (strcmp(SOLVERS[i].solver, solver) == 0) {
            *n = SOLVERS[i].n;
            return SOLVERS[i].names;
        }
    *n = 0;
    return NULL;
}

/* --------------------------------------------------------- opening it */

#define CHUNK (1u << 16) /* bytes decompressed per call */

/* How many decompressed bytes a bzip2 file of compressed bytes may give
 * (miopen.h). */
static uint64_t bz_limit(uint64_t compressed, uint64_t max_bytes)
{
    if (max_bytes)
        return max_bytes;
    uint64_t lim = compressed * KT_MIOPEN_MAX_RATIO;
    lim = lim > KT_MIOPEN_RATIO_FROM ? lim : KT_MIOPEN_RATIO_FROM;
    return lim < KT_MIOPEN_MAX_BYTES ? lim : KT_MIOPEN_MAX_BYTES;
}

/* Room for CHUNK more bytes after len in *buf, which grows by doubling but
 * never past limit + CHUNK (enough to see the data run past limit). */
static bool grow(unsigned char **buf, uint64_t *cap, uint64_t len, uint64_t limit)
{
    if (*cap - len >= CHUNK)
        return true;
    uint64_t ncap = *cap ? 2 * *cap : 1u << 20;
    ncap = ncap < limit + CHUNK ? ncap : limit + CHUNK;
    unsigned char *p = sqlite3_realloc64(*buf, ncap);
    if (!p)
        return false;
    *buf = p;
    *cap = ncap;
    return true;
}

/* Decompress the bzip2 file in into memory: *out (sqlite3_malloc'd, for
 * sqlite3_deserialize) of *len bytes, refused past limit bytes. */
static int bunzip(FILE *in, const char *path, uint64_t limit, unsigned char **out,
                  uint64_t *len, kt_diag *diag)
{
    int bzerr, close_err;
    BZFILE *bz = BZ2_bzReadOpen(&bzerr, in, 0, 0, NULL, 0);
    if (bzerr != BZ_OK)
        return kt_fail(diag, KT_EFORMAT, "%s: cannot read bzip2 data", path);
    unsigned char *buf = NULL;
    uint64_t cap = 0, n = 0;
    while (bzerr == BZ_OK && n <= limit) {
        if (!grow(&buf, &cap, n, limit)) {
            bzerr = BZ_MEM_ERROR;
            break;
        }
        uint64_t room = cap - n < INT_MAX ? cap - n : INT_MAX;
        int got = BZ2_bzRead(&bzerr, bz, buf + n, (int)room);
        n += bzerr == BZ_OK || bzerr == BZ_STREAM_END ? (uint64_t)got : 0;
    }
    BZ2_bzReadClose(&close_err, bz);
    int rc = KT_OK;
    if (n > limit)
        rc = kt_fail(diag, KT_EFORMAT, "%s: decompresses to more than %llu bytes, the "
                     "limit for this file: refused as a likely bzip2 bomb (see ktune "
                     "import --help)", path, (unsigned long long)limit);
    else if (bzerr == BZ_MEM_ERROR)
        rc = kt_fail(diag, KT_ENOMEM, "%s: out of memory decompressing", path);
    else if (bzerr != BZ_STREAM_END)
        rc = kt_fail(diag, KT_EFORMAT, "%s: corrupt or truncated bzip2 data", path);
    if (rc != KT_OK) {
        sqlite3_free(buf);
        return rc;
    }
    *out = buf;
    *len = n;
    return KT_OK;
}

/* A read-only connection on a whole database file's bytes (taken over). */
static int open_image(const char *path, unsigned char *image, uint64_t len,
                      sqlite3 **conn, kt_diag *diag)
{
    /* A memory database has no WAL: a WAL-mode header (bytes 18-19 = 2)
     * reads as a rollback-journal one, the same data without a WAL beside. */
    if (len >= 100 && image[18] == 2 && image[19] == 2)
        image[18] = image[19] = 1;
    if (sqlite3_open(":memory:", conn) != SQLITE_OK) {
        sqlite3_free(image);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    if (sqlite3_deserialize(*conn, "main", image, (sqlite3_int64)len, (sqlite3_int64)len,
                            SQLITE_DESERIALIZE_FREEONCLOSE |
                                SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
        return kt_fail(diag, KT_EDB, "%s: %s", path, sqlite3_errmsg(*conn));
    return KT_OK;
}

/* Open the perf db read-only; a bzip2 file is decompressed in memory, so
 * no temporary file exists to be left behind. */
static int open_perfdb(const char *path, uint64_t max_bytes, sqlite3 **conn,
                       kt_diag *diag)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return kt_fail(diag, KT_EIO, "cannot open '%s': %s", path, strerror(errno));
    unsigned char magic[16] = {0};
    size_t got = fread(magic, 1, sizeof magic, in);
    rewind(in);
    bool bz = got >= 3 && memcmp(magic, "BZh", 3) == 0;
    bool lite = got == 16 && memcmp(magic, "SQLite format 3", 16) == 0;
    struct stat st;
    uint64_t size = fstat(fileno(in), &st) == 0 ? (uint64_t)st.st_size : 0;
    unsigned char *image = NULL;
    uint64_t len = 0;
    int rc = KT_OK;
    if (!bz && !lite)
        rc = kt_fail(diag, KT_EFORMAT, "%s: not an MIOpen perf db (neither SQLite nor "
                     "bzip2)", path);
    if (rc == KT_OK && bz)
        rc = bunzip(in, path, bz_limit(size, max_bytes), &image, &len, diag);
    fclose(in);
    if (rc == KT_OK && bz)
        return open_image(path, image, len, conn, diag);
    if (rc == KT_OK &&
        sqlite3_open_v2(path, conn, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        rc = kt_fail(diag, KT_EDB, "%s: %s", path, sqlite3_errmsg(*conn));
    return rc;
}

/* ------------------------------------------------------- checking rows */

/* What the rows of one solver are checked against (miopen.h). */
typedef struct solver_rules {
    kt_spec *spec;         /* its space-only spec, NULL when none */
    const char **names;    /* its parameter names, NULL: p0, p1, ... */
    size_t nvalues;        /* values a row has */
} solver_rules;

static void rules_clear(solver_rules *r)
{
    kt_spec_free(r->spec);
    free(r->names);
    *r = (solver_rules){0};
}

/* Whether a solver's name can be a file name in the spec folder (it comes
 * from the file being imported). */
static bool plain_name(const char *s)
{
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return false;
    return *s != '\0';
}

/* The solver's spec in o->spec_dir, or *spec NULL when it has none. */
static int load_spec(const kt_miopen_options *o, const char *solver, kt_spec **spec,
                     kt_diag *diag)
{
    *spec = NULL;
    if (!o->spec_dir || !plain_name(solver))
        return KT_OK;
    char *path = kt_asprintf("%s/%s.json", o->spec_dir, solver);
    int rc = !path ? kt_fail(diag, KT_ENOMEM, "out of memory")
             : access(path, F_OK) != 0
                 ? KT_OK
                 : kt_spec_load(path, o->warn, o->warn_user, spec, diag);
    free(path);
    return rc;
}

/* The number of values most of the solver's rows have. */
static size_t common_count(sqlite3 *src, const char *solver)
{
    sqlite3_stmt *st;
    const char *sql = "SELECT length(params) - length(replace(params, ',', '')) + 1"
                      " AS n FROM perf_db WHERE solver = ?1 GROUP BY n"
                      " ORDER BY count(*) DESC, n LIMIT 1";
    if (sqlite3_prepare_v2(src, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, solver, -1, SQLITE_STATIC);
    size_t n = sqlite3_step(st) == SQLITE_ROW ? (size_t)sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return n;
}

/* The rules of solver: its spec's names, else the built-in ones, else
 * none and the most common number of values. */
static int rules_load(solver_rules *r, sqlite3 *src, const kt_miopen_options *o,
                      const char *solver, kt_diag *diag)
{
    rules_clear(r);
    int rc = load_spec(o, solver, &r->spec, diag);
    size_t n;
    const char *const *builtin = kt_miopen_param_names(solver, &n);
    n = r->spec ? r->spec->nparams : n;
    if (rc == KT_OK && (r->spec || builtin)) {
        if (!(r->names = malloc((n ? n : 1) * sizeof *r->names)))
            return kt_fail(diag, KT_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
            r->names[i] = r->spec ? r->spec->params[i].name : builtin[i];
    }
    r->nvalues = r->names ? n : common_count(src, solver);
    return rc;
}

static size_t count_values(const char *params)
{
    size_t n = 1;
    for (const char *c = params; *c; c++)
        n += *c == ',';
    return n;
}

/* Whether params is integers joined by ',' (no blanks, no '+'). */
static bool all_integers(const char *params)
{
    for (const char *s = params;; s++) {
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)*s) && *s != '-')
            return false;
        (void)strtoll(s, &end, 10);
        if (end == s || errno == ERANGE || (*end != ',' && *end != '\0'))
            return false;
        if (*end == '\0')
            return true;
        s = end;
    }
}

/* "NAME=value,..." for a row's params (of r->nvalues values), with the
 * solver's names or p0, p1, ... */
static char *config_key(const solver_rules *r, const char *params)
{
    kt_buf b = {0};
    const char *s = params;
    for (size_t i = 0;; i++) {
        size_t len = strcspn(s, ",");
        if (r->names)
            kt_buf_appendf(&b, "%s%s=%.*s", i ? "," : "", r->names[i], (int)len, s);
        else
            kt_buf_appendf(&b, "%sp%zu=%.*s", i ? "," : "", i, (int)len, s);
        if (s[len] != ',')
            break;
        s += len + 1;
    }
    return kt_buf_take(&b);
}

/* Whether params (and the problem key) make a configuration of the solver;
 * the configuration key in *cfg (caller frees) when they do, else why. */
static int check_row(const solver_rules *r, const char *params, const char *prob,
                     char **cfg, kt_diag *why)
{
    *cfg = NULL;
    size_t n = count_values(params);
    if (n != r->nvalues)
        return kt_fail(why, KT_EINVAL, "'%s' has %zu value%s, %s %zu", params, n,
                       n == 1 ? "" : "s",
                       r->names ? "the solver has" : "most of its rows have", r->nvalues);
    if (r->names && !r->spec && !all_integers(params))
        return kt_fail(why, KT_EINVAL, "'%s' is not %zu integers", params, n);
    if (!(*cfg = config_key(r, params)))
        return kt_fail(why, KT_ENOMEM, "out of memory");
    int rc = kt_db_key_check(*cfg, why);
    uint16_t idx[64];
    if (rc == KT_OK && r->spec && r->spec->nparams <= KT_ARRAY_LEN(idx))
        rc = kt_spec_config_parse(r->spec, *cfg, idx, why);
    if (rc == KT_OK && kt_db_key_check(prob, why) != KT_OK) {
        kt_diag_prefix(why, "problem");
        rc = KT_EINVAL;
    }
    if (rc != KT_OK) {
        free(*cfg);
        *cfg = NULL;
    }
    return rc;
}

/* ----------------------------------------------------------- importing */

/* State of one import. */
typedef struct importer {
    kt_db *db;
    sqlite3 *src;          /* the perf db */
    const kt_miopen_options *opts; /* spec_dir and where its warnings go */
    int64_t device;
    int64_t kernel;        /* the solver's kernel id, -1 until a row is stored */
    char solver[128];      /* the solver kernel and rules are of */
    solver_rules rules;
    kt_import_stats *stats;
    kt_diag *diag;
} importer;

/* Every config column but the id, as NAME=value in table order. */
static char *problem_key(sqlite3_stmt *st, int first)
{
    kt_buf b = {0};
    for (int c = first; c < sqlite3_column_count(st); c++) {
        const char *v = (const char *)sqlite3_column_text(st, c);
        kt_buf_appendf(&b, "%s%s=%s", c > first ? "," : "", sqlite3_column_name(st, c),
                       v ? v : "");
    }
    return kt_buf_take(&b);
}

/* Count a refused row; the first few go into the report with their id. */
static void reject(importer *im, int64_t id, const char *solver, const char *why)
{
    kt_import_stats *s = im->stats;
    if (++s->rejected <= 3) {
        size_t len = strlen(s->rejects);
        snprintf(s->rejects + len, sizeof s->rejects - len, "%sid %lld (%s): %s",
                 len ? "; " : "", (long long)id, solver, why);
    }
}

/* Store one checked row. */
static int store_row(importer *im, const char *solver, const char *prob,
                     const char *cfg)
{
    int rc = KT_OK;
    if (im->kernel < 0)
        rc = kt_db_kernel(im->db, solver, "miopen-perfdb", &im->kernel, im->diag);
    int64_t problem;
    if (rc == KT_OK)
        rc = kt_db_problem(im->db, im->kernel, prob, &problem, im->diag);
    kt_result r = {.status = KT_STATUS_OK, .time_ms = NAN, .min_ms = NAN,
                   .spread = NAN, .compile_ms = NAN, .energy_j = NAN, .power_w = NAN,
                   .max_error = NAN};
    kt_strlcpy(r.detail, sizeof r.detail, "imported from an MIOpen perf db");
    int64_t before = kt_db_changes(im->db);
    if (rc == KT_OK)
        rc = kt_db_record(im->db, im->device, im->kernel, problem, cfg, &r, im->diag);
    im->stats->added += rc == KT_OK && kt_db_changes(im->db) > before;
    im->stats->rows += rc == KT_OK;
    im->stats->named += rc == KT_OK && im->rules.names;
    return rc;
}

static int import_row(importer *im, sqlite3_stmt *st)
{
    int64_t id = sqlite3_column_int64(st, 0);
    const char *solver = (const char *)sqlite3_column_text(st, 1);
    const char *params = (const char *)sqlite3_column_text(st, 2);
    if (!solver || !params) {
        reject(im, id, solver ? solver : "?", "no solver or no params");
        return KT_OK;
    }
    int rc = KT_OK;
    if (strcmp(solver, im->solver) != 0) {
        rc = rules_load(&im->rules, im->src, im->opts, solver, im->diag);
        kt_strlcpy(im->solver, sizeof im->solver, solver);
        im->kernel = -1;
    }
    char *prob = problem_key(st, 4); /* columns 3.. are config.*; 3 is its id */
    char *cfg = NULL;
    kt_diag why = {{0}};
    if (rc == KT_OK && !prob)
        rc = kt_fail(im->diag, KT_ENOMEM, "out of memory");
    int checked = rc == KT_OK ? check_row(&im->rules, params, prob, &cfg, &why) : rc;
    if (checked == KT_ENOMEM)
        rc = kt_fail(im->diag, KT_ENOMEM, "out of memory");
    else if (rc == KT_OK && checked != KT_OK)
        reject(im, id, solver, why.msg);
    else if (rc == KT_OK)
        rc = store_row(im, solver, prob, cfg);
    free(cfg);
    free(prob);
    return rc;
}

static int import_rows(importer *im, const char *path)
{
    sqlite3_stmt *st;
    const char *sql = "SELECT p.id, p.solver, p.params, c.* FROM perf_db p"
                      " JOIN config c ON c.id = p.config ORDER BY p.solver, p.id";
    if (sqlite3_prepare_v2(im->src, sql, -1, &st, NULL) != SQLITE_OK)
        return kt_fail(im->diag, KT_EFORMAT, "%s: not an MIOpen perf db (%s)", path,
                       sqlite3_errmsg(im->src));
    int rc = KT_OK, step;
    while (rc == KT_OK && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = import_row(im, st);
    if (rc == KT_OK && step != SQLITE_DONE)
        rc = kt_fail(im->diag, KT_EDB, "%s: %s", path, sqlite3_errmsg(im->src));
    sqlite3_finalize(st);
    rules_clear(&im->rules);
    return rc;
}

/* The file's base name without extensions: ".../gfx906_60.db.bz2" -> "gfx906_60". */
static void device_from_path(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    kt_strlcpy(out, n, base);
    char *dot = strchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
}

static int count_solvers(sqlite3 *src, uint64_t *n)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(src, "SELECT count(DISTINCT solver) FROM perf_db", -1, &st,
                           NULL) != SQLITE_OK)
        return KT_EDB;
    *n = sqlite3_step(st) == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return KT_OK;
}

int kt_miopen_import(const char *path, kt_db *db, const char *device,
                     kt_import_stats *stats, kt_diag *diag)
{
    kt_miopen_options opts = {.device = device};
    return kt_miopen_import_opts(path, db, &opts, stats, diag);
}

int kt_miopen_import_opts(const char *path, kt_db *db, const kt_miopen_options *opts,
                          kt_import_stats *stats, kt_diag *diag)
{
    kt_miopen_options none = {0};
    opts = opts ? opts : &none;
    *stats = (kt_import_stats){0};
    if (opts->device)
        kt_strlcpy(stats->device, sizeof stats->device, opts->device);
    else
        device_from_path(path, stats->device, sizeof stats->device);
    importer im = {.db = db, .opts = opts, .stats = stats, .diag = diag};
    int rc = open_perfdb(path, opts->max_bytes, &im.src, diag);
    kt_device_info dev = {0};
    kt_strlcpy(dev.name, sizeof dev.name, stats->device);
    kt_strlcpy(dev.backend, sizeof dev.backend, "miopen");
    snprintf(dev.fingerprint, sizeof dev.fingerprint, "miopen-perfdb|%s", stats->device);
    if (rc == KT_OK)
        rc = kt_db_begin(db, diag);
    if (rc == KT_OK) {
        rc = kt_db_device(db, &dev, &im.device, diag);
        if (rc == KT_OK)
            rc = import_rows(&im, path);
        if (rc == KT_OK)
            rc = kt_db_commit(db, diag);
        else
            kt_db_rollback(db);
    }
    if (rc == KT_OK)
        count_solvers(im.src, &stats->solvers);
    sqlite3_close(im.src);
    return rc;
}

/* ------------------------------------------------------------ problems */

static void append_flags(kt_buf *b, const char *name, const char *v)
{
    if (strcmp(name, "data_type") == 0)
        kt_buf_appendf(b, ",fp16=%d,bf16=%d", strcmp(v, "FP16") == 0,
                       strcmp(v, "BF16") == 0);
    else if (strcmp(name, "direction") == 0)
        kt_buf_appendf(b, ",fwd=%d,bwd=%d,wrw=%d", strcmp(v, "F") == 0,
                       strcmp(v, "B") == 0, strcmp(v, "W") == 0);
    else if (strcmp(name, "layout") != 0)
        kt_buf_appendf(b, ",%s=%s", name, v);
}

int kt_miopen_problem_overrides(const char *problem_key, char **out, kt_diag *diag)
{
    char **names, **values;
    size_t n;
    if (kt_key_fields(problem_key, &names, &values, &n) != KT_OK)
        return kt_fail(diag, KT_EINVAL, "problem key '%s' is not NAME=VALUE,...",
                       problem_key);
    kt_buf b = {0};
    for (size_t i = 0; i < n; i++)
        append_flags(&b, names[i], values[i]);
    kt_key_fields_free(names, values, n);
    char *text = kt_buf_take(&b);
    if (!text)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    /* drop the leading comma */
    memmove(text, text + (text[0] == ','), strlen(text) + 1 - (text[0] == ','));
    *out = text;
    return KT_OK;
}
