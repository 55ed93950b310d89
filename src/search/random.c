/* random.c - valid configurations drawn uniformly without replacement.
 *
 * A lazily shuffled index (Fisher-Yates, one swap per draw) over the built
 * space: exact uniform sampling, no repeats, O(1) per draw. */
#include "search/strategy.h"

#include <stdlib.h>
#include <string.h>

typedef struct random_state {
    kt_space *space;
    kt_rng rng;
    uint64_t *perm;   /* perm[0..drawn) are the draws so far */
    uint64_t drawn, size;
} random_state;

static int random_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                       kt_diag *diag)
{
    (void)diag;
    random_state *s = calloc(1, sizeof *s);
    uint64_t size = kt_space_size(space);
    if (s)
        s->perm = malloc((size ? size : 1) * sizeof *s->perm);
    if (!s || !s->perm) {
        free(s);
        return KT_ENOMEM;
    }
    for (uint64_t i = 0; i < size; i++)
        s->perm[i] = i;
    s->space = space;
    s->size = size;
    kt_rng_seed(&s->rng, opts->seed);
    *state = s;
    return KT_OK;
}

static int random_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    random_state *s = state;
    size_t np = kt_space_nparams(s->space);
    for (*n = 0; *n < max && s->drawn < s->size; (*n)++, s->drawn++) {
        uint64_t j = s->drawn + kt_rng_below(&s->rng, s->size - s->drawn);
        uint64_t t = s->perm[j];
        s->perm[j] = s->perm[s->drawn];
        s->perm[s->drawn] = t;
        memcpy(out + *n * np, kt_space_at(s->space, t), np * sizeof *out);
    }
    return KT_OK;
}

static void random_free(void *state)
{
    random_state *s = state;
    if (s)
        free(s->perm);
    free(s);
}

const kt_strategy kt_strategy_random = {
    .abi = KT_STRATEGY_ABI,
    .name = "random",
    .summary = "uniform random sampling without replacement",
    .init = random_init,
    .propose = random_propose,
    .free = random_free,
    .uniform = true,
};
