/* fuzz_csv.c - libFuzzer harness for the CSV import (src/core/csv.c, the
 * RFC 4180 reader, and src/store/csv_import.c, which checks and stores
 * rows): any bytes are imported into an empty in-memory database in full
 * or refused with a message, never crashing.  Seeds: fuzz/corpus/csv/
 * (exports of `ktune db export csv`). */
#include "store/csv_import.h"

#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    (void)fuzz_db();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    kt_db *db = fuzz_db();
    kt_diag d = {{0}};
    kt_csv_import_stats st;
    int rc = kt_csv_import(path, db, &st, &d);
    if (rc == KT_OK ? st.added > st.rows : d.msg[0] == '\0')
        abort(); /* more rows added than read, or a refusal without a reason */
    return 0;
}
