/*
 * opencl_spaces.c - address spaces, for OpenCL C and Metal (the names come
 * from the target's table: __global or device, ...). Every pointer says
 * where it points: a kernel's pointer parameters into global (device)
 * memory, pointers into @shared arrays into local (threadgroup) memory,
 * pointers into constant globals into constant memory; a pointer without
 * a space points into the thread's own (private) memory, which Metal
 * writes too (`thread`). Metal's references take spaces as its pointers
 * do.
 *
 * The spaces flow from the kernels' parameters: a local pointer (or array
 * of pointers) takes the space of its initializer (float *row = a + i), or
 * of what is assigned to it (row = a + i; rows[k] = a + k * n), a
 * function's pointer parameter (or array parameter: float s[8][8] is a
 * pointer) that of the arguments its calls pass. A function called with
 * pointers into different spaces is written once per combination (an
 * instance, `_occa_<name>_<spaces>`), and each call names the right one:
 * legacy OCCA writes one function without spaces, which OpenCL C 1.2
 * rejects. A pointer declared @globalPtr (legacy @global) points into
 * __global memory, a function's parameter declared @shared into __local
 * memory, whatever is passed to them.
 *
 * What depends on the spaces (the pointers' declarations, &v.x, the calls)
 * is written per context: a kernel, or an instance of a function.
 */
#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

typedef enum Space { SP_UNKNOWN, SP_PRIVATE, SP_GLOBAL, SP_LOCAL, SP_CONSTANT } Space;

static const char space_letters[] = "?pglc";

/* The target's name of a space. */
static const char *space_name(const Emit *E, Space s)
{
    return E->be->gpu->spaces[s];
}

/* Is it one of the target's built-in functions (a function so named is
 * renamed)? */
static bool builtin(const Emit *E, const char *name)
{
    return E->be->gpu->builtin && E->be->gpu->builtin(name);
}

/* A function with the spaces of its pointer parameters. */
typedef struct Instance {
    const Function *f;
    Space          *sig;         /* per parameter (SP_UNKNOWN: not a pointer) */
    const char     *name;
    size_t          next;        /* the next instance of f (SIZE_MAX: none) */
    size_t          tfrom, tto;  /* its calls' targets: targets[tfrom, tto) */
} Instance;

/* Which instance a call calls, from which context (SIZE_MAX: a kernel). */
typedef struct Target {
    size_t caller, call, callee;
} Target;

/* A key and an index, in an array sorted by both: what has a key, found
 * by binary search (a file may hold thousands of kernels, functions and
 * calls, and a search of a whole list per look-up made this pass cubic). */
typedef struct Keyed {
    uintptr_t key;
    size_t    i;
} Keyed;

typedef VEC(Keyed) KeyedList;

/* The instances of one function, in the order they were made. */
typedef struct FnInstances {
    size_t first, last, count;
} FnInstances;

typedef struct Spaces {
    Emit          *E;
    VEC(Var *)     vars;         /* every variable of the file */
    size_t        *slots;        /* a hash table of indexes into vars, by the Var's address */
    size_t         mask;         /* its size - 1 (a power of 2) */
    Space         *space;        /* of each pointer among them, in the loaded context */
    KeyedList      refs;         /* every use of them: key its offset, i its var */
    size_t        *next_ptr;     /* per refs entry: the first at or after it of a pointer or
                                    array variable (refs.len: none); */
    size_t        *next_obj;     /* of another variable */
    KeyedList      bodies;       /* functions with a body: key the name's offset */
    KeyedList      fns;          /* every function: key its address */
    FnInstances   *fn_inst;      /* per entry of fns */
    KeyedList      kernel_calls; /* key the kernel's address, i the call */
    KeyedList      fn_calls;     /* key the function's address */
    KeyedList      components;   /* &v.x: key the offset */
    KeyedList      assigns;      /* x = y of structs: key the '=' */
    size_t         kernel_targets; /* targets[0, this) are the kernels' */
    VEC(Instance)  inst;
    VEC(Target)    targets;
} Spaces;

