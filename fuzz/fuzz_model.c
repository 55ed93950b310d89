/* fuzz_model.c - libFuzzer harness for the model loader: any bytes, as a
 * model file, must load into a working model or be refused with
 * KT_EFORMAT; never a crash, a leak or an out-of-bounds access, in ktune or
 * in the libraries it hands model parts to (XGBoost, libsvm).  The last 8
 * bytes are replaced by the right checksum, as an attacker would do (the
 * fuzzer cannot learn FNV-1a, and the checksum is no defence against a
 * crafted file).  A model that loads is queried once, since a loader that
 * accepts a bad model moves the crash to the first prediction.  Seeds:
 * fuzz/corpus/model/, one small model file per method. */
#include "core/util.h"
#include "ml/model.h"
#include "ml/predict.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *bytes = malloc(size + 1);
    if (!bytes)
        return 0;
    memcpy(bytes, data, size);
    if (size >= 8) {
        uint64_t sum = kt_hash(KT_HASH_INIT, bytes, size - 8);
        memcpy(bytes + size - 8, &sum, 8);
    }
    kt_model *m;
    kt_diag d;
    int rc = kt_model_load_bytes(bytes, size, "fuzz.ktm", &m, &d);
    free(bytes);
    if (rc != KT_OK && rc != KT_EFORMAT && rc != KT_ENOMEM)
        abort(); /* only a format error (or no memory) may refuse bytes */
    if (rc != KT_OK)
        return 0;
    kt_model_info info;
    kt_model_describe(m, &info);
    uint16_t out[2 * 64];
    size_t found;
    const char *problem = info.ntest ? kt_model_test_problem(m, 0) : "N=1";
    if (info.nout <= 64)
        kt_predict(m, NULL, problem, 2, out, NULL, &found, &d);
    kt_model_free(m);
    return 0;
}
