/* test_errors.c -- status table, error detail, field bounds. */
#include "testing.h"

#include <string.h>

static void test_errors_every_status_has_text(void **state)
{
    (void)state;
    for (int s = 0; s < KVB_STATUS_LAST_; s++) {
        assert_non_null(kvb_strerror(s));
        assert_string_not_equal(kvb_strerror(s), "unknown status");
        assert_int_equal(strncmp(kvb_status_name(s), "KVB_", 4), 0);
        assert_string_not_equal(kvb_status_name(s), "KVB_UNKNOWN");
    }
    assert_string_equal(kvb_status_name(KVB_EINVAL), "KVB_EINVAL");
    assert_string_equal(kvb_strerror(KVB_OK), "success");
}

static void test_errors_unknown_status(void **state)
{
    (void)state;
    assert_string_equal(kvb_strerror(-1), "unknown status");
    assert_string_equal(kvb_strerror(KVB_STATUS_LAST_), "unknown status");
    assert_string_equal(kvb_status_name(9999), "KVB_UNKNOWN");
}

static void test_errors_init_checks_size(void **state)
{
    (void)state;
    kvb_error e;
    assert_int_equal(kvb_error_init(&e, sizeof e), KVB_OK);
    assert_int_equal(e.line, -1);
    assert_int_equal(e.offset, -1);
    assert_int_equal(kvb_error_init(&e, sizeof e - 8), KVB_EABI);
    assert_int_equal(kvb_error_init(NULL, sizeof e), KVB_EINVAL);
}

static void test_errors_fail_fills_detail(void **state)
{
    (void)state;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(kvb__fail(&e, KVB_ERANGE, "serving.block_size",
                               "serving.block_size (%d) bad", 0),
                     KVB_ERANGE);
    assert_int_equal(e.status, KVB_ERANGE);
    assert_string_equal(e.field, "serving.block_size");
    assert_string_equal(e.message, "serving.block_size (0) bad");
    /* NULL error pointers are allowed everywhere */
    assert_int_equal(kvb__fail(NULL, KVB_EIO, "x", "y"), KVB_EIO);
}

static void test_errors_field_bounds(void **state)
{
    (void)state;
    double lo = -1, hi = -1;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(
        kvb_field_bounds("serving.gpu_memory_utilization", &lo, &hi, &e),
        KVB_OK);
    assert_true(lo == 0.0 && hi == 1.0);
    assert_int_equal(kvb_field_bounds("model.num_hidden_layers", &lo, &hi, &e),
                     KVB_OK);
    assert_true(lo == 1.0 && hi == 1024.0);
    assert_int_equal(kvb_field_bounds("model.nonsense", &lo, &hi, &e),
                     KVB_ENOTFOUND);
    assert_string_equal(e.field, "field");
    assert_int_equal(kvb_field_bounds(NULL, &lo, &hi, &e), KVB_EINVAL);
}

static void test_errors_version(void **state)
{
    (void)state;
    assert_int_equal(kvb_version_number(), KVB_VERSION_NUMBER);
    assert_string_equal(kvb_version_string(), KVB_VERSION_STRING);
    assert_true(KVB_AT_LEAST_VERSION(0, 1, 0));
    assert_false(KVB_AT_LEAST_VERSION(99, 0, 0));
}

KVB_TESTS(cmocka_unit_test(test_errors_every_status_has_text),
          cmocka_unit_test(test_errors_unknown_status),
          cmocka_unit_test(test_errors_init_checks_size),
          cmocka_unit_test(test_errors_fail_fills_detail),
          cmocka_unit_test(test_errors_field_bounds),
          cmocka_unit_test(test_errors_version));
