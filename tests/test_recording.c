/* test_recording.c - recordings read from their files with no spec
 * (store/recording.h): the spec they give (parameters, value orders, the
 * default), the space (invalid entries outside, failures inside), every
 * strategy replaying them within its budget and by its seed, bzip2, and one
 * clear line for each bad file.  How a file is loaded: its rows streamed an
 * element at a time whatever the order of its members (store/json_file.h),
 * syntax errors still placed, and its rows kept by content in a cache
 * directory (store/recording_cache.h), where a changed file, a corrupt, cut
 * or foreign entry and an unwritable directory are misses, never wrong
 * answers.
 *
 * The cache is synthetic, written here: two parameters, X listed in
 * tune_params in the order 4, 1, 2 (not sorted) and Y in 10, 20, 30; 9
 * entries, of which X=2,Y=30 is InvalidConfig and X=1,Y=20 failed at run
 * time; NAMES and ENTRIES are its parts, which some tests put in other
 * orders. */
#include "core/space.h"
#include "core/util.h"
#include "search/strategy.h"
#include "store/kerneltuner.h"
#include "store/recording.h"
#include "tune/tuner.h"
#include "test.h"

#include <dirent.h>
#include <sys/stat.h>

#define NAMES                                                                      \
    "\"device_name\": \"GPU 9\", \"kernel_name\": \"k\", \"problem_size\": [64, 8],\n" \
    " \"tune_params_keys\": [\"X\", \"Y\"],\n"                                        \
    " \"tune_params\": {\"X\": [4, 1, 2], \"Y\": [10, 20, 30]}"
#define ENTRIES                                                                    \
    " \"cache\": {\n"                                                              \
    "  \"1,10\": {\"time\": 5.0}, \"1,20\": {\"time\": \"RuntimeFailedConfig\"},\n"  \
    "  \"1,30\": {\"time\": 4.0}, \"2,10\": {\"time\": 3.0}, \"2,20\": {\"time\": 2.5},\n" \
    "  \"2,30\": {\"time\": \"InvalidConfig\", \"note\": \"a ]} \\\" [{ in text\"},\n" \
    "  \"4,10\": {\"time\": 6.0},\n"                                                 \
    "  \"4,20\": {\"time\": 1.5}, \"4,30\": {\"time\": 7.0}}"

static const char CACHE[] = "{" NAMES ",\n" ENTRIES "}\n";

static kt_recording *open_in(const char *path, const char *cache_dir)
{
    kt_recording *r = NULL;
    kt_diag d = {{0}};
    kt_recording_opts o = {.cache_dir = cache_dir};
    int rc = kt_recording_open(path, &o, &r, &d);
    if (rc != KT_OK)
        fprintf(stderr, "%s\n", d.msg);
    CHECK(rc == KT_OK);
    return r;
}

static kt_recording *open_ok(const char *path) { return open_in(path, NULL); }

/* The error line of opening path. */
static const char *open_error(const char *path, int want)
{
    static kt_diag d;
    kt_recording *r = NULL;
    CHECK_EQ_INT(kt_recording_open(path, NULL, &r, &d), want);
    CHECK(r == NULL);
    CHECK(strchr(d.msg, '\n') == NULL);
    return d.msg;
}

static void test_a_cache_gives_its_parameters_in_its_order(void)
{
    kt_recording *r = open_ok(kt_test_write("c.json", CACHE));
    const kt_spec *s = kt_recording_spec(r);
    CHECK_STR(s->name, "k");
    CHECK_STR(kt_recording_kind(r), "Kernel Tuner cache");
    CHECK_STR(kt_recording_problem(r), "ProblemSize_0=64,ProblemSize_1=8");
    CHECK_EQ_INT(s->nparams, 2);
    CHECK_STR(s->params[0].name, "X");
    CHECK_EQ_INT(s->params[0].nvalues, 3);
    CHECK_STR(s->params[0].texts[0], "4"); /* tune_params' order */
    CHECK_STR(s->params[0].texts[1], "1");
    CHECK_STR(s->params[0].texts[2], "2");
    CHECK_NEAR(s->params[0].values[2], 2, 0);
    CHECK_STR(s->params[1].texts[2], "30");
    CHECK_EQ_INT(s->params[0].default_index, 1); /* the first entry: X=1,Y=10 */
    CHECK_EQ_INT(s->params[1].default_index, 0);
    CHECK_EQ_INT(s->nproblem, 2);
    kt_recording_free(r);
}

