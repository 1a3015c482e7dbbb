/*
 * clang.c - parses the normalized text with libclang, from memory.
 *
 * Takes the normalizer's output, gives a translation unit to model.c and
 * Clang's messages as ours, at the user's file:line:col (through the
 * normalizer's offset map, so through includes and macros too).
 *
 * What Clang sees: the normalized text, with #include <...> lines of
 * headers that are not the C/C++ standard library blanked out (they belong
 * to the backend compiler: <cuda_fp16.h> need not exist here), and the
 * prelude (include/oklc/okl.hpp) force-included, which declares what OKL
 * code may use without declaring it. Blanking keeps every offset in place.
 *
 * Clang's "use of undeclared identifier" on a call becomes a warning: a
 * target builtin the prelude does not know is for the backend compiler to
 * resolve, and the code is kept as written.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cx.h"
#include "../backends/table.h"
#include "../intrinsics/intrinsics.h"

extern const char oklc_prelude[];
extern const unsigned long oklc_prelude_len;

#define PRELUDE_PATH "/oklc-prelude/oklc/okl.hpp"
#define MAIN_PATH    "/oklc-input/kernel.cpp"
#define INTRINSICS_PATH "/oklc-prelude/oklc/intrinsics.hpp"

/* ---- the stack a parse needs --------------------------------------------------- */

/* libclang parses on a thread of its own with 8 MB of stack unless told
 * not to; then it parses on the caller's, which oklc sizes for the input
 * (oklc_parse_stack, oklc_run_on_stack). A host that set the variable
 * keeps its value. */
__attribute__((constructor)) static void parse_on_our_thread(void)
{
    setenv("LIBCLANG_NOTHREADS", "1", 0);
}

/* Clang's parser nests C++ calls per level of an else-if chain, a = b = c,
 * a ?: chain, a cast or a unary operator: up to about 2.5 KB each
 * (measured: 3,500 unary minuses fill an 8 MB stack). Every level takes
 * one of the tokens `nests` counts, and the recursion unwinds at the end
 * of a top-level declaration: the most one declaration holds bounds the
 * depth. */
#define STACK_PER_TOKEN ((size_t)4 << 10)
#define STACK_BASE      ((size_t)64 << 20)
#define STACK_MAX       ((size_t)1 << 30)

static bool nests(const Token *t)
{
    static const char *const keywords[] = {
        "if", "else", "for", "while", "do", "switch", "case", "default", "return", "sizeof",
        "alignof", "new", "delete", "throw", "template", "operator", "decltype", "noexcept",
    };
    if (t->kind == TK_IDENT) {
        for (size_t i = 0; i < OKLC_COUNTOF(keywords); i++)
            if (oklc_tok_eq(t, keywords[i]))
                return true;
        return false;
    }
    if (t->kind != TK_PUNCT)
        return false;
    switch (t->punct) {
    case P_SEMI: case P_COMMA: case P_RPAREN: case P_RBRACKET: case P_RBRACE: case P_DOT:
    case P_ARROW: case P_COLONCOLON: case P_HASH: case P_HASHHASH:
        return false;
    default:
        return true;
    }
}

size_t oklc_parse_stack(oklc_ctx *c, Token *const *toks, size_t n)
{
    size_t most = 0, count = 0;
    int depth = 0;
    const Token *start = NULL, *worst = NULL;
    for (size_t i = 0; i < n && toks[i]->kind != TK_EOF; i++) {
        const Token *t = toks[i];
        start = start ? start : t;
        count += nests(t);
        if (count > most)
            most = count, worst = start;
        if (oklc_tok_is_punct(t, P_LBRACE))
            depth++;
        else if (oklc_tok_is_punct(t, P_RBRACE) && depth > 0)
            depth--;
        if (!depth && (oklc_tok_is_punct(t, P_SEMI) || oklc_tok_is_punct(t, P_RBRACE)))
            count = 0, start = NULL;
    }
    size_t limit = (STACK_MAX - STACK_BASE) / STACK_PER_TOKEN;
    if (most > limit) {
        oklc_diag_error(c, worst->loc, "this declaration has %zu operators and statements "
                        "that can nest; oklc parses at most %zu in one declaration (Clang's "
                        "parser recurses on them): split it", most, limit);
        return 0;
    }
    return STACK_BASE + most * STACK_PER_TOKEN;
}

/* ---- what Clang sees ----------------------------------------------------------- */

