/* test_diag.c - what a failure tells the user: a long message keeps its
 * head and its reason, a problem is parsed strictly, and a condition that
 * cannot be evaluated is named rather than counted as false. */
#include "core/space.h"
#include "core/util.h"
#include "spec_util.h"

static kt_spec *load(const char *conds, const char *problem)
{
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    const char *path = write_temp("diag.json",
                                  spec_json("{\"Name\": \"X\", \"Values\": \"[1, 2, 4]\"}",
                                            conds, problem));
    int rc = kt_spec_load(path, NULL, NULL, &spec, &d);
    unlink(path);
    if (rc != KT_OK) {
            exit(1);
    }
    return spec;
}

static void test_a_long_message_keeps_its_head_and_its_reason(void)
{
    char subject[2000];
    memset(subject, 'x', sizeof subject - 1);
    subject[sizeof subject - 1] = '\0';
    /* two-byte characters across both ends of the cut (the text is 20
     * bytes of head, the subject, then 30 bytes; 252 are kept each side) */
    subject[231] = subject[1776] = (char)0xC3;
    subject[232] = subject[1777] = (char)0xA9;
    kt_diag d = {{0}};
    CHECK(kt_fail(&d, KT_ESYNTAX, "spec.json:4:12: in \"%s\": column 1999: %s", subject,
                  "unexpected '*'") == KT_ESYNTAX);
    CHECK(strncmp(d.msg, "spec.json:4:12: in \"xxx", 23) == 0);
    CHECK(strstr(d.msg, " [...] ") != NULL);
    size_t n = strlen(d.msg);
    CHECK(n < sizeof d.msg && n > sizeof d.msg - 6);
    CHECK(strcmp(d.msg + n - 30, "\": column 1999: unexpected '*'") == 0);
    for (size_t i = 0; i < n; i++) /* no half character either side of the cut */
        CHECK((unsigned char)d.msg[i] != 0xC3 && (unsigned char)d.msg[i] != 0xA9);
    kt_diag_prefix(&d, "ktune");
    CHECK(strncmp(d.msg, "ktune: spec.json:4:12:", 22) == 0);
    CHECK(strstr(d.msg, "unexpected '*'") != NULL);
    CHECK(kt_fail(&d, KT_EIO, "short %d", 1) == KT_EIO);
    CHECK_STR(d.msg, "short 1");
}

static void test_problem_values_are_checked_not_guessed(void)
{
    kt_spec *spec = load("", "{\"Name\": \"N\", \"Default\": 100},"
                             "{\"Name\": \"alpha\", \"Default\": 0.5}");
    kt_problem p;
    kt_diag d = {{0}};
    CHECK(kt_problem_parse(spec, "N=64,alpha=0.25", &p, &d) == KT_OK);
    CHECK_STR(p.key, "N=64,alpha=0.25");
    kt_problem_clear(&p);
    CHECK(kt_problem_parse(spec, "N=1e3", &p, &d) == KT_OK); /* whole, as written */
    CHECK_STR(p.key, "N=1000,alpha=0.5");
    kt_problem_clear(&p);
    CHECK(kt_problem_parse(spec, "N=1,N=2", &p, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "'N' is set twice") != NULL);
    CHECK(kt_problem_parse(spec, "N=1.5", &p, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "'N' takes whole numbers (its default is 100), not '1.5'") != NULL);
    CHECK(kt_problem_parse(spec, "N=1e300", &p, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "too large: at most 9007199254740992") != NULL);
    CHECK(kt_problem_parse(spec, "N=1,,alpha=1", &p, &d) == KT_EINVAL);
    kt_spec_free(spec);
}

static void test_a_condition_that_cannot_be_evaluated_is_named(void)
{
    kt_spec *spec = load("{\"Parameters\": [\"X\"], \"Expression\": \"N / (X - X) > 1\"}",
                         "{\"Name\": \"N\", \"Default\": 8}");
    kt_problem p;
    kt_space *s;
    kt_diag d = {{0}};
    CHECK(kt_problem_parse(spec, NULL, &p, &d) == KT_OK);
    CHECK(kt_space_new(spec, &p, &s, &d) == KT_OK);
    CHECK(kt_space_domain_error(s, &d) == KT_OK);
    CHECK(kt_space_build(s, 100, &d) == KT_EDOMAIN);
    CHECK(strstr(d.msg, "the condition \"N / (X - X) > 1\" cannot be evaluated for "
                        "X=1,N=8") != NULL);
    kt_space_free(s);
    kt_problem_clear(&p);
    kt_spec_free(spec);

    /* a space that is not empty keeps the other configurations */
    spec = load("{\"Parameters\": [\"X\"], \"Expression\": \"8 / (X - 1) > 1\"}", "");
    CHECK(kt_problem_parse(spec, NULL, &p, &d) == KT_OK);
    CHECK(kt_space_new(spec, &p, &s, &d) == KT_OK);
    CHECK(kt_space_build(s, 100, &d) == KT_OK);
    CHECK_EQ_INT(kt_space_size(s), 2);
    CHECK(kt_space_domain_error(s, &d) == KT_EDOMAIN);
    CHECK(strstr(d.msg, "for X=1 (division by zero") != NULL);
    kt_space_free(s);
    kt_problem_clear(&p);
    kt_spec_free(spec);
}

static const kt_test TESTS[] = {
    KT_T(test_a_long_message_keeps_its_head_and_its_reason),
    KT_T(test_problem_values_are_checked_not_guessed),
    KT_T(test_a_condition_that_cannot_be_evaluated_is_named),
};
KT_TEST_MAIN(TESTS)
