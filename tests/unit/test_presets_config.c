/*
 * test_presets_config.c -- every model preset whose row in
 * data/models.json names the real config.json it was written from
 * (config_file, under tests/data/configs; SOURCES.md says where each
 * comes from) equals what kvb_config_parse makes of that file, field by
 * field: every field of kvb_model but the name.  The field list is
 * include/kvbudget.h's, through scripts/gen_presets.py, so a field added
 * to kvb_model is compared without an edit here.
 *
 * A field may differ only where the row explains why (config_differs in
 * data/models.json), and an explained field must differ, so that a stale
 * explanation fails too.  config_edit replaces one text of the file
 * first, for the two rows whose public copy is not the model's own file
 * (the row says why).
 */
#include "testing.h"

#include "presets_config_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct config_check {
    const char *preset, *file;
    const char *from, *to; /* config_edit; NULL: the file as it is */
    const char *differs;   /* comma-separated field names */
} config_check;

static const config_check checks[] = {
#define KVB_CHECK_ROW(preset, file, from, to, differs)                         \
    {preset, file, from, to, differs},
    KVB__PRESET_CONFIGS(KVB_CHECK_ROW)
#undef KVB_CHECK_ROW
};

/* Is `field` one of the comma-separated names in `list`? */
static bool listed(const char *list, const char *field)
{
    size_t n = strlen(field);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, field, n) == 0)
            return true;
        p = end ? end + 1 : p + len;
    }
    return false;
}

/* The config's text with the row's edit made, malloc'ed. */
static char *config_text(const config_check *c)
{
    size_t len = 0;
    char *text = slurp(c->file, &len);
    if (!c->from)
        return text;
    char *at = strstr(text, c->from);
    if (!at)
        fail_msg("%s: config_edit.from is not in %s", c->preset, c->file);
    size_t head = (size_t)(at - text), fl = strlen(c->from), tl = strlen(c->to);
    char *out = malloc(len - fl + tl + 1);
    assert_non_null(out);
    memcpy(out, text, head);
    memcpy(out + head, c->to, tl);
    memcpy(out + head + tl, at + fl, len - head - fl + 1);
    free(text);
    return out;
}

static kvb_model read_config(const config_check *c)
{
    kvb_model m;
    kvb_error e = KVB_ERROR_INIT;
    assert_int_equal(KVB_MODEL_INIT(&m), KVB_OK);
    char *text = config_text(c);
    kvb_status st = kvb_config_parse(text, strlen(text), &m, NULL, NULL, &e);
    free(text);
    if (st != KVB_OK)
        fail_msg("%s: %s: %s %s: %s", c->preset, c->file, kvb_status_name(st),
                 e.field, e.message);
    return m;
}

/* One field of one row: 1 (and a line saying why) when it differs
 * without an explanation, or is explained but does not differ. */
static int judge(const config_check *c, const char *field, bool differs,
                 const char *preset, const char *read)
{
    bool explained = listed(c->differs, field);
    if (differs == explained)
        return 0;
    print_message("%s (%s): %s is %s in the preset, %s in the config: %s\n",
                  c->preset, c->file, field, preset, read,
                  explained ? "config_differs explains a difference there "
                              "is not; remove that entry"
                            : "fix the row, or explain the difference in its "
                              "config_differs");
    return 1;
}

#define KVB_DIFFERS_U(a, b) ((uint64_t)(a) != (uint64_t)(b))
#define KVB_DIFFERS_I(a, b) ((a) != (b))
#define KVB_DIFFERS_D(a, b) ((a) != (b))
#define KVB_DIFFERS_S(a, b) (strcmp((a), (b)) != 0)
#define KVB_SHOW_U(buf, v)                                                     \
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)(v))
#define KVB_SHOW_I(buf, v) snprintf(buf, sizeof buf, "%lld", (long long)(v))
#define KVB_SHOW_D(buf, v) snprintf(buf, sizeof buf, "%.17g", (double)(v))
#define KVB_SHOW_S(buf, v) snprintf(buf, sizeof buf, "\"%s\"", (v))

/* Every field but the name; the number of failures. */
static int compare(const config_check *c, const kvb_model *preset,
                   const kvb_model *read)
{
    int bad = 0;
    char p[300], r[300];
#define KVB_COMPARE(field, kind)                                               \
    KVB_SHOW_##kind(p, preset->field);                                         \
    KVB_SHOW_##kind(r, read->field);                                           \
    bad += judge(c, #field, KVB_DIFFERS_##kind(preset->field, read->field), p, \
                 r);
    KVB__MODEL_FIELDS(KVB_COMPARE)
#undef KVB_COMPARE
    return bad;
}

static void test_presets_config_every_field(void **state)
{
    (void)state;
    size_t n = sizeof checks / sizeof checks[0];
    /* The 37 rows that name a config today (data/models.json); a row
     * that stops naming one lowers this on purpose. */
    assert_true(n >= 37);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        kvb_model want = preset_model(checks[i].preset);
        kvb_model got = read_config(&checks[i]);
        bad += compare(&checks[i], &want, &got);
    }
    if (bad)
        fail_msg("%d field(s) of the model presets differ from their "
                 "config.json (above)",
                 bad);
}

/* The comparison fails where it should: a preset against another
 * preset's config differs, and a difference the row does not explain
 * counts. */
static void test_presets_config_compare_can_fail(void **state)
{
    (void)state;
    const config_check c = {"Llama-3.1-8B", "configs/qwen3-8b.json", NULL, NULL,
                            ""};
    kvb_model want = preset_model("Llama-3.1-8B");
    kvb_model got = read_config(&c);
    /* arch, flags (QK_NORM), num_hidden_layers 32 vs 36, head_dim 0 vs
     * 128, intermediate_size, vocab_size, max_position_embeddings:
     * tests/data/configs/qwen3-8b.json against the Llama-3.1-8B row */
    assert_int_equal(compare(&c, &want, &got), 7);
    assert_true(listed("a,rope_scaling_type,b", "rope_scaling_type"));
    assert_false(listed("rope_scaling_type_x", "rope_scaling_type"));
    assert_false(listed("", "arch"));
}

KVB_TESTS(cmocka_unit_test(test_presets_config_every_field),
          cmocka_unit_test(test_presets_config_compare_can_fail));
