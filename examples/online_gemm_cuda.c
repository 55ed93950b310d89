/* online_gemm_cuda.c - online tuning of a CUDA GEMM from an empty database.
 *
 * The application owns the GPU: it allocates its matrices in the device's
 * primary context (the CUDA runtime's; here through the driver API, loaded
 * with dlopen so that the program builds without CUDA headers) and calls
 * its GEMM through ktune_online_run, which launches the chosen
 * configuration on the default stream and times that one launch with CUDA
 * events.  Per shape, a stream of CALLS calls from an empty database, then
 * the online choice and the offline-tuned best (a key from `ktune tune`)
 * each served alone (policy "none") in alternating blocks, timed the same
 * way, and what the exploration cost against always using the offline
 * best.
 *
 *   online_gemm_cuda SPEC DB CALLS SHAPE BEST [SHAPE BEST ...]
 *     SPEC   kernels/gemm/gemm-f16-cuda.json or gemm-cuda.json (FP16, BF16
 *            or FP32 A, B, C, row-major)
 *     SHAPE  M=..,N=..,K=..; BEST its offline best configuration key
 * After each call the program waits for what ktune compiles
 * (ktune_online_wait), as an application whose calls are spread over more
 * time than the compilations take: the stream's times are the kernels'.
 * Without a CUDA device it prints "skip: ..." and exits with 0.
 */
#include <ktune.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef unsigned long long devptr;

/* The driver entry points the application needs. */
typedef struct cuda {
    int (*init)(unsigned);
    int (*device_get)(int *, int);
    int (*retain)(void **, int);
    int (*set_current)(void *);
    int (*alloc)(devptr *, size_t);
    int (*release)(devptr);
    int (*to_device)(devptr, const void *, size_t);
    int (*to_host)(void *, devptr, size_t);
} cuda;

static const char *cuda_open(cuda *cu)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
        return "no CUDA driver (libcuda.so.1)";
    void **fn[] = {(void **)&cu->init, (void **)&cu->device_get, (void **)&cu->retain,
                   (void **)&cu->set_current, (void **)&cu->alloc, (void **)&cu->release,
                   (void **)&cu->to_device, (void **)&cu->to_host};
    const char *names[] = {"cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain",
                           "cuCtxSetCurrent", "cuMemAlloc_v2", "cuMemFree_v2",
                           "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!(*fn[i] = dlsym(lib, names[i])))
            return "an incomplete CUDA driver";
    int dev;
    void *ctx;
    if (cu->init(0) || cu->device_get(&dev, 0) || cu->retain(&ctx, dev) ||
        cu->set_current(ctx))
        return "no CUDA device";
    return NULL;
}

/* The element type: FP16, BF16 or FP32, from the spec's name. */
typedef enum elem { F16, BF16, F32 } elem;

static unsigned short to16(float v, elem t)
{
    unsigned u;
    memcpy(&u, &v, sizeof u);
    if (t == BF16 || v == 0)
        return (unsigned short)(v == 0 ? 0 : u >> 16);
    /* exact for the normal values used here */
    return (unsigned short)(((u >> 16) & 0x8000) | (((u >> 23 & 0xff) - 112) << 10) |
                            ((u >> 13) & 0x3ff));
}