/* Headers of the C and C++ standard libraries: kept for Clang to read. */
static const char *const std_headers[] = {
    "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h",
    "iso646.h", "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h",
    "stdarg.h", "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h",
    "tgmath.h", "time.h", "wchar.h", "wctype.h", "algorithm", "array", "atomic", "bitset",
    "cassert", "cctype", "cerrno", "cfenv", "cfloat", "cinttypes", "climits", "clocale",
    "cmath", "complex", "cstdarg", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring",
    "ctime", "cwchar", "functional", "initializer_list", "iterator", "limits", "memory",
    "new", "numeric", "optional", "ratio", "tuple", "type_traits", "utility", "variant",
};

bool oklc_std_header(const char *name, size_t n)
{
    for (size_t i = 0; i < OKLC_COUNTOF(std_headers); i++)
        if (strlen(std_headers[i]) == n && !memcmp(std_headers[i], name, n))
            return true;
    return false;
}

/* The text for Clang: other angled includes become blanks. Sets *math
 * when the kernel includes the system's math header. */
static char *clang_text(oklc_ctx *c, const Normalized *nz, bool *math)
{
    char *t = oklc_arena_strndup(&c->arena, nz->text, nz->len);
    *math = false;
    for (char *line = t; *line;) {
        char *eol = strchr(line, '\n'), *p = line;
        if (!eol)
            eol = line + strlen(line);
        while (p < eol && (*p == ' ' || *p == '\t'))
            p++;
        if (p < eol && *p == '#') {
            char *q = p + 1;
            while (q < eol && (*q == ' ' || *q == '\t'))
                q++;
            char *lt = (size_t)(eol - q) > 7 && !strncmp(q, "include", 7) ? memchr(q, '<', (size_t)(eol - q)) : NULL;
            char *gt = lt ? memchr(lt, '>', (size_t)(eol - lt)) : NULL;
            if (gt) {
                size_t n = (size_t)(gt - lt - 1);
                if (!oklc_std_header(lt + 1, n))
                    memset(line, ' ', (size_t)(eol - line));
                else if ((n == 5 && !memcmp(lt + 1, "cmath", 5)) ||
                         (n == 6 && !memcmp(lt + 1, "math.h", 6)) ||
                         (n == 7 && !memcmp(lt + 1, "cstdlib", 7)) ||
                         (n == 8 && !memcmp(lt + 1, "stdlib.h", 8)))
                    *math = true;    /* their abs() and math are the system's */
            }
        }
        line = *eol ? eol + 1 : eol;
    }
    return t;
}

/* ---- diagnostics ------------------------------------------------------------------ */

/* A location outside the normalized text (the prelude, a system header):
 * the file, registered so that the message can show the line. */
static Loc foreign_loc(oklc_ctx *c, CXSourceLocation loc)
{
    CXFile file;
    unsigned line, col, off;
    clang_getSpellingLocation(loc, &file, &line, &col, &off);
    if (!file)
        return (Loc){0};
    const char *path = oklc_cx_string(c, clang_getFileName(file));
    for (size_t i = 1; i < c->views.len; i++)
        if (!strcmp(c->views.data[i].name, path))
            return oklc_src_loc(c, (uint32_t)i, off);
    size_t len = 0;
    const char *text = !strcmp(path, PRELUDE_PATH) ? oklc_prelude : NULL;
    len = text ? oklc_prelude_len : 0;
    if (!text && !(text = oklc_read_file(c, path, &len)))
        text = "", len = 0;
    SrcFile *f = oklc_src_new(c, path, text, len, false);
    return oklc_src_loc(c, oklc_view_new(c, f, path, 0), off);
}

/* Where a Clang message goes, with the macro notes of its token. */
static Diag *report(oklc_ctx *c, const Normalized *nz, DiagLevel lv, CXSourceLocation loc,
                    const char *msg, Diag *parent)
{
    uint32_t off = oklc_cx_offset(loc);
    Loc at = off == UINT32_MAX ? foreign_loc(c, loc) : oklc_norm_loc(nz, off);
    if (parent) {
        oklc_diag_note(c, parent, at, "%s", msg);
        return parent;
    }
    Diag *d = oklc_diag(c, lv, at, "%s", msg);
    const SrcMapEntry *e = off == UINT32_MAX ? NULL : oklc_norm_lookup(nz, off);
    if (e)
        oklc_tok_note_expansion(c, d, e->tok);
    return d;
}

