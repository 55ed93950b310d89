/* test_mpi_wire.c - the messages of a distributed run (tune/mpi_wire.h):
 * every kind survives the round trip, and a truncated, foreign, longer or
 * mismatched message is refused instead of read. */
#include "tune/mpi_wire.h"
#include "test.h"

#include <math.h>
#include <string.h>

static void roundtrip(const kt_mpi_msg *in, kt_mpi_msg *out, uint16_t *cfg, size_t nparams)
{
    unsigned char buf[KT_MPI_MSG_MAX];
    size_t len = 0;
    kt_diag d = {{0}};
    CHECK(kt_mpi_encode(in, buf, sizeof buf, &len) == KT_OK);
    CHECK(len > 0 && len <= KT_MPI_MSG_MAX);
    CHECK(kt_mpi_decode(buf, len, cfg, nparams, out, &d) == KT_OK);
    CHECK(out->kind == in->kind);
}

static void test_work_carries_its_ticket_and_configuration(void)
{
    const uint16_t cfg[] = {3, 0, 65535, 7};
    uint16_t got[4] = {0};
    kt_mpi_msg in = {.kind = KT_MPI_WORK, .ticket = 1ull << 40, .cfg = cfg, .nparams = 4}, out;
    roundtrip(&in, &out, got, 4);
    CHECK(out.ticket == 1ull << 40);
    CHECK(out.cfg == got && out.nparams == 4);
    CHECK(memcmp(got, cfg, sizeof cfg) == 0);
}

static void test_a_result_keeps_every_field(void)
{
    kt_mpi_msg in = {.kind = KT_MPI_RESULT, .ticket = 42}, out;
    in.result = (kt_result){.status = KT_STATUS_CRASH, .signal = 11, .time_ms = NAN,
                            .min_ms = 0.25, .spread = 0.5, .reps = 9, .compile_ms = 120,
                            .energy_j = INFINITY, .power_w = -1, .sm_clock_mhz = 1755,
                            .max_error = 1e-300};
    snprintf(in.result.detail, sizeof in.result.detail, "killed by signal 11 (SIGSEGV)");
    roundtrip(&in, &out, NULL, 0);
    CHECK(out.ticket == 42);
    CHECK(out.result.status == KT_STATUS_CRASH && out.result.signal == 11);
    CHECK(isnan(out.result.time_ms));
    CHECK(out.result.min_ms == 0.25 && out.result.spread == 0.5 && out.result.reps == 9);
    CHECK(out.result.compile_ms == 120 && isinf(out.result.energy_j));
    CHECK(out.result.power_w == -1 && out.result.sm_clock_mhz == 1755);
    CHECK(out.result.max_error == 1e-300);
    CHECK_STR(out.result.detail, "killed by signal 11 (SIGSEGV)");
}

static void test_a_full_detail_still_fits_and_ends(void)
{
    kt_mpi_msg in = {.kind = KT_MPI_RESULT}, out;
    memset(in.result.detail, 'x', sizeof in.result.detail); /* no terminator */
    roundtrip(&in, &out, NULL, 0);
    CHECK_EQ_INT(strlen(out.result.detail), sizeof in.result.detail - 1);
}

static void test_hello_fail_beat_and_stop(void)
{
    kt_mpi_msg in = {.kind = KT_MPI_HELLO}, out;
    snprintf(in.text, sizeof in.text, "cpu|model=EPYC|cores=2");
    roundtrip(&in, &out, NULL, 0);
    CHECK_STR(out.text, "cpu|model=EPYC|cores=2");
    in = (kt_mpi_msg){.kind = KT_MPI_FAIL, .code = KT_EBACKEND};
    snprintf(in.text, sizeof in.text, "no device 3");
    roundtrip(&in, &out, NULL, 0);
    CHECK(out.code == KT_EBACKEND);
    CHECK_STR(out.text, "no device 3");
    in = (kt_mpi_msg){.kind = KT_MPI_BEAT};
    roundtrip(&in, &out, NULL, 0);
    in = (kt_mpi_msg){.kind = KT_MPI_STOP, .code = 1};
    roundtrip(&in, &out, NULL, 0);
    CHECK(out.code == 1);
}

