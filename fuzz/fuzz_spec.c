/* fuzz_spec.c - libFuzzer harness for the spec loader (src/core/spec.c,
 * with the expressions and JSON it reads): any text is loaded as a T1 spec
 * or refused with a message, never crashing; a loaded spec gives its
 * default problem or a reason, and a configuration key it writes parses
 * back.  The spec is read through a link in a private folder, beside the
 * kernel files `k.c` and `k.cu` that the seeds (fuzz/corpus/spec/) name;
 * the link leads to the input's memfd (rewriting a file on disk for each
 * input would cost more than loading it). */
#include "core/spec.h"

#include "fuzz.h"

/* The private folder: the spec link and the kernel files, by name. */
static const char *const FILES[] = {"spec.json", "k.c", "k.cu"};
enum { NFILES = sizeof FILES / sizeof FILES[0] };

static char *folder(void)
{
    static char dir[4096];
    return dir;
}

static const char *file_in_folder(const char *name)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", folder(), name);
    return path;
}

static void remove_folder(void)
{
    for (size_t i = 0; i < NFILES; i++)
        unlink(file_in_folder(FILES[i]));
    rmdir(folder());
}

/* Make the folder under $TMPDIR: the spec link to the input's memfd and
 * the kernel files; removed at exit. */
static void make_folder(const char *input)
{
    static const char KERNEL[] = "void k(float *x) { x[0] = 1; }\n";
    const char *base = getenv("TMPDIR");
    snprintf(folder(), 4096, "%s/ktune-fuzz-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(folder())) {
        perror("mkdtemp");
        exit(2);
    }
    atexit(remove_folder);
    if (symlink(input, file_in_folder(FILES[0])) != 0)
        exit(2);
    for (size_t i = 1; i < NFILES; i++) {
        FILE *f = fopen(file_in_folder(FILES[i]), "wb");
        if (!f || fputs(KERNEL, f) < 0 || fclose(f) != 0)
            exit(2);
    }
}

static void ignore_warning(void *user, const char *msg)
{
    (void)user, (void)msg;
}

/* A loaded spec's default problem and the key of its first configuration. */
static void use_spec(const kt_spec *spec)
{
    kt_problem prob;
    kt_diag d = {{0}};
    if (kt_problem_parse(spec, NULL, &prob, &d) == KT_OK)
        kt_problem_clear(&prob);
    uint16_t *cfg = calloc(spec->nparams + 1, sizeof *cfg);
    char *key = cfg ? kt_spec_config_key(spec, cfg) : NULL;
    if (key && kt_spec_config_parse(spec, key, cfg, &d) != KT_OK)
        abort(); /* a key the spec wrote must parse back */
    free(key);
    free(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[4200];
    const char *file = fuzz_file(data, size);
    if (!path[0]) {
        make_folder(file);
        snprintf(path, sizeof path, "%s", file_in_folder(FILES[0]));
    }
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    if (kt_spec_load(path, ignore_warning, NULL, &spec, &d) == KT_OK)
        use_spec(spec);
    else if (spec != NULL || d.msg[0] == '\0')
        abort(); /* a refusal leaves no spec and says why */
    kt_spec_free(spec);
    return 0;
}