static void test_invalid_entries_are_outside_the_space_failures_inside(void)
{
    kt_recording *r = open_ok(kt_test_write("c.json", CACHE));
    const kt_spec *s = kt_recording_spec(r);
    kt_problem prob = {0};
    kt_space *sp = NULL;
    kt_diag d = {{0}};
    CHECK(kt_problem_parse(s, NULL, &prob, &d) == KT_OK);
    CHECK(kt_space_new(s, &prob, &sp, &d) == KT_OK);
    uint64_t n = 0;
    const uint16_t *cfgs = kt_replay_space(kt_recording_replay(r), &n);
    kt_space_restrict(sp, cfgs, n);
    uint64_t count = 0;
    CHECK(kt_space_count(sp, &count, NULL) == KT_OK);
    CHECK_EQ_INT(count, 8);
    uint16_t invalid[2] = {2, 2}, failed[2] = {1, 1}; /* X=2,Y=30; X=1,Y=20 */
    CHECK(!kt_space_is_valid(sp, invalid));
    CHECK(kt_space_is_valid(sp, failed));
    /* neighbours along X's list 4, 1, 2 from X=4,Y=30: X=1 only (adjacent) */
    uint16_t from[2] = {0, 2}, out[8];
    size_t nn = 0;
    CHECK(kt_space_neighbours(sp, from, KT_NBR_ADJACENT, out, 4, &nn) == KT_OK);
    CHECK_EQ_INT(nn, 2); /* X=1,Y=30 and X=4,Y=20 */
    CHECK(kt_space_build(sp, 100, &d) == KT_OK);
    CHECK_EQ_INT(kt_space_size(sp), 8);
    kt_space_free(sp);
    kt_problem_clear(&prob);

    kt_tune_opts o = kt_tune_defaults();
    o.replay = kt_recording_replay(r);
    o.strategy = "brute_force";
    kt_tune_report rep;
    CHECK(kt_tune(s, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.space_size, 8);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_RUNTIME_ERROR], 1);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_OK], 7);
    CHECK_STR(rep.best_config, "X=4,Y=20");
    CHECK_STR(rep.problem, "ProblemSize_0=64,ProblemSize_1=8");
    kt_tune_report_clear(&rep);
    kt_recording_free(r);
}

/* A best time of one run of strategy by seed; checks the budget. */
static double run(kt_recording *r, const char *strategy, uint64_t seed, uint64_t budget)
{
    kt_tune_opts o = kt_tune_defaults();
    o.replay = kt_recording_replay(r);
    o.strategy = strategy;
    o.seed = seed;
    o.budget = (kt_budget){KT_BUDGET_COUNT, (double)budget};
    kt_tune_report rep;
    kt_diag d = {{0}};
    int rc = kt_tune(kt_recording_spec(r), &o, &rep, &d);
    if (rc != KT_OK)
        fprintf(stderr, "%s: %s\n", strategy, d.msg);
    CHECK(rc == KT_OK);
    CHECK(rep.measured <= budget);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_INVALID], 0);
    double best = rep.best_config ? rep.best.time_ms : INFINITY;
    kt_tune_report_clear(&rep);
    return best;
}

static void test_every_strategy_replays_within_budget_and_by_seed(void)
{
    kt_recording *r = open_ok(kt_test_write("c.json", CACHE));
    for (size_t i = 0; i < kt_strategy_count(); i++) {
        const char *name = kt_strategy_at(i)->name;
        for (uint64_t seed = 1; seed <= 3; seed++)
            CHECK(run(r, name, seed, 4) == run(r, name, seed, 4));
        CHECK(run(r, name, 1, 100) == 1.5); /* the whole space finds the optimum */
    }
    kt_recording_free(r);
}

