/*
 * occa.c - OCCA's convention (oklc_set_convention, docs/occa.md): what
 * OCCA's own runtime calls when oklc is its transpiler.
 *
 *   - CPU entries: OCCA's serial and OpenMP modes look up the kernel K by
 *     its name and call it with one void * per argument (sys::runFunction):
 *     a scalar's or struct's address, a memory's data pointer;
 *   - launcher entries: OCCA's GPU-like modes call K(deviceKernels, args...)
 *     in the launcher, memory as occa::modeMemory_t *, which launches its
 *     device kernels _occa_K_0, _occa_K_1... through occa::kernel;
 *   - metadata in OCCA's schema ({"metadata": [{"name", "arguments": [{"name",
 *     "const", "ptr", "dtype"}]}]}), dtypes named as OCCA's dtype_t knows
 *     them, so that OCCA's checks of kernel arguments work.
 *
 * Template kernels have no such entries: OCCA builds a kernel by name.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "emit.h"

static bool is_template(const KernelOut *ko)
{
    return ko->kernel->is_template;
}

/* ---- dtypes --------------------------------------------------------------------- */

/* C's scalar types as OCCA names them: dtype::get<T>() of each (an unsigned
 * type shares its signed type's dtype, long long is long). */
static const char *const occa_scalars[][2] = {
    {"void", "void"},          {"bool", "bool"},   {"char", "char"},   {"signed char", "char"},
    {"unsigned char", "char"}, {"short", "short"}, {"unsigned short", "short"},
    {"int", "int"},            {"unsigned int", "int"},
    {"long", "long"},          {"unsigned long", "unsigned long"},
    {"long long", "long"},     {"unsigned long long", "long"},
    {"float", "float"},        {"double", "double"},
};

static const char *occa_scalar(const char *c_name)
{
    for (size_t i = 0; i < OKLC_COUNTOF(occa_scalars); i++)
        if (!strcmp(occa_scalars[i][0], c_name))
            return occa_scalars[i][1];
    return NULL;
}

/* OKL's vector types, which OCCA knows by name: float4, uchar2... */
static bool occa_vector(const char *name)
{
    static const char *const bases[] = {"char", "uchar", "short", "ushort", "int",
                                        "uint", "long",  "ulong", "float",  "double"};
    size_t n = strlen(name);
    if (n < 2 || name[n - 1] < '2' || name[n - 1] > '4')
        return false;
    for (size_t i = 0; i < OKLC_COUNTOF(bases); i++)
        if (strlen(bases[i]) == n - 1 && !strncmp(bases[i], name, n - 1))
            return true;
    return false;
}

static cJSON *named(const char *type, const char *name)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "type", type);
    return o;
}

static cJSON *custom(const char *name, int64_t bytes)
{
    cJSON *o = named("custom", name);
    cJSON_AddNumberToObject(o, "bytes", bytes > 0 ? (double)bytes : 0);
    return o;
}

static cJSON *dtype(const Shape *s)
{
    switch (s->kind) {
    case SHAPE_SCALAR:
        return occa_scalar(s->name) ? named("builtin", occa_scalar(s->name))
                                    : custom(s->name, s->bytes);
    case SHAPE_ARRAY: {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "type", "tuple");
        cJSON_AddItemToObject(o, "dtype", dtype(s->elem));
        cJSON_AddNumberToObject(o, "size", (double)s->count);
        return o;
    }
    case SHAPE_STRUCT: {
        if (occa_vector(s->name))
            return named("builtin", s->name);
        cJSON *o = named("struct", s->name);
        cJSON *fields = cJSON_AddArrayToObject(o, "fields");
        for (size_t i = 0; i < s->nfields; i++) {
            cJSON *f = cJSON_CreateObject();
            cJSON_AddItemToObject(f, "dtype", dtype(s->fields[i].shape));
            cJSON_AddStringToObject(f, "name", s->fields[i].name);
            cJSON_AddItemToArray(fields, f);
        }
        return o;
    }
    default:
        return custom(s->name, s->bytes);
    }
}

