/* error.c - messages of the KT_ERRORS codes. */
#include "core/base.h"

const char *kt_strerror(int code)
{
    switch (code) {
#define KT_ERROR_CASE(name, value, msg) \
    case KT_##name: return msg;
        KT_ERRORS(KT_ERROR_CASE)
#undef KT_ERROR_CASE
    }
    return "unknown error";
}
