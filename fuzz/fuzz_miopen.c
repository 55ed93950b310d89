/* fuzz_miopen.c - libFuzzer harness for the MIOpen perf-db import
 * (src/store/miopen.c): any perf db is imported into a fresh in-memory
 * database or refused with a message, never crashing, and every problem
 * it stores turns into problem overrides or a reason.
 *
 * An input starting with SQLite's header is handed over as the perf db
 * file itself (damaged files).  Any other input describes one, so that the
 * fuzzer mutates rows rather than B-tree pages: the first line lists the
 * config table's columns (comma-separated), each further line is a row
 * `solver|params|value|value|...` (a value that is a whole number is
 * stored as an integer, an empty one as NULL).  Seeds: fuzz/corpus/miopen/.
 * bzip2 inputs are left out: decompression writes a temporary file. */
#include "store/miopen.h"

#include "fuzz.h"

#include <sqlite3.h>

enum { MAX_COLS = 40, MAX_ROWS = 64 };

/* Split s in place at sep into at most max fields; returns the count. */
static size_t split(char *s, char sep, char **out, size_t max)
{
    size_t n = 0;
    while (n < max) {
        out[n++] = s;
        char *end = strchr(s, sep);
        if (!end)
            break;
        *end = '\0';
        s = end + 1;
    }
    return n;
}

static void bind_value(sqlite3_stmt *st, int i, const char *v)
{
    char *end;
    long long n = strtoll(v, &end, 10);
    if (!*v)
        sqlite3_bind_null(st, i);
    else if (!*end)
        sqlite3_bind_int64(st, i, n);
    else
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

/* CREATE TABLE config with the given column names, quoted. */
static int create_tables(sqlite3 *c, char **cols, size_t ncols)
{
    sqlite3_str *sql = sqlite3_str_new(c);
    sqlite3_str_appendf(sql, "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT,"
                             " config INT, params TEXT); CREATE TABLE config "
                             "(id INTEGER PRIMARY KEY");
    for (size_t i = 0; i < ncols; i++)
        sqlite3_str_appendf(sql, ", \"%w\"", cols[i]);
    sqlite3_str_appendall(sql, ")");
    char *text = sqlite3_str_finish(sql);
    int rc = text ? sqlite3_exec(c, text, NULL, NULL, NULL) : SQLITE_NOMEM;
    sqlite3_free(text);
    return rc;
}

/* Insert row `id` (`solver|params|values...`) into both tables. */
static void insert_row(sqlite3 *c, char *line, size_t ncols, int id)
{
    char *f[MAX_COLS + 2];
    size_t n = split(line, '|', f, MAX_COLS + 2);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c, "INSERT INTO perf_db (solver, config, params) VALUES (?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    bind_value(st, 1, f[0]);
    sqlite3_bind_int(st, 2, id);
    bind_value(st, 3, n > 1 ? f[1] : "");
    sqlite3_step(st);
    sqlite3_finalize(st);
    sqlite3_str *sql = sqlite3_str_new(c);
    sqlite3_str_appendf(sql, "INSERT INTO config VALUES (%d", id);
    for (size_t i = 0; i < ncols; i++)
        sqlite3_str_appendall(sql, ", ?");
    sqlite3_str_appendall(sql, ")");
    char *text = sqlite3_str_finish(sql);
    if (text && sqlite3_prepare_v2(c, text, -1, &st, NULL) == SQLITE_OK) {
        for (size_t i = 0; i < ncols; i++)
            bind_value(st, (int)i + 1, i + 2 < n ? f[i + 2] : "");
        sqlite3_step(st);
        sqlite3_finalize(st);
    }
    sqlite3_free(text);
}

/* The perf db that text describes, as the bytes of an SQLite file
 * (sqlite3_free them); NULL when the description makes no database. */
static unsigned char *describe(char *text, sqlite3_int64 *size)
{
    char *lines[MAX_ROWS + 1], *cols[MAX_COLS];
    size_t nlines = split(text, '\n', lines, MAX_ROWS + 1);
    size_t ncols = split(lines[0], ',', cols, MAX_COLS);
    sqlite3 *c;
    unsigned char *bytes = NULL;
    if (sqlite3_open(":memory:", &c) == SQLITE_OK && create_tables(c, cols, ncols) == SQLITE_OK) {
        for (size_t i = 1; i < nlines; i++)
            insert_row(c, lines[i], ncols, (int)i);
        bytes = sqlite3_serialize(c, "main", size, 0);
    }
    sqlite3_close(c);
    return bytes;
}

static int check_problem(void *user, const kt_db_row *row)
{
    (void)user;
    char *overrides = NULL;
    kt_diag d = {{0}};
    if (kt_miopen_problem_overrides(row->problem, &overrides, &d) != KT_OK &&
        d.msg[0] == '\0')
        abort(); /* a refusal without a reason */
    free(overrides);
    return 0;
}

static void import(const uint8_t *file, size_t size)
{
    kt_db *db = fuzz_db();
    kt_diag d = {{0}};
    kt_import_stats st;
    int rc = kt_miopen_import(fuzz_file(file, size), db, "gfx000_1", &st, &d);
    if (rc == KT_OK) {
        if (st.added > st.rows || st.named > st.rows)
            abort();
        kt_db_filter all = {0};
        if (kt_db_list(db, &all, check_problem, NULL, &d) != KT_OK)
            abort();
    } else if (d.msg[0] == '\0') {
        abort(); /* a refusal without a reason */
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    (void)fuzz_db();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 16 && memcmp(data, "SQLite format 3", 16) == 0) {
        import(data, size);
        return 0;
    }
    if (size >= 3 && memcmp(data, "BZh", 3) == 0)
        return 0;
    char *text = fuzz_string(data, size);
    sqlite3_int64 n = 0;
    unsigned char *file = describe(text, &n);
    if (file)
        import(file, (size_t)n);
    sqlite3_free(file);
    free(text);
    return 0;
}
