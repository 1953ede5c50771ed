/*
 * device/probe.c -- the GPUs of this machine, read through the CUDA driver API.
 *
 * The driver library (libcuda.so.1) is loaded with dlopen for the length
 * of one call and unloaded after, so libkvbudget.so has no NEEDED entry
 * for any CUDA library, loads on machines without a driver, and keeps no
 * global state.  Why the driver API and not the runtime (libcudart): the
 * driver library is installed by the NVIDIA driver itself (and mounted
 * into containers by the NVIDIA container toolkit), so it is present
 * exactly where a GPU can be used, with an ABI that every newer driver
 * keeps; libcudart is a toolkit library of one major version, usually
 * absent on serving nodes (PyTorch carries a private copy) and refused by
 * drivers older than its major.  cudaMemGetInfo is cuMemGetInfo in the
 * device's primary context, which is the context used here
 * (docs/validation.md#why-the-driver-api).
 *
 * Everything that needs the toolkit's headers is compiled only under
 * KVB_HAVE_CUDA; without it every entry point returns KVB_ENOCUDA.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(KVB_HAVE_CUDA)
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#endif

/* CUresult values used below (cuda.h, CUDA 13.0), as plain numbers so the
 * mapping builds and is tested without the toolkit. */
enum {
    CU_SUCCESS = 0,
    CU_OUT_OF_MEMORY = 2,
    CU_NOT_INITIALIZED = 3,
    CU_DEINITIALIZED = 4,
    CU_STUB_LIBRARY = 34,
    CU_CALL_REQUIRES_NEWER_DRIVER = 36,
    CU_DEVICE_UNAVAILABLE = 46,
    CU_NO_DEVICE = 100,
    CU_INVALID_DEVICE = 101,
    CU_OPERATING_SYSTEM = 304,
    CU_NOT_PERMITTED = 800,
    CU_NOT_SUPPORTED = 801,
    CU_SYSTEM_NOT_READY = 802,
    CU_SYSTEM_DRIVER_MISMATCH = 803,
    CU_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
};

#define DRIVER_LIBRARY "libcuda.so.1"

bool kvb__probe_has_cuda(void)
{
#if defined(KVB_HAVE_CUDA)
    return true;
#else
    return false;
#endif
}

kvb_status kvb__cuda_status(int cu_result)
{
    switch (cu_result) {
    case CU_SUCCESS: return KVB_OK;
    case CU_OUT_OF_MEMORY: return KVB_ENOMEM;
    case CU_NO_DEVICE:
    case CU_INVALID_DEVICE:
    case CU_DEVICE_UNAVAILABLE: return KVB_ENODEVICE;
    /* the driver is missing, a stub, too old, or not usable here */
    case CU_NOT_INITIALIZED:
    case CU_DEINITIALIZED:
    case CU_STUB_LIBRARY:
    case CU_CALL_REQUIRES_NEWER_DRIVER:
    case CU_OPERATING_SYSTEM:
    case CU_NOT_PERMITTED:
    case CU_NOT_SUPPORTED:
    case CU_SYSTEM_NOT_READY:
    case CU_SYSTEM_DRIVER_MISMATCH:
    case CU_COMPAT_NOT_SUPPORTED_ON_DEVICE: return KVB_ENODRIVER;
    default: return KVB_ECUDA;
    }
}

/*
 * /proc/driver/nvidia/version begins
 *   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.03  Thu ..."
 * or, for the open modules,
 *   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.03 ..."
 * The version is the first token after "Kernel Module" made of digits and
 * dots with at least one dot.
 */
