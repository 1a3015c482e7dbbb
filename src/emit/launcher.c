/*
 * launcher.c - the host launcher of the GPU-like backends: C++ that the
 * runtime compiles with the system's compiler, one function per kernel
 * that computes the grid and block of each device kernel and runs them in
 * order through the runtime's launch API (docs/launchers.md).
 *
 * The launcher has the file's declarations (types, constants, includes)
 * and the functions that it and they call (a tile size from a constexpr
 * function, a bound from an inline one), with those they call in turn; no
 * other function (the others are the device's).
 */
#include <ctype.h>
#include <string.h>

#include "emit.h"

static const char launch_api[] =
    "#include <cstdio>\n"
    "\n"
    "/* The runtime's launch API (docs/launchers.md). */\n"
    "struct _occa_launch_api {\n"
    "  int version;\n"
    "  void *device;\n"
    "  int (*run)(void *device, int index, const unsigned long grid[3],\n"
    "             const unsigned long block[3], void *const *args);\n"
    "  int (*fail)(void *device, const char *message);\n"
    "};\n"
    "\n"
    "/* A launch the kernel's loops refuse: the runtime's error. */\n"
    "static inline int _occa_refuse(const _occa_launch_api *_occa_api,\n"
    "                               const char *_occa_format, long long _occa_a,\n"
    "                               long long _occa_b)\n"
    "{\n"
    "  char _occa_message[400];\n"
    "  std::snprintf(_occa_message, sizeof _occa_message, _occa_format, _occa_a, _occa_b);\n"
    "  return _occa_api->fail(_occa_api->device, _occa_message);\n"
    "}\n"
    "\n"
    "/* An iteration count as a size: none when negative. */\n"
    "static inline unsigned long _occa_count(long long n) { return n > 0 ? (unsigned long)n "
    ": 0; }\n"
    "static inline unsigned long _occa_max(unsigned long a, unsigned long b) { return a < b ? b "
    ": a; }\n";

/* half on the host, where the file names it: the launcher computes
 * nothing in it, but declarations and instances name it. */
static const char host_half[] =
    "\n/* half: binary16 where the compiler has it, else a name of its size */\n"
    "#ifdef __FLT16_MANT_DIG__\n"
    "typedef _Float16 half;\n"
    "#else\n"
    "struct half { unsigned short _occa_bits; };\n"
    "#endif\n";

/* #include <x>: a header of the device's (okl_intrinsic.h, cuda_fp16.h...)
 * has no place on the host; the standard library's stay. */
static void host_include(Edits *ed, Range line, const char *args, void *data)
{
    (void)data;
    const char *lt = strchr(args, '<'), *gt = lt ? strchr(lt, '>') : NULL;
    if (gt && !oklc_std_header(lt + 1, (size_t)(gt - lt - 1)))
        oklc_edit_replace(ed, line.begin, line.end, "");
}

/* The file as the host sees it: its kernels as comments, its functions
 * but those `keep` says (none when NULL), OKL's attributes and the device's
 * includes dropped. */
static const char *declarations(oklc_ctx *c, const Normalized *nz, const Model *m,
                                const bool *keep)
{
    Edits ed;
    oklc_edits_init(&ed, &c->arena, nz->text, (uint32_t)nz->len);
    oklc_edits_drop_specs(&ed, nz);
    oklc_edits_directives(&ed, "include", host_include, NULL);
    for (size_t i = 0; i < m->nfunctions; i++)
        if (!keep || !keep[i])
            oklc_edit_replace(&ed, m->functions[i]->decl.begin, m->functions[i]->decl.end, "");
    for (size_t i = 0; i < m->nkernels; i++)
        oklc_edit_replace(&ed, m->kernels[i]->decl.begin, m->kernels[i]->decl.end,
                          oklc_arena_printf(&c->arena, "/* kernel %s: on the device */",
                                            m->kernels[i]->name));
    return oklc_edits_text(&ed, 0, (uint32_t)nz->len);
}

/* The names of the file's functions that `text` calls (its identifiers
 * outside strings and comments), marked (by the first function of each
 * name) and queued. */
typedef struct Called {
    NameTable    names;       /* function name -> its first function */
    size_t      *next;        /* the next function of the same name, or SIZE_MAX */
    bool        *marked;
    VEC(size_t)  queue;
} Called;

