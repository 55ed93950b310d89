/* fuzz.h - what the libFuzzer harnesses (fuzz/fuzz_*.c) share: ktune's
 * parsers read files by path, so an input is handed to them as a file that
 * never appears in a folder (a memfd, reached as /proc/self/fd/N).  A
 * harness that needs files beside its input makes them under $TMPDIR and
 * removes them at exit; `make fuzz` runs each harness with TMPDIR set to a
 * folder of its own that it removes afterwards, so even a crash leaves
 * nothing in /tmp.
 * A harness that stores into a results database reuses one in memory,
 * emptied before each input: opening a fresh one costs more than most
 * inputs.
 *
 * Harnesses are single-threaded processes: the static state below is the
 * process's, created on the first input.
 */
#ifndef KT_FUZZ_H
#define KT_FUZZ_H

#include "store/db.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A path that reads as data[0..size): one memfd per process, rewritten for
 * each input.  Exits on failure (the harness cannot go on). */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("ktune-fuzz", 0);
        if (fd < 0) {
            perror("memfd_create");
            exit(2);
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) {
        perror("memfd write");
        exit(2);
    }
    return path;
}

/* A NUL-terminated copy of data[0..size); the caller frees it. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        exit(2);
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Delete every row of every table of the database on conn. */
static inline void fuzz_db_empty(sqlite3 *conn)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(conn, "SELECT name FROM sqlite_master WHERE type = 'table'",
                           -1, &st, NULL) != SQLITE_OK)
        exit(2);
    while (sqlite3_step(st) == SQLITE_ROW) {
        char *sql = sqlite3_mprintf("DELETE FROM \"%w\"", sqlite3_column_text(st, 0));
        if (!sql || sqlite3_exec(conn, sql, NULL, NULL, NULL) != SQLITE_OK)
            exit(2);
        sqlite3_free(sql);
    }
    sqlite3_finalize(st);
}

/* An empty results database in memory, the same handle for every input:
 * ktune's kt_db and a second connection of the harness's own (to empty it)
 * share one in-memory database through SQLite's shared cache.  The first
 * call must come before any other use of SQLite (it enables URI names):
 * call it from LLVMFuzzerInitialize. */
static inline kt_db *fuzz_db(void)
{
    static const char *const URI = "file:ktune-fuzz?mode=memory&cache=shared";
    static kt_db *db;
    static sqlite3 *admin;
    if (!db) {
        kt_diag d = {{0}};
        if (sqlite3_config(SQLITE_CONFIG_URI, 1) != SQLITE_OK ||
            sqlite3_open(URI, &admin) != SQLITE_OK || kt_db_open(URI, &db, &d) != KT_OK) {
            fprintf(stderr, "fuzz: cannot open the database: %s\n", d.msg);
            exit(2);
        }
    }
    fuzz_db_empty(admin);
    return db;
}

#endif /* KT_FUZZ_H */