bool kvb__nvidia_version(const char *text, char *out, size_t cap)
{
    if (!text || !out || cap == 0)
        return false;
    const char *p = strstr(text, "Kernel Module");
    if (!p)
        return false;
    const char *eol = strchr(p, '\n');
    p += strlen("Kernel Module");
    while (*p && (!eol || p < eol)) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t n = 0, dots = 0;
        while ((p[n] >= '0' && p[n] <= '9') || p[n] == '.')
            dots += p[n++] == '.';
        bool token_end =
            p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n';
        if (n > 0 && dots > 0 && token_end && p[0] != '.') {
            if (n >= cap)
                return false;
            memcpy(out, p, n);
            out[n] = '\0';
            return true;
        }
        while (*p && *p != ' ' && *p != '\t' && *p != '\n')
            p++;
    }
    return false;
}

/* ---- public, with or without CUDA ---- */

kvb_status kvb_device_init(kvb_device *dev, size_t struct_size)
{
    kvb_status st = kvb__struct_init(dev, struct_size, sizeof *dev, "device");
    if (!st)
        dev->index = -1;
    return st;
}

kvb_status kvb_device_gpu(const kvb_device *dev, kvb_gpu *gpu, kvb_error *err)
{
    kvb_device d;
    kvb_gpu g;
    kvb_status st = kvb__struct_in(dev, sizeof d, &d, "device", err);
    if (!st)
        st = kvb__struct_in(gpu, sizeof g, &g, "gpu", err);
    if (st)
        return st;
    if (d.total_bytes == 0)
        return kvb__fail(err, KVB_EINVAL, "device.total_bytes",
                         "device.total_bytes (0) is not a probed device; "
                         "allowed: > 0 (call kvb_probe_device)");
    if (d.free_bytes > d.total_bytes)
        return kvb__fail(err, KVB_ERANGE, "device.free_bytes",
                         "device.free_bytes (%llu) exceeds total_bytes "
                         "(%llu); allowed: 0..total_bytes",
                         (unsigned long long)d.free_bytes,
                         (unsigned long long)d.total_bytes);
    d.name[sizeof d.name - 1] = '\0';
    KVB__CANNOT_FAIL(kvb_gpu_init(&g, sizeof g));
    kvb__strlcpy(g.name, d.name, sizeof g.name);
    g.total_bytes = d.total_bytes;
    g.free_bytes = d.free_bytes;
    g.count = 1;
    g.compute_capability = d.compute_capability;
    g.multiprocessor_count = d.multiprocessor_count;
    /* validate as kvb_plan_compute will, so a bad probe fails here */
    kvb_gpu checked;
    st = kvb__gpu_load(&g, &checked, err);
    if (st)
        return st;
    kvb__struct_out(&g, sizeof g, gpu);
    return KVB_OK;
}

#if !defined(KVB_HAVE_CUDA)

/* ---- built without CUDA: every probe says so ---- */

static kvb_status no_cuda(kvb_error *err)
{
    return kvb__fail(err, KVB_ENOCUDA, "probe",
                     "built without CUDA support: rebuild with the CUDA "
                     "toolkit installed (cmake -DKVB_WITH_CUDA=ON) to probe "
                     "GPUs");
}

