/*
 * toolchain.c - what the runtime finds to build kernels with, for oklc
 * --version: the C++ compiler (compile.c's choice) and its version, the
 * versions of NVRTC and hiprtc (gpu.c), the SYCL compiler (dpcpp.c).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* "line\n" added to *text (freed and NULL when memory runs out). */
static void add_line(char **text, const char *fmt, ...) OKLC_PRINTF(2, 3);
static void add_line(char **text, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = *text ? oklc_rt_vformat(fmt, ap) : NULL;
    va_end(ap);
    char *more = line ? oklc_rt_format("%s%s\n", *text, line) : NULL;
    oklc_free(line);
    oklc_free(*text);
    *text = more;
}

static void cxx_line(char **text)
{
    const char *from, *name = oklc_rt_default_compiler(&from);
    char *path = oklc_rt_find_program(name), *out = NULL;
    int code = -1;
    const char *argv[] = {path, "--version", NULL};
    if (path && !oklc_rt_spawn(argv, &out, &code) && code == 0 && out)
        add_line(text, "C++ compiler: %s (%s): %.*s", path, from, (int)strcspn(out, "\n"), out);
    else
        add_line(text, "C++ compiler: '%s' (%s) not found", name, from);
    oklc_free(out);
    oklc_free(path);
}

char *oklc_runtime_toolchain(void)
{
    char *text = oklc_rt_strdup(""), version[32];
    cxx_line(&text);
    const Rtc *rtcs[] = {&oklc_nvrtc, &oklc_hiprtc};
    for (size_t i = 0; i < OKLC_COUNTOF(rtcs); i++) {
        if (!oklc_gpu_rtc_version(rtcs[i], version))
            add_line(&text, "%s: %s", rtcs[i]->name, version);
        else
            add_line(&text, "%s: not found: %s", rtcs[i]->name, oklc_last_error());
    }
    const char *from, *sycl = oklc_rt_sycl_command(&from);
    if (sycl)
        add_line(&text, "SYCL compiler: %s (%s)", sycl, from);
    else
        add_line(&text, "SYCL compiler: not found (OKLC_SYCL_CXX is not set; no icpx or acpp "
                        "in PATH)");
    char *out = text ? strdup(text) : NULL;    /* free()d by the caller */
    oklc_free(text);
    return out;
}