/* An argument: const (of what a pointer points to, else of the value), ptr
 * (memory: a pointer or an array) and the dtype of its data. */
static cJSON *argument(const Var *v)
{
    cJSON *o = cJSON_CreateObject();
    bool ptr = v->type.pointer || v->type.array;
    cJSON_AddBoolToObject(o, "const", ptr ? v->type.element_const : v->type.is_const);
    cJSON_AddItemToObject(o, "dtype", v->type.shape ? dtype(v->type.shape)
                                                    : custom(v->type.spelling, v->size));
    cJSON_AddStringToObject(o, "name", v->name);
    cJSON_AddBoolToObject(o, "ptr", ptr);
    return o;
}

/* The device kernels' fault slots (docs/launchers.md), their last argument
 * when the kernel has faults. */
static cJSON *fault_slots(void)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "const", false);
    cJSON_AddItemToObject(o, "dtype", named("builtin", "int"));
    cJSON_AddStringToObject(o, "name", "_occa_faults");
    cJSON_AddBoolToObject(o, "ptr", true);
    return o;
}

static cJSON *kernel_entry(const char *name, const Kernel *k, bool device_kernels,
                           bool faults)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *args = cJSON_AddArrayToObject(o, "arguments");
    if (device_kernels) {
        cJSON *dk = cJSON_CreateObject();
        cJSON_AddBoolToObject(dk, "const", false);
        cJSON_AddItemToObject(dk, "dtype", custom("occa::modeKernel_t", 0));
        cJSON_AddStringToObject(dk, "name", "deviceKernels");
        cJSON_AddBoolToObject(dk, "ptr", true);
        cJSON_AddItemToArray(args, dk);
    }
    for (size_t i = 0; i < k->nparams; i++)
        cJSON_AddItemToArray(args, argument(k->params[i]));
    if (faults)
        cJSON_AddItemToArray(args, fault_slots());
    cJSON_AddStringToObject(o, "name", name);
    return o;
}

static char *document(oklc_ctx *c, cJSON *list, const char *input_hash)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "dependencies", cJSON_CreateObject());
    cJSON_AddStringToObject(root, "hash", input_hash);
    cJSON_AddItemToObject(root, "metadata", list);
    char *s = cJSON_Print(root);
    cJSON_Delete(root);
    if (!s)
        oklc_arena_oom(&c->arena);
    return s;
}

void oklc_occa_metadata(oklc_ctx *c, const KernelOut *ks, size_t n, const char *input_hash,
                        bool launched)
{
    cJSON *kernels = cJSON_CreateArray(), *launchers = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        if (is_template(&ks[i]))
            continue;
        const Kernel *k = ks[i].kernel;
        if (!launched) {
            cJSON_AddItemToArray(kernels, kernel_entry(ks[i].name, k, false, false));
            continue;
        }
        for (size_t f = 0; f < ks[i].nfunctions; f++)
            cJSON_AddItemToArray(kernels, kernel_entry(ks[i].functions[f], k, false,
                                                       ks[i].nfaults));
        cJSON_AddItemToArray(launchers, kernel_entry(ks[i].name, k, true, false));
    }
    /* cJSON's memory, which the context frees (as oklc_metadata_json's) */
    cJSON_free(c->metadata);
    cJSON_free(c->launcher_metadata);
    c->metadata = c->launcher_metadata = NULL;
    char *meta = document(c, kernels, input_hash);
    c->metadata = meta;
    if (launched)
        c->launcher_metadata = document(c, launchers, input_hash);
    else
        cJSON_Delete(launchers);
}

/* ---- entries -------------------------------------------------------------------- */

/* "T &" for a value (OCCA passes its address), the type itself for a
 * pointer or a reference, the pointer an array decays to. */
static const char *by_address(Arena *a, const Var *v)
{
    if (v->type.array)
        return oklc_arena_printf(a, "std::decay<%s>::type", v->type.spelling);
    if (v->type.pointer || v->type.reference)
        return v->type.spelling;
    return oklc_arena_printf(a, "%s &", v->type.spelling);
}