kvb_status kvb__cuda_open(const char *library, kvb__cuda **out, kvb_error *err)
{
    (void)library;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

void kvb__cuda_close(kvb__cuda *cu)
{
    (void)cu;
}

kvb_status kvb__cuda_count(kvb__cuda *cu, uint32_t *count, kvb_error *err)
{
    (void)cu;
    if (count)
        *count = 0;
    return no_cuda(err);
}

kvb_status kvb__cuda_device(kvb__cuda *cu, uint32_t index, kvb_device *dev,
                            kvb_error *err)
{
    (void)cu, (void)index, (void)dev;
    return no_cuda(err);
}

void kvb__cuda_devmem(kvb__cuda *cu, kvb__devmem *dm)
{
    (void)cu;
    memset(dm, 0, sizeof *dm);
}

#else /* KVB_HAVE_CUDA */

/* ---- the driver, loaded per call ---- */

struct kvb__cuda {
    void *lib;          /* dlopen handle */
    char library[128];  /* what was loaded, for messages */
    CUdevice device;    /* retained by kvb__cuda_device */
    bool retained;      /* its primary context is retained */
    CUcontext previous; /* the thread's current context before us */
    bool switched;      /* we made ours current */
    PFN_cuGetErrorString_v6000 GetErrorString;
    PFN_cuGetErrorName_v6000 GetErrorName;
    PFN_cuInit_v2000 Init;
    PFN_cuDriverGetVersion_v2020 DriverGetVersion;
    PFN_cuDeviceGetCount_v2000 DeviceGetCount;
    PFN_cuDeviceGet_v2000 DeviceGet;
    PFN_cuDeviceGetName_v2000 DeviceGetName;
    PFN_cuDeviceGetAttribute_v2000 DeviceGetAttribute;
    PFN_cuDeviceGetUuid_v11040 DeviceGetUuid; /* may be NULL */
    PFN_cuDevicePrimaryCtxRetain_v7000 PrimaryCtxRetain;
    PFN_cuDevicePrimaryCtxRelease_v11000 PrimaryCtxRelease;
    PFN_cuCtxGetCurrent_v4000 CtxGetCurrent;
    PFN_cuCtxSetCurrent_v4000 CtxSetCurrent;
    PFN_cuMemGetInfo_v3020 MemGetInfo;
    PFN_cuMemAlloc_v3020 MemAlloc;
    PFN_cuMemFree_v3020 MemFree;
};

/* Fill *err from a failed CUresult: CUDA's name and text, and a status. */
static kvb_status cu_fail(const kvb__cuda *cu, kvb_error *err, CUresult r,
                          const char *what)
{
    const char *name = NULL, *text = NULL;
    if (cu->GetErrorName && cu->GetErrorName(r, &name) != CUDA_SUCCESS)
        name = NULL;
    if (cu->GetErrorString && cu->GetErrorString(r, &text) != CUDA_SUCCESS)
        text = NULL;
    kvb_status st = kvb__cuda_status((int)r);
    if (r == CUDA_ERROR_STUB_LIBRARY)
        return kvb__fail(err, st, "probe",
                         "no CUDA driver found: %s is the CUDA toolkit's "
                         "stub, not a driver; this machine has no NVIDIA GPU "
                         "driver",
                         cu->library);
    if (st == KVB_ENODRIVER)
        return kvb__fail(err, st, "probe",
                         "the CUDA driver cannot be used: %s failed with %s "
                         "(%d): %s",
                         what, name ? name : "CUresult", (int)r,
                         text ? text : "no description");
    if (st == KVB_ENODEVICE)
        return kvb__fail(err, st, "probe",
                         "no CUDA device: %s failed with %s (%d): %s", what,
                         name ? name : "CUresult", (int)r,
                         text ? text : "no description");
    return kvb__fail(err, st, "probe", "%s failed with %s (%d): %s", what,
                     name ? name : "CUresult", (int)r,
                     text ? text : "no description");
}

/* dlsym into a function pointer without a data-to-function cast warning. */
static bool sym(void *lib, const char *name, void *fp, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p)
        return false;
    memcpy(fp, &p, size);
    return true;
}
#define SYM(cu, field, name)                                                   \
    sym((cu)->lib, name, &(cu)->field, sizeof(cu)->field)

