/*
 * presets/lookup.c -- access to the built-in model, GPU and instance tables
 * (kvb__model_rows, kvb__gpu_rows, kvb__instance_rows, generated from
 * data/models.json, data/gpus.tsv and data/instances.tsv by
 * scripts/gen_presets.py).  Rows are copied into the caller's struct;
 * nothing points into the tables.
 */
#include "internal.h"

#include <string.h>

bool kvb__name_matches(const char *name, const char *canonical,
                       const char *aliases)
{
    if (kvb__strcasecmp(name, canonical) == 0)
        return true;
    size_t n = strlen(name);
    for (const char *a = aliases; a && *a;) {
        const char *end = strchr(a, ',');
        size_t len = end ? (size_t)(end - a) : strlen(a);
        if (len == n) {
            size_t i = 0;
            while (i < n && (name[i] | 0x20) == (a[i] | 0x20))
                i++;
            if (i == n)
                return true;
        }
        a = end ? end + 1 : NULL;
    }
    return false;
}

/* The Hugging Face repository of a model preset (its first alias with a
 * '/'), written into buf; false when `name` is no preset or has none. */
bool kvb__model_repo(const char *name, char *buf, size_t cap)
{
    for (size_t i = 0; i < kvb__model_rows_count; i++) {
        const kvb__model_row *r = &kvb__model_rows[i];
        if (kvb__strcasecmp(name, r->name) != 0)
            continue;
        const char *slash = r->aliases ? strchr(r->aliases, '/') : NULL;
        if (!slash)
            return false;
        const char *start = slash, *end = strchr(slash, ',');
        while (start > r->aliases && start[-1] != ',')
            start--;
        size_t n = end ? (size_t)(end - start) : strlen(start);
        if (n >= cap)
            return false;
        memcpy(buf, start, n);
        buf[n] = '\0';
        return true;
    }
    return false;
}

static kvb_status past_end(kvb_error *err, const char *what, size_t index,
                           size_t count)
{
    return kvb__fail(err, KVB_ERANGE, "index",
                     "index (%zu) is past the last %s preset; allowed: "
                     "0..%zu",
                     index, what, count ? count - 1 : 0);
}

static kvb_status not_found(kvb_error *err, const char *what, const char *name)
{
    return kvb__fail(err, KVB_ENOTFOUND, what,
                     "%s (%s) is not a preset; allowed: a name from "
                     "`kvbudget list %ss`",
                     what, name ? name : "(null)", what);
}

/* ---- models ---- */

size_t kvb_preset_model_count(void)
{
    return kvb__model_rows_count;
}

const char *kvb_preset_model_name(size_t index)
{
    return index < kvb__model_rows_count ? kvb__model_rows[index].name : NULL;
}

const char *kvb_preset_model_source(size_t index)
{
    return index < kvb__model_rows_count ? kvb__model_rows[index].source : NULL;
}

kvb_status kvb_preset_model_get(size_t index, kvb_model *model, kvb_error *err)
{
    if (index >= kvb__model_rows_count)
        return past_end(err, "model", index, kvb__model_rows_count);
    if (!model)
        return kvb__fail(err, KVB_EINVAL, "model", "model is NULL");
    kvb_model m = kvb__model_rows[index].m;
    m.struct_size = sizeof m;
    kvb__strlcpy(m.name, kvb__model_rows[index].name, sizeof m.name);
    kvb_status st = kvb__struct_check(model, sizeof m, "model", err);
    if (st)
        return st;
    kvb__struct_out(&m, sizeof m, model);
    return KVB_OK;
}

kvb_status kvb_preset_model_find(const char *name, kvb_model *model,
                                 kvb_error *err)
{
    for (size_t i = 0; name && i < kvb__model_rows_count; i++)
        if (kvb__name_matches(name, kvb__model_rows[i].name,
                              kvb__model_rows[i].aliases))
            return kvb_preset_model_get(i, model, err);
    return not_found(err, "model", name);
}

kvb_status kvb_preset_model_published_params(size_t index, uint64_t *params,
                                             kvb_error *err)
{
    if (index >= kvb__model_rows_count)
        return past_end(err, "model", index, kvb__model_rows_count);
    if (!params)
        return kvb__fail(err, KVB_EINVAL, "params", "params is NULL");
    *params = kvb__model_rows[index].published_params;
    return KVB_OK;
}

/* ---- GPUs ---- */

size_t kvb_preset_gpu_count(void)
{
    return kvb__gpu_rows_count;
}

