/* test_spec.c - reading T1 specs: what is accepted, and that every kind of
 * malformed spec is a one-line error naming the file and the key path (or
 * line and column for broken JSON), never a crash. */
#include "spec_util.h"

#define P1 "{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"[1, 2, 4]\"}"

/* Load text; expect code and every fragment in the message. */
static void expect_error(const char *text, int code, const char *frag1,
                         const char *frag2)
{
    kt_spec *spec = (kt_spec *)1;
    kt_diag d = {{0}};
    int rc = load_text(text, &spec, &d);
    if (rc != code || (frag1 && !strstr(d.msg, frag1)) ||
        (frag2 && !strstr(d.msg, frag2))) {
        fprintf(stderr, "got %d \"%s\", wanted %d with \"%s\" and \"%s\"\n", rc, d.msg,
                code, frag1 ? frag1 : "", frag2 ? frag2 : "");
        exit(1);
    }
    CHECK(spec == NULL);
    CHECK(strchr(d.msg, '\n') == NULL);
}

static void test_shipped_gemm_spec_loads(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("kernels/gemm/gemm-c.json"), NULL, NULL, &spec,
                       &d) == KT_OK);
    CHECK(spec->language == KT_LANG_C);
    CHECK_STR(spec->kernel_name, "gemm");
    CHECK(spec->nproblem == 3 && spec->flops != NULL && spec->ref_name != NULL);
    CHECK(spec->source_hash && strlen(spec->source_hash) == 16);
    kt_spec_free(spec);
}

static void test_values_accept_t1_strings_and_json_arrays(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    const char *params =
        "{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"[ 1,2 , 4 ]\", \"Default\": 2},"
        "{\"Name\": \"B\", \"Type\": \"float\", \"Values\": [0.5, \"1.5\"]},"
        "{\"Name\": \"C\", \"Type\": \"bool\", \"Values\": \"[True, False]\"}";
    CHECK(load_text(spec_json(params, "", ""), &spec, &d) == KT_OK);
    CHECK_EQ_INT(spec->params[0].nvalues, 3);
    CHECK_NEAR(spec->params[0].values[2], 4, 0);
    CHECK_EQ_INT(spec->params[0].default_index, 1);
    CHECK_NEAR(spec->params[1].values[1], 1.5, 0);
    CHECK_STR(spec->params[1].texts[1], "1.5");
    CHECK_NEAR(spec->params[2].values[0], 1, 0);
    kt_spec_free(spec);
}

/* The Python expressions that public T1 files (BAT, KTT) write as Values. */
static void test_values_accept_python_list_expressions(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    const char *params =
        "{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"list(range(32, 1024+1, 32))\"},"
        "{\"Name\": \"B\", \"Type\": \"int\", \"Values\": \"[2**i for i in range(5, 11)]\","
        " \"Default\": 64},"
        "{\"Name\": \"C\", \"Type\": \"int\", \"Values\": \"[1] + [2*i for i in range(1,11)]\"},"
        "{\"Name\": \"D\", \"Type\": \"int\","
        " \"Values\": \"[x for x in range(1, 33) if x % 2 == 0]\"}";
    CHECK(load_text(spec_json(params, "", ""), &spec, &d) == KT_OK);
    CHECK_EQ_INT(spec->params[0].nvalues, 32);
    CHECK_STR(spec->params[0].texts[31], "1024");
    CHECK_EQ_INT(spec->params[1].nvalues, 6);
    CHECK_EQ_INT(spec->params[1].default_index, 1);
    CHECK_EQ_INT(spec->params[2].nvalues, 11);
    CHECK_NEAR(spec->params[2].values[10], 20, 0);
    CHECK_EQ_INT(spec->params[3].nvalues, 16);
    kt_spec_free(spec);
}

static int warnings;
static void count_warning(void *user, const char *msg)
{
    (void)user;
    CHECK(strstr(msg, "warning: unknown key") != NULL);
    warnings++;
}

static void test_unknown_keys_are_warnings(void)
{
    char text[20000];
    snprintf(text, sizeof text, "{\"Colour\": 1, %s", spec_json(P1, "", "") + 1);
    char *ks = strstr(text, "\"KernelName\"");
    CHECK(ks);
    memmove(ks + 14, ks, strlen(ks) + 1);
    memcpy(ks, "\"Shiny\": true,", 14);
    kt_spec *spec;
    kt_diag d = {{0}};
    warnings = 0;
    CHECK(kt_spec_load(write_temp("warn.json", text), count_warning, NULL, &spec, &d) ==
          KT_OK);
    CHECK_EQ_INT(warnings, 2);
    kt_spec_free(spec);
}