static bool load_symbols(kvb__cuda *cu, const char **missing)
{
    /* The versioned names are what cuda.h's macros select (cuMemGetInfo is
     * cuMemGetInfo_v2); every driver since CUDA 11.4 exports them. */
    static const char *const names[] = {
        "cuInit",
        "cuDriverGetVersion",
        "cuDeviceGetCount",
        "cuDeviceGet",
        "cuDeviceGetName",
        "cuDeviceGetAttribute",
        "cuDevicePrimaryCtxRetain",
        "cuDevicePrimaryCtxRelease_v2",
        "cuCtxGetCurrent",
        "cuCtxSetCurrent",
        "cuMemGetInfo_v2",
        "cuMemAlloc_v2",
        "cuMemFree_v2",
    };
    bool ok[KVB__ARRAY_LEN(names)];
    size_t i = 0;
    ok[i++] = SYM(cu, Init, names[0]);
    ok[i++] = SYM(cu, DriverGetVersion, names[1]);
    ok[i++] = SYM(cu, DeviceGetCount, names[2]);
    ok[i++] = SYM(cu, DeviceGet, names[3]);
    ok[i++] = SYM(cu, DeviceGetName, names[4]);
    ok[i++] = SYM(cu, DeviceGetAttribute, names[5]);
    ok[i++] = SYM(cu, PrimaryCtxRetain, names[6]);
    ok[i++] = SYM(cu, PrimaryCtxRelease, names[7]);
    ok[i++] = SYM(cu, CtxGetCurrent, names[8]);
    ok[i++] = SYM(cu, CtxSetCurrent, names[9]);
    ok[i++] = SYM(cu, MemGetInfo, names[10]);
    ok[i++] = SYM(cu, MemAlloc, names[11]);
    ok[i++] = SYM(cu, MemFree, names[12]);
    /* optional: text for errors, and the UUID */
    (void)SYM(cu, GetErrorString, "cuGetErrorString");
    (void)SYM(cu, GetErrorName, "cuGetErrorName");
    if (!SYM(cu, DeviceGetUuid, "cuDeviceGetUuid_v2"))
        (void)SYM(cu, DeviceGetUuid, "cuDeviceGetUuid");
    for (i = 0; i < KVB__ARRAY_LEN(names); i++) {
        if (!ok[i]) {
            *missing = names[i];
            return false;
        }
    }
    return true;
}

kvb_status kvb__cuda_open(const char *library, kvb__cuda **out, kvb_error *err)
{
    if (!out)
        return kvb__fail(err, KVB_EINVAL, "out", "out must not be NULL");
    *out = NULL;
    if (!library)
        library = DRIVER_LIBRARY;
    kvb__cuda *cu = calloc(1, sizeof *cu);
    if (!cu)
        return kvb__fail(err, KVB_ENOMEM, "probe",
                         "out of host memory loading the CUDA driver");
    kvb__strlcpy(cu->library, library, sizeof cu->library);
    (void)dlerror();
    cu->lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!cu->lib) {
        const char *why = dlerror();
        kvb_status st = kvb__fail(
            err, KVB_ENODRIVER, "probe",
            "no CUDA driver found: cannot load %s (%s); this machine has no "
            "NVIDIA GPU driver",
            library, why ? why : "not found");
        free(cu);
        return st;
    }
    const char *missing = NULL;
    if (!load_symbols(cu, &missing)) {
        kvb_status st = kvb__fail(err, KVB_ENODRIVER, "probe",
                                  "the CUDA driver %s is too old: it lacks "
                                  "%s; allowed: a driver for CUDA 11.4 or "
                                  "newer",
                                  library, missing);
        kvb__cuda_close(cu);
        return st;
    }
    CUresult r = cu->Init(0);
    if (r != CUDA_SUCCESS) {
        kvb_status st = cu_fail(cu, err, r, "cuInit");
        kvb__cuda_close(cu);
        return st;
    }
    /* A working driver is never unloaded: its threads may outlive us.
     * RTLD_NOLOAD only raises the flag of the copy already loaded. */
    void *keep =
        dlopen(library, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE);
    if (keep)
        dlclose(keep);
    *out = cu;
    return KVB_OK;
}

void kvb__cuda_close(kvb__cuda *cu)
{
    if (!cu)
        return;
    if (cu->switched)
        (void)cu->CtxSetCurrent(cu->previous);
    if (cu->retained)
        (void)cu->PrimaryCtxRelease(cu->device);
    if (cu->lib)
        dlclose(cu->lib);
    free(cu);
}

