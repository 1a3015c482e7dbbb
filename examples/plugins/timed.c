/*
 * timed.c - a backend plugin: `-b serial-timed`, the serial backend with
 * each kernel timed. Every call of a kernel prints, on standard error,
 *
 *     oklc-timing: KERNEL 0.012345 ms
 *
 * The timer is a C++ object made first in the kernel's body: its
 * destructor prints, so a `return` anywhere is timed too.
 *
 *   oklc transpile --plugin build/examples/plugins/libokl_timed.so -b serial-timed k.okl
 */
#include <stdio.h>

#include "oklc/plugin.h"

OKLC_PLUGIN_ABI;

static const char *kernel_begin(void *user, oklc_plugin_call *call, const oklc_kernel_view *k)
{
    static _Thread_local char text[512];
    (void)user, (void)call;
    snprintf(text, sizeof text,
             "_okl_timer _okl_timer_of_kernel(\"%s\");", k->name);
    return text;
}

static const char file_begin[] =
    "#include <chrono>\n"
    "#include <cstdio>\n"
    "/* serial-timed (examples/plugins/timed.c): each kernel call prints its time. */\n"
    "struct _okl_timer {\n"
    "  const char *name;\n"
    "  std::chrono::steady_clock::time_point t0;\n"
    "  explicit _okl_timer(const char *n) : name(n), t0(std::chrono::steady_clock::now()) {}\n"
    "  ~_okl_timer() {\n"
    "    std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - t0;\n"
    "    std::fprintf(stderr, \"oklc-timing: %s %.6f ms\\n\", name, d.count());\n"
    "  }\n"
    "};\n";

OKLC_PLUGIN_EXPORT int oklc_plugin_init(const oklc_plugin_host *h, oklc_plugin_call *call)
{
    oklc_plugin_backend b = {
        .name = "serial-timed",
        .base = "serial",
        .file_begin = file_begin,
        .kernel_begin = kernel_begin,
    };
    return h->add_backend(call, &b);
}
