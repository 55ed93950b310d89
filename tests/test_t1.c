/* test_t1.c - the T1 constructs that public specs use beyond ktune's own:
 * Budget as one object, defaults outside the values, string parameters,
 * Kernel Tuner's ProblemSize and grid divisors, files without a kernel, and
 * the public BAT, KTT and Kernel Tuner files, which load and count exactly
 * what a Python brute force counts. */
#include "core/expr.h"
#include "core/space.h"
#include "core/util.h"
#include "measure/measure.h"
#include "spec_util.h"

/* spec_json's text with ", EXTRA" added to the top-level object. */
static const char *spec_with(const char *params, const char *extra)
{
    static char text[20000];
    snprintf(text, sizeof text, "%s", spec_json(params, "", ""));
    char *end = strrchr(text, '}');
    snprintf(end, sizeof text - (size_t)(end - text), ", %s}", extra);
    return text;
}

#define P1 "{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"[1, 2, 4]\"}"

static void test_budget_is_an_array_or_one_object(void)
{
    static const char *const FORMS[] = {
        "\"Budget\": [{\"Type\": \"ConfigurationCount\", \"BudgetValue\": 200}]",
        "\"Budget\": {\"BudgetValue\": 200, \"Type\": \"ConfigurationCount\"}",
    };
    for (size_t i = 0; i < 2; i++) {
        kt_spec *spec;
        kt_diag d = {{0}};
        CHECK(load_text(spec_with(P1, FORMS[i]), &spec, &d) == KT_OK);
        CHECK(spec->budget.kind == KT_BUDGET_COUNT);
        CHECK_NEAR(spec->budget.value, 200, 0);
        kt_spec_free(spec);
    }
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    CHECK(load_text(spec_with(P1, "\"Budget\": \"200\""), &spec, &d) == KT_ESPEC);
    CHECK(strstr(d.msg, "Budget: expected an array or an object, found a string") != NULL);
    CHECK(load_text(spec_with(P1, "\"Budget\": {\"Type\": \"ConfigurationCount\","
                                  " \"BudgetValue\": 0}"), &spec, &d) == KT_ESPEC);
    CHECK(strstr(d.msg, "Budget.BudgetValue: must be positive") != NULL);
}

static int warnings;
static void count_warning(void *user, const char *msg)
{
    (void)user;
    CHECK(strstr(msg, "warning: ConfigurationSpace.TuningParameters[0]: Default '3' "
                      "is not one of the Values") != NULL);
    warnings++;
}

/* BAT's hotspot spec has such defaults: a warning, the first value is the
 * default. */
static void test_default_outside_the_values_is_a_warning(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    const char *params = "{\"Name\": \"A\", \"Type\": \"int\", \"Values\": \"[1, 2]\","
                         " \"Default\": 3}";
    CHECK(kt_spec_load(write_temp("spec.json", spec_json(params, "", "")), count_warning,
                       NULL, &spec, &d) == KT_OK);
    CHECK_EQ_INT(warnings, 1);
    CHECK_EQ_INT(spec->params[0].default_index, 0);
    kt_spec_free(spec);
}

static char last_warning[512];
static void keep_warning(void *user, const char *msg)
{
    (void)user;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

/* Kernel Tuner's, KTT's and BAT's names for a strategy map to ktune's; an
 * unknown one is a warning, not an error. */
static void test_search_name_picks_the_strategy(void)
{
    static const char *const CASES[][2] = {
        {"simulated_annealing", "annealing"}, {"genetic_algorithm", "genetic"},
        {"Random Search", "random"},          {"brute_force", "brute_force"},
        {"greedy_ils", "local_search"},       {"DifferentialEvolution", "diff_evo"},
        {"bayes_opt", NULL},
    };
    for (size_t i = 0; i < KT_ARRAY_LEN(CASES); i++) {
        char extra[128];
        snprintf(extra, sizeof extra, "\"Search\": {\"Name\": \"%s\"}", CASES[i][0]);
        kt_spec *spec;
        kt_diag d = {{0}};
        last_warning[0] = '\0';
        CHECK(kt_spec_load(write_temp("spec.json", spec_with(P1, extra)), keep_warning,
                           NULL, &spec, &d) == KT_OK);
        if (CASES[i][1]) {
            CHECK_STR(spec->strategy, CASES[i][1]);
            CHECK(last_warning[0] == '\0');
        } else {
            CHECK(spec->strategy == NULL);
            CHECK(strstr(last_warning, "Search.Name 'bayes_opt' has no ktune equivalent"));
        }
        kt_spec_free(spec);
    }
}

static void ignore_warning(void *user, const char *msg)
{
    (void)user, (void)msg;
}

static uint64_t count_of(const char *path)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s;
    kt_diag d = {{0}};
    uint64_t n = 0;
    kt_spec_opts o = {.flags = KT_SPEC_SPACE_ONLY, .warn = ignore_warning};
    if (kt_spec_load_with(kt_test_path(path), &o, &spec, &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &s, &d) == KT_OK);
    CHECK(kt_space_count(s, &n, NULL) == KT_OK);
    kt_space_free(s);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    return n;
}