kvb_status kvb__cuda_count(kvb__cuda *cu, uint32_t *count, kvb_error *err)
{
    int n = 0;
    *count = 0;
    CUresult r = cu->DeviceGetCount(&n);
    if (r != CUDA_SUCCESS)
        return cu_fail(cu, err, r, "cuDeviceGetCount");
    if (n <= 0)
        return kvb__fail(err, KVB_ENODEVICE, "probe",
                         "no CUDA device: the driver sees no GPU (check "
                         "CUDA_VISIBLE_DEVICES and nvidia-smi)");
    *count = (uint32_t)n;
    return KVB_OK;
}

static void format_uuid(const CUuuid *u, char *out, size_t cap)
{
    const unsigned char *b = (const unsigned char *)u->bytes;
    snprintf(out, cap,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
             "%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
             b[11], b[12], b[13], b[14], b[15]);
}

/* The kernel module's version, else the CUDA version the driver takes. */
static void driver_version(int cuda_version, char *out, size_t cap)
{
    char text[512];
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        if (kvb__nvidia_version(text, out, cap))
            return;
    }
    snprintf(out, cap, "CUDA %d.%d", cuda_version / 1000,
             (cuda_version % 1000) / 10);
}

static kvb_status attribute(kvb__cuda *cu, CUdevice_attribute a, int *v,
                            kvb_error *err)
{
    CUresult r = cu->DeviceGetAttribute(v, a, cu->device);
    return r == CUDA_SUCCESS ? KVB_OK
                             : cu_fail(cu, err, r, "cuDeviceGetAttribute");
}

kvb_status kvb__cuda_device(kvb__cuda *cu, uint32_t index, kvb_device *dev,
                            kvb_error *err)
{
    kvb_device d;
    kvb_status st = kvb__struct_in(dev, sizeof d, &d, "device", err);
    if (st)
        return st;
    uint32_t count = 0;
    st = kvb__cuda_count(cu, &count, err);
    if (st)
        return st;
    if (index >= count)
        return kvb__fail(err, KVB_ERANGE, "device",
                         "device (%u) is past the last CUDA device; "
                         "allowed: 0..%u",
                         index, count - 1);
    if (cu->retained)
        return kvb__fail(err, KVB_EINVAL, "device",
                         "device (%u): this driver handle already holds a "
                         "device; allowed: one per handle",
                         index);
    memset((char *)&d + sizeof d.struct_size, 0,
           sizeof d - sizeof d.struct_size);
    d.index = (int32_t)index;
    CUresult r = cu->DeviceGet(&cu->device, (int)index);
    if (r != CUDA_SUCCESS)
        return cu_fail(cu, err, r, "cuDeviceGet");
    r = cu->DeviceGetName(d.name, (int)sizeof d.name - 1, cu->device);
    if (r != CUDA_SUCCESS)
        return cu_fail(cu, err, r, "cuDeviceGetName");
    d.name[sizeof d.name - 1] = '\0';
    int major = 0, minor = 0, sms = 0;
    st = attribute(cu, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major,
                   err);
    if (!st)
        st = attribute(cu, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor,
                       err);
    if (!st)
        st = attribute(cu, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &sms, err);
    if (st)
        return st;
    d.compute_capability = (uint32_t)(major * 10 + minor);
    d.multiprocessor_count = (uint32_t)sms;
    CUuuid uuid;
    if (cu->DeviceGetUuid &&
        cu->DeviceGetUuid(&uuid, cu->device) == CUDA_SUCCESS)
        format_uuid(&uuid, d.uuid, sizeof d.uuid);
    int version = 0;
    if (cu->DriverGetVersion(&version) == CUDA_SUCCESS)
        d.cuda_driver_version = (uint32_t)version;
    driver_version(version, d.driver_version, sizeof d.driver_version);

    /* cuMemGetInfo needs a context: the primary one, as cudart uses. */
    CUcontext ctx = NULL;
    r = cu->CtxGetCurrent(&cu->previous);
    if (r != CUDA_SUCCESS)
        return cu_fail(cu, err, r, "cuCtxGetCurrent");
    r = cu->PrimaryCtxRetain(&ctx, cu->device);
    if (r != CUDA_SUCCESS)
        return cu_fail(cu, err, r, "cuDevicePrimaryCtxRetain");
    cu->retained = true;
    r = cu->CtxSetCurrent(ctx);
    if (r != CUDA_SUCCESS)
        return cu_fail(cu, err, r, "cuCtxSetCurrent");
    cu->switched = true;
    size_t free_b = 0, total_b = 0;
    r = cu->MemGetInfo(&free_b, &total_b);
    if (r != CUDA_SUCCESS)
        return cu_fail(cu, err, r, "cuMemGetInfo");
    d.total_bytes = total_b;
    d.free_bytes = free_b;
    d.used_by_others_bytes = total_b - free_b;
    kvb__struct_out(&d, sizeof d, dev);
    return KVB_OK;
}