static float from16(unsigned short h, elem t)
{
    unsigned u = t == BF16 ? (unsigned)h << 16
                 : (h & 0x7fff) == 0 ? (unsigned)(h & 0x8000) << 16
                 : ((unsigned)(h & 0x8000) << 16) | (((h >> 10 & 0x1f) + 112u) << 23) |
                       ((h & 0x3ffu) << 13);
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* One shape: the application's matrices on the device and in host copies
 * (values k/16, exact in every type, so the host's sums are exact). */
typedef struct shape {
    int m, n, k;
    float *a, *b;
    devptr da, db, dc;
    void *args[6];          /* as the spec's Arguments: M, N, K, A, B, C */
    ktune_problem *problem;
} shape;

static int upload(cuda *cu, devptr *d, const float *x, size_t count, elem t)
{
    size_t size = t == F32 ? 4 : 2;
    unsigned short *h = t == F32 ? NULL : malloc(count * 2);
    if (t != F32 && !h)
        return 1;
    for (size_t i = 0; h && i < count; i++)
        h[i] = to16(x[i], t);
    const void *host = h ? (const void *)h : x;
    int rc = cu->alloc(d, count * size) || cu->to_device(*d, host, count * size);
    free(h);
    return rc;
}

static int shape_init(shape *s, cuda *cu, const ktune_spec *spec, const char *text,
                      elem t)
{
    ktune_diag d = {{0}};
    int rc = ktune_problem_parse(spec, text, 0, &s->problem, &d);
    if (rc != 0 || sscanf(text, "M=%d,N=%d,K=%d", &s->m, &s->n, &s->k) != 3) {
        fprintf(stderr, "online_gemm_cuda: %s: %s\n", text, rc ? d.msg : "not M=,N=,K=");
        return 1;
    }
    size_t mk = (size_t)s->m * s->k, kn = (size_t)s->k * s->n;
    s->a = malloc(mk * sizeof *s->a);
    s->b = malloc(kn * sizeof *s->b);
    for (size_t i = 0; s->a && i < mk; i++)
        s->a[i] = (float)((long)((i * 2654435761u >> 7) % 17) - 8) / 16;
    for (size_t i = 0; s->b && i < kn; i++)
        s->b[i] = (float)((long)(((i * 40503u + 7) >> 3) % 17) - 8) / 16;
    if (!s->a || !s->b || upload(cu, &s->da, s->a, mk, t) ||
        upload(cu, &s->db, s->b, kn, t) ||
        cu->alloc(&s->dc, (size_t)s->m * s->n * (t == F32 ? 4 : 2)))
        return 1;
    void *args[6] = {&s->m, &s->n, &s->k, &s->da, &s->db, &s->dc};
    memcpy(s->args, args, sizeof args);
    return 0;
}

static void shape_clear(shape *s, cuda *cu)
{
    cu->release(s->da), cu->release(s->db), cu->release(s->dc);
    free(s->a), free(s->b);
    ktune_problem_free(s->problem);
}

/* The application checks a few of its results: C = A B. */
static int check(const shape *s, cuda *cu, elem t)
{
    for (int q = 0; q < 16; q++) {
        size_t r = (size_t)(q * 7919) % s->m, j = (size_t)(q * 104729) % s->n;
        double want = 0;
        for (int p = 0; p < s->k; p++)
            want += (double)s->a[r * s->k + p] * s->b[(size_t)p * s->n + j];
        unsigned char raw[4];
        size_t size = t == F32 ? 4 : 2;
        if (cu->to_host(raw, s->dc + (r * s->n + j) * size, size))
            return 1;
        float got;
        if (t == F32)
            memcpy(&got, raw, 4);
        else
            got = from16((unsigned short)(raw[0] | raw[1] << 8), t);
        if (!(fabs(got - want) <= 1e-2 * (1 + fabs(want))))
            return fprintf(stderr, "C[%zu,%zu] = %g, not %g\n", r, j, got, want), 1;
    }
    return 0;
}

/* A handle on db: "halving" from scratch, or "none" serving key alone. */
static ktune_online *handle(const ktune_spec *spec, const char *db, const char **key)
{
    ktune_online_opts o;
    ktune_online_opts_init(&o);
    o.db_path = db;
    o.explore_share = 0.25;      /* at most a quarter of the calls explore */
    o.explore_overhead = 0.1;    /* costing at most a tenth more time */
    if (key) {
        o.policy = "none";
        o.seeds = key, o.nseeds = 1, o.candidates = 1;
        o.verify = KTUNE_ONLINE_VERIFY_NONE; /* verified when tuned */
    }
    ktune_online *on = NULL;
    ktune_diag d = {{0}};
    if (ktune_online_open(spec, &o, &on, &d) != 0)
        fprintf(stderr, "online_gemm_cuda: %s\n", d.msg);
    return on;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* n calls through on; their median time, or NAN on error. */
static double block(ktune_online *on, shape *s, int n, double *buf)
{
    ktune_diag d = {{0}};
    ktune_online_call call;
    for (int i = 0; i < n; i++) {
        if (ktune_online_run(on, s->problem, s->args, &call, &d) != 0)
            return fprintf(stderr, "online_gemm_cuda: %s\n", d.msg), NAN;
        buf[i] = call.time_ms;
    }
    qsort(buf, (size_t)n, sizeof *buf, cmp);
    return buf[n / 2];
}

/* The online choice and the offline best, each alone, in alternating
 * blocks of 25 calls (AB BA ...); the medians of the blocks' medians. */
static int compare(const ktune_spec *spec, shape *s, const char *mine, const char *best,
                   double *t_mine, double *t_best)
{
    ktune_online *a = handle(spec, NULL, &mine), *b = handle(spec, NULL, &best);
    double buf[25], ma[8], mb[8];
    int rc = !a || !b;
    if (rc == 0) /* first calls: compilation, module loads */
        rc = isnan(block(a, s, 5, buf)) || isnan(block(b, s, 5, buf));
    for (int r = 0; r < 8 && !rc; r++) {
        ma[r] = block(r % 2 ? b : a, s, 25, buf);
        mb[r] = block(r % 2 ? a : b, s, 25, buf);
        if (r % 2) {
            double x = ma[r];
            ma[r] = mb[r], mb[r] = x;
        }
        rc = isnan(ma[r]) || isnan(mb[r]);
    }
    if (rc == 0) {
        qsort(ma, 8, sizeof *ma, cmp);
        qsort(mb, 8, sizeof *mb, cmp);
        *t_mine = (ma[3] + ma[4]) / 2, *t_best = (mb[3] + mb[4]) / 2;
    }
    ktune_online_close(a);
    ktune_online_close(b);
    return rc;
}

/* The online stream of one shape, then the comparison. */
static int run_shape(const ktune_spec *spec, const char *db, shape *s, int calls,
                     const char *best, cuda *cu, elem t)
{
    ktune_online *on = handle(spec, db, NULL);
    ktune_diag d = {{0}};
    ktune_online_call call;
    double total = 0, last = 0; /* all calls' time, the last quarter's */
    struct timespec t0, t1;
    timespec_get(&t0, TIME_UTC);
    int rc = !on;
    for (int i = 0; i < calls && rc == 0; i++) {
        rc = ktune_online_run(on, s->problem, s->args, &call, &d);
        total += call.time_ms;
        last += i >= calls - calls / 4 ? call.time_ms : 0;
        ktune_online_wait(on);
    }
    timespec_get(&t1, TIME_UTC);
    if (rc != 0)
        fprintf(stderr, "online_gemm_cuda: %s\n", d.msg);
    ktune_online_state st = {0};
    if (rc == 0 && (rc = check(s, cu, t)) == 0)
        rc = ktune_online_report(on, s->problem, &st, &d);
    char mine[256] = "";
    snprintf(mine, sizeof mine, "%s", st.best ? st.best : "");
    if (rc == 0)
        printf("%s: %d calls, %llu explored (%.1f %%), %zu candidates (%zu failed), %s; "
               "%.1f s with the compilations\n  online choice %s\n  offline best  %s\n",
               ktune_problem_key(s->problem), calls, (unsigned long long)st.explored,
               100.0 * st.explored / calls, st.candidates, st.failed,
               st.converged ? "converged" : "still exploring",
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec), mine,
               best);
    ktune_online_close(on);
    double tm, tb;
    if (rc == 0 && (rc = compare(spec, s, mine, best, &tm, &tb)) == 0)
        printf("  alone, one launch a call (median of 8 blocks of 25): online %.4f ms, "
               "offline %.4f ms: %.3fx\n  stream %.2f ms vs always-best %d x %.4f = "
               "%.2f ms: overhead %+.1f %% (%+.1f %% over always the online choice); "
               "last %d calls %.3fx the offline best\n", tm, tb, tm / tb, total, calls, tb,
               calls * tb, 100 * (total / (calls * tb) - 1),
               100 * (total / (calls * tm) - 1), calls / 4,
               calls >= 4 ? last / (calls / 4 * tb) : NAN);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 6 || argc % 2) {
        fprintf(stderr, "usage: online_gemm_cuda SPEC DB CALLS SHAPE BEST "
                        "[SHAPE BEST ...]\n");
        return 2;
    }
    cuda cu;
    const char *why = cuda_open(&cu);
    if (why)
        return printf("skip: %s\n", why), 0;
    ktune_diag d = {{0}};
    ktune_spec *spec = NULL;
    if (ktune_spec_load(argv[1], NULL, NULL, &spec, &d) != 0)
        return fprintf(stderr, "online_gemm_cuda: %s\n", d.msg), 1;
    const char *name = ktune_spec_name(spec);
    elem t = strstr(name, "bf16") ? BF16 : strstr(name, "f16") ? F16 : F32;
    int calls = atoi(argv[3]), rc = calls < 1;
    for (int i = 4; i < argc && rc == 0; i += 2) {
        shape s = {0};
        rc = shape_init(&s, &cu, spec, argv[i], t);
        if (rc == 0)
            rc = run_shape(spec, argv[2], &s, calls, argv[i + 1], &cu, t);
        shape_clear(&s, &cu);
    }
    ktune_spec_free(spec);
    return rc == 0 ? 0 : 1;
}