static int by_key(const void *a, const void *b)
{
    const Keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static void sort_keyed(KeyedList *l)
{
    if (l->len)
        qsort(l->data, l->len, sizeof *l->data, by_key);
}

/* The first entry whose key is at least `key` (l->len: none). */
static size_t first_keyed(const KeyedList *l, uintptr_t key)
{
    size_t lo = 0, hi = l->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->data[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void add_keyed(Spaces *S, KeyedList *l, uintptr_t key, size_t i)
{
    vec_push(&S->E->c->arena, l, ((Keyed){key, i}));
}

/* ---- what points where ------------------------------------------------------------------ */

/* A pointer, an array of pointers, or an array parameter (a pointer to
 * its first element): what says where it points. */
static bool is_pointer(const Var *v)
{
    if (!v->type.array)
        return v->type.pointer || v->type.reference;
    if (v->kind == VAR_PARAM)
        return true;
    size_t n = strlen(v->type.element);
    while (n && v->type.element[n - 1] == ' ')
        n--;
    return n && v->type.element[n - 1] == '*';
}

/* The slot of v in the table, or the empty one where it would go (open
 * addressing: a file may hold thousands of kernels, and a search of the
 * whole list per look-up made this pass quadratic). */
static size_t slot_of(const Spaces *S, const Var *v)
{
    size_t h = (size_t)(((uint64_t)(uintptr_t)v >> 4) * 0x9E3779B97F4A7C15u) & S->mask;
    while (S->slots[h] != SIZE_MAX && S->vars.data[S->slots[h]] != v)
        h = (h + 1) & S->mask;
    return h;
}

/* v's index in vars; SIZE_MAX if it is not there. */
static size_t var_index(const Spaces *S, const Var *v)
{
    return S->slots[slot_of(S, v)];
}

static void index_vars(Spaces *S)
{
    size_t n = 2;
    while (n < 2 * S->vars.len)
        n *= 2;
    S->mask = n - 1;
    S->slots = oklc_arena_alloc(&S->E->c->arena, n * sizeof *S->slots);
    for (size_t i = 0; i < n; i++)
        S->slots[i] = SIZE_MAX;
    for (size_t i = 0; i < S->vars.len; i++) {
        size_t h = slot_of(S, S->vars.data[i]);
        if (S->slots[h] == SIZE_MAX)    /* the first of a variable listed twice */
            S->slots[h] = i;
    }
}

/* Where an object (not a pointer) lives. */
static Space object_space(const Var *v)
{
    if (v->shared || (v->typedef_var && v->typedef_var->shared))
        return SP_LOCAL;
    return v->kind == VAR_GLOBAL ? SP_CONSTANT : SP_PRIVATE;
}

static Space space_of(const Spaces *S, size_t i)
{
    const Var *v = S->vars.data[i];
    return is_pointer(v) ? S->space[i] : object_space(v);
}

/* The memory an expression points into: that of the first pointer or
 * array it names (p, a + i, &s[j], cond ? a : b), else that of the object
 * whose address it takes (&x). */
static bool points(const Var *v)
{
    return v->type.pointer || v->type.array;
}

/* The uses of the variables in the order of their offsets (for equal
 * offsets, that of the variables), and for each the next use of a
 * pointer or array, and of another variable. */
static void index_refs(Spaces *S)
{
    for (size_t i = 0; i < S->vars.len; i++)
        for (size_t j = 0; j < S->vars.data[i]->nrefs; j++)
            add_keyed(S, &S->refs, S->vars.data[i]->refs[j].begin, i);
    sort_keyed(&S->refs);
    size_t n = S->refs.len;
    S->next_ptr = oklc_arena_alloc(&S->E->c->arena, (n + 1) * sizeof *S->next_ptr);
    S->next_obj = oklc_arena_alloc(&S->E->c->arena, (n + 1) * sizeof *S->next_obj);
    S->next_ptr[n] = S->next_obj[n] = n;
    for (size_t k = n; k-- > 0;) {
        bool p = points(S->vars.data[S->refs.data[k].i]);
        S->next_ptr[k] = p ? k : S->next_ptr[k + 1];
        S->next_obj[k] = p ? S->next_obj[k + 1] : k;
    }
}

/* The variable of refs entry k if it lies in r, else SIZE_MAX. */
static size_t ref_var_in(const Spaces *S, size_t k, Range r)
{
    return k < S->refs.len && oklc_in_range(r, (uint32_t)S->refs.data[k].key)
               ? S->refs.data[k].i : SIZE_MAX;
}

static Space base_space(const Spaces *S, Range r)
{
    size_t first = first_keyed(&S->refs, r.begin);
    size_t ptr = ref_var_in(S, S->next_ptr[first], r);
    size_t obj = ref_var_in(S, S->next_obj[first], r);
    if (ptr != SIZE_MAX)
        return space_of(S, ptr);
    if (obj != SIZE_MAX && memchr(S->E->nz->text + r.begin, '&', r.end - r.begin))
        return object_space(S->vars.data[obj]);
    return SP_UNKNOWN;
}

/* ---- contexts --------------------------------------------------------------------------- */

/* The value assigned by use r of a variable (`p = v;`, `p[i] = v;`), or
 * an empty range if r is not assigned to. */
static Range assigned(const Spaces *S, Range r)
{
    const char *t = S->E->nz->text;
    uint32_t p = r.end, len = (uint32_t)S->E->nz->len;
    for (;;) {
        while (p < len && isspace((unsigned char)t[p]))
            p++;
        if (p >= len || t[p] != '[')
            break;
        for (int depth = 0; p < len; p++) {       /* a subscript */
            depth += t[p] == '[' ? 1 : t[p] == ']' ? -1 : 0;
            if (depth == 0) {
                p++;
                break;
            }
        }
    }
    if (p + 1 >= len || t[p] != '=' || t[p + 1] == '=')
        return (Range){p, p};
    uint32_t from = ++p;
    for (int depth = 0; p < len; p++) {
        if (depth == 0 && (t[p] == ';' || t[p] == ',' || t[p] == ')' || t[p] == ']'))
            break;
        depth += t[p] == '(' || t[p] == '[' ? 1 : t[p] == ')' || t[p] == ']' ? -1 : 0;
    }
    return (Range){from, p};
}

/* Where a local pointer points: its initializer's space, else that of the
 * first value assigned to it whose space is known. */
static Space local_space(const Spaces *S, const Var *v)
{
    if (v->init_form)
        return base_space(S, v->init);
    for (size_t r = 0; r < v->nrefs; r++) {
        Range value = assigned(S, v->refs[r]);
        Space s = value.end > value.begin ? base_space(S, value) : SP_UNKNOWN;
        if (s != SP_UNKNOWN)
            return s;
    }
    return SP_UNKNOWN;
}

/* The local pointers of a context take their values' spaces. */
static void derive_locals(Spaces *S, Var **locals, size_t n)
{
    for (size_t i = 0; i < n; i++)
        S->space[var_index(S, locals[i])] = locals[i]->global_ptr ? SP_GLOBAL : SP_UNKNOWN;
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < n; i++) {
            const Var *v = locals[i];
            size_t at = var_index(S, v);
            if (!is_pointer(v) || S->space[at] != SP_UNKNOWN)
                continue;
            S->space[at] = local_space(S, v);
            changed |= S->space[at] != SP_UNKNOWN;
        }
    }
}

static void load_kernel(Spaces *S, const Kernel *k)
{
    for (size_t p = 0; p < k->nparams; p++)
        S->space[var_index(S, k->params[p])] = is_pointer(k->params[p]) ? SP_GLOBAL : SP_UNKNOWN;
    derive_locals(S, k->locals, k->nlocals);
}

static void load_instance(Spaces *S, const Instance *in)
{
    for (size_t p = 0; p < in->f->nparams; p++)
        S->space[var_index(S, in->f->params[p])] = in->sig[p];
    derive_locals(S, in->f->locals, in->f->nlocals);
}

/* ---- instances ------------------------------------------------------------------------------ */

/* The functions, the calls by context, the &v.x by offset. */
static void index_model(Spaces *S)
{
    const Model *m = S->E->m;
    for (size_t i = 0; i < m->nfunctions; i++) {
        add_keyed(S, &S->fns, (uintptr_t)m->functions[i], i);
        if (m->functions[i]->has_body)
            add_keyed(S, &S->bodies, m->functions[i]->name_off, i);
    }
    S->fn_inst = oklc_arena_alloc(&S->E->c->arena, (m->nfunctions + 1) * sizeof *S->fn_inst);
    for (size_t i = 0; i < m->nfunctions; i++)
        S->fn_inst[i] = (FnInstances){SIZE_MAX, SIZE_MAX, 0};
    for (size_t c = 0; c < m->ncalls; c++) {
        if (m->calls[c].kernel)
            add_keyed(S, &S->kernel_calls, (uintptr_t)m->calls[c].kernel, c);
        if (m->calls[c].function)
            add_keyed(S, &S->fn_calls, (uintptr_t)m->calls[c].function, c);
    }
    for (size_t i = 0; i < m->ncomponents; i++)
        add_keyed(S, &S->components, m->components[i].range.begin, i);
    for (size_t i = 0; i < m->nassigns; i++)
        add_keyed(S, &S->assigns, m->assigns[i].op, i);
    sort_keyed(&S->fns);
    sort_keyed(&S->bodies);
    sort_keyed(&S->kernel_calls);
    sort_keyed(&S->fn_calls);
    sort_keyed(&S->components);
    sort_keyed(&S->assigns);
}

/* The instances of f (one of the model's functions). */
static FnInstances *instances_of(const Spaces *S, const Function *f)
{
    size_t k = first_keyed(&S->fns, (uintptr_t)f);
    assert(k < S->fns.len && S->fns.data[k].key == (uintptr_t)f);
    return &S->fn_inst[k];
}

/* The first function with a body named where the call names one. */
static const Function *callee(const Spaces *S, const Call *c)
{
    size_t k = first_keyed(&S->bodies, c->callee_off);
    if (k == S->bodies.len || S->bodies.data[k].key != c->callee_off)
        return NULL;
    return S->E->m->functions[S->bodies.data[k].i];
}

/* The instance of f for these spaces: an existing one where they agree
 * (a space not known agrees with any), else a new one. */
static size_t instance_for(Spaces *S, const Function *f, const Space *sig)
{
    FnInstances *fi = instances_of(S, f);
    for (size_t i = fi->first; i != SIZE_MAX; i = S->inst.data[i].next) {
        const Instance *in = &S->inst.data[i];
        bool same = true;
        for (size_t p = 0; same && p < f->nparams; p++)
            same = sig[p] == SP_UNKNOWN || in->sig[p] == sig[p];
        if (same)
            return i;
    }
    Instance in = {f, oklc_arena_alloc(&S->E->c->arena, (f->nparams + 1) * sizeof(Space)),
                   f->name, SIZE_MAX, 0, 0};
    /* (a @globalPtr parameter's space came from its declaration) */
    for (size_t p = 0; p < f->nparams; p++)
        in.sig[p] = is_pointer(f->params[p]) && sig[p] == SP_UNKNOWN ? SP_PRIVATE : sig[p];
    vec_push(&S->E->c->arena, &S->inst, in);
    size_t i = S->inst.len - 1;
    if (fi->last != SIZE_MAX)
        S->inst.data[fi->last].next = i;
    else
        fi->first = i;
    fi->last = i;
    fi->count++;
    return i;
}

/* The space of g's parameter a in a call: the argument's, or the one its
 * declaration gives (@globalPtr, @shared), which no argument into other
 * memory may reach. */
static Space param_space(Spaces *S, const Function *g, const Call *call, size_t a)
{
    const Var *p = g->params[a];
    if (!is_pointer(p))
        return SP_UNKNOWN;
    Space s = a < call->nargs ? base_space(S, call->args[a]) : SP_UNKNOWN;
    const Attr *said = p->global_ptr ? p->global_ptr : p->shared;
    Space want = p->global_ptr ? SP_GLOBAL : SP_LOCAL;
    if (!said)
        return s;
    if (s != SP_UNKNOWN && s != want)
        oklc_model_error(S->E->c, call->args[a].begin, "this argument points to %s memory, but "
                                                       "'%s' of '%s' is '@%s'",
                         space_name(S->E, s), p->name, g->name, said->name);
    return want;
}

/* The calls of the loaded context (a kernel, or instance `caller` of f). */
static void context_calls(Spaces *S, const Kernel *k, const Function *f, size_t caller)
{
    const Model *m = S->E->m;
    const KeyedList *calls = k ? &S->kernel_calls : &S->fn_calls;
    uintptr_t key = k ? (uintptr_t)k : (uintptr_t)f;
    for (size_t e = first_keyed(calls, key); e < calls->len && calls->data[e].key == key; e++) {
        size_t c = calls->data[e].i;
        const Call *call = &m->calls[c];
        const Function *g = callee(S, call);
        if (!g)
            continue;
        Space *sig = oklc_arena_alloc(&S->E->c->arena, (g->nparams + 1) * sizeof *sig);
        for (size_t a = 0; a < g->nparams; a++)
            sig[a] = param_space(S, g, call, a);
        size_t callee_inst = instance_for(S, g, sig);
        vec_push(&S->E->c->arena, &S->targets, ((Target){caller, c, callee_inst}));
    }
}

/* From the kernels down the calls, every instance that runs. */
static void find_instances(Spaces *S)
{
    const Model *m = S->E->m;
    for (size_t k = 0; k < m->nkernels; k++) {
        load_kernel(S, m->kernels[k]);
        context_calls(S, m->kernels[k], NULL, SIZE_MAX);
    }
    S->kernel_targets = S->targets.len;
    for (size_t i = 0; i < S->inst.len; i++) {    /* (the list grows) */
        Instance in = S->inst.data[i];
        load_instance(S, &in);
        S->inst.data[i].tfrom = S->targets.len;
        context_calls(S, NULL, in.f, i);
        S->inst.data[i].tto = S->targets.len;
    }
    /* a function called several ways: an instance per way, each named;
     * one named as a built-in function: renamed */
    for (size_t i = 0; i < S->inst.len; i++) {
        Instance *in = &S->inst.data[i];
        if (instances_of(S, in->f)->count < 2) {
            if (builtin(S->E, in->f->name))
                in->name = oklc_arena_printf(&S->E->c->arena, "_occa_%s", in->f->name);
            continue;
        }
        Buf b;
        oklc_buf_init(&b, &S->E->c->arena);
        oklc_buf_printf(&b, "_occa_%s_", in->f->name);
        for (size_t p = 0; p < in->f->nparams; p++)
            if (in->sig[p] != SP_UNKNOWN)
                oklc_buf_printf(&b, "%c", space_letters[in->sig[p]]);
        in->name = b.data;
    }
}

/* ---- writing a context ------------------------------------------------------------------------- */

/* A pointer declared through a typedef (grid_t g, with typedef float
 * *grid_t): the space goes on what it points to, so the type is spelled
 * out. */
static void typedef_pointer(Spaces *S, const Var *v, Space s)
{
    const char *t = S->E->nz->text;
    uint32_t end = v->name_off;
    while (end > v->type_at && (t[end - 1] == ' ' || t[end - 1] == '\t'))
        end--;
    oklc_edit_replace(&S->E->ed, v->type_at, end,
                      oklc_arena_printf(&S->E->c->arena, "%s %s %c%s", space_name(S->E, s),
                                        v->type.element, v->type.reference ? '&' : '*',
                                        v->type.is_const ? " const" : ""));
}

/* The spaces before the pointers' types. `float *p, *q` share one type,
 * so one space. A private one is written where the target wants it
 * (Metal's `thread`). */
static bool write_vars(Spaces *S, Var *const *vars, size_t n)
{
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        const Var *v = vars[i];
        if (!is_pointer(v))
            continue;
        Space s = space_of(S, var_index(S, v));
        if (v->type_at >= v->name_off) {                 /* shares the type before it */
            const Var *first = i ? vars[i - 1] : NULL;
            Space fs = first && is_pointer(first) ? space_of(S, var_index(S, first)) : SP_PRIVATE;
            if (first && (fs > SP_PRIVATE || s > SP_PRIVATE) && fs != s) {
                oklc_model_error(S->E->c, v->name_off,
                                 "'%s' points to %s memory and '%s', declared with it, does "
                                 "not: in %s they need a declaration each",
                                 v->name, space_name(S->E, s > SP_PRIVATE ? s : SP_PRIVATE),
                                 first->name, S->E->be->gpu->language);
                ok = false;
            }
            continue;
        }
        if (s <= SP_PRIVATE && !S->E->be->gpu->private_space)
            continue;
        if (s == SP_UNKNOWN)
            s = SP_PRIVATE;
        if (!v->type.array && !memchr(S->E->nz->text + v->type_at, v->type.reference ? '&' : '*',
                                      v->name_off - v->type_at))
            typedef_pointer(S, v, s);
        else
            oklc_edit_before(&S->E->ed, v->type_at,
                             oklc_arena_printf(&S->E->c->arena, "%s ", space_name(S->E, s)));
    }
    return ok;
}