const char *kvb_preset_gpu_name(size_t index)
{
    return index < kvb__gpu_rows_count ? kvb__gpu_rows[index].name : NULL;
}

const char *kvb_preset_gpu_source(size_t index)
{
    return index < kvb__gpu_rows_count ? kvb__gpu_rows[index].source : NULL;
}

kvb_status kvb_preset_gpu_get(size_t index, kvb_gpu *gpu, kvb_error *err)
{
    if (index >= kvb__gpu_rows_count)
        return past_end(err, "gpu", index, kvb__gpu_rows_count);
    if (!gpu)
        return kvb__fail(err, KVB_EINVAL, "gpu", "gpu is NULL");
    const kvb__gpu_row *r = &kvb__gpu_rows[index];
    kvb_gpu g;
    KVB__CANNOT_FAIL(kvb_gpu_init(&g, sizeof g));
    kvb__strlcpy(g.name, r->name, sizeof g.name);
    g.total_bytes = r->total_bytes;
    g.compute_capability = r->compute_capability;
    g.multiprocessor_count = r->multiprocessor_count;
    kvb_status st = kvb__struct_check(gpu, sizeof g, "gpu", err);
    if (st)
        return st;
    kvb__struct_out(&g, sizeof g, gpu);
    return KVB_OK;
}

kvb_status kvb_preset_gpu_find(const char *name, kvb_gpu *gpu, kvb_error *err)
{
    for (size_t i = 0; name && i < kvb__gpu_rows_count; i++)
        if (kvb__name_matches(name, kvb__gpu_rows[i].name,
                              kvb__gpu_rows[i].aliases))
            return kvb_preset_gpu_get(i, gpu, err);
    return not_found(err, "gpu", name);
}

/* ---- instances ---- */

kvb_status kvb_instance_init(kvb_instance *inst, size_t struct_size)
{
    return kvb__struct_init(inst, struct_size, sizeof *inst, "instance");
}

size_t kvb_preset_instance_count(void)
{
    return kvb__instance_rows_count;
}

const char *kvb_preset_instance_name(size_t index)
{
    return index < kvb__instance_rows_count ? kvb__instance_rows[index].name
                                            : NULL;
}

const char *kvb_preset_instance_source(size_t index)
{
    return index < kvb__instance_rows_count ? kvb__instance_rows[index].source
                                            : NULL;
}

kvb_status kvb_preset_instance_get(size_t index, kvb_instance *inst,
                                   kvb_error *err)
{
    if (index >= kvb__instance_rows_count)
        return past_end(err, "instance", index, kvb__instance_rows_count);
    if (!inst)
        return kvb__fail(err, KVB_EINVAL, "instance", "instance is NULL");
    const kvb__instance_row *r = &kvb__instance_rows[index];
    kvb_instance out;
    KVB__CANNOT_FAIL(kvb_instance_init(&out, sizeof out));
    kvb__strlcpy(out.name, r->name, sizeof out.name);
    kvb__strlcpy(out.cloud, r->cloud, sizeof out.cloud);
    kvb__strlcpy(out.gpu_name, r->gpu, sizeof out.gpu_name);
    out.gpu_count = r->gpu_count;
    out.vcpus = r->vcpus;
    out.host_memory_bytes = r->host_memory_bytes;
    out.price_per_hour = r->price_per_hour;
    kvb_status st = kvb__struct_check(inst, sizeof out, "instance", err);
    if (st)
        return st;
    kvb__struct_out(&out, sizeof out, inst);
    return KVB_OK;
}

kvb_status kvb_preset_instance_find(const char *name, kvb_instance *inst,
                                    kvb_error *err)
{
    for (size_t i = 0; name && i < kvb__instance_rows_count; i++)
        if (kvb__strcasecmp(name, kvb__instance_rows[i].name) == 0)
            return kvb_preset_instance_get(i, inst, err);
    return not_found(err, "instance", name);
}

kvb_status kvb_instance_gpu(const kvb_instance *inst, kvb_gpu *gpu,
                            kvb_error *err)
{
    kvb_instance in;
    kvb_status st = kvb__struct_in(inst, sizeof in, &in, "instance", err);
    if (st)
        return st;
    in.gpu_name[sizeof in.gpu_name - 1] = '\0';
    st = kvb_preset_gpu_find(in.gpu_name, gpu, err);
    if (st)
        return st;
    gpu->count = in.gpu_count;
    return KVB_OK;
}