static void mark_calls(Arena *a, Called *cd, const char *t, size_t len)
{
    for (size_t i = 0; i < len;) {
        if (t[i] == '"' || t[i] == '\'') {
            char q = t[i++];
            while (i < len && t[i] != q)
                i += t[i] == '\\' ? 2 : 1;
            i++;
        } else if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
            const char *e = strstr(t + i + 2, "*/");
            i = e ? (size_t)(e - t) + 2 : len;
        } else if (t[i] == '/' && i + 1 < len && t[i + 1] == '/') {
            while (i < len && t[i] != '\n')
                i++;
        } else if (isalpha((unsigned char)t[i]) || t[i] == '_') {
            size_t b = i;
            while (i < len && (isalnum((unsigned char)t[i]) || t[i] == '_'))
                i++;
            char local[64];
            const char *name = i - b < sizeof local ? local : oklc_arena_strndup(a, t + b, i - b);
            if (name == local) {
                memcpy(local, t + b, i - b);
                local[i - b] = 0;
            }
            size_t f;
            if (oklc_names_get(&cd->names, name, &f) && !cd->marked[f]) {
                cd->marked[f] = true;
                vec_push(a, &cd->queue, f);
            }
        } else {
            i++;
        }
    }
}

/* Which of the file's functions the launcher keeps: those the launchers'
 * code and the file's declarations call, and what those call (each
 * function's text read once). */
static bool *kept_functions(oklc_ctx *c, const Normalized *nz, const Model *m,
                            const char *declarations, const char *functions)
{
    Arena *a = &c->arena;
    size_t n = m->nfunctions;
    Called cd = {0};
    cd.next = oklc_arena_alloc(a, (n + 1) * sizeof *cd.next);
    cd.marked = oklc_arena_alloc(a, (n + 1) * sizeof *cd.marked);
    bool *keep = oklc_arena_alloc(a, (n + 1) * sizeof *keep);
    for (size_t i = n; i-- > 0;) {
        size_t first;
        cd.next[i] = SIZE_MAX;
        cd.marked[i] = keep[i] = false;
        if (oklc_names_get(&cd.names, m->functions[i]->name, &first))
            cd.next[i] = cd.next[first], cd.next[first] = i;   /* (after first) */
        else
            oklc_names_put(a, &cd.names, m->functions[i]->name, i);
    }
    mark_calls(a, &cd, declarations, strlen(declarations));
    mark_calls(a, &cd, functions, strlen(functions));
    for (size_t q = 0; q < cd.queue.len; q++)
        for (size_t f = cd.queue.data[q]; f != SIZE_MAX; f = cd.next[f]) {
            const Range d = m->functions[f]->decl;
            keep[f] = true;
            mark_calls(a, &cd, nz->text + d.begin, d.end - d.begin);
        }
    return keep;
}

const char *oklc_launcher_source(oklc_ctx *c, const Normalized *nz, const Model *m,
                                 const char *backend, const char *path, const char *functions,
                                 const KernelOut *ks, size_t n)
{
    bool occa = c->convention == OKLC_CONVENTION_OCCA;
    bool *keep = kept_functions(c, nz, m, declarations(c, nz, m, NULL), functions);
    const char *decls = declarations(c, nz, m, keep);
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_printf(&b, "/* Generated by oklc %s: the launcher of the %s kernels of %s. */\n",
                    OKLC_VERSION_STRING, oklc_comment_text(&c->arena, backend),
                    oklc_comment_text(&c->arena, path));
    if (occa)
        oklc_buf_puts(&b, "#include <stdexcept>\n#include <string>\n#include <occa/core/kernel.hpp>\n"
                          "#include <occa/core/device.hpp>\n#include <occa/core/memory.hpp>\n\n");
    oklc_buf_puts(&b, launch_api);
    if (oklc_uses_half(m, ks, n))
        oklc_buf_puts(&b, host_half);
    oklc_buf_puts(&b, "\n/* ---- the file's declarations ---- */\n");
    oklc_buf_puts(&b, decls);
    oklc_buf_puts(&b, "\n/* ---- the launchers ---- */\n");
    oklc_buf_puts(&b, functions);
    if (occa)
        oklc_buf_puts(&b, oklc_occa_launcher_entries(c, ks, n));
    return b.data;
}