/* &v.x in a range: OpenCL C takes no address of a vector's component; a
 * pointer to the vector's elements does the same. */
static int by_index(const void *a, const void *b)
{
    const Keyed *x = a, *y = b;
    return x->i < y->i ? -1 : x->i > y->i;
}

static void component_addresses(Spaces *S, Range r)
{
    Emit *E = S->E;
    /* those in r, in the model's order */
    size_t from = first_keyed(&S->components, r.begin), to = from;
    while (to < S->components.len && oklc_in_range(r, (uint32_t)S->components.data[to].key))
        to++;
    Keyed *in = oklc_arena_alloc(&E->c->arena, (to - from + 1) * sizeof *in);
    if (to > from) {
        memcpy(in, S->components.data + from, (to - from) * sizeof *in);
        qsort(in, to - from, sizeof *in, by_index);
    }
    for (size_t k = 0; k < to - from; k++) {
        const ComponentAddr *c = &E->m->components[in[k].i];
        Space s = base_space(S, c->vector);
        if (s <= SP_PRIVATE && E->be->gpu->private_space)
            s = SP_PRIVATE;
        const char *space = s > SP_PRIVATE || (s == SP_PRIVATE && E->be->gpu->private_space)
                                ? space_name(E, s) : "";
        const char *v = oklc_edits_text(&E->ed, c->vector.begin, c->vector.end);
        oklc_edit_replace(&E->ed, c->range.begin, c->range.end,
                          oklc_arena_printf(&E->c->arena, "((%s%s%s *)&(%s) + %d)", space,
                                            *space ? " " : "", c->element, v, c->index));
    }
}