/* The entries' names of the arguments: "_occa_a0, _occa_a1". */
static void arg_names(Buf *b, size_t n)
{
    for (size_t p = 0; p < n; p++)
        oklc_buf_printf(b, "%s_occa_a%zu", p ? ", " : "", p);
}

/* The kernel's own type, spelled out: another function may have its name. */
static void kernel_call(Buf *b, const Kernel *k)
{
    oklc_buf_puts(b, "static_cast<void (*)(");
    for (size_t p = 0; p < k->nparams; p++)
        oklc_buf_printf(b, "%s%s", p ? ", " : "", k->params[p]->type.spelling);
    oklc_buf_printf(b, ")>(&%s)(", k->name);
    arg_names(b, k->nparams);
    oklc_buf_puts(b, ");\n");
}

const char *oklc_occa_cpu_entries(oklc_ctx *c, const KernelOut *ks, size_t n)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_puts(&b, "\n/* OCCA's entries (docs/occa.md): the kernel's name as the symbol, one "
                      "address an\n * argument. The C++ function keeps the name too, so the "
                      "entry takes it by an\n * assembler label. */\n"
                      "#define _occa_occa_str_(x) #x\n"
                      "#define _occa_occa_str(x) _occa_occa_str_(x)\n");
    for (size_t i = 0; i < n; i++) {
        if (is_template(&ks[i]))
            continue;
        const Kernel *k = ks[i].kernel;
        Buf params;
        oklc_buf_init(&params, &c->arena);
        oklc_buf_puts(&params, "");
        for (size_t p = 0; p < k->nparams; p++)
            oklc_buf_printf(&params, "%s%s _occa_a%zu", p ? ", " : "",
                            by_address(&c->arena, k->params[p]), p);
        oklc_buf_printf(&b, "extern \"C\" void _occa_occa_%s(%s)\n"
                            "    __asm__(_occa_occa_str(__USER_LABEL_PREFIX__) \"%s\");\n",
                        k->name, params.data, k->name);
        oklc_buf_printf(&b, "extern \"C\" void _occa_occa_%s(%s) {\n  ", k->name, params.data);
        kernel_call(&b, k);
        oklc_buf_puts(&b, "}\n");
    }
    return b.data;
}

/* One kernel's run of a device kernel: its arguments as OCCA's launcher
 * has them (a scalar by reference, memory as occa::modeMemory_t *), passed
 * to the device kernel through occa::kernel. */
static void occa_run(Buf *b, const KernelOut *ko)
{
    const Kernel *k = ko->kernel;
    oklc_buf_printf(b, "static int _occa_occa_run_%s(void *_occa_kernels, int _occa_index,\n"
                       "    const unsigned long _occa_grid[3],\n"
                       "    const unsigned long _occa_block[3],\n"
                       "    void *const *_occa_args)\n{\n",
                    k->name);
    for (size_t p = 0; p < k->nparams; p++) {
        const Var *v = k->params[p];
        if (v->type.pointer || v->type.array)
            oklc_buf_printf(b, "  occa::modeMemory_t *_occa_a%zu = "
                               "*static_cast<occa::modeMemory_t **>(_occa_args[%zu]);\n", p, p);
        else {
            const char *t = v->type.reference ? v->type.element : v->type.spelling;
            oklc_buf_printf(b, "  %s &_occa_a%zu = *static_cast<%s *>(_occa_args[%zu]);\n", t, p, t,
                            p);
        }
    }
    if (ko->nfaults)          /* the device kernels' fault slots, last */
        oklc_buf_printf(b, "  occa::modeMemory_t *_occa_a%zu = "
                           "*static_cast<occa::modeMemory_t **>(_occa_args[%zu]);\n",
                        k->nparams, k->nparams);
    oklc_buf_puts(b, "  occa::kernel _occa_kernel(\n"
                     "      static_cast<occa::modeKernel_t **>(_occa_kernels)[_occa_index]);\n"
                     "  _occa_kernel.setRunDims(\n"
                     "      occa::dim(_occa_grid[0], _occa_grid[1], _occa_grid[2]),\n"
                     "      occa::dim(_occa_block[0], _occa_block[1], _occa_block[2]));\n"
                     "  _occa_kernel(");
    arg_names(b, k->nparams + (ko->nfaults ? 1 : 0));
    oklc_buf_puts(b, ");\n  return 0;\n}\n");
}