/* "use of undeclared identifier 'f'" where f( is a call. */
static bool undeclared_call(const Normalized *nz, CXSourceLocation loc, const char *msg)
{
    static const char prefix[] = "use of undeclared identifier '";
    uint32_t off = oklc_cx_offset(loc);
    if (off == UINT32_MAX || strncmp(msg, prefix, sizeof prefix - 1))
        return false;
    size_t n = strlen(msg) - (sizeof prefix - 1) - 1;    /* the name */
    const char *p = nz->text + off + n;
    if (off + n > nz->len)
        return false;
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    return *p == '(';
}

/* libclang diagnostics being translated: disposed of even when memory
 * runs out in the middle (see oklc_parse). */
typedef struct Live {
    CXDiagnostic d[16];
    int          n;
} Live;

static void translate(oklc_ctx *c, const Normalized *nz, CXDiagnostic d, Diag *parent, Live *live)
{
    enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
    if (sev == CXDiagnostic_Ignored)
        return;
    const char *msg = oklc_cx_string(c, clang_getDiagnosticSpelling(d));
    CXSourceLocation loc = clang_getDiagnosticLocation(d);
    DiagLevel lv = sev >= CXDiagnostic_Error ? DIAG_ERROR
                   : sev == CXDiagnostic_Warning ? DIAG_WARNING : DIAG_NOTE;
    if (lv == DIAG_ERROR && undeclared_call(nz, loc, msg)) {
        lv = DIAG_WARNING;
        msg = oklc_arena_printf(&c->arena, "%s; the call is kept for the backend compiler",
                                msg);
    }
    if (lv == DIAG_NOTE && !parent)
        lv = DIAG_WARNING;    /* a lone note: keep it visible */
    Diag *rd = report(c, nz, lv, loc, msg, parent);
    CXDiagnosticSet kids = clang_getChildDiagnostics(d);
    for (unsigned i = 0; i < clang_getNumDiagnosticsInSet(kids) && live->n < 16; i++) {
        CXDiagnostic k = clang_getDiagnosticInSet(kids, i);
        live->d[live->n++] = k;
        translate(c, nz, k, rd, live);
        clang_disposeDiagnostic(live->d[--live->n]);
    }
}

/* ---- the parse ---------------------------------------------------------------------- */

/* The file a --clang-arg makes Clang read, at args[*i] (-include FILE,
 * -includeFILE, --include=FILE, -imacros, -include-pch, @FILE), or NULL;
 * *i moves past a separate operand. Longer names first: -include-pch is
 * no -include of "-pch". */
static const char *clang_file_operand(const ParseOptions *o, size_t *i)
{
    static const char *const opts[] = {"-include-pch", "--include", "-include", "--imacros",
                                       "-imacros"};
    const char *a = o->clang_args[*i];
    if (a[0] == '@')
        return a + 1;
    for (size_t k = 0; k < OKLC_COUNTOF(opts); k++) {
        size_t n = strlen(opts[k]);
        if (strncmp(a, opts[k], n))
            continue;
        if (a[n])
            return a + n + (a[n] == '=');
        return *i + 1 < o->nclang_args ? o->clang_args[++*i] : NULL;
    }
    return NULL;
}

/* Clang reads what --clang-arg names to its end: a device (/dev/zero) or
 * a huge file would take all memory. The same limit as oklc's own reads:
 * a regular file of at most OKLC_SRC_MAX bytes. */
