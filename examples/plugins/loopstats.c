/*
 * loopstats.c - a stage plugin. After the checks it reports, as a warning
 * at each kernel's name, how many loop levels the kernel has (@outer,
 * @inner, and @tile levels without either); after the transpile it adds
 * the same counts to the output as a comment on its first line.
 *
 *   k.okl:3:14: warning: kernel 'addVectors': 2 loop levels (1 @outer, 1 @inner)
 *
 *   oklc transpile --plugin build/examples/plugins/libokl_loopstats.so -b serial k.okl
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oklc/plugin.h"

OKLC_PLUGIN_ABI;

static const oklc_plugin_host *host;

static void count(const oklc_kernel_view *k, int n[3])
{
    n[0] = n[1] = n[2] = 0;
    for (size_t i = 0; i < k->nloops; i++)
        n[!strcmp(k->loops[i].kind, "outer") ? 0 : !strcmp(k->loops[i].kind, "inner") ? 1 : 2]++;
}

static int after_check(void *user, oklc_plugin_call *call)
{
    (void)user;
    const oklc_model_view *m = host->model(call);
    for (size_t i = 0; m && i < m->nkernels; i++) {
        const oklc_kernel_view *k = &m->kernels[i];
        int n[3];
        char msg[256];
        count(k, n);
        snprintf(msg, sizeof msg, "kernel '%s': %zu loop levels (%d @outer, %d @inner)",
                 k->name, k->nloops, n[0], n[1]);
        host->report(call, OKLC_WARNING, k->pos.offset, msg);
    }
    return 0;
}

static int after_transpile(void *user, oklc_plugin_call *call)
{
    (void)user;
    const oklc_model_view *m = host->model(call);
    size_t len;
    const char *text = host->text(call, &len);
    size_t cap = len + 64 + (m ? m->nkernels : 0) * 300;
    char *out = malloc(cap);
    if (!out)
        return 1;
    size_t n = (size_t)snprintf(out, cap, "/* loopstats:");
    for (size_t i = 0; m && i < m->nkernels; i++)
        n += (size_t)snprintf(out + n, cap - n, " %.200s=%zu", m->kernels[i].name,
                              m->kernels[i].nloops);
    n += (size_t)snprintf(out + n, cap - n, " */\n");
    memcpy(out + n, text, len);
    int r = host->replace_text(call, out, n + len);
    free(out);
    return r;
}

OKLC_PLUGIN_EXPORT int oklc_plugin_init(const oklc_plugin_host *h, oklc_plugin_call *call)
{
    host = h;
    oklc_plugin_stage check = {"loopstats-check", OKLC_AFTER_CHECK, after_check, NULL};
    oklc_plugin_stage out = {"loopstats-output", OKLC_AFTER_TRANSPILE, after_transpile, NULL};
    return h->add_stage(call, &check) || h->add_stage(call, &out);
}
