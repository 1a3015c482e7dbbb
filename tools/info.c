/*
 * info.c - oklc info [--format text|json]
 *
 * Every device the runtime finds (OCCA's `occa info`, `clinfo`): each kind
 * is opened by index (OpenCL: platform by platform) until the runtime says
 * there is no more, and what oklc_device_query says is printed; a kind
 * that cannot be opened at all says why (no driver, no device, no SYCL
 * compiler). Nothing is compiled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "oklc/runtime.h"
#include "cli.h"
#include "info.h"

const char oklc_info_help[] =
    "usage: oklc info [--format text|json]\n"
    "\n"
    "List the devices oklc finds and what each says of itself: name, vendor,\n"
    "architecture, memory (total and free), compute units, and the limits of a\n"
    "block (threads, dims, @shared bytes; 0: no limit, CPU devices). Each kind\n"
    "(serial, openmp, opencl, cuda, hip, dpcpp, metal) is tried; one that cannot\n"
    "be opened says why. The spec shown opens the device (oklc_device_open).\n"
    "\n"
    "Options:\n"
    "  --format=FMT   text (default) or json\n"
    "  -h, --help     show this help\n";

static const char *const kinds[] = {"serial", "openmp", "opencl", "cuda", "hip", "dpcpp", "metal"};

static cJSON *device_json(const char *spec, const oklc_device_info *i)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "spec", spec);
    cJSON_AddStringToObject(o, "mode", i->mode);
    cJSON_AddStringToObject(o, "name", i->name);
    cJSON_AddStringToObject(o, "vendor", i->vendor);
    cJSON_AddStringToObject(o, "arch", i->arch);
    cJSON_AddNumberToObject(o, "memory_total", (double)i->memory_total);
    cJSON_AddNumberToObject(o, "memory_free", (double)i->memory_free);
    cJSON_AddNumberToObject(o, "compute_units", i->compute_units);
    cJSON_AddNumberToObject(o, "max_block_threads", (double)i->max_block_threads);
    cJSON *dims = cJSON_AddArrayToObject(o, "max_block_dims");
    for (int k = 0; k < 3; k++)
        cJSON_AddItemToArray(dims, cJSON_CreateNumber((double)i->max_block_dims[k]));
    cJSON_AddNumberToObject(o, "shared_memory", (double)i->shared_memory);
    return o;
}

static void device_text(const char *spec, const oklc_device_info *i)
{
    char a[32], b[32];
    printf("%s: %s\n", spec, i->name);
    if (i->vendor[0] || i->arch[0])
        printf("  %-14s %s%s%s\n", "vendor, arch", i->vendor, i->vendor[0] ? ", " : "", i->arch);
    printf("  %-14s %s", "memory", i->memory_total ? cli_bytes(i->memory_total, a) : "?");
    if (i->memory_free)
        printf(", %s free", cli_bytes(i->memory_free, b));
    printf("\n  %-14s %d\n", "compute units", i->compute_units);
    if (i->max_block_threads)
        printf("  %-14s %llu threads, %llu x %llu x %llu, %s @shared\n", "block",
               (unsigned long long)i->max_block_threads,
               (unsigned long long)i->max_block_dims[0],
               (unsigned long long)i->max_block_dims[1],
               (unsigned long long)i->max_block_dims[2], cli_bytes(i->shared_memory, a));
    else
        printf("  %-14s no limit (a block's threads run in loops)\n", "block");
}

/* Opens and prints `spec`; false when it does not open (*st, its status). */
static bool show(const char *spec, cJSON *list, oklc_status *st)
{
    oklc_device *d;
    oklc_device_info i;
    if ((*st = oklc_device_open(spec, &d)))
        return false;
    oklc_status q = oklc_device_query(d, &i);
    if (q && list)
        cJSON_AddItemToArray(list, cJSON_CreateString(oklc_last_error()));
    else if (q)
        printf("%s: cannot be asked: %s\n", spec, oklc_last_error());
    else if (list)
        cJSON_AddItemToArray(list, device_json(spec, &i));
    else
        device_text(spec, &i);
    oklc_device_close(d);
    return true;
}

static void unavailable(const char *kind, cJSON *missing)
{
    const char *why = oklc_last_error();
    if (missing)
        cJSON_AddStringToObject(missing, kind, why);
    else
        printf("%s: not available: %s\n", kind, why);
}

/* The devices of one kind: by index, OpenCL's platform by platform. */
static void kind_devices(const char *kind, cJSON *list, cJSON *missing)
{
    char spec[96];
    oklc_status st;
    int found = 0;
    if (!strcmp(kind, "serial") || !strcmp(kind, "openmp") || !strcmp(kind, "metal")) {
        found = show(kind, list, &st);
    } else if (!strcmp(kind, "opencl")) {
        for (int p = 0; p < 64; p++) {
            int here = 0;
            for (int d = 0; d < 256; d++, here++) {
                snprintf(spec, sizeof spec, "mode=opencl platform=%d device=%d", p, d);
                if (!show(spec, list, &st))
                    break;
            }
            found += here;
            if (!here)
                break;    /* no platform p (or none at all) */
        }
    } else {
        for (int d = 0; d < 256; d++, found++) {
            snprintf(spec, sizeof spec, "mode=%s device=%d", kind, d);
            if (!show(spec, list, &st))
                break;
        }
    }
    if (!found) {
        /* the reason the first try gave */
        snprintf(spec, sizeof spec, "%s", kind);
        if (!show(spec, list, &st))
            unavailable(kind, missing);
    }
}

int oklc_cmd_info(int argc, char **argv)
{
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(oklc_info_help, stdout);
            return 0;
        } else if (cli_is_option(a, "--format")) {
            if (!(v = cli_option_value(argc, argv, &i, "--format")) ||
                (strcmp(v, "text") && strcmp(v, "json")))
                return cli_usage_error("oklc info", "--format needs text or json%s", "");
            json = !strcmp(v, "json");
        } else {
            return cli_usage_error("oklc info", "unknown argument '%s'", a);
        }
    }
    cJSON *root = json ? cJSON_CreateObject() : NULL;
    cJSON *list = json ? cJSON_AddArrayToObject(root, "devices") : NULL;
    cJSON *missing = json ? cJSON_AddObjectToObject(root, "unavailable") : NULL;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        kind_devices(kinds[k], list, missing);
    if (json) {
        char *text = cJSON_Print(root);
        if (text)
            puts(text);
        free(text);
        cJSON_Delete(root);
    }
    return 0;
}
