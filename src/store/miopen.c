/* miopen.c - read an MIOpen performance database (SQLite, or bzip2 of one,
 * decompressed with libbz2 into a private temporary file) and store each
 * row as an ok measurement without a time (see miopen.h). */
#include "store/miopen.h"
#include "core/util.h"

#include <bzlib.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Decompress the bzip2 file in into out (an open temporary file). */
static int bunzip(FILE *in, FILE *out, const char *path, kt_diag *diag)
{
    int bzerr;
    BZFILE *bz = BZ2_bzReadOpen(&bzerr, in, 0, 0, NULL, 0);
    if (bzerr != BZ_OK)
        return kt_fail(diag, KT_EFORMAT, "%s: cannot read bzip2 data", path);
    char buf[1 << 16];
    while (bzerr == BZ_OK) {
        int n = BZ2_bzRead(&bzerr, bz, buf, sizeof buf);
        if ((bzerr == BZ_OK || bzerr == BZ_STREAM_END) && n > 0 &&
            fwrite(buf, 1, (size_t)n, out) != (size_t)n)
            bzerr = BZ_IO_ERROR;
    }
    int close_err;
    BZ2_bzReadClose(&close_err, bz);
    if (bzerr != BZ_STREAM_END)
        return kt_fail(diag, KT_EFORMAT, "%s: corrupt or truncated bzip2 data", path);
    return fflush(out) == 0 ? KT_OK
                            : kt_fail(diag, KT_EIO, "cannot write a temporary file: %s",
                                      strerror(errno));
}

/* Open the perf db read-only; a bzip2 file is first decompressed into a
 * temporary file, deleted again once SQLite has it open. */
static int open_perfdb(const char *path, sqlite3 **conn, kt_diag *diag)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return kt_fail(diag, KT_EIO, "cannot open '%s': %s", path, strerror(errno));
    unsigned char magic[16] = {0};
    size_t got = fread(magic, 1, sizeof magic, in);
    rewind(in);
    bool bz = got >= 3 && memcmp(magic, "BZh", 3) == 0;
    bool lite = got == 16 && memcmp(magic, "SQLite format 3", 16) == 0;
    char tmp[] = "/tmp/ktune-perfdb-XXXXXX";
    int rc = KT_OK;
    if (!bz && !lite)
        rc = kt_fail(diag, KT_EFORMAT, "%s: not an MIOpen perf db (neither SQLite nor "
                     "bzip2)", path);
    if (rc == KT_OK && bz) {
        int fd = mkstemp(tmp);
        FILE *out = fd >= 0 ? fdopen(fd, "wb") : NULL;
        rc = out ? bunzip(in, out, path, diag)
                 : kt_fail(diag, KT_EIO, "cannot create a temporary file: %s",
                           strerror(errno));
        if (out)
            fclose(out);
        else if (fd >= 0)
            close(fd);
    }
    fclose(in);
    if (rc == KT_OK &&
        sqlite3_open_v2(bz ? tmp : path, conn, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        rc = kt_fail(diag, KT_EDB, "%s: %s", path, sqlite3_errmsg(*conn));
    if (bz)
        unlink(tmp);
    return rc;
}

/* ----------------------------------------------------------- importing */

/* State of one import. */
typedef struct importer {
    kt_db *db;
    int64_t device, kernel;
    char solver[128];      /* the solver kernel is the id of */
    kt_import_stats *stats;
    kt_diag *diag;
} importer;

/* "p0=..,p1=.." or the solver's names, for a comma-separated params. */
static char *config_key(const char *solver, const char *params, bool *named)
{
    size_t nnames, fields = 1;
    const char *const *names = kt_miopen_param_names(solver, &nnames);
    for (const char *c = params; *c; c++)
        fields += *c == ',';
    *named = names && fields == nnames;
    kt_buf b = {0};
    size_t i = 0;
    for (const char *s = params; i < fields; i++) {
        size_t len = strcspn(s, ",");
        if (*named)
            kt_buf_appendf(&b, "%s%s=%.*s", i ? "," : "", names[i], (int)len, s);
        else
            kt_buf_appendf(&b, "%sp%zu=%.*s", i ? "," : "", i, (int)len, s);
        s += len + (s[len] == ',');
    }
    return kt_buf_take(&b);
}

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

static int import_row(importer *im, sqlite3_stmt *st)
{
    const char *solver = (const char *)sqlite3_column_text(st, 0);
    const char *params = (const char *)sqlite3_column_text(st, 1);
    if (!solver || !params)
        return kt_fail(im->diag, KT_EFORMAT, "a perf_db row lacks its solver or params");
    int rc = KT_OK;
    if (strcmp(solver, im->solver) != 0) {
        rc = kt_db_kernel(im->db, solver, "miopen-perfdb", &im->kernel, im->diag);
        kt_strlcpy(im->solver, sizeof im->solver, solver);
    }
    bool named;
    char *cfg = config_key(solver, params, &named);
    char *prob = problem_key(st, 3); /* columns 2.. are config.*; 2 is its id */
    int64_t problem;
    if (rc == KT_OK && (!cfg || !prob))
        rc = kt_fail(im->diag, KT_ENOMEM, "out of memory");
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
    im->stats->named += rc == KT_OK && named;
    free(cfg);
    free(prob);
    return rc;
}

static int import_rows(importer *im, sqlite3 *src, const char *path)
{
    sqlite3_stmt *st;
    const char *sql = "SELECT p.solver, p.params, c.* FROM perf_db p"
                      " JOIN config c ON c.id = p.config ORDER BY p.solver, p.id";
    if (sqlite3_prepare_v2(src, sql, -1, &st, NULL) != SQLITE_OK)
        return kt_fail(im->diag, KT_EFORMAT, "%s: not an MIOpen perf db (%s)", path,
                       sqlite3_errmsg(src));
    int rc = KT_OK, step;
    while (rc == KT_OK && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = import_row(im, st);
    if (rc == KT_OK && step != SQLITE_DONE)
        rc = kt_fail(im->diag, KT_EDB, "%s: %s", path, sqlite3_errmsg(src));
    sqlite3_finalize(st);
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
    *stats = (kt_import_stats){0};
    if (device)
        kt_strlcpy(stats->device, sizeof stats->device, device);
    else
        device_from_path(path, stats->device, sizeof stats->device);
    sqlite3 *src = NULL;
    int rc = open_perfdb(path, &src, diag);
    importer im = {.db = db, .stats = stats, .diag = diag};
    kt_device_info dev = {0};
    kt_strlcpy(dev.name, sizeof dev.name, stats->device);
    kt_strlcpy(dev.backend, sizeof dev.backend, "miopen");
    snprintf(dev.fingerprint, sizeof dev.fingerprint, "miopen-perfdb|%s", stats->device);
    if (rc == KT_OK)
        rc = kt_db_begin(db, diag);
    if (rc == KT_OK) {
        rc = kt_db_device(db, &dev, &im.device, diag);
        if (rc == KT_OK)
            rc = import_rows(&im, src, path);
        if (rc == KT_OK)
            rc = kt_db_commit(db, diag);
        else
            kt_db_rollback(db);
    }
    if (rc == KT_OK)
        count_solvers(src, &stats->solvers);
    sqlite3_close(src);
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