static void test_a_bzip2_cache_reads_as_the_plain_one(void)
{
    const char *plain = kt_test_write("c.json", CACHE);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "bzip2 -k -c '%s' > '%s'", plain, kt_test_tmp("c.json.bz2"));
    if (system(cmd) != 0)
        KT_SKIP("no bzip2 command");
    kt_recording *r = open_ok(kt_test_tmp("c.json.bz2"));
    CHECK_EQ_INT(kt_recording_spec(r)->nparams, 2);
    uint64_t n = 0;
    CHECK(kt_replay_space(kt_recording_replay(r), &n) != NULL);
    CHECK_EQ_INT(n, 8);
    kt_recording_free(r);
}

static void test_a_t4_file_names_its_kernel_and_device(void)
{
    const char *t4 =
        "{\"metadata\": {\"timeunit\": \"s\"}, \"results\": [\n"
        " {\"configuration\": {\"A\": 1, \"B\": true}, \"times\": {}, \"invalidity\": "
        "\"correct\", \"correctness\": 1, \"kernel\": \"kk\", \"device\": \"dd\",\n"
        "  \"measurements\": [{\"name\": \"time\", \"value\": 0.002, \"unit\": \"\"}]},\n"
        " {\"configuration\": {\"A\": 2, \"B\": false}, \"times\": {}, \"invalidity\": "
        "\"constraints\", \"correctness\": 0, \"kernel\": \"kk\", \"device\": \"dd\"}]}\n";
    kt_recording *r = open_ok(kt_test_write("t.json", t4));
    const kt_spec *s = kt_recording_spec(r);
    CHECK_STR(kt_recording_kind(r), "T4 results");
    CHECK_STR(s->name, "kk");
    CHECK_STR(kt_replay_device(kt_recording_replay(r)), "dd");
    CHECK_STR(s->params[1].texts[0], "False"); /* strings sort as text */
    uint64_t n = 0;
    kt_replay_space(kt_recording_replay(r), &n);
    CHECK_EQ_INT(n, 1);
    kt_result res;
    CHECK(kt_replay_find(kt_recording_replay(r), "A=1,B=True", &res));
    CHECK_NEAR(res.time_ms, 2, 1e-12); /* seconds to ms */
    kt_recording_free(r);
}

static void test_bad_files_are_one_clear_line(void)
{
    char cut[200]; /* ends in "[10, 2" */
    snprintf(cut, sizeof cut, "%.*s", (int)(strstr(CACHE, "20, 30") - CACHE + 1), CACHE);
    const char *msg = open_error(kt_test_write("cut.json", cut), KT_EFORMAT);
    CHECK(strstr(msg, "cut.json:3:") && strstr(msg, "unexpected end of file"));

    const char *wrong =
        "{\"device_name\": \"d\", \"kernel_name\": \"k\", \"tune_params_keys\": [\"X\"],"
        " \"cache\": {\"1\": {\"time\": 1}, \"1,2\": {\"time\": 2}}}";
    msg = open_error(kt_test_write("arity.json", wrong), KT_EFORMAT);
    CHECK(strstr(msg, "arity.json: cache entry '1,2': 2 values for 1 tuning parameters"));

    const char *t4 = "{\"results\": [{\"configuration\": {\"A\": 1}, \"invalidity\": "
                     "\"correct\", \"correctness\": 1}]}";
    msg = open_error(kt_test_write("t4.json", t4), KT_EFORMAT);
    CHECK(strstr(msg, "t4.json: results[0]: no 'times'"));

    const char *mixed =
        "{\"results\": [{\"configuration\": {\"A\": 1}, \"times\": {}, \"invalidity\": "
        "\"compile\", \"correctness\": 0}, {\"configuration\": {\"B\": 1}, \"times\": {},"
        " \"invalidity\": \"compile\", \"correctness\": 0}]}";
    msg = open_error(kt_test_write("mixed.json", mixed), KT_EFORMAT);
    CHECK(strstr(msg, "configuration 'B=1' does not have the parameters of the first"));

    msg = open_error(kt_test_write("x.json", "[1, 2]"), KT_EFORMAT);
    CHECK(strstr(msg, "x.json: not a recording"));
    msg = open_error(kt_test_write("bz.json", "BZh91AY&SY garbage"), KT_EFORMAT);
    CHECK(strstr(msg, "bz.json: corrupt or truncated bzip2 data"));
    msg = open_error(kt_test_tmp("absent.json"), KT_EIO);
    CHECK(strstr(msg, "absent.json"));
}

