/* strategy.c - the registry of search strategies. */
#include "search/strategy.h"

#include <string.h>

extern const kt_strategy kt_strategy_brute_force;
extern const kt_strategy kt_strategy_random;
extern const kt_strategy kt_strategy_local_search;
extern const kt_strategy kt_strategy_annealing;
extern const kt_strategy kt_strategy_genetic;
extern const kt_strategy kt_strategy_diff_evo;
extern const kt_strategy kt_strategy_pso;
extern const kt_strategy kt_strategy_ensemble;
extern const kt_strategy kt_strategy_model_guided;
extern const kt_strategy kt_strategy_map_elites;

static const kt_strategy *const REGISTRY[] = {
    &kt_strategy_brute_force,
    &kt_strategy_random,
    &kt_strategy_local_search,
    &kt_strategy_annealing,
    &kt_strategy_genetic,
    &kt_strategy_diff_evo,
    &kt_strategy_model_guided,
    &kt_strategy_pso,
    &kt_strategy_ensemble,
    &kt_strategy_map_elites,
};

size_t kt_strategy_count(void) { return sizeof REGISTRY / sizeof REGISTRY[0]; }

const kt_strategy *kt_strategy_at(size_t i)
{
    return i < kt_strategy_count() ? REGISTRY[i] : NULL;
}

const kt_strategy *kt_strategy_find(const char *name)
{
    for (size_t i = 0; i < kt_strategy_count(); i++)
        if (strcmp(REGISTRY[i]->name, name) == 0 && REGISTRY[i]->abi == KT_STRATEGY_ABI)
            return REGISTRY[i];
    return NULL;
}

const kt_strategy *kt_strategy_exhaustive(void)
{
    for (size_t i = 0; i < kt_strategy_count(); i++)
        if (REGISTRY[i]->exhaustive)
            return REGISTRY[i];
    return NULL;
}
