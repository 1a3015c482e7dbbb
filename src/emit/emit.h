/*
 * emit.h - what the backends produce, and how.
 *
 *   edits.c     an edit list over the normalized text: replace a range,
 *               insert before or after a position; rendering applies the
 *               edits of any range, so a backend can rebuild a construct
 *               from the rendered text of its parts
 *   metadata.c  the JSON metadata of a transpiled file (docs/metadata.md)
 *   launcher.c  the host launcher of the GPU-like backends (docs/launchers.md)
 *   occa.c      OCCA's convention: entries, launchers and metadata for OCCA's
 *               runtime (docs/occa.md)
 *
 * Untouched text, comments included, passes through byte for byte.
 */
#ifndef OKLC_EMIT_H
#define OKLC_EMIT_H

#include "../parse/model.h"

typedef enum EditKind {
    EDIT_AFTER,      /* insert at `begin`, belonging to the text before it */
    EDIT_BEFORE,     /* insert at `begin`, belonging to the text after it */
    EDIT_REPLACE     /* replace [begin, end) */
} EditKind;

typedef struct Edit {
    uint32_t    begin, end;
    EditKind    kind;
    uint32_t    seq;         /* order of recording, for equal positions */
    const char *text;
} Edit;

typedef struct EditNode EditNode;

/* The edits are kept in text order in a skip list, so that recording one
 * costs O(log n) and rendering a range visits only the edits in it: a
 * backend renders a part of the text for every construct it rewrites, and
 * a file holds thousands of them. */
typedef struct Edits {
    Arena           *arena;
    const char      *text;        /* the normalized text */
    size_t           len;
    EditNode        *head;        /* skip list sentinel: next[] of every level */
    int              levels;      /* levels in use */
    uint32_t         rng;         /* node levels: xorshift, the same every run */
    VEC(EditNode *)  log;         /* in recording order: log[seq] */
    const Normalized *specs;      /* oklc_edits_drop_specs(), applied when rendering */
    uint32_t         specs_seq;   /* its place in the recording order */
} Edits;

OKLC_INTERNAL void oklc_edits_init(Edits *e, Arena *a, const char *text, size_t len);
/* Replacing a range that holds earlier edits discards them: record the
 * edits of the parts first, then build the whole from oklc_edits_text(). */
OKLC_INTERNAL void oklc_edit_replace(Edits *e, uint32_t begin, uint32_t end, const char *text);
OKLC_INTERNAL void oklc_edit_before(Edits *e, uint32_t at, const char *text);
OKLC_INTERNAL void oklc_edit_after(Edits *e, uint32_t at, const char *text);
/* Deletes [begin, end), with its line when nothing else is on it. */
OKLC_INTERNAL void oklc_edit_delete(Edits *e, uint32_t begin, uint32_t end);
/* Takes back the edits recorded since the mark: a construct rendered once
 * per variant (with the variant's edits) then replaced by all of them. */
OKLC_INTERNAL uint32_t oklc_edits_mark(const Edits *e);
OKLC_INTERNAL void oklc_edits_rewind(Edits *e, uint32_t mark);
/* The text of [begin, end) with the edits inside it applied. */
OKLC_INTERNAL void oklc_edits_render(Edits *e, uint32_t begin, uint32_t end, Buf *out);
OKLC_INTERNAL const char *oklc_edits_text(Edits *e, uint32_t begin, uint32_t end);
/* Calls fn for every directive line `#name args` of the text. */
OKLC_INTERNAL void oklc_edits_directives(Edits *e, const char *name,
                                         void (*fn)(Edits *e, Range line, const char *args,
                                                    void *data),
                                         void *data);
OKLC_INTERNAL bool oklc_ident_char(char ch);
/* Does `text` hold `name` as a whole identifier? */
OKLC_INTERNAL bool oklc_names(const char *text, const char *name);
/* s (a file name, the user's text) made safe to write inside a generated
 * comment: it cannot end the comment or start a line of code. */