/* ---- the device-memory seam over the current context ---- */

static kvb_status cu_mem_get_info(void *ctx, uint64_t *free_bytes,
                                  uint64_t *total_bytes, kvb_error *err)
{
    kvb__cuda *cu = ctx;
    size_t f = 0, t = 0;
    CUresult r = cu->MemGetInfo(&f, &t);
    if (r != CUDA_SUCCESS)
        return cu_fail(cu, err, r, "cuMemGetInfo");
    *free_bytes = f;
    *total_bytes = t;
    return KVB_OK;
}

static kvb_status cu_alloc(void *ctx, uint64_t bytes, uint64_t *handle,
                           kvb_error *err)
{
    kvb__cuda *cu = ctx;
    CUdeviceptr p = 0;
    if (bytes > SIZE_MAX)
        return KVB_ENOMEM;
    CUresult r = cu->MemAlloc(&p, (size_t)bytes);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        return KVB_ENOMEM; /* a result, not an error */
    if (r != CUDA_SUCCESS)
        return cu_fail(cu, err, r, "cuMemAlloc");
    *handle = (uint64_t)p;
    return KVB_OK;
}

static kvb_status cu_release(void *ctx, uint64_t handle, kvb_error *err)
{
    kvb__cuda *cu = ctx;
    CUresult r = cu->MemFree((CUdeviceptr)handle);
    return r == CUDA_SUCCESS ? KVB_OK : cu_fail(cu, err, r, "cuMemFree");
}

void kvb__cuda_devmem(kvb__cuda *cu, kvb__devmem *dm)
{
    dm->ctx = cu;
    dm->mem_get_info = cu_mem_get_info;
    dm->alloc = cu_alloc;
    dm->release = cu_release;
}

#endif /* KVB_HAVE_CUDA */

/* ---- public entry points ---- */

kvb_status kvb_probe_count(uint32_t *count, kvb_error *err)
{
    if (!count)
        return kvb__fail(err, KVB_EINVAL, "count", "count must not be NULL");
    *count = 0;
    kvb__cuda *cu = NULL;
    kvb_status st = kvb__cuda_open(NULL, &cu, err);
    if (!st)
        st = kvb__cuda_count(cu, count, err);
    kvb__cuda_close(cu);
    return st;
}

kvb_status kvb_probe_device(uint32_t index, kvb_device *dev, kvb_error *err)
{
    kvb_status st = kvb__struct_check(dev, sizeof *dev, "device", err);
    if (st)
        return st;
    kvb__cuda *cu = NULL;
    st = kvb__cuda_open(NULL, &cu, err);
    if (!st)
        st = kvb__cuda_device(cu, index, dev, err);
    kvb__cuda_close(cu);
    return st;
}