/* The counts are Python's: tests/t1_count.py (tests/data/t1/README.md). */
static const struct {
    const char *path;
    uint64_t count;
} PUBLIC[] = {
    {"bat/GEMM/GEMM-CAFF.json", 10312},
    {"bat/pnpoly/pnpoly-CAFF.json", 4092},
    {"bat/TRIAD/TRIAD-CAFF.json", 4320},
    {"bat/hotspot/hotspot-CAFF.json", 349853},
    {"bat/convolution/convolution-CAFF.json", 6768},
    {"bat/MD5Hash/MD5Hash-CAFF.json", 165888},
    {"bat/nbody/nbody-CAFF.json", 1568},
    {"bat/builtin_vectors/builtin_vectors-CAFF.json", 32},
    {"bat/FFT/FFT-CAFF.json", 806215680000},
    {"bat/MD/MD-CAFF.json", 60},               /* no KernelSpecification */
    {"bat/Reduction/Reduction-CAFF.json", 72}, /* no KernelSpecification */
    {"ktt/Nbody/NbodyScript.json", 1568},
    {"ktt/CoulombSum2d/CoulombSum2dScript.json", 14784},
    {"ktt/ClTuneGemm/ClTuneGemm.json", 5788},
    {"ktt/CoulombSum3d/CoulombSum3dCudaScript.json", 210},
    {"kerneltuner/test_T1_input.json", 2359296}, /* ProblemSize, max(param) */
    {"kerneltuner/test_cache_file_T1_input.json", 15},
};

static void test_public_specs_load_and_count(void)
{
    for (size_t i = 0; i < KT_ARRAY_LEN(PUBLIC); i++) {
        char path[256];
        snprintf(path, sizeof path, "tests/data/t1/%s", PUBLIC[i].path);
        uint64_t n = count_of(path);
        if (n != PUBLIC[i].count)
            fprintf(stderr, "%s: %llu, Python counts %llu\n", path,
                    (unsigned long long)n, (unsigned long long)PUBLIC[i].count);
        CHECK(n == PUBLIC[i].count);
    }
}

/* Without KT_SPEC_SPACE_ONLY, a spec with no KernelSpecification is refused
 * with one line that says why (`tune` loads that way). */
static void test_a_spec_without_a_kernel_is_a_space_only_on_request(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("tests/data/t1/bat/MD/MD-CAFF.json"), ignore_warning,
                       NULL, &spec, &d) == KT_ESPEC);
    CHECK(strstr(d.msg, "KernelSpecification: missing required key (the file has "
                        "'kernelSpecification': keys are case-sensitive); without it "
                        "the file describes a space only") != NULL);
    kt_spec_opts o = {.flags = KT_SPEC_SPACE_ONLY, .warn = ignore_warning};
    CHECK(kt_spec_load_with(kt_test_path("tests/data/t1/bat/MD/MD-CAFF.json"), &o, &spec,
                            &d) == KT_OK);
    CHECK(spec->language == KT_LANG_NONE);
    CHECK_STR(spec->name, "MD");
    kt_spec_free(spec);
}

/* Kernel Tuner's KernelSpecification.ProblemSize and GridDivX/Y: the grid is
 * ceil(ProblemSize[i] / product of the divisors), and max(P) of a tuning
 * parameter is the largest of its values (Size of input_image). */