/* What a replay of the cache gives: the spec's value orders and default,
 * the space, and the recorded results; checked against what it holds. */
static void check_cache(kt_recording *r, double time_4_20)
{
    const kt_spec *s = kt_recording_spec(r);
    const kt_replay *rp = kt_recording_replay(r);
    CHECK_STR(kt_recording_kind(r), "Kernel Tuner cache");
    CHECK_STR(s->name, "k");
    CHECK_STR(kt_replay_device(rp), "GPU 9");
    CHECK_STR(kt_recording_problem(r), "ProblemSize_0=64,ProblemSize_1=8");
    CHECK_EQ_INT(s->nparams, 2);
    CHECK_STR(s->params[0].texts[0], "4"); /* tune_params' order */
    CHECK_STR(s->params[0].texts[1], "1");
    CHECK_EQ_INT(s->params[0].default_index, 1); /* the first entry: X=1,Y=10 */
    uint64_t n = 0;
    kt_replay_space(rp, &n);
    CHECK_EQ_INT(n, 8);
    kt_result res;
    CHECK(kt_replay_find(rp, "X=4,Y=20", &res));
    CHECK_NEAR(res.time_ms, time_4_20, 0);
    CHECK(kt_replay_find(rp, "X=1,Y=20", &res));
    CHECK_EQ_INT(res.status, KT_STATUS_RUNTIME_ERROR);
    CHECK_STR(res.detail, "Kernel Tuner: RuntimeFailedConfig");
    kt_recording_free(r);
}

/* The one entry in dir: its path, or "" when there is none. */
static const char *only_entry(const char *dir)
{
    static char path[4096];
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    path[0] = '\0';
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' && ++n)
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (d)
        closedir(d);
    CHECK(n <= 1);
    return path;
}

static void test_members_in_any_order_read_the_same(void)
{
    check_cache(open_in(kt_test_write("a.json", "{" NAMES ",\n" ENTRIES "}\n"), NULL), 1.5);
    /* the cache first: its entries are read once the names are */
    check_cache(open_in(kt_test_write("b.json", "{" ENTRIES ",\n" NAMES "}\n"), NULL), 1.5);
    /* Kernel Tuner leaves a cache open while it runs: "...}," */
    char open[4096];
    snprintf(open, sizeof open, "{" NAMES ",\n" ENTRIES);
    strcpy(open + strlen(open) - 1, ",\n");
    check_cache(open_in(kt_test_write("c.json", open), NULL), 1.5);

    const char *t4 = /* Kernel Tuner writes results before metadata */
        "{\"results\": [{\"configuration\": {\"A\": 1}, \"times\": {}, \"invalidity\": "
        "\"correct\", \"correctness\": 1, \"measurements\": [{\"name\": \"time\", "
        "\"value\": 0.002, \"unit\": \"\"}]}],\n \"metadata\": {\"timeunit\": \"s\"}}";
    kt_recording *r = open_in(kt_test_write("t.json", t4), NULL);
    kt_result res;
    CHECK(kt_replay_find(kt_recording_replay(r), "A=1", &res));
    CHECK_NEAR(res.time_ms, 2, 1e-12); /* seconds to ms */
    kt_recording_free(r);
}