/* x = y of structs in range r, x or y in memory other than the thread's:
 * `assign(x, y)` where the target's = is for thread memory (Metal). Edits
 * around the operands, which keep theirs. */
static void struct_assigns(Spaces *S, Range r)
{
    Emit *E = S->E;
    const char *fn = E->be->gpu->struct_assign;
    if (!fn)
        return;
    for (size_t k = first_keyed(&S->assigns, r.begin);
         k < S->assigns.len && oklc_in_range(r, (uint32_t)S->assigns.data[k].key); k++) {
        const StructAssign *a = &E->m->assigns[S->assigns.data[k].i];
        if (base_space(S, a->lhs) <= SP_PRIVATE && base_space(S, a->rhs) <= SP_PRIVATE)
            continue;
        oklc_edit_before(&E->ed, a->lhs.begin, oklc_arena_printf(&E->c->arena, "%s(", fn));
        oklc_edit_replace(&E->ed, a->op, a->op + 1, ",");
        oklc_edit_after(&E->ed, a->rhs.end, ")");
    }
}

/* The calls of context `caller` name the instances they call. */
static void rename_calls(Spaces *S, size_t caller)
{
    const Model *m = S->E->m;
    size_t from = caller == SIZE_MAX ? 0 : S->inst.data[caller].tfrom;
    size_t to = caller == SIZE_MAX ? S->kernel_targets : S->inst.data[caller].tto;
    for (size_t t = from; t < to; t++) {
        const Target *tg = &S->targets.data[t];
        const Call *c = &m->calls[tg->call];
        const Instance *in = &S->inst.data[tg->callee];
        if (in->name == in->f->name || c->name_off == UINT32_MAX)
            continue;
        oklc_edit_replace(&S->E->ed, c->name_off, c->name_off + (uint32_t)strlen(in->f->name),
                          in->name);
    }
}