static void test_kernel_tuner_problem_size_and_grid_divisors(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("tests/data/t1/kerneltuner/test_T1_input.json"),
                       ignore_warning, NULL, &spec, &d) == KT_OK);
    CHECK_EQ_INT(spec->nproblem, 2);
    CHECK_STR(spec->problem[0].name, "problem_size_x");
    double slots[32] = {0}, v = 0;
    kt_problem prob;
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    kt_spec_slots(spec, NULL, &prob, slots);
    slots[2] = 48, slots[3] = 4, slots[4] = 3, slots[5] = 2; /* block, tile x/y */
    CHECK(kt_expr_eval(spec->global[0], slots, &v) == KT_OK);
    CHECK_EQ_INT(v, 29); /* ceil(4096 / 144) */
    CHECK(kt_expr_eval(spec->global[1], slots, &v) == KT_OK);
    CHECK_EQ_INT(v, 512); /* 4096 / 8 */
    CHECK(spec->global[2] == NULL && !spec->grid_in_threads);
    CHECK(kt_expr_eval(spec->args[1].size, slots, &v) == KT_OK);
    CHECK_EQ_INT(v, (4096 + 33 - 1) * (4096 + 33 - 1));
    kt_problem_clear(&prob);
    kt_spec_free(spec);
}

/* T1 "string" parameters: values as written (the -D text), conditions
 * compare them with == and !=; a literal that no parameter takes is an
 * error, as is a string value of a numeric Type. */
static void test_string_parameters(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    const char *params =
        "{\"Name\": \"T\", \"Type\": \"string\", \"Values\": \"['float', 'double', '\\\"half\\\"']\"},"
        "{\"Name\": \"V\", \"Type\": \"int\", \"Values\": \"[1, 2, 4]\"}";
    CHECK(load_text(spec_json(params, "{\"Parameters\": [\"T\", \"V\"], \"Expression\":"
                              " \"T != 'double' or V == 1\"}", ""), &spec, &d) == KT_OK);
    CHECK_STR(spec->params[0].texts[0], "float");
    CHECK_STR(spec->params[0].texts[2], "\"half\"");
    kt_problem prob;
    kt_space *s;
    uint64_t n = 0;
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &s, &d) == KT_OK);
    CHECK(kt_space_count(s, &n, NULL) == KT_OK);
    CHECK_EQ_INT(n, 7); /* 9 less double with 2 and 4 */
    kt_space_free(s);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    CHECK(load_text(spec_json(params, "{\"Parameters\": [\"T\"], \"Expression\":"
                              " \"T == 'flaot'\"}", ""), &spec, &d) == KT_ESPEC);
    CHECK(strstr(d.msg, "column 6: string 'flaot' is not a value of any string "
                        "parameter") != NULL);
    CHECK(load_text(spec_json("{\"Name\": \"T\", \"Type\": \"int\", \"Values\":"
                              " \"['float']\"}", "", ""), &spec, &d) == KT_ESPEC);
    CHECK(strstr(d.msg, "value 'float' is not a number") != NULL);
}

/* spec_json's text with these Arguments. */
static const char *spec_args(const char *args)
{
    static char text[20000];
    const char *base = spec_json(P1, "", "");
    const char *at = strstr(base, "\"Arguments\": []");
    snprintf(text, sizeof text, "%.*s\"Arguments\": [%s]%s", (int)(at - base), base, args,
             at + strlen("\"Arguments\": []"));
    return text;
}

static double size_of(const kt_arg *a)
{
    double slots[8] = {0}, v = -1;
    CHECK(kt_expr_eval(a->size, slots, &v) == KT_OK);
    return v;
}

/* T1 names are optional (arg0, arg1, ...); vector types are arrays of
 * lanes x Size elements, and float16 is 16 floats, half the 16-bit float. */
