/*
 * main.c -- the shared runner of the unit tests.  Each test_<stage>.c
 * defines kvb_tests[] and kvb_tests_count; KVB_TEST_FILTER="pattern"
 * runs only the matching cases.
 */
#include "testing.h"

#include <stdlib.h>

int main(void)
{
#ifdef HAVE_CMOCKA_SET_TEST_FILTER
    const char *filter = getenv("KVB_TEST_FILTER");
    if (filter && *filter)
        cmocka_set_test_filter(filter);
#endif
    return _cmocka_run_group_tests(KVB_TEST_NAME, kvb_tests, kvb_tests_count,
                                   NULL, NULL);
}
