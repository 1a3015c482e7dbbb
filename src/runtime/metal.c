/*
 * metal.c - the Metal device: not available. Metal runs on Apple's systems
 * only, through Metal.framework (Objective-C or Swift), and this runtime
 * does not drive it yet: opening the device is OKLC_ERR_UNAVAILABLE saying
 * so, with what there is instead (`oklc transpile -b metal` writes Metal
 * Shading Language and its launcher for an application to build and run
 * with Metal itself). The spec is checked first, as for the other GPU-like
 * devices: "metal", "mode=metal device=N".
 */
#include "rt.h"

static oklc_status open_device(oklc_device *d, const Spec *s)
{
    (void)d;
    int index;
    oklc_status st = oklc_gpu_device_index(s, "metal", &index);
    if (st)
        return st;
#ifdef __APPLE__
    return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the metal device is not "
                        "implemented yet; oklc transpile -b metal writes Metal Shading "
                        "Language for an application to build and run with Metal.framework",
                        s->text);
#else
    return oklc_rt_fail(OKLC_ERR_UNAVAILABLE, "device spec '%s': the metal device runs on "
                        "macOS only (Metal.framework); oklc transpile -b metal writes Metal "
                        "Shading Language for use there", s->text);
#endif
}

static void close_device(oklc_device *d)
{
    (void)d;
}

/* Only open and close: no device is ever opened. */
const DeviceOps oklc_metal_ops = {
    .name = "metal", .title = "Metal", .backend = OKLC_BACKEND_METAL,
    .open = open_device, .close = close_device,
};