/* A kernel whose device kernels report faults (docs/launchers.md): their
 * slots in device memory, zeroed, the last argument. */
static void occa_faults_before(Buf *b, const KernelOut *ko)
{
    oklc_buf_printf(b, "  static const char *const _occa_faults[] = {");
    for (size_t i = 0; i < ko->nfaults; i++)
        oklc_buf_printf(b, "%s\n      \"%s\"", i ? "," : "", ko->faults[i]);
    oklc_buf_printf(b, "};\n  const int _occa_zeros[%zu] = {0};\n"
                       "  occa::memory _occa_marks = occa::kernel(_occa_kernels[0]).getDevice()"
                       ".malloc<int>(%zu, _occa_zeros);\n"
                       "  occa::modeMemory_t *_occa_a%zu = _occa_marks.getModeMemory();\n",
                    ko->nfaults, ko->nfaults, ko->kernel->nparams);
}

/* After the launch: reading the slots waits for the device; the first
 * fault marked is an exception, as the launch's refusals are. */
static void occa_faults_after(Buf *b, const KernelOut *ko)
{
    oklc_buf_printf(b, "  int _occa_marked[%zu];\n  _occa_marks.copyTo(_occa_marked);\n"
                       "  _occa_marks.free();\n"
                       "  for (int _occa_i = 0; _occa_i < %zu; ++_occa_i)\n"
                       "    if (_occa_marked[_occa_i])\n"
                       "      throw std::runtime_error(std::string(\"cannot run '%s': \") + "
                       "_occa_faults[_occa_i] +\n"
                       "                               \" (its results are not complete)\");\n",
                    ko->nfaults, ko->nfaults, ko->kernel->name);
}

const char *oklc_occa_launcher_entries(oklc_ctx *c, const KernelOut *ks, size_t n)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_puts(&b, "\n/* ---- OCCA's entries (docs/occa.md) ---- */\n"
                      "/* A launch the kernel's loops refuse: an exception, as OCCA's\n"
                      " * errors are (occa::exception is a std::exception). */\n"
                      "static int _occa_occa_fail(void *, const char *_occa_message)\n{\n"
                      "  throw std::runtime_error(_occa_message);\n}\n\n");
    for (size_t i = 0; i < n; i++) {
        if (is_template(&ks[i]))
            continue;
        const Kernel *k = ks[i].kernel;
        size_t nargs = k->nparams + (ks[i].nfaults ? 1 : 0);
        occa_run(&b, &ks[i]);
        oklc_buf_printf(&b, "extern \"C\" void %s(occa::modeKernel_t **_occa_kernels", k->name);
        for (size_t p = 0; p < k->nparams; p++) {
            const Var *v = k->params[p];
            oklc_buf_printf(&b, ", %s _occa_a%zu",
                            v->type.pointer || v->type.array ? "occa::modeMemory_t *"
                                                             : by_address(&c->arena, v), p);
        }
        oklc_buf_puts(&b, ")\n{\n");
        if (ks[i].nfaults)
            occa_faults_before(&b, &ks[i]);
        oklc_buf_puts(&b, "  void *const _occa_args[] = {");
        for (size_t p = 0; p < nargs; p++)
            oklc_buf_printf(&b, "%s(void *)&_occa_a%zu", p ? ", " : "", p);
        oklc_buf_printf(&b, "%s};\n  const _occa_launch_api _occa_api = {2, _occa_kernels, "
                            "_occa_occa_run_%s, _occa_occa_fail};\n"
                            "  _occa_launch_%s(&_occa_api, _occa_args);\n",
                        nargs ? "" : "0", k->name, k->name);
        if (ks[i].nfaults)
            occa_faults_after(&b, &ks[i]);
        oklc_buf_puts(&b, "}\n\n");
    }
    return b.data;
}