static void test_unnamed_arguments_and_vector_types(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    const char *args =
        "{\"Type\": \"float4\", \"MemoryType\": \"Vector\", \"Size\": 8},"
        "{\"Type\": \"float16\", \"MemoryType\": \"Vector\", \"Size\": \"2 + 1\"},"
        "{\"Name\": \"h\", \"Type\": \"half\", \"MemoryType\": \"Vector\", \"Size\": 8},"
        "{\"Type\": \"int2\", \"MemoryType\": \"Vector\", \"Size\": 5},"
        "{\"Type\": \"double2\", \"MemoryType\": \"Vector\", \"Size\": 5},"
        "{\"Type\": \"int32\", \"MemoryType\": \"Scalar\", \"FillValue\": 7}";
    CHECK(load_text(spec_args(args), &spec, &d) == KT_OK);
    CHECK_EQ_INT(spec->nargs, 6);
    CHECK_STR(spec->args[0].name, "arg0");
    CHECK_STR(spec->args[2].name, "h");
    CHECK_STR(spec->args[5].name, "arg5");
    CHECK(spec->args[0].type == KT_DT_FLOAT);
    CHECK_NEAR(size_of(&spec->args[0]), 32, 0);
    CHECK(spec->args[1].type == KT_DT_FLOAT);
    CHECK_NEAR(size_of(&spec->args[1]), 48, 0);
    CHECK(spec->args[2].type == KT_DT_HALF);
    CHECK_NEAR(size_of(&spec->args[2]), 8, 0);
    CHECK(spec->args[3].type == KT_DT_INT32);
    CHECK_NEAR(size_of(&spec->args[3]), 10, 0);
    CHECK(spec->args[4].type == KT_DT_DOUBLE);
    CHECK_NEAR(size_of(&spec->args[4]), 10, 0);
    kt_spec_free(spec);
    static const char *const BAD[][2] = {
        {"{\"Type\": \"float4\", \"MemoryType\": \"Scalar\", \"FillValue\": 1}",
         "Arguments[0]: a vector type cannot be a Scalar argument"},
        {"{\"Type\": \"float5\", \"MemoryType\": \"Vector\", \"Size\": 1}",
         "Arguments[0].Type: unsupported value \"float5\""},
        {"{\"Type\": \"int8x\", \"MemoryType\": \"Vector\", \"Size\": 1}",
         "unsupported value \"int8x\""},
    };
    for (size_t i = 0; i < KT_ARRAY_LEN(BAD); i++) {
        spec = NULL;
        CHECK(load_text(spec_args(BAD[i][0]), &spec, &d) == KT_ESPEC);
        if (!strstr(d.msg, BAD[i][1])) {
            fprintf(stderr, "got \"%s\", wanted \"%s\"\n", d.msg, BAD[i][1]);
            exit(1);
        }
    }
}

/* KTT's and BAT's Generator fills: DataSource is a Python expression of the
 * element index i, compiled by the safe evaluator. */
static void test_generator_fills_are_compiled_and_applied(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    const char *args =
        "{\"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 256,"
        " \"FillType\": \"Generator\", \"DataSource\":"
        " \"1+(i//4)*(0.1 + 0.05*(i%4)) if i%4 < 3 else ((i//4)%10)*0.1\"}";
    CHECK(load_text(spec_args(args), &spec, &d) == KT_OK);
    CHECK(spec->args[0].data.fill == KT_FILL_GENERATOR);
    double slots[16] = {0}, v;
    slots[spec->nnames] = 5;
    CHECK(kt_expr_eval(spec->args[0].data.generator, slots, &v) == KT_OK);
    CHECK_NEAR(v, 1.15, 1e-12);
    slots[spec->nnames] = 7;
    CHECK(kt_expr_eval(spec->args[0].data.generator, slots, &v) == KT_OK);
    CHECK_NEAR(v, 0.1, 1e-12);
    kt_problem prob;
    kt_args args_made;
    CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
    CHECK(kt_args_new(spec, &prob, 1, &args_made, &d) == KT_OK); /* applied */
    CHECK_NEAR(((float *)args_made.init[0])[5], 1.15f, 1e-6);
    CHECK_NEAR(((float *)args_made.init[0])[7], 0.1f, 1e-6);
    CHECK_NEAR(((float *)args_made.init[0])[252], 1 + 63 * 0.1, 1e-5);
    kt_args_clear(&args_made);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    spec = NULL;
    CHECK(load_text(spec_args("{\"Type\": \"float\", \"MemoryType\": \"Vector\","
                              " \"Size\": 4, \"FillType\": \"Generator\","
                              " \"DataSource\": \"open(i)\"}"), &spec, &d) == KT_ESPEC);
    CHECK(strstr(d.msg, "Arguments[0]: DataSource: in \"open(i)\": column 1") != NULL);
    CHECK(load_text(spec_args("{\"Type\": \"float\", \"MemoryType\": \"Vector\","
                              " \"Size\": 4, \"FillType\": \"Generator\"}"), &spec,
                    &d) == KT_ESPEC);
    CHECK(strstr(d.msg, "Arguments[0].DataSource: missing required key") != NULL);
}

static const kt_test TESTS[] = {
    KT_T(test_generator_fills_are_compiled_and_applied),
    KT_T(test_unnamed_arguments_and_vector_types),
    KT_T(test_budget_is_an_array_or_one_object),
    KT_T(test_default_outside_the_values_is_a_warning),
    KT_T(test_search_name_picks_the_strategy),
    KT_T(test_public_specs_load_and_count),
    KT_T(test_a_spec_without_a_kernel_is_a_space_only_on_request),
    KT_T(test_kernel_tuner_problem_size_and_grid_divisors),
    KT_T(test_string_parameters),
};
KT_TEST_MAIN(TESTS)