static bool write_kernel(Spaces *S, const Kernel *k)
{
    load_kernel(S, k);
    bool ok = write_vars(S, k->params, k->nparams);
    ok &= write_vars(S, k->locals, k->nlocals);
    component_addresses(S, k->decl);
    struct_assigns(S, k->decl);
    return ok;
}

/* What a function returning a pointer returns points into: where its
 * first return value points (in the loaded context). */
static Space return_space(Spaces *S, const Function *f)
{
    if (!f->returns_pointer)
        return SP_UNKNOWN;
    for (size_t i = 0; i < f->nreturns; i++) {
        Space s = base_space(S, f->returns[i]);
        if (s != SP_UNKNOWN)
            return s;
    }
    return SP_UNKNOWN;
}

/* Instance i of its function: its declaration (or a declaration without
 * a body, proto), as text, with the edits of its spaces. */
static const char *render_instance(Spaces *S, size_t i, const Function *proto, bool *ok)
{
    const Instance *in = &S->inst.data[i];
    const Function *f = proto ? proto : in->f;
    uint32_t mark = oklc_edits_mark(&S->E->ed);
    if (proto)
        for (size_t p = 0; p < proto->nparams && p < in->f->nparams; p++)
            S->space[var_index(S, proto->params[p])] = in->sig[p];
    else
        load_instance(S, in);
    *ok &= write_vars(S, f->params, f->nparams);
    Space r = return_space(S, in->f);
    if (r <= SP_PRIVATE && f->returns_pointer && S->E->be->gpu->private_space)
        r = SP_PRIVATE;
    if (r > SP_PRIVATE || (r == SP_PRIVATE && S->E->be->gpu->private_space))
        oklc_edit_before(&S->E->ed, f->specs_at,
                         oklc_arena_printf(&S->E->c->arena, "%s ", space_name(S->E, r)));
    if (!proto) {
        *ok &= write_vars(S, f->locals, f->nlocals);
        component_addresses(S, f->decl);
        struct_assigns(S, f->decl);
        rename_calls(S, i);
    }
    if (in->name != in->f->name)
        oklc_edit_replace(&S->E->ed, f->name_off, f->name_off + (uint32_t)strlen(f->name),
                          in->name);
    const char *text = oklc_edits_text(&S->E->ed, f->decl.begin, f->decl.end);
    oklc_edits_rewind(&S->E->ed, mark);
    return text;
}

