/*
 * engines/available.c -- which kvb_engine values this build plans for:
 * the ones with a table in engines/registry.c.  `kvbudget compare` and
 * `fit` iterate them, so an engine shows up there as soon as its row
 * lands.
 */
#include "internal.h"

int kvb_engine_available(int engine)
{
    return kvb__engine_get(engine) != NULL;
}