OKLC_INTERNAL const char *oklc_comment_text(Arena *a, const char *s);
/* Deletes every [[...]] of OKL attributes (keeping the other attributes
 * written in it), with the blanks around it that would be left over. */
OKLC_INTERNAL void oklc_edits_drop_specs(Edits *e, const Normalized *nz);

/* ---- metadata.c ----------------------------------------------------------- */

/* One kernel as the runtime sees it: a kernel, or an instance of a
 * template kernel. */
typedef struct KernelOut {
    const Kernel *kernel;
    const char   *name;       /* "add", or "scale<float, 256>" */
    const char   *entry;      /* the extern "C" symbol the runtime calls */
    const char  **functions;  /* device-level functions, in launch order */
    size_t        nfunctions;
    const char  **targs;      /* template arguments of an instance, else NULL */
    size_t        ntargs;
    const char   *suffix;     /* names of an instance: "_1" (the --instance index) */
    const char  **faults;     /* GPUs: what the device reports (gpu.c fault_check) */
    size_t        nfaults;
} KernelOut;

/* A template instance's arguments name `type` ("double"): the model
 * cannot see it (the template's body names its parameter). */
OKLC_INTERNAL bool oklc_instances_name(const KernelOut *ks, size_t n, const char *type);
/* The output names half: the model does, or an instance's arguments. */
OKLC_INTERNAL bool oklc_uses_half(const Model *m, const KernelOut *ks, size_t n);
/* The metadata JSON (cJSON), in the arena. */
OKLC_INTERNAL const char *oklc_metadata_json(oklc_ctx *c, const KernelOut *ks, size_t n,
                                             const char *input_hash);
/* A parameter's type with the instance's template arguments in place of
 * the template parameters: "T *" of scale<float, 8> is "float *". */
/* A template kernel's parameters as arguments: "T, N" of "class T, int N"
 * (a pack: "Ts..."). */
OKLC_INTERNAL const char *oklc_template_param_names(oklc_ctx *c, const Kernel *k);
/* The names of its type parameters (class T, typename U; not packs). */
OKLC_INTERNAL size_t oklc_template_type_params(oklc_ctx *c, const Kernel *k, const char ***out);
OKLC_INTERNAL const char *oklc_subst_targs(oklc_ctx *c, const Kernel *k, const char *type,
                                           const char *const *targs, size_t ntargs);

/* ---- launcher.c ------------------------------------------------------------ */

/* The launcher's source: the launch API, the file's declarations without
 * its functions and kernels (the types and constants the bounds may use),
 * then `functions`, the launchers themselves, and in OCCA's convention
 * OCCA's entries of the kernels ks. */
OKLC_INTERNAL const char *oklc_launcher_source(oklc_ctx *c, const Normalized *nz,
                                               const Model *m, const char *backend,
                                               const char *path, const char *functions,
                                               const KernelOut *ks, size_t n);

/* ---- occa.c: OCCA's convention (docs/occa.md) ------------------------------- */

/* The metadata of the kernels ks in OCCA's schema (c->metadata) and, for
 * backends with a launcher, the launcher's (c->launcher_metadata). */
OKLC_INTERNAL void oklc_occa_metadata(oklc_ctx *c, const KernelOut *ks, size_t n,
                                      const char *input_hash, bool launched);
/* After a CPU backend's kernels: each kernel K as the symbol K, called as
 * OCCA's serial and OpenMP modes call it. */
OKLC_INTERNAL const char *oklc_occa_cpu_entries(oklc_ctx *c, const KernelOut *ks, size_t n);
/* After a launcher's own functions: K(deviceKernels, args...) as OCCA's
 * GPU-like modes call it. */
OKLC_INTERNAL const char *oklc_occa_launcher_entries(oklc_ctx *c, const KernelOut *ks, size_t n);

#endif