/* A function: each of its instances in its place (none: as written, with
 * the spaces known without calls). Declarations without a body too. */
static bool write_function(Spaces *S, const Function *f)
{
    const Function *def = f;
    for (size_t j = 0; !f->has_body && j < S->E->m->nfunctions; j++) {
        const Function *d = S->E->m->functions[j];
        if (d->has_body && !strcmp(d->name, f->name) && d->nparams == f->nparams)
            def = d;
    }
    bool ok = true;
    Buf b;
    oklc_buf_init(&b, &S->E->c->arena);
    for (size_t i = instances_of(S, def)->first; i != SIZE_MAX; i = S->inst.data[i].next)
        oklc_buf_printf(&b, "%s%s", b.len ? (f->has_body ? "\n\n" : ";\n") : "",
                        render_instance(S, i, f == def ? NULL : f, &ok));
    if (b.len) {
        oklc_edit_replace(&S->E->ed, f->decl.begin, f->decl.end, b.data);
    } else if (f->has_body) {         /* no kernel calls it */
        for (size_t p = 0; p < f->nparams; p++)
            S->space[var_index(S, f->params[p])] = SP_UNKNOWN;
        derive_locals(S, f->locals, f->nlocals);
        ok &= write_vars(S, f->locals, f->nlocals);
    }
    if (!b.len && builtin(S->E, f->name))
        oklc_edit_replace(&S->E->ed, f->name_off, f->name_off + (uint32_t)strlen(f->name),
                          oklc_arena_printf(&S->E->c->arena, "_occa_%s", f->name));
    return ok;
}