static void test_broken_json_names_line_and_column(void)
{
    expect_error("{\n  \"ConfigurationSpace\": {\n    \"TuningParameters\": [,]\n}",
                 KT_ESYNTAX, ":3:26: invalid JSON", NULL);
    expect_error("", KT_ESYNTAX, "invalid JSON", NULL);
    expect_error("{} trailing", KT_ESYNTAX, "1:4", NULL);
    expect_error("[1, 2]", KT_ESPEC, "top level must be an object", NULL);
}

static void test_missing_and_mistyped_keys_name_their_path(void)
{
    expect_error("{\"KernelSpecification\": {}}", KT_ESPEC,
                 "ConfigurationSpace: missing required key", NULL);
    expect_error("{\"ConfigurationSpace\": {\"TuningParameters\": 3}}", KT_ESPEC,
                 "ConfigurationSpace.TuningParameters: expected an array, found a number",
                 NULL);
    expect_error(spec_json("{\"Name\": \"A\", \"Type\": \"int\"}", "", ""), KT_ESPEC,
                 "TuningParameters[0].Values: missing required key", NULL);
    expect_error(spec_json(P1 ", {\"Type\": \"int\", \"Values\": \"[1]\"}", "", ""),
                 KT_ESPEC, "TuningParameters[1].Name: missing required key", NULL);
    char text[20000];
    snprintf(text, sizeof text, "%s", spec_json(P1, "", ""));
    char *lang = strstr(text, "\"C\"");
    memcpy(lang, "\"X\"", 3);
    expect_error(text, KT_ESPEC, "KernelSpecification.Language: unsupported value \"X\"",
                 "C, CUDA, OpenCL");
}

static void test_bad_values_are_errors(void)
{
    expect_error(spec_json("{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"1, 2\"}",
                           "", ""),
                 KT_ESPEC, "Values: in \"1, 2\": column 1: expected a list like", NULL);
    expect_error(spec_json("{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"[1, x]\"}",
                           "", ""),
                 KT_ESPEC, "Values: in \"[1, x]\": column 5: unknown name 'x'", NULL);
    expect_error(spec_json("{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"['a']\"}",
                           "", ""),
                 KT_ESPEC, "value 'a' is not a number", NULL);
    expect_error(spec_json("{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"[1, 1]\"}",
                           "", ""),
                 KT_ESPEC, "listed twice", NULL);
    expect_error(spec_json("{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"[]\"}", "",
                           ""),
                 KT_ESPEC, "at least one value", NULL);
    expect_error(spec_json("{\"Name\": \"A\", \"Type\": \"int\", \"Values\":"
                           " \"list(range(70000))\"}", "", ""),
                 KT_ESPEC, "more than 65535 values", NULL);
    expect_error(spec_json("{\"Name\": \"A\", \"Type\": \"int\", \"Values\":"
                           " \"[open('x') for i in range(2)]\"}", "", ""),
                 KT_ESPEC, "column 2: calling 'open' is not allowed", NULL);
    expect_error(spec_json("{\"Name\": \"A\", \"Type\": \"string\", \"Values\": \"[a]\"}",
                           "", ""),
                 KT_ESPEC, "column 2: unknown name 'a'", NULL); /* Python: NameError */
    expect_error(spec_json(P1 "," P1, "", ""), KT_ESPEC, "'A' is defined twice", NULL);
    expect_error(spec_json("{\"Name\": \"2x\", \"Type\": \"int\", \"Values\": \"[1]\"}",
                           "", ""),
                 KT_ESPEC, "'2x' is not a valid name", NULL);
}

static void test_bad_conditions_name_key_and_column(void)
{
    expect_error(spec_json(P1, "{\"Parameters\": [\"A\"], \"Expression\": \"A %% == 0\"}",
                           ""),
                 KT_ESPEC, "Conditions[0].Expression", "column");
    expect_error(spec_json(P1, "{\"Parameters\": [\"A\"], \"Expression\": \"A < Q\"}", ""),
                 KT_ESPEC, "Conditions[0].Expression", "'Q'");
    expect_error(spec_json(P1, "{\"Parameters\": [\"A\"]}", ""), KT_ESPEC,
                 "Conditions[0].Expression: missing required key", NULL);
}

/* A spec of A (1, 2, 4) with problem M = 8 and the BehaviourDimensions
 * array holding dims. */
static const char *with_dims(const char *dims)
{
    static char problem[1024];
    snprintf(problem, sizeof problem,
             "{\"Name\": \"M\", \"Default\": 8}], \"BehaviourDimensions\": [%s", dims);
    return spec_json(P1, "", problem);
}

#define DIM(name, expr, bins) \
    "{\"Name\": \"" name "\", \"Expression\": \"" expr "\", \"Bins\": " bins "}"

