/* brute_force.c - every valid configuration, in enumeration order. */
#include "search/strategy.h"

#include <stdlib.h>
#include <string.h>

typedef struct bf_state {
    kt_space *space;
    uint64_t next;   /* index into the built space */
} bf_state;

static int bf_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                   kt_diag *diag)
{
    (void)opts;
    (void)diag;
    bf_state *s = calloc(1, sizeof *s);
    if (!s)
        return KT_ENOMEM;
    s->space = space;
    *state = s;
    return KT_OK;
}

static int bf_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    bf_state *s = state;
    size_t np = kt_space_nparams(s->space);
    for (*n = 0; *n < max && s->next < kt_space_size(s->space); (*n)++, s->next++)
        memcpy(out + *n * np, kt_space_at(s->space, s->next), np * sizeof *out);
    return KT_OK;
}

const kt_strategy kt_strategy_brute_force = {
    .abi = KT_STRATEGY_ABI,
    .name = "brute_force",
    .summary = "every valid configuration, in order",
    .init = bf_init,
    .propose = bf_propose,
    .free = free,
    .exhaustive = true,
};