static void add_vars(Spaces *S, Var **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        vec_push(&S->E->c->arena, &S->vars, v[i]);
}

bool oklc_gpu_spaces(Emit *E)
{
    Spaces *S = oklc_arena_alloc(&E->c->arena, sizeof *S);
    S->E = E;
    const Model *m = E->m;
    add_vars(S, m->globals, m->nglobals);
    for (size_t i = 0; i < m->nkernels; i++) {
        add_vars(S, m->kernels[i]->params, m->kernels[i]->nparams);
        add_vars(S, m->kernels[i]->locals, m->kernels[i]->nlocals);
    }
    for (size_t i = 0; i < m->nfunctions; i++) {
        add_vars(S, m->functions[i]->params, m->functions[i]->nparams);
        add_vars(S, m->functions[i]->locals, m->functions[i]->nlocals);
    }
    S->space = oklc_arena_alloc(&E->c->arena, (S->vars.len + 1) * sizeof *S->space);
    index_vars(S);
    index_refs(S);
    index_model(S);
    E->target = S;
    find_instances(S);
    bool ok = write_vars(S, m->globals, m->nglobals);
    for (size_t i = 0; i < m->nfields; i++)
        if (m->fields[i]->global_ptr && is_pointer(m->fields[i]))
            oklc_edit_before(&E->ed, m->fields[i]->type_at,
                             oklc_arena_printf(&E->c->arena, "%s ", space_name(E, SP_GLOBAL)));
    for (size_t i = 0; i < m->nfunctions; i++)
        ok &= write_function(S, m->functions[i]);
    for (size_t i = 0; i < m->nkernels; i++)
        ok &= write_kernel(S, m->kernels[i]);
    rename_calls(S, SIZE_MAX);
    return ok;
}

const char *oklc_gpu_space(const Emit *E, const Kernel *k, Range expr)
{
    Spaces *S = (Spaces *)E->target;
    load_kernel(S, k);
    Space s = base_space(S, expr);
    return s > SP_PRIVATE ? space_name(E, s) : NULL;
}