static void test_syntax_errors_in_streamed_rows_say_where(void)
{
    static const struct { const char *text, *where, *why; } BAD[] = {
        {"{" NAMES ",\n \"cache\": {\"1,10\": {\"time\": 5.0},\n \"1,20\": {\"ti",
         "cut.json:5:", "unexpected end of file"},
        {"{" NAMES ",\n \"cache\": {\"1,10\": {\"time\": 5.0}\n \"1,20\": {}}}",
         "cut.json:5:2", "expected ',' or '}'"},
        {"{" NAMES ",\n \"cache\": {\"1,10\": {\"time\": 5.0}}} x", "cut.json:4:",
         "unexpected text after the JSON value"},
        {"{" ENTRIES ",\n \"tune_params_keys\": [\"X\", \"Y\"] \"device_name\": 1}",
         "cut.json:7:", "expected ',' or '}'"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        kt_recording *r = NULL;
        kt_diag d = {{0}};
        CHECK_EQ_INT(kt_recording_open(kt_test_write("cut.json", BAD[i].text), NULL, &r, &d),
                     KT_EFORMAT);
        CHECK(r == NULL);
        if (!strstr(d.msg, BAD[i].where) || !strstr(d.msg, BAD[i].why))
            fprintf(stderr, "  %zu: %s\n", i, d.msg);
        CHECK(strstr(d.msg, BAD[i].where) && strstr(d.msg, BAD[i].why));
    }
}

static void test_a_kept_recording_replays_as_the_parsed_one(void)
{
    const char *dir = kt_test_tmp("kept"), *path = kt_test_write("c.json", "{" NAMES ",\n"
                                                               ENTRIES "}\n");
    check_cache(open_in(path, dir), 1.5);
    const char *entry = only_entry(dir);
    CHECK(strstr(entry, ".ktrec") != NULL);
    struct stat st;
    CHECK(stat(entry, &st) == 0);
    time_t written = st.st_mtime;
    /* read back from the entry: the file's text no longer matters, only
     * its content key (a copy elsewhere finds it too) */
    char copy[16384];
    snprintf(copy, sizeof copy, "cp '%s' '%s'", path, kt_test_tmp("copy.json"));
    CHECK(system(copy) == 0);
    check_cache(open_in(kt_test_tmp("copy.json"), dir), 1.5);
    CHECK_STR(only_entry(dir), entry);
    CHECK(stat(entry, &st) == 0 && st.st_mtime == written);

    /* the options are checked on a kept recording as on a parsed one */
    kt_recording *r = NULL;
    kt_diag d = {{0}};
    kt_recording_opts o = {.cache_dir = dir, .device = "GPU 1"};
    CHECK_EQ_INT(kt_recording_open(path, &o, &r, &d), KT_ENOTFOUND);
    CHECK(strstr(d.msg, "no such device") != NULL);
}

static void test_a_changed_file_is_read_again(void)
{
    const char *dir = kt_test_tmp("kept");
    const char *path = kt_test_write("c.json", "{" NAMES ",\n" ENTRIES "}\n");
    check_cache(open_in(path, dir), 1.5);
    /* the same size, one digit changed */
    char text[4096];
    snprintf(text, sizeof text, "{" NAMES ",\n" ENTRIES "}\n");
    char *at = strstr(text, "\"4,20\": {\"time\": 1.5}");
    at[strlen("\"4,20\": {\"time\": 1.")] = '2';
    kt_test_write("c.json", text);
    check_cache(open_in(path, dir), 1.2);
    check_cache(open_in(path, dir), 1.2);
}

/* Open the cache, spoil its entry with cmd (both %s: the entry), open it
 * again: the right answers, and the sound entry written again. */
static void spoil(const char *cmd)
{
    const char *dir = kt_test_tmp("kept");
    const char *path = kt_test_write("c.json", "{" NAMES ",\n" ENTRIES "}\n");
    check_cache(open_in(path, dir), 1.5);
    char entry[4096], shell[16384];
    snprintf(entry, sizeof entry, "%s", only_entry(dir));
    snprintf(shell, sizeof shell, "cp '%s' '%s'", entry, kt_test_tmp("good"));
    CHECK(system(shell) == 0);
    snprintf(shell, sizeof shell, cmd, entry, entry);
    CHECK(system(shell) == 0);
    snprintf(shell, sizeof shell, "cmp -s '%s' '%s'", entry, kt_test_tmp("good"));
    CHECK(system(shell) != 0); /* spoilt */
    check_cache(open_in(path, dir), 1.5);
    CHECK(system(shell) == 0); /* rebuilt */
}

static void test_a_corrupt_or_cut_entry_is_ignored_and_rebuilt(void)
{
    /* a byte of a result flipped (the time of X=4,Y=20 is near the end) */
    spoil("printf '\\377' | dd of='%s' bs=1 seek=$(($(stat -c %%s '%s') - 100)) "
          "conv=notrunc status=none");
    spoil("truncate -s -7 '%s' && test -f '%s'");           /* cut short */
    spoil("printf 'KTRCACHE' > '%s' && test -f '%s'");      /* only a magic number */
    spoil("printf 'X' | dd of='%s' bs=1 seek=9 conv=notrunc status=none; test -f '%s'");
}

static void test_an_entry_of_other_content_is_not_taken(void)
{
    const char *dir = kt_test_tmp("kept");
    const char *a = kt_test_write("a.json", "{" NAMES ",\n" ENTRIES "}\n");
    check_cache(open_in(a, dir), 1.5);
    char first[4096], shell[16384];
    snprintf(first, sizeof first, "%s", only_entry(dir));
    char text[4096];
    snprintf(text, sizeof text, "{" NAMES ",\n" ENTRIES "}\n");
    char *at = strstr(text, "\"4,20\": {\"time\": 1.5}");
    at[strlen("\"4,20\": {\"time\": 1.")] = '2';
    const char *b = kt_test_write("b.json", text);
    /* b's entry, made first, then replaced by a's under b's name */
    check_cache(open_in(b, dir), 1.2);
    char second[4096];
    DIR *d = opendir(dir);
    struct dirent *e;
    second[0] = '\0';
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && !strstr(first, e->d_name))
            snprintf(second, sizeof second, "%s/%s", dir, e->d_name);
    closedir(d);
    CHECK(second[0] != '\0');
    snprintf(shell, sizeof shell, "cp '%s' '%s'", first, second);
    CHECK(system(shell) == 0);
    check_cache(open_in(b, dir), 1.2);
}

