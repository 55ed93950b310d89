/* fuzz_mpi_wire.c - libFuzzer harness for the messages of a distributed run
 * (src/tune/mpi_wire.c), which rank 0 and the measuring ranks read from
 * each other: any bytes decode or are refused with a message, never
 * reading past the end; what decodes encodes again to the same bytes.
 * Seeds: fuzz/corpus/mpi_wire/ (one message of each kind). */
#include "tune/mpi_wire.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint16_t cfg[3];
    kt_mpi_msg m;
    kt_diag d = {{0}};
    int rc = kt_mpi_decode(data, size, cfg, 3, &m, &d);
    if (rc != KT_OK) {
        if (d.msg[0] == '\0')
            abort(); /* a refusal without a reason */
        return 0;
    }
    unsigned char again[KT_MPI_MSG_MAX];
    size_t len = 0;
    if (kt_mpi_encode(&m, again, sizeof again, &len) != KT_OK || len != size ||
        memcmp(again, data, size) != 0)
        abort(); /* decoding lost or invented something */
    return 0;
}