static bool clang_files_ok(oklc_ctx *c, const ParseOptions *o)
{
    bool ok = true;
    for (size_t i = 0; i < o->nclang_args; i++) {
        const char *arg = o->clang_args[i], *file = clang_file_operand(o, &i);
        struct stat st;
        if (!file)
            continue;
        if (stat(file, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > OKLC_SRC_MAX) {
            oklc_diag_error(c, (Loc){0}, "--clang-arg %s: '%s' is %s", arg, file,
                            stat(file, &st) != 0       ? "not there"
                            : !S_ISREG(st.st_mode)     ? "not a regular file"
                                                       : "larger than 256 MiB");
            ok = false;
        }
    }
    return ok;
}

Model *oklc_parse(oklc_ctx *c, const Normalized *nz, const ParseOptions *o)
{
    const char *why;
    if (!oklc_libclang_load(&why)) {
        oklc_diag_error(c, (Loc){0}, "%s", why);
        return NULL;
    }
    if (!clang_files_ok(c, o))
        return NULL;
    bool math;
    char *text = clang_text(c, nz, &math);
    VEC(const char *) args = {0};
    static const char *const fixed[] = {
        "-x", "c++", "-std=c++17", "-include", PRELUDE_PATH, "-fno-spell-checking",
        "-Wno-unknown-attributes", "-Wno-unknown-pragmas", "-Wno-ignored-attributes",
        "-ferror-limit=0",
    };
    for (size_t i = 0; i < OKLC_COUNTOF(fixed); i++)
        vec_push(&c->arena, &args, fixed[i]);
    if (math)
        vec_push(&c->arena, &args, "-DOKLC_PRELUDE_SYSTEM_MATH");
    const Backend *be = oklc_backend_builtin(c->backend);
    if (be)
        vec_push(&c->arena, &args, oklc_arena_printf(&c->arena, "-DOKLC_BACKEND_%s", be->macro));
    for (size_t i = 0; i < o->nclang_args; i++)    /* the user's last: they win */
        vec_push(&c->arena, &args, o->clang_args[i]);

    /* the user's intrinsics spelled on this backend: declared after the
     * prelude (not part of its precompiled parse), as OKL's are in it */
    const char *decls = oklc_intrinsic_declarations(c);
    struct CXUnsavedFile files[] = {
        {MAIN_PATH, text, nz->len},
        {PRELUDE_PATH, oklc_prelude, oklc_prelude_len},
        {INTRINSICS_PATH, decls, strlen(decls)},
    };
    const char *pch = oklc_pch_for(c, args.data, args.len, &files[1]);
    for (size_t i = 0; pch && i + 1 < args.len; i++)
        if (!strcmp(args.data[i], "-include") && !strcmp(args.data[i + 1], PRELUDE_PATH)) {
            args.data[i] = "-include-pch";     /* the prelude's parse, done before */
            args.data[i + 1] = pch;
            break;
        }
    if (*decls) {
        vec_push(&c->arena, &args, "-include");
        vec_push(&c->arena, &args, INTRINSICS_PATH);
        SrcFile *f = oklc_src_new(c, INTRINSICS_PATH, decls, strlen(decls), false);
        oklc_view_new(c, f, NULL, 0);    /* for messages about a declaration */
    }
    CXIndex index = clang_createIndex(0, 0);
    CXTranslationUnit tu = NULL;
    enum CXErrorCode err = clang_parseTranslationUnit2(
        index, MAIN_PATH, args.data, (int)args.len, files, OKLC_COUNTOF(files),
        CXTranslationUnit_KeepGoing | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles, &tu);
    if (err != CXError_Success || !tu) {
        oklc_diag_error(c, (Loc){0}, "libclang could not parse the kernel (error %d)", (int)err);
        clang_disposeIndex(index);
        return NULL;
    }
    /* Running out of memory must not leak libclang's objects: catch the
     * arena's jump here, dispose of them, and pass it on. */
    jmp_buf jb, *outer = c->arena.oom;
    Live live = {{0}, 0};
    c->arena.oom = &jb;
    if (setjmp(jb)) {
        volatile Live *vl = &live;    /* changed since setjmp: read it from memory */
        while (vl->n > 0)
            clang_disposeDiagnostic(vl->d[--vl->n]);
        clang_disposeTranslationUnit(tu);
        clang_disposeIndex(index);
        c->arena.oom = outer;
        oklc_arena_oom(&c->arena);
    }
    for (unsigned i = 0; i < clang_getNumDiagnostics(tu); i++) {
        live.d[live.n++] = clang_getDiagnostic(tu, i);
        translate(c, nz, live.d[0], NULL, &live);
        clang_disposeDiagnostic(live.d[--live.n]);
    }
    Model *m = c->nerrors ? NULL : oklc_model_build(c, nz, tu, o);
    c->arena.oom = outer;
    clang_disposeTranslationUnit(tu);
    clang_disposeIndex(index);
    return c->nerrors ? NULL : m;
}

static char libclang_version[128];

static void read_libclang_version(void)
{
    const char *why;
    if (!oklc_libclang_load(&why)) {
        snprintf(libclang_version, sizeof libclang_version, "not loaded: %s", why);
        return;
    }
    CXString v = clang_getClangVersion();
    const char *s = clang_getCString(v);
    snprintf(libclang_version, sizeof libclang_version, "%s", s ? s : "?");
    clang_disposeString(v);
}

const char *oklc_libclang_version(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_libclang_version);
    return libclang_version;
}