static void test_an_unwritable_cache_only_costs_the_parse(void)
{
    const char *blocker = kt_test_write("file", "not a directory\n");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/kept", blocker);
    const char *path = kt_test_write("c.json", "{" NAMES ",\n" ENTRIES "}\n");
    check_cache(open_in(path, dir), 1.5);
    check_cache(open_in(path, dir), 1.5);
}

/* A database holding the cache for two problems (problem_size [64, 8] and
 * [99, 8]), at db_path. */
static void two_problems(const char *db_path)
{
    char other[sizeof CACHE];
    snprintf(other, sizeof other, "%s", CACHE);
    memcpy(strstr(other, "[64, 8]"), "[99, 8]", 7);
    kt_db *db = NULL;
    kt_diag d = {{0}};
    kt_kerneltuner_stats st;
    CHECK(kt_db_open(db_path, &db, &d) == KT_OK);
    CHECK(kt_kerneltuner_import(kt_test_write("a.json", CACHE), db, &st, &d) == KT_OK);
    CHECK(kt_kerneltuner_import(kt_test_write("b.json", other), db, &st, &d) == KT_OK);
    kt_db_close(db);
}

static void test_a_database_recording_warm_starts_from_its_other_problems(void)
{
    const char *db_path = kt_test_tmp("two.db");
    two_problems(db_path);
    kt_recording *r = NULL;
    kt_diag d = {{0}};
    kt_recording_opts o = {.problem = "ProblemSize_0=99,ProblemSize_1=8"};
    CHECK(kt_recording_open(db_path, &o, &r, &d) == KT_OK);
    const kt_winners *w = kt_replay_winners(kt_recording_replay(r));
    CHECK_EQ_INT(w->n, 1);
    CHECK_STR(w->problem[0], "ProblemSize_0=64,ProblemSize_1=8");
    CHECK_STR(w->config[0], "X=4,Y=20");

    kt_tune_opts t = kt_tune_defaults();
    t.replay = kt_recording_replay(r);
    t.warm = 3;
    t.seed = 1;
    t.budget = (kt_budget){KT_BUDGET_COUNT, 12};
    kt_tune_report rep;
    CHECK(kt_tune(kt_recording_spec(r), &t, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.warm_starts, 1);
    CHECK_STR(rep.best_config, "X=4,Y=20");
    kt_tune_report_clear(&rep);
    kt_recording_free(r);
}

static void test_a_csv_export_replays_one_recording_of_it(void)
{
    const char *csv =
        "created,device,kernel,source_hash,problem,config,status,time_ms,reps,detail\n"
        "\"2026-11-24T00:46:18.420Z\",d,k,h,\"N=1\",\"A=1,B=x\",ok,3.5,2,\"\"\n"
        ",d,k,h,\"N=1\",\"A=2,B=x\",runtime_error,,,\"boom\"\n"
        ",d,k,h,\"N=1\",\"A=2,B=y\",invalid,,,\"\"\n"
        ",d,k,h,\"N=1\",\"A=1,B=y\",ok,1.25,2,\"\"\n"
        ",d,k,h,\"N=2\",\"A=1,B=x\",ok,9,2,\"\"\n";
    const char *path = kt_test_write("rec.csv", csv);
    kt_recording *r = NULL;
    kt_diag d = {{0}};
    CHECK_EQ_INT(kt_recording_open(path, NULL, &r, &d), KT_EINVAL); /* two problems */
    CHECK(strstr(d.msg, "holds several recordings") != NULL);
    kt_recording_opts o = {.problem = "N=1"};
    CHECK(kt_recording_open(path, &o, &r, &d) == KT_OK);
    CHECK_STR(kt_recording_kind(r), "ktune CSV export");
    CHECK_STR(kt_recording_spec(r)->name, "k");
    CHECK_STR(kt_recording_problem(r), "N=1");
    const kt_replay *rp = kt_recording_replay(r);
    CHECK_STR(kt_replay_device(rp), "d");
    uint64_t n = 0;
    kt_replay_space(rp, &n);
    CHECK_EQ_INT(n, 3); /* A=2,B=y was invalid */
    kt_result res;
    CHECK(kt_replay_find(rp, "A=1,B=y", &res));
    CHECK_NEAR(res.time_ms, 1.25, 0);
    CHECK(kt_replay_find(rp, "A=2,B=x", &res));
    CHECK_EQ_INT(res.status, KT_STATUS_RUNTIME_ERROR);
    CHECK_STR(res.detail, "boom");
    kt_recording_free(r);

    const char *bad = "device,kernel,source_hash,problem,config,status,time_ms\n"
                      "d,k,h,N=1,A=1,ok,\n";
    CHECK_EQ_INT(kt_recording_open(kt_test_write("bad.csv", bad), NULL, &r, &d), KT_EFORMAT);
    CHECK(strstr(d.msg, "bad.csv:2: an ok row without a time_ms") != NULL);
}

static const kt_test TESTS[] = {
    KT_T(test_a_cache_gives_its_parameters_in_its_order),
    KT_T(test_invalid_entries_are_outside_the_space_failures_inside),
    KT_T(test_every_strategy_replays_within_budget_and_by_seed),
    KT_T(test_a_bzip2_cache_reads_as_the_plain_one),
    KT_T(test_a_t4_file_names_its_kernel_and_device),
    KT_T(test_bad_files_are_one_clear_line),
    KT_T(test_members_in_any_order_read_the_same),
    KT_T(test_syntax_errors_in_streamed_rows_say_where),
    KT_T(test_a_kept_recording_replays_as_the_parsed_one),
    KT_T(test_a_changed_file_is_read_again),
    KT_T(test_a_corrupt_or_cut_entry_is_ignored_and_rebuilt),
    KT_T(test_an_entry_of_other_content_is_not_taken),
    KT_T(test_an_unwritable_cache_only_costs_the_parse),
    KT_T(test_a_database_recording_warm_starts_from_its_other_problems),
    KT_T(test_a_csv_export_replays_one_recording_of_it),
};

KT_TEST_MAIN(TESTS)