static void test_behaviour_dimensions_are_read(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(load_text(with_dims(DIM("work", "A * M", "3") ", {\"Name\": \"a\", "
                              "\"Expression\": \"A\"}"),
                    &spec, &d) == KT_OK);
    CHECK(spec->ndims == 2);
    CHECK_STR(spec->dims[0].name, "work");
    CHECK(spec->dims[0].bins == 3 && spec->dims[1].bins == KT_BEHAVIOUR_DEFAULT_BINS);
    CHECK_STR(kt_expr_source(spec->dims[0].expr), "A * M");
    CHECK(spec->dims[0].measured == KT_MEASURED_NONE);
    kt_spec_free(spec);
    static const char *const WHAT[] = {"energy", "power", "time"};
    for (kt_measured m = KT_MEASURED_ENERGY; m <= KT_MEASURED_TIME; m++) {
        char dims[256];
        snprintf(dims, sizeof dims, DIM("a", "A", "2") ", {\"Name\": \"m\", "
                 "\"Measured\": \"%s\", \"Bins\": 5}", WHAT[m - 1]);
        CHECK(load_text(with_dims(dims), &spec, &d) == KT_OK);
        CHECK(spec->ndims == 2 && spec->dims[1].measured == m && !spec->dims[1].expr);
        CHECK(spec->dims[1].bins == 5 && strcmp(kt_measured_name(m), WHAT[m - 1]) == 0);
        kt_spec_free(spec);
    }
    CHECK(kt_measured_name(KT_MEASURED_NONE) == NULL);
}

static void test_bad_behaviour_dimensions_name_key_and_column(void)
{
    expect_error(with_dims(DIM("w", "A * Q", "3")), KT_ESPEC,
                 "BehaviourDimensions[0].Expression", "column 5");
    expect_error(with_dims(DIM("w", "A", "3") "," DIM("v", "A +", "3")), KT_ESPEC,
                 "BehaviourDimensions[1].Expression", "column");
    expect_error(with_dims(DIM("w", "M * 2", "3")), KT_ESPEC, "BehaviourDimensions[0]",
                 "reads no tuning parameter");
    expect_error(with_dims(DIM("w", "A", "0")), KT_ESPEC, "BehaviourDimensions[0]",
                 "Bins must be a whole number from 1 to 64");
    expect_error(with_dims(DIM("w", "A", "2.5")), KT_ESPEC, "BehaviourDimensions[0]",
                 "Bins");
    expect_error(with_dims(DIM("w", "A", "\"4\"")), KT_ESPEC,
                 "BehaviourDimensions[0].Bins", "expected a number");
    expect_error(with_dims(DIM("w", "A", "3") "," DIM("w", "A * 2", "3")), KT_ESPEC,
                 "BehaviourDimensions[1]", "'w' is defined twice");
    expect_error(with_dims("{\"Name\": \"w\"}"), KT_ESPEC,
                 "BehaviourDimensions[0]: missing Expression", "or Measured");
}

/* A measured dimension: Measured names energy, power or time, instead of
 * an Expression, never with one. */
static void test_bad_measured_dimensions_name_the_key(void)
{
    expect_error(with_dims("{\"Name\": \"e\", \"Measured\": \"joules\"}"), KT_ESPEC,
                 "BehaviourDimensions[0].Measured: \"joules\" is not one of \"energy\"",
                 "\"time\" (ms per call)");
    expect_error(with_dims("{\"Name\": \"e\", \"Measured\": 1}"), KT_ESPEC,
                 "BehaviourDimensions[0].Measured", "expected a string");
    expect_error(with_dims("{\"Name\": \"e\", \"Measured\": \"energy\", "
                           "\"Expression\": \"A\"}"),
                 KT_ESPEC, "BehaviourDimensions[0]: give Expression or Measured, not both",
                 NULL);
    expect_error(with_dims(DIM("a", "A", "2") ", {\"Name\": \"e\", \"Measured\": "
                           "\"power\", \"Bins\": 65}"),
                 KT_ESPEC, "BehaviourDimensions[1]", "Bins must be a whole number");
    expect_error(with_dims("{\"Name\": \"e\", \"Measured\": \"time\"},"
                           "{\"Name\": \"e\", \"Measured\": \"energy\"}"),
                 KT_ESPEC, "BehaviourDimensions[1]", "'e' is defined twice");
    expect_error(with_dims(""), KT_ESPEC, "BehaviourDimensions", "give 1 to 8");
}