static void test_truncated_and_longer_messages_are_refused(void)
{
    const uint16_t cfg[] = {1, 2, 3};
    uint16_t got[3];
    kt_mpi_msg in = {.kind = KT_MPI_WORK, .ticket = 5, .cfg = cfg, .nparams = 3}, out;
    unsigned char buf[KT_MPI_MSG_MAX + 1];
    size_t len = 0;
    kt_diag d = {{0}};
    CHECK(kt_mpi_encode(&in, buf, sizeof buf, &len) == KT_OK);
    for (size_t cut = 0; cut < len; cut++)
        CHECK(kt_mpi_decode(buf, cut, got, 3, &out, &d) == KT_EFORMAT);
    buf[len] = 0;
    CHECK(kt_mpi_decode(buf, len + 1, got, 3, &out, &d) == KT_EFORMAT);
    CHECK(kt_mpi_decode(buf, len, got, 2, &out, &d) == KT_EFORMAT); /* another spec */
    CHECK(strstr(d.msg, "malformed") != NULL);
}

static void test_a_foreign_or_newer_message_is_refused(void)
{
    kt_mpi_msg in = {.kind = KT_MPI_BEAT}, out;
    unsigned char buf[KT_MPI_MSG_MAX];
    size_t len = 0;
    kt_diag d = {{0}};
    CHECK(kt_mpi_encode(&in, buf, sizeof buf, &len) == KT_OK);
    buf[4]++; /* the version */
    CHECK(kt_mpi_decode(buf, len, NULL, 0, &out, &d) == KT_EFORMAT);
    CHECK(strstr(d.msg, "protocol") != NULL);
    buf[4]--;
    buf[6] = 99; /* an unknown kind */
    CHECK(kt_mpi_decode(buf, len, NULL, 0, &out, &d) == KT_EFORMAT);
    buf[0] ^= 0xff;
    CHECK(kt_mpi_decode(buf, len, NULL, 0, &out, &d) == KT_EFORMAT);
}

static void test_a_text_with_a_nul_inside_is_refused(void)
{
    kt_mpi_msg in = {.kind = KT_MPI_HELLO}, out;
    snprintf(in.text, sizeof in.text, "abc");
    unsigned char buf[KT_MPI_MSG_MAX];
    size_t len = 0;
    kt_diag d = {{0}};
    CHECK(kt_mpi_encode(&in, buf, sizeof buf, &len) == KT_OK);
    buf[len - 2] = '\0'; /* "a\0c": it would read back as "a" */
    CHECK(kt_mpi_decode(buf, len, NULL, 0, &out, &d) == KT_EFORMAT);
}

static void test_a_configuration_too_large_to_send_eagerly_is_refused(void)
{
    static uint16_t cfg[KT_MPI_MSG_MAX];
    kt_mpi_msg in = {.kind = KT_MPI_WORK, .cfg = cfg, .nparams = KT_MPI_MSG_MAX / 2};
    unsigned char buf[2 * KT_MPI_MSG_MAX];
    size_t len = 1;
    CHECK(kt_mpi_encode(&in, buf, sizeof buf, &len) == KT_ERANGE);
    CHECK(len == 0);
}

static const kt_test TESTS[] = {
    KT_T(test_work_carries_its_ticket_and_configuration),
    KT_T(test_a_result_keeps_every_field),
    KT_T(test_a_full_detail_still_fits_and_ends),
    KT_T(test_hello_fail_beat_and_stop),
    KT_T(test_truncated_and_longer_messages_are_refused),
    KT_T(test_a_foreign_or_newer_message_is_refused),
    KT_T(test_a_text_with_a_nul_inside_is_refused),
    KT_T(test_a_configuration_too_large_to_send_eagerly_is_refused),
};
KT_TEST_MAIN(TESTS)