static void test_arguments_are_checked(void)
{
    char text[20000];
    const char *arg_sets[][2] = {
        {"{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\", "
         "\"Size\": \"A * 4\"}", "may use problem parameters only"},
        {"{\"Name\": \"x\", \"Type\": \"quaternion\", \"MemoryType\": \"Vector\", "
         "\"Size\": 4}", "Arguments[0].Type: unsupported value"},
        {"{\"Name\": \"x\", \"Type\": \"float\", \"MemoryType\": \"Vector\"}",
         "Arguments[0].Size: missing required key"},
        {"{\"Name\": \"x\", \"Type\": \"int32\", \"MemoryType\": \"Scalar\", "
         "\"AccessType\": \"WriteOnly\", \"FillValue\": 1}", "must be ReadOnly"},
    };
    for (size_t i = 0; i < sizeof arg_sets / sizeof *arg_sets; i++) {
        snprintf(text, sizeof text, "%s", spec_json(P1, "", ""));
        char *args = strstr(text, "\"Arguments\": []");
        CHECK(args);
        char tail[64];
        snprintf(tail, sizeof tail, "%s", args + strlen("\"Arguments\": []"));
        snprintf(args, sizeof text - (size_t)(args - text), "\"Arguments\": [%s]%s",
                 arg_sets[i][0], tail);
        expect_error(text, KT_ESPEC, arg_sets[i][1], NULL);
    }
}

static void test_missing_kernel_file_is_an_error(void)
{
    char text[20000];
    snprintf(text, sizeof text, "%s", spec_json(P1, "", ""));
    char *file = strstr(text, "faulty.c");
    CHECK(file);
    memcpy(file, "nothere", 7);
    expect_error(text, KT_EIO, "KernelSpecification.KernelFile", "cannot open");
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(kt_spec_load("/nonexistent/spec.json", NULL, NULL, &spec, &d) == KT_EIO);
    CHECK(strstr(d.msg, "/nonexistent/spec.json") != NULL);
}

static void test_space_only_spec_needs_no_kernel(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(load_text("{\"ConfigurationSpace\": {\"TuningParameters\": [" P1 "]},"
                    " \"KernelSpecification\": {\"Language\": \"None\","
                    " \"KernelName\": \"ConvAsm1x1U\"}}",
                    &spec, &d) == KT_OK);
    CHECK(spec->language == KT_LANG_NONE);
    CHECK(spec->kernel_file == NULL && spec->nargs == 0);
    CHECK_STR(spec->name, "ConvAsm1x1U");
    kt_spec_free(spec);
}

static void test_garbage_never_crashes(void)
{
    /* Random mutations of a valid spec: any outcome but a crash is fine. */
    char base[20000], text[20000];
    snprintf(base, sizeof base, "%s",
             spec_json(P1 ",{\"Name\": \"B\", \"Type\": \"int\", \"Values\": [1, 2]}",
                       "{\"Parameters\": [], \"Expression\": \"A % B == 0\"}",
                       "{\"Name\": \"N\", \"Default\": 4}"));
    kt_rng rng;
    kt_rng_seed(&rng, 3);
    size_t len = strlen(base);
    static const char CHARS[] = "{}[]\":,0123456789.eE-+ aAxN%\\";
    for (int i = 0; i < 400; i++) {
        memcpy(text, base, len + 1);
        int edits = 1 + (int)kt_rng_below(&rng, 4);
        for (int e = 0; e < edits; e++)
            text[kt_rng_below(&rng, len)] = CHARS[kt_rng_below(&rng, sizeof CHARS - 1)];
        kt_spec *spec = NULL;
        kt_diag d = {{0}};
        int rc = load_text(text, &spec, &d);
        CHECK((rc == KT_OK) == (spec != NULL));
        CHECK(rc == KT_OK || d.msg[0] != '\0');
        kt_spec_free(spec);
    }
}

static const kt_test TESTS[] = {
    KT_T(test_shipped_gemm_spec_loads),
    KT_T(test_values_accept_t1_strings_and_json_arrays),
    KT_T(test_values_accept_python_list_expressions),
    KT_T(test_unknown_keys_are_warnings),
    KT_T(test_broken_json_names_line_and_column),
    KT_T(test_missing_and_mistyped_keys_name_their_path),
    KT_T(test_bad_values_are_errors),
    KT_T(test_bad_conditions_name_key_and_column),
    KT_T(test_behaviour_dimensions_are_read),
    KT_T(test_bad_behaviour_dimensions_name_key_and_column),
    KT_T(test_bad_measured_dimensions_name_the_key),
    KT_T(test_arguments_are_checked),
    KT_T(test_missing_kernel_file_is_an_error),
    KT_T(test_space_only_spec_needs_no_kernel),
    KT_T(test_garbage_never_crashes),
};
KT_TEST_MAIN(TESTS)
