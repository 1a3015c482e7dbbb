/*
 * model.c - builds the kernel model from Clang's AST.
 *
 * Clang drops the [[okl::...]] attributes it does not know, so the
 * normalizer recorded each one with an anchor: the offset of the token it
 * belongs to. Walking the AST in source order, each cursor claims the
 * attributes anchored where it starts (a statement, a declaration's
 * specifiers) or at its name or a '*' of its declarator. What is left
 * unclaimed stood where OKL has no meaning for it.
 *
 * Loop headers are read from the tokens of the normalized text (our own
 * lexer: operators are not in libclang 14's API); types and constant
 * values come from Clang. Control flow around barriers is followed so the
 * checks can tell whether every thread of a block reaches one.
 */
#include <stdlib.h>
#include <string.h>

#include "cx.h"

typedef enum CtlKind { CTL_IF, CTL_LOOP, CTL_SWITCH } CtlKind;

/* Control flow enclosing the current statement, inside a kernel. */
typedef struct Ctl {
    CtlKind     kind;
    Range       cond;
    const char *thread_var;   /* a per-thread variable its condition reads */
    Loop       *inner;        /* for CTL_LOOP: an attributed loop, if it is one */
    uint32_t    exit_off;     /* a jump out of it that only some threads take */
    const char *exit_what;    /* "continue", "break", "return", "goto" */
} Ctl;

typedef struct VarSlot {
    uint32_t off;
    Var     *var;
} VarSlot;

typedef struct Walk {
    oklc_ctx          *c;
    const Normalized  *nz;
    const ParseOptions *o;
    CXTranslationUnit  tu;
    Model             *m;
    Token            **toks;       /* the normalized text, lexed */
    size_t             ntoks;
    Attr             **anchors;    /* attributes sorted by anchor offset */
    bool              *claimed;    /* per anchors[] entry */
    VarSlot           *vars;       /* open hash: name offset -> Var */
    size_t             vcap, nvars;
    const char       **tparams;    /* template parameters of the kernel */
    size_t             ntparams;

    VEC(Kernel *)      kernels;
    VEC(Function *)    functions;
    VEC(Range)         lambdas;
    VEC(Call)          calls;
    VEC(Record)        records;
    VEC(ComponentAddr) components;
    VEC(ScalarOperand) scalars;
    Function          *function;   /* the function being walked (not a kernel) */
    VEC(Range)         freturns;
    VEC(CxxConstruct)  cxx;
    VEC(const char *)  type_names;
    bool               uses_double;
    VEC(Var *)         fparams, flocals;
    VEC(Var *)         globals, typedefs, fields;

    Kernel            *kernel;     /* the kernel being walked */
    Loop              *loop;       /* innermost attributed loop */
    Range              for_header; /* of the for statement being walked */
    CXCursor           body;       /* the kernel's body */
    bool               top_level;  /* declaring directly in the body */
    VEC(Ctl)           ctl;
    VEC(Loop *)        loops;
    VEC(Var *)         locals;
    VEC(Barrier *)     barriers;
    VEC(Atomic *)      atomics;
    VEC(DimAccess *)   dims;
    int                in_lambda;  /* lambdas being walked */
    Stmt              *stmt;       /* the statement node being filled */
    int                in_expr;    /* inside an expression statement */
    bool               oom;        /* memory ran out inside a visit */
    VEC(uint32_t)      kernel_defs;/* definitions of kernels declared before */
    VEC(Attr *)        kernel_def_attrs;
} Walk;

static void walk(Walk *W, CXCursor cur, CXCursor parent);

/* ---- diagnostics at normalized offsets ------------------------------------------- */

static Diag *vdiag(oklc_ctx *c, DiagLevel lv, uint32_t off, const char *fmt, va_list ap)
{
    const Normalized *nz = c->norm;
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_vprintf(&b, fmt, ap);
    Diag *d = oklc_diag(c, lv, nz ? oklc_norm_loc(nz, off) : (Loc){0}, "%s", b.data);
    const SrcMapEntry *e = nz ? oklc_norm_lookup(nz, off) : NULL;
    if (e)
        oklc_tok_note_expansion(c, d, e->tok);
    return d;
}

unsigned oklc_model_line(oklc_ctx *c, uint32_t off)
{
    Loc loc = oklc_norm_loc(c->norm, off);
    return loc.line + (uint32_t)c->views.data[loc.file].line_delta;
}

Diag *oklc_model_error(oklc_ctx *c, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Diag *d = vdiag(c, DIAG_ERROR, off, fmt, ap);
    va_end(ap);
    return d;
}

Diag *oklc_model_verror(oklc_ctx *c, uint32_t off, const char *fmt, va_list ap)
{
    return vdiag(c, DIAG_ERROR, off, fmt, ap);
}

Diag *oklc_model_diag(oklc_ctx *c, DiagLevel lv, uint32_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    Diag *d = vdiag(c, lv, off, fmt, ap);
    va_end(ap);
    return d;
}

/* ---- tokens of the normalized text -------------------------------------------------- */

static void lex_text(Walk *W)
{
    oklc_ctx *c = W->c;
    SrcFile *f = oklc_src_new(c, "<normalized>", W->nz->text, W->nz->len, true);
    VEC(Token *) v = {0};
    for (Token *t = oklc_lex(c, oklc_view_new(c, f, NULL, 0), 0); t; t = t->next)
        vec_push(&c->arena, &v, t);
    W->toks = v.data;
    W->ntoks = v.len;
}

/* Index of the first token at or after `off`. */
static size_t tok_at(Walk *W, uint32_t off)
{
    size_t lo = 0, hi = W->ntoks - 1;    /* the last token is EOF */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (W->toks[mid]->loc.off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static uint32_t tok_end(const Token *t)
{
    return t->loc.off + t->len;
}

/* The bracket that closes toks[i], or ntoks - 1 (EOF) when none does. */
static size_t closing(Walk *W, size_t i)
{
    int depth = 0;
    for (size_t j = i; j < W->ntoks - 1; j++) {
        const Token *t = W->toks[j];
        if (t->kind != TK_PUNCT)
            continue;
        if (t->punct == P_LPAREN || t->punct == P_LBRACKET || t->punct == P_LBRACE)
            depth++;
        else if ((t->punct == P_RPAREN || t->punct == P_RBRACKET || t->punct == P_RBRACE) &&
                 --depth == 0)
            return j;
    }
    return W->ntoks - 1;
}

/* Clang's extent of a statement that ends with an expression (x = 1;
 * for (...) x = 1;) stops before the ';': the statement's own range
 * includes it, so that text put after a statement goes after its end. */
static Range with_semicolon(Walk *W, Range r)
{
    size_t k = tok_at(W, r.end);
    if (k == 0 || k >= W->ntoks - 1 || !oklc_tok_is_punct(W->toks[k], P_SEMI))
        return r;
    const Token *last = W->toks[k - 1];
    if (oklc_tok_is_punct(last, P_RBRACE) || oklc_tok_is_punct(last, P_SEMI))
        return r;
    r.end = tok_end(W->toks[k]);
    return r;
}

/* Text of tokens [from, to): one blank where the source had whitespace. */
static const char *text_of(Walk *W, size_t from, size_t to)
{
    Buf b;
    oklc_buf_init(&b, &W->c->arena);
    for (size_t k = from; k < to; k++) {
        if (k > from && (W->toks[k]->flags & TF_SPACE))
            oklc_buf_putc(&b, ' ');
        oklc_buf_putn(&b, W->toks[k]->text, W->toks[k]->len);
    }
    return b.data;
}

static const char *range_text(Walk *W, Range r)
{
    return text_of(W, tok_at(W, r.begin), tok_at(W, r.end));
}

/* ---- visiting without jumping through libclang ------------------------------------------ */

/* Running out of memory jumps to the stage entry; a jump through
 * libclang's C++ frames would skip its destructors and leak. So every
 * visitor that allocates runs under its own jump target, returns normally
 * to libclang with CXChildVisit_Break, and the jump goes on once
 * clang_visitChildren has returned. */
typedef struct Guard {
    Walk              *W;
    CXCursorVisitor    fn;
    CXClientData       data;
} Guard;

static enum CXChildVisitResult guarded(CXCursor cur, CXCursor parent, CXClientData data)
{
    Guard *g = data;
    oklc_ctx *c = g->W->c;
    if (g->W->oom)
        return CXChildVisit_Break;
    jmp_buf jb, *outer = c->arena.oom;
    enum CXChildVisitResult r = CXChildVisit_Break;
    c->arena.oom = &jb;
    if (!setjmp(jb))
        r = g->fn(cur, parent, g->data);
    else
        g->W->oom = true;
    c->arena.oom = outer;
    return g->W->oom ? CXChildVisit_Break : r;
}

static void visit(Walk *W, CXCursor cur, CXCursorVisitor fn, CXClientData data)
{
    Guard g = {W, fn, data};
    clang_visitChildren(cur, guarded, &g);
    if (W->oom)
        oklc_arena_oom(&W->c->arena);
}

/* ---- attributes ------------------------------------------------------------------------ */

static int by_anchor(const void *a, const void *b)
{
    const Attr *x = *(Attr *const *)a, *y = *(Attr *const *)b;
    if (x->anchor_off != y->anchor_off)
        return x->anchor_off < y->anchor_off ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

static void index_attrs(Walk *W)
{
    size_t n = W->nz->nattrs;
    W->anchors = oklc_arena_alloc(&W->c->arena, (n ? n : 1) * sizeof(Attr *));
    W->claimed = oklc_arena_alloc(&W->c->arena, (n ? n : 1) * sizeof(bool));
    if (n) {
        memcpy(W->anchors, W->nz->attrs, n * sizeof(Attr *));
        qsort(W->anchors, n, sizeof(Attr *), by_anchor);
    }
}

typedef VEC(Attr *) AttrList;

/* Claims the unclaimed attributes of `kind` anchored in [lo, hi]. */
static void claim(Walk *W, AnchorKind kind, uint32_t lo, uint32_t hi, AttrList *out)
{
    size_t n = W->nz->nattrs, a = 0, b = n;
    while (a < b) {                      /* first anchor >= lo */
        size_t mid = a + (b - a) / 2;
        if (W->anchors[mid]->anchor_off < lo)
            a = mid + 1;
        else
            b = mid;
    }
    for (size_t i = a; i < n && W->anchors[i]->anchor_off <= hi; i++)
        if (!W->claimed[i] && W->anchors[i]->anchor == kind) {
            W->claimed[i] = true;
            vec_push(&W->c->arena, out, W->anchors[i]);
        }
}

static void misplaced(Walk *W, Attr *a, const char *what)
{
    Model *m = W->m;
    size_t n = m->nmisplaced + 1;
    m->misplaced = oklc_arena_grow(&W->c->arena, m->misplaced, (n - 1) * sizeof(Attr *),
                                   n * sizeof(Attr *));
    m->misplaced_what = oklc_arena_grow(&W->c->arena, m->misplaced_what,
                                        (n - 1) * sizeof(char *), n * sizeof(char *));
    m->misplaced[n - 1] = a;
    m->misplaced_what[n - 1] = what;
    m->nmisplaced = n;
}

/* ---- variables --------------------------------------------------------------------------- */

static void remember(Walk *W, Var *v)
{
    if (W->nvars * 2 >= W->vcap) {
        size_t ncap = W->vcap ? W->vcap * 2 : 256;
        VarSlot *old = W->vars;
        size_t ocap = W->vcap;
        W->vars = oklc_arena_alloc(&W->c->arena, ncap * sizeof(VarSlot));
        W->vcap = ncap;
        W->nvars = 0;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].var)
                remember(W, old[i].var);
    }
    size_t i = (v->name_off * 2654435761u) & (W->vcap - 1);
    while (W->vars[i].var && W->vars[i].off != v->name_off)
        i = (i + 1) & (W->vcap - 1);
    if (!W->vars[i].var)
        W->nvars++;
    W->vars[i] = (VarSlot){v->name_off, v};
}

static Var *var_at(Walk *W, uint32_t name_off)
{
    if (!W->vcap)
        return NULL;
    size_t i = (name_off * 2654435761u) & (W->vcap - 1);
    while (W->vars[i].var) {
        if (W->vars[i].off == name_off)
            return W->vars[i].var;
        i = (i + 1) & (W->vcap - 1);
    }
    return NULL;
}

/* The variable a DeclRefExpr refers to, if we know it. */
static Var *referenced_var(Walk *W, CXCursor ref)
{
    CXCursor d = clang_getCursorReferenced(ref);
    if (clang_Cursor_isNull(d))
        return NULL;
    uint32_t off = oklc_cx_offset(clang_getCursorLocation(d));
    return off == UINT32_MAX ? NULL : var_at(W, off);
}

static Type read_type(Walk *W, CXType t)
{
    Type ty = {0};
    ty.spelling = oklc_cx_string(W->c, clang_getTypeSpelling(t));
    ty.is_const = clang_isConstQualifiedType(t);
    ty.array_size = -1;
    CXType k = clang_getCanonicalType(t);
    ty.dependent = k.kind == CXType_Dependent || k.kind == CXType_Unexposed;
    CXType e = {CXType_Invalid, {0, 0}};
    switch (k.kind) {
    case CXType_Pointer:
        ty.pointer = true;
        e = clang_getPointeeType(k);
        break;
    case CXType_LValueReference:
    case CXType_RValueReference:
        ty.reference = true;
        e = clang_getPointeeType(k);
        break;
    case CXType_ConstantArray:
    case CXType_IncompleteArray:
    case CXType_VariableArray:
    case CXType_DependentSizedArray:
        ty.array = true;
        ty.dependent |= k.kind == CXType_DependentSizedArray;
        /* libclang drops the element's const through the canonical type:
         * ask the type as written first */
        e = clang_getArrayElementType(t);
        if (e.kind == CXType_Invalid)
            e = clang_getArrayElementType(k);
        if (k.kind == CXType_ConstantArray) {
            ty.array_size = clang_getArraySize(k);
            for (CXType a = k; a.kind == CXType_ConstantArray; a = clang_getArrayElementType(a))
                ty.array_dims++;
        }
        /* arrays are const by their innermost elements */
        for (CXType in = e; in.kind != CXType_Invalid; in = clang_getArrayElementType(in))
            ty.is_const = clang_isConstQualifiedType(in);
        break;
    default:
        break;
    }
    if (e.kind != CXType_Invalid) {
        ty.element = oklc_cx_string(W->c, clang_getTypeSpelling(e));
        ty.element_const = clang_isConstQualifiedType(e);
    }
    return ty;
}

/* double, an array of it or a pointer to it, or one of OKL's double
 * vectors (which some targets have only with an extension). */
static bool names_double(CXType t)
{
    for (int depth = 0; depth < 8; depth++) {
        t = clang_getCanonicalType(t);
        switch (t.kind) {
        case CXType_Double:
        case CXType_LongDouble:
            return true;
        case CXType_Pointer:
        case CXType_LValueReference:
        case CXType_RValueReference:
            t = clang_getPointeeType(t);
            continue;
        case CXType_ConstantArray:
        case CXType_IncompleteArray:
        case CXType_VariableArray:
            t = clang_getArrayElementType(t);
            continue;
        case CXType_Record: {
            CXString sp = clang_getCursorSpelling(clang_getTypeDeclaration(t));
            const char *n = clang_getCString(sp);
            bool d = !strncmp(n, "double", 6) && n[6] >= '2' && n[6] <= '4' && !n[7];
            clang_disposeString(sp);
            return d;
        }
        default:
            return false;
        }
    }
    return false;
}

/* The attributes of a declaration: before its specifiers, after its name,
 * after a '*' of its declarator. */
static void decl_attrs(Walk *W, Range ext, uint32_t name_off, AttrList *next, AttrList *prev,
                       AttrList *ptr)
{
    claim(W, ANCHOR_NEXT, ext.begin, name_off, next);
    /* after the name, or after its array bounds: int a[4] @dim(2, 2) */
    size_t k = tok_at(W, name_off) + 1;
    while (k < W->ntoks - 1 && oklc_tok_is_punct(W->toks[k], P_LBRACKET))
        k = closing(W, k) + 1;
    claim(W, ANCHOR_PREV, name_off, W->toks[k - 1]->loc.off, prev);
    if (name_off > ext.begin)
        claim(W, ANCHOR_PREV, ext.begin, name_off - 1, ptr);
}

static const char *decl_what(VarKind k)
{
    switch (k) {
    case VAR_PARAM: return "a parameter";
    case VAR_FIELD: return "a struct field";
    case VAR_TYPEDEF: return "a typedef";
    default: return "a variable";
    }
}

/* Sorts a declaration's attributes into its fields; the rest are misplaced. */
static void apply_decl_attrs(Walk *W, Var *v, AttrList *all, bool pointer_only)
{
    for (size_t i = 0; i < all->len; i++) {
        Attr *a = all->data[i];
        Attr **slot = NULL;
        switch (a->id) {
        case ATTR_SHARED: slot = pointer_only ? NULL : &v->shared; break;
        case ATTR_EXCLUSIVE: slot = pointer_only ? NULL : &v->exclusive; break;
        case ATTR_RESTRICT: slot = &v->restrict_; break;
        case ATTR_GLOBAL_PTR: slot = &v->global_ptr; break;
        case ATTR_DIM: slot = pointer_only ? NULL : &v->dim; break;
        case ATTR_DIMORDER: slot = pointer_only ? NULL : &v->dim_order; break;
        default: break;
        }
        if (!slot) {
            misplaced(W, a, decl_what(v->kind));
        } else if (*slot) {
            misplaced(W, a, "a declaration that has it already");
        } else {
            *slot = a;
        }
    }
}

/* The typedef a declaration's type names, if it is one of ours; through
 * arrays (sh_float_t s[32] is an array of a @shared typedef). */
static const Var *typedef_of(Walk *W, CXType t)
{
    while (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
           t.kind == CXType_VariableArray || t.kind == CXType_DependentSizedArray)
        t = clang_getArrayElementType(t);
    for (int guard = 0; guard < 8; guard++) {
        CXCursor d = clang_getTypeDeclaration(t);
        CXCursorKind k = clang_getCursorKind(d);
        if (clang_Cursor_isNull(d) || (k != CXCursor_TypedefDecl && k != CXCursor_TypeAliasDecl))
            return NULL;
        const Var *v = var_at(W, oklc_cx_offset(clang_getCursorLocation(d)));
        if (v)
            return v;
        t = clang_getTypedefDeclUnderlyingType(d);
    }
    return NULL;
}

/* The declarator's end (after its [dims]) and the initializer's range. */
static void initializer(Walk *W, Var *v)
{
    size_t k = tok_at(W, v->name_off), end = tok_at(W, v->range.end);
    if (k >= end || !oklc_tok_eq(W->toks[k], v->name))
        return;
    k++;
    while (k < end && oklc_tok_is_punct(W->toks[k], P_LBRACKET) &&
           !oklc_tok_is_punct(W->toks[k + 1], P_LBRACKET))    /* not [[attributes]] */
        k = closing(W, k) + 1;
    v->declarator_end = tok_end(W->toks[k - 1]);
    while (k + 1 < end && oklc_tok_is_punct(W->toks[k], P_LBRACKET))
        k = closing(W, k) + 1;       /* [[attributes]] */
    if (k >= end)
        return;
    const Token *t = W->toks[k];
    if (oklc_tok_is_punct(t, P_ASSIGN) && k + 1 < end) {
        v->init_form = '=';
        v->init = (Range){W->toks[k + 1]->loc.off, v->range.end};
    } else if (oklc_tok_is_punct(t, P_LBRACE) || oklc_tok_is_punct(t, P_LPAREN)) {
        v->init_form = oklc_tok_is_punct(t, P_LBRACE) ? '{' : '(';
        v->init = (Range){t->loc.off, v->range.end};
    }
}

static Var *make_var(Walk *W, CXCursor cur, VarKind kind)
{
    Var *v = oklc_arena_alloc(&W->c->arena, sizeof *v);
    v->kind = kind;
    v->name = oklc_cx_string(W->c, clang_getCursorSpelling(cur));
    v->range = oklc_cx_range(cur);
    v->name_off = oklc_cx_offset(clang_getCursorLocation(cur));
    CXType t = kind == VAR_TYPEDEF ? clang_getTypedefDeclUnderlyingType(cur)
                                   : clang_getCursorType(cur);
    v->type = read_type(W, t);
    v->typedef_var = typedef_of(W, t);
    W->uses_double |= kind != VAR_TYPEDEF && names_double(t);
    long long size = clang_Type_getSizeOf(t);
    v->size = size > 0 ? size : -1;
    switch (clang_getCanonicalType(t).kind) {
    case CXType_Bool: case CXType_Char_U: case CXType_UChar: case CXType_Char16:
    case CXType_Char32: case CXType_UShort: case CXType_UInt: case CXType_ULong:
    case CXType_ULongLong: case CXType_Char_S: case CXType_SChar: case CXType_WChar:
    case CXType_Short: case CXType_Int: case CXType_Long: case CXType_LongLong:
    case CXType_Enum:
        v->is_int = true;
        break;
    case CXType_Float: case CXType_Double: case CXType_LongDouble: case CXType_Half:
    case CXType_Float16:
        v->is_float = true;
        break;
    default:
        break;
    }
    if (v->name_off > v->range.begin)
        v->type_written = text_of(W, tok_at(W, v->range.begin), tok_at(W, v->name_off));
    size_t first = tok_at(W, v->range.begin);
    while (first + 1 < W->ntoks && oklc_tok_is_punct(W->toks[first], P_LBRACKET) &&
           oklc_tok_is_punct(W->toks[first + 1], P_LBRACKET))
        first = closing(W, first) + 1;         /* [[attributes]] */
    v->type_at = first < W->ntoks ? W->toks[first]->loc.off : v->range.begin;
    v->kernel = W->kernel;
    v->loop = W->loop;
    v->loop_iter = v->name_off >= W->for_header.begin && v->name_off < W->for_header.end;
    if (kind == VAR_LOCAL || kind == VAR_GLOBAL || kind == VAR_PARAM)
        initializer(W, v);
    if (kind == VAR_LOCAL || kind == VAR_GLOBAL) {
        /* constexpr is in the tokens; const in the type */
        for (size_t k = tok_at(W, v->range.begin); k < tok_at(W, v->name_off); k++)
            v->constexpr_ |= oklc_tok_eq(W->toks[k], "constexpr");
    }
    return v;
}

/* VarDecl, ParmDecl, FieldDecl, TypedefDecl; `shared_next` are the
 * attributes before the first declarator of a declaration statement. */
static Var *declare(Walk *W, CXCursor cur, VarKind kind, AttrList *shared_next)
{
    Var *v = make_var(W, cur, kind);
    AttrList next = {0}, prev = {0}, ptr = {0};
    decl_attrs(W, v->range, v->name_off, &next, &prev, &ptr);
    if (shared_next && next.len == 0)
        next = *shared_next;             /* int a, b: both get them */
    else if (shared_next)
        *shared_next = next;
    apply_decl_attrs(W, v, &next, false);
    apply_decl_attrs(W, v, &prev, false);
    apply_decl_attrs(W, v, &ptr, true);
    remember(W, v);
    return v;
}

/* ---- loops -------------------------------------------------------------------------------- */

static Cmp flip(Cmp c)
{
    switch (c) {
    case CMP_LT: return CMP_GT;
    case CMP_LE: return CMP_GE;
    case CMP_GT: return CMP_LT;
    case CMP_GE: return CMP_LE;
    default: return c;
    }
}

static bool cmp_of(const Token *t, Cmp *out)
{
    if (t->kind != TK_PUNCT)
        return false;
    switch (t->punct) {
    case P_LT: *out = CMP_LT; return true;
    case P_LE: *out = CMP_LE; return true;
    case P_GT: *out = CMP_GT; return true;
    case P_GE: *out = CMP_GE; return true;
    case P_NE: *out = CMP_NE; return true;
    default: return false;
    }
}

const char *oklc_cmp_spelling(Cmp cmp)
{
    static const char *const s[] = {"<", "<=", ">", ">=", "!="};
    return s[cmp];
}

/* One token, or something that needs parentheses to be an operand. */
static const char *operand(Walk *W, const char *s)
{
    bool simple = true;
    for (const char *p = s; *p && simple; p++)
        simple = strchr(" +-*/%<>=&|^?:,!~", *p) == NULL;
    return simple ? s : oklc_arena_printf(&W->c->arena, "(%s)", s);
}

/* An integer constant Clang can compute, under `root`, with extent `r`. */
typedef struct Find {
    Range    r;
    CXCursor found;
    bool     ok;
} Find;

static enum CXChildVisitResult find_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    Find *f = data;
    Range r = oklc_cx_range(cur);
    if (r.begin == f->r.begin && r.end == f->r.end) {
        f->found = cur;
        f->ok = true;
        return CXChildVisit_Break;
    }
    if (r.begin <= f->r.begin && r.end >= f->r.end)
        return CXChildVisit_Recurse;
    return CXChildVisit_Continue;
}

/* Does the text mention a template parameter (so Clang cannot evaluate)? */
static bool mentions_tparam(Walk *W, Range r)
{
    for (size_t k = tok_at(W, r.begin); k < tok_at(W, r.end); k++)
        for (size_t i = 0; i < W->ntparams; i++)
            if (oklc_tok_eq(W->toks[k], W->tparams[i]))
                return true;
    return false;
}

static bool evaluate(Walk *W, CXCursor root, Range r, int64_t *out)
{
    if (mentions_tparam(W, r))
        return false;
    Find f = {r, clang_getNullCursor(), false};
    clang_visitChildren(root, find_visit, &f);
    if (!f.ok)
        return false;
    CXEvalResult e = clang_Cursor_Evaluate(f.found);
    if (!e)
        return false;
    bool ok = clang_EvalResult_getKind(e) == CXEval_Int;
    if (ok)
        *out = clang_EvalResult_isUnsignedInt(e) ? (int64_t)clang_EvalResult_getAsUnsigned(e)
                                                 : clang_EvalResult_getAsLongLong(e);
    clang_EvalResult_dispose(e);
    return ok;
}

static Range tok_range(Walk *W, size_t from, size_t to)
{
    Range r = {W->toks[from]->loc.off, from < to ? tok_end(W->toks[to - 1]) : W->toks[from]->loc.off};
    return r;
}

/* The loop's iteration count: an expression, and a number when Clang can
 * evaluate start, bound and stride. */
static bool single_operand(Walk *W, size_t from, size_t to);

/* hi = lo + rest, token for token (parentheses around hi aside): the
 * range of rest. OKL's tiles written by hand: i from x to x + 16. */
static bool offset_span(Walk *W, Range lo, Range hi, Range *rest)
{
    size_t lb = tok_at(W, lo.begin), le = tok_at(W, lo.end);
    size_t hb = tok_at(W, hi.begin), he = tok_at(W, hi.end);
    if (he > hb + 1 && oklc_tok_is_punct(W->toks[hb], P_LPAREN) && closing(W, hb) == he - 1)
        hb++, he--;
    size_t n = le - lb;
    if (!n || he <= hb + n + 1)
        return false;
    for (size_t i = 0; i < n; i++)
        if (W->toks[lb + i]->len != W->toks[hb + i]->len ||
            memcmp(W->toks[lb + i]->text, W->toks[hb + i]->text, W->toks[lb + i]->len))
            return false;
    if (!oklc_tok_is_punct(W->toks[hb + n], P_PLUS) || !single_operand(W, hb + n + 1, he))
        return false;
    for (size_t k = hb + n + 1; k < he; k++)
        if (W->toks[k]->kind == TK_PUNCT && (W->toks[k]->punct == P_PLUS ||
                                             W->toks[k]->punct == P_MINUS))
            return false;                  /* x + 16 - 1: not one offset */
    *rest = (Range){W->toks[hb + n + 1]->loc.off, tok_end(W->toks[he - 1])};
    return true;
}

static void trip_count(Walk *W, CXCursor fs, Loop *l, Range start, Range bound, Range stride)
{
    int64_t v0, v1, vs = 1;
    bool k0 = evaluate(W, fs, start, &v0), k1 = evaluate(W, fs, bound, &v1);
    bool ks = stride.end ? evaluate(W, fs, stride, &vs) : true;
    if (ks && vs <= 0) {
        l->problem = oklc_arena_printf(&W->c->arena, "the step %s the iterator by %lld, so the "
                                       "loop never ends",
                                       l->down ? "decreases" : "increases", (long long)vs);
        return;
    }
    const char *lo = operand(W, l->down ? l->bound : l->start);
    const char *hi = operand(W, l->down ? l->start : l->bound);
    const char *st = operand(W, l->stride);
    bool unit = !strcmp(l->stride, "1");
    Arena *a = &W->c->arena;
    bool zero = !strcmp(lo, "0");
    switch (l->cmp) {
    case CMP_LT: case CMP_GT:
        l->trips = unit && zero ? hi
                 : unit ? oklc_arena_printf(a, "%s - %s", hi, lo)
                        : oklc_arena_printf(a, "(%s - %s + %s - 1) / %s", hi, lo, st, st);
        break;
    case CMP_LE: case CMP_GE:
        l->trips = unit && zero ? oklc_arena_printf(a, "%s + 1", hi)
                 : unit ? oklc_arena_printf(a, "%s - %s + 1", hi, lo)
                        : oklc_arena_printf(a, "(%s - %s + %s) / %s", hi, lo, st, st);
        break;
    case CMP_NE:
        l->trips = unit && zero ? hi
                 : unit ? oklc_arena_printf(a, "%s - %s", hi, lo)
                        : oklc_arena_printf(a, "(%s - %s) / %s", hi, lo, st);
        break;
    }
    Range rest;
    int64_t vr;
    if (!(k0 && k1) && offset_span(W, l->down ? bound : start, l->down ? start : bound, &rest)) {
        /* for (i = x; i < x + 16; ...): the count is the offset's */
        const char *sp = text_of(W, tok_at(W, rest.begin), tok_at(W, rest.end));
        sp = operand(W, sp);
        bool le = l->cmp == CMP_LE || l->cmp == CMP_GE;
        l->trips = unit ? (le ? oklc_arena_printf(a, "%s + 1", sp) : sp)
                        : oklc_arena_printf(a, le ? "(%s + %s) / %s" : "(%s + %s - 1) / %s", sp,
                                            st, st);
        if (evaluate(W, fs, rest, &vr)) {
            v0 = 0, v1 = vr;
            k0 = k1 = true;
            if (l->down)
                v0 = vr, v1 = 0;
        }
    }
    if (k0 && k1 && ks) {
        int64_t span = l->down ? v0 - v1 : v1 - v0, tr;
        switch (l->cmp) {
        case CMP_LT: case CMP_GT: tr = (span + vs - 1) / vs; break;
        case CMP_LE: case CMP_GE: tr = (span + vs) / vs; break;
        default: tr = span / vs; break;
        }
        l->trips_known = true;
        l->ntrips = tr < 0 ? 0 : tr;
    }
    l->analyzed = true;
}

/* The step clause: ++i i++ --i i-- i += s  i -= s  i = i + s  i = s + i
 * i = i - s. Sets l->stride (and *stride to its range) and l->down. */
static bool read_step(Walk *W, Loop *l, size_t s, size_t e, Range *stride)
{
    const Token *t0 = s < e ? W->toks[s] : NULL, *t1 = s + 1 < e ? W->toks[s + 1] : NULL;
    bool it0 = t0 && oklc_tok_eq(t0, l->iter), it1 = t1 && oklc_tok_eq(t1, l->iter);
    *stride = (Range){0, 0};
    if (e - s == 2 && ((oklc_tok_is_punct(t0, P_INC) && it1) ||
                       (it0 && oklc_tok_is_punct(t1, P_INC)))) {
        l->stride = "1";
        return true;
    }
    if (e - s == 2 && ((oklc_tok_is_punct(t0, P_DEC) && it1) ||
                       (it0 && oklc_tok_is_punct(t1, P_DEC)))) {
        l->stride = "1";
        l->down = true;
        return true;
    }
    if (e - s >= 3 && it0 && (oklc_tok_is_punct(t1, P_PLUSEQ) || oklc_tok_is_punct(t1, P_MINUSEQ))) {
        l->stride = text_of(W, s + 2, e);
        *stride = tok_range(W, s + 2, e);
        l->down = oklc_tok_is_punct(t1, P_MINUSEQ);
        return true;
    }
    if (e - s >= 5 && it0 && oklc_tok_is_punct(t1, P_ASSIGN)) {
        const Token *x = W->toks[s + 2], *op = W->toks[s + 3];
        if (oklc_tok_eq(x, l->iter) && (oklc_tok_is_punct(op, P_PLUS) || oklc_tok_is_punct(op, P_MINUS))) {
            l->stride = text_of(W, s + 4, e);
            *stride = tok_range(W, s + 4, e);
            l->down = oklc_tok_is_punct(op, P_MINUS);
            return true;
        }
        if (oklc_tok_eq(W->toks[e - 1], l->iter) && oklc_tok_is_punct(W->toks[e - 2], P_PLUS)) {
            l->stride = text_of(W, s + 2, e - 2);
            *stride = tok_range(W, s + 2, e - 2);
            return true;
        }
    }
    return false;
}

/* Is [from, to) one operand of a comparison: no comparison, logical
 * operator, ?: or comma outside brackets (templates aside)? */
static bool single_operand(Walk *W, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++) {
        const Token *t = W->toks[k];
        if (t->kind != TK_PUNCT)
            continue;
        if (t->punct == P_LPAREN || t->punct == P_LBRACKET || t->punct == P_LBRACE) {
            k = closing(W, k);
            continue;
        }
        switch (t->punct) {
        case P_ANDAND: case P_OROR: case P_QUESTION: case P_COMMA: case P_EQ: case P_NE:
        case P_LE: case P_GE:
            return false;
        default:
            break;
        }
    }
    return true;
}

/* for (T i = start; i CMP bound; step): the iterator, start and bound,
 * and the clauses' tokens in cl (open + 1, the two semicolons, close).
 * When a form is not one OKL can map, l->problem says why. */
static bool read_header(Walk *W, Loop *l, size_t open, size_t cl[4], Range *start, Range *bound)
{
    size_t close = closing(W, open);
    cl[0] = open + 1, cl[1] = cl[2] = 0, cl[3] = close;
    int n = 0;
    for (size_t k = open + 1; k < close; k++) {
        const Token *t = W->toks[k];
        if (t->kind == TK_PUNCT && (t->punct == P_LPAREN || t->punct == P_LBRACKET ||
                                    t->punct == P_LBRACE))
            k = closing(W, k);
        else if (oklc_tok_is_punct(t, P_SEMI) && n < 2)
            cl[++n] = k;
    }
    l->header = (Range){W->toks[open]->loc.off, tok_end(W->toks[close])};
    if (n != 2) {
        l->problem = "a range-based for loop has no iteration count OKL can compute";
        return false;
    }
    l->init = tok_range(W, cl[0], cl[1]);
    l->cond = tok_range(W, cl[1] + 1, cl[2]);
    l->step = tok_range(W, cl[2] + 1, cl[3]);

    /* init: T i = start, T i{start}, T i(start) */
    size_t eq = cl[0], init_end = cl[1];
    while (eq < cl[1] && !oklc_tok_is_punct(W->toks[eq], P_ASSIGN))
        eq++;
    if (eq >= cl[1] && cl[1] > cl[0] + 2) {
        const Token *last = W->toks[cl[1] - 1];
        if (oklc_tok_is_punct(last, P_RBRACE) || oklc_tok_is_punct(last, P_RPAREN)) {
            size_t o = cl[1] - 1;
            while (o > cl[0] && closing(W, o - 1) != cl[1] - 1)
                o--;
            o--;
            if (o > cl[0] && W->toks[o - 1]->kind == TK_IDENT) {
                eq = o;               /* the brace or parenthesis stands for '=' */
                init_end = cl[1] - 1;
            }
        }
    }
    if (cl[1] == cl[0] && cl[2] == cl[1] + 1 && cl[3] == cl[2] + 1) {
        l->problem = "the loop has no header; write it in full: "
                     "for (int i = start; i < bound; ++i)";
        return false;
    }
    if (eq >= cl[1] || eq == cl[0] || W->toks[eq - 1]->kind != TK_IDENT || eq == cl[0] + 1) {
        l->problem = "the loop must declare its iterator in its first clause: "
                     "for (int i = start; ...)";
        return false;
    }
    for (size_t k = eq; k < cl[1]; k++)
        if (oklc_tok_is_punct(W->toks[k], P_COMMA)) {
            l->problem = "the loop must declare one iterator only";
            return false;
        }
    const Token *it = W->toks[eq - 1];
    l->iter = oklc_arena_strndup(&W->c->arena, it->text, it->len);
    l->iter_off = it->loc.off;
    *start = tok_range(W, eq + 1, init_end);
    l->start = text_of(W, eq + 1, init_end);

    /* cond: i CMP bound, or bound CMP i */
    size_t a = cl[1] + 1, b = cl[2];
    if (b - a >= 3 && oklc_tok_eq(W->toks[a], l->iter) && cmp_of(W->toks[a + 1], &l->cmp)) {
        l->bound = text_of(W, a + 2, b);
        *bound = tok_range(W, a + 2, b);
    } else if (b - a >= 3 && oklc_tok_eq(W->toks[b - 1], l->iter) &&
               cmp_of(W->toks[b - 2], &l->cmp)) {
        l->cmp = flip(l->cmp);
        l->bound = text_of(W, a, b - 2);
        *bound = tok_range(W, a, b - 2);
    } else {
        *bound = (Range){0, 0};
    }
    if (bound->end && !single_operand(W, tok_at(W, bound->begin), tok_at(W, bound->end)))
        *bound = (Range){0, 0};       /* i < N && i < M: not one bound */
    if (!bound->end) {
        l->problem = oklc_arena_printf(&W->c->arena, "the condition must compare the iterator "
                                       "with a bound: %s < N, %s <= N, %s > N, %s >= N or "
                                       "%s != N",
                                       l->iter, l->iter, l->iter, l->iter, l->iter);
        return false;
    }
    return true;
}

/* The header of an OKL loop (see read_header); the step must be one OKL
 * can map, and the iteration count follows. */
static void analyze_header(Walk *W, CXCursor fs, Loop *l, size_t open)
{
    size_t cl[4];
    Range start, bound;
    if (!read_header(W, l, open, cl, &start, &bound))
        return;
    Range stride;
    if (!read_step(W, l, cl[2] + 1, cl[3], &stride)) {
        l->problem = oklc_arena_printf(&W->c->arena, "the step must be ++%s, %s++, --%s, %s--, "
                                       "%s += s, %s -= s or %s = %s + s",
                                       l->iter, l->iter, l->iter, l->iter, l->iter, l->iter,
                                       l->iter, l->iter);
        return;
    }
    bool up_cmp = l->cmp == CMP_LT || l->cmp == CMP_LE;
    if (l->cmp != CMP_NE && up_cmp == l->down) {
        l->problem = oklc_arena_printf(&W->c->arena, "the condition '%s %s %s' needs %s iterator, "
                                       "but the step %s it",
                                       l->iter, oklc_cmp_spelling(l->cmp), l->bound,
                                       up_cmp ? "an increasing" : "a decreasing",
                                       l->down ? "decreases" : "increases");
        return;
    }
    trip_count(W, fs, l, start, bound, stride);
}

/* The most iterations plain_trips counts: enough for any loop worth
 * unrolling whole. */
#define PLAIN_TRIPS_MAX 64

/* One step of a plain loop's iterator (the operator of `x op= by`); false
 * when the value would leave the range that is safe to compute in. */
static bool plain_step(int64_t *v, int op, int64_t by)
{
    const int64_t limit = (int64_t)1 << 40;
    switch (op) {
    case '+': *v += by; break;
    case '-': *v -= by; break;
    case '*': *v *= by; break;
    case '/': *v /= by; break;
    case '<':
        if (*v < 0 || *v > limit >> by)
            return false;
        *v <<= by;
        break;
    default:
        if (*v < 0)
            return false;
        *v >>= by;
        break;
    }
    return *v >= -limit && *v <= limit;
}

/* A for loop without OKL attributes: its iteration count, when its header
 * is `T x = start; x CMP bound; step` with a step ++x, x++, --x, x--,
 * x += s, x -= s, x *= s, x /= s, x <<= s or x >>= s, and Clang computes
 * start, bound and s (`for (int alive = 128; alive > 0; alive /= 2)`: 8);
 * -1 if not, or above PLAIN_TRIPS_MAX. A CPU backend unrolls such a loop
 * around @inner loops. */
static int32_t plain_trips(Walk *W, CXCursor fs)
{
    Loop l = {0};
    size_t cl[4];
    Range start, bound;
    if (!read_header(W, &l, tok_at(W, oklc_cx_range(fs).begin) + 1, cl, &start, &bound))
        return -1;
    size_t s = cl[2] + 1, e = cl[3];
    const Token *t0 = s < e ? W->toks[s] : NULL, *t1 = s + 1 < e ? W->toks[s + 1] : NULL;
    if (!t1)
        return -1;
    int op = 0;
    int64_t by = 1, v, end;
    if (e - s == 2 && (oklc_tok_eq(t0, l.iter) || oklc_tok_eq(t1, l.iter))) {
        const Token *o = oklc_tok_eq(t0, l.iter) ? t1 : t0;
        op = oklc_tok_is_punct(o, P_INC) ? '+' : oklc_tok_is_punct(o, P_DEC) ? '-' : 0;
    } else if (e - s >= 3 && oklc_tok_eq(t0, l.iter) && t1->kind == TK_PUNCT) {
        switch (t1->punct) {
        case P_PLUSEQ: op = '+'; break;
        case P_MINUSEQ: op = '-'; break;
        case P_STAREQ: op = '*'; break;
        case P_SLASHEQ: op = '/'; break;
        case P_SHLEQ: op = '<'; break;
        case P_SHREQ: op = '>'; break;
        default: break;
        }
        if (op && !evaluate(W, fs, tok_range(W, s + 2, e), &by))
            return -1;
    }
    if (!op || !evaluate(W, fs, start, &v) || !evaluate(W, fs, bound, &end) ||
        (op == '/' && !by) || ((op == '<' || op == '>') && (by < 0 || by > 40)) ||
        by < -((int64_t)1 << 20) || by > (int64_t)1 << 20)
        return -1;
    for (int32_t n = 0; n <= PLAIN_TRIPS_MAX; n++) {
        bool more = l.cmp == CMP_LT ? v < end : l.cmp == CMP_LE ? v <= end
                  : l.cmp == CMP_GT ? v > end : l.cmp == CMP_GE ? v >= end : v != end;
        if (!more)
            return n;
        if (!plain_step(&v, op, by))
            return -1;
    }
    return -1;
}

/* A loop level of a for statement, hooked into the tree of the kernel. */
static Loop *new_loop(Walk *W, const Loop *proto, LoopKind kind, Attr *attr, Loop *parent)
{
    Loop *l = oklc_arena_alloc(&W->c->arena, sizeof *l);
    *l = *proto;
    l->kind = kind;
    l->attr = attr;
    l->kernel = W->kernel;
    l->parent = parent;
    l->level = parent ? parent->level + 1 : 0;
    l->kids = NULL;
    l->nkids = 0;
    vec_push(&W->c->arena, &W->loops, l);
    if (parent && kind != LOOP_REGULAR) {
        parent->kids = oklc_arena_grow(&W->c->arena, parent->kids, parent->nkids * sizeof(Loop *),
                                       (parent->nkids + 1) * sizeof(Loop *));
        parent->kids[parent->nkids++] = l;
    }
    return l;
}

/* The kind and the written axis an attribute (@outer(1), @inner) gives. */
static LoopKind level_kind(const Attr *a)
{
    if (!a || (a->id != ATTR_OUTER && a->id != ATTR_INNER))
        return LOOP_REGULAR;
    return a->id == ATTR_OUTER ? LOOP_OUTER : LOOP_INNER;
}

static void set_axis(Loop *l, Attr *a)
{
    if (!a || !a->nargs)
        return;
    uint64_t v;
    bool u;
    const char *err, *t = a->args[0].text;
    l->axis_given = true;
    l->axis_attr = a;
    l->axis = oklc_int_literal(t, strlen(t), &v, &u, &err) && v <= 2 ? (int)v : -1;
}

/* Sorts a for statement's attributes; the ones that cannot be there, or
 * are there twice, are misplaced. */
static Attr *loop_attrs(Walk *W, AttrList *attrs, Loop *proto)
{
    Attr *kind = NULL;
    for (size_t i = 0; i < attrs->len; i++) {
        Attr *a = attrs->data[i], **slot = NULL;
        switch (a->id) {
        case ATTR_OUTER: case ATTR_INNER: case ATTR_TILE:
            if (kind) {
                misplaced(W, a, kind->id == a->id ? "a loop that has it already"
                                                  : "a loop that has a loop attribute already");
                continue;
            }
            kind = a;
            continue;
        case ATTR_NOBARRIER: slot = &proto->nobarrier; break;
        case ATTR_MAX_INNER_DIMS: slot = &proto->max_inner_dims; break;
        case ATTR_SIMD_LENGTH: slot = &proto->simd_length; break;
        case ATTR_UNROLL: slot = &proto->unroll; break;
        default:
            misplaced(W, a, "a for loop");
            continue;
        }
        if (*slot)
            misplaced(W, a, "a loop that has it already");
        else
            *slot = a;
    }
    proto->attrs = attrs->data;
    proto->nattrs = attrs->len;
    return kind;
}

/* The iterator's type: the VarDecl in the init clause. */
typedef struct IterFind {
    uint32_t off;
    CXCursor decl;
    bool     ok;
} IterFind;

static enum CXChildVisitResult iter_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    IterFind *f = data;
    if (clang_getCursorKind(cur) == CXCursor_VarDecl &&
        oklc_cx_offset(clang_getCursorLocation(cur)) == f->off) {
        f->decl = cur;
        f->ok = true;
        return CXChildVisit_Break;
    }
    return clang_getCursorKind(cur) == CXCursor_DeclStmt ? CXChildVisit_Recurse
                                                         : CXChildVisit_Continue;
}

/* The value of a tile size written as a literal (perhaps negative, perhaps
 * in parentheses); INT64_MIN when it is not one. */
static int64_t literal_value(const char *s)
{
    size_t n = strlen(s);
    while (n >= 2 && s[0] == '(' && s[n - 1] == ')')
        s++, n -= 2;
    bool neg = n && *s == '-';
    if (neg)
        s++, n--;
    while (n && *s == ' ')
        s++, n--;
    uint64_t v;
    bool u;
    const char *err;
    if (!oklc_int_literal(s, n, &v, &u, &err) || v > INT64_MAX)
        return INT64_MIN;
    return neg ? -(int64_t)v : (int64_t)v;
}

/* @tile(size, [kind], [kind], [check]): two levels of one statement. The
 * loop over tiles steps size strides at a time; the loop in a tile runs
 * `size` times. */
static Loop *tile_levels(Walk *W, Loop *proto, Attr *tile)
{
    Attr *parts[2] = {NULL, NULL};
    int np = 0;
    bool check = true;
    for (int i = 1; i < tile->nargs; i++) {
        AttrArg *g = &tile->args[i];
        if (g->kind == ARG_ATTR && np < 2)
            parts[np++] = g->attr;
        else if (g->kind == ARG_KEYVAL && !strcmp(g->key, "check"))
            check = strcmp(g->text, "false") != 0;
    }
    const char *size = tile->nargs ? tile->args[0].text : "1";
    int64_t tv = literal_value(size);
    bool constant = tv != INT64_MIN;
    if (!constant)
        tv = -1;
    proto->tile_size = size;
    proto->tile_check = check;
    proto->tile_value = constant ? tv : INT64_MIN;

    Loop *first = new_loop(W, proto, level_kind(parts[0]), tile, W->loop);
    first->tile_part = 1;
    set_axis(first, parts[0]);
    Loop *last = new_loop(W, proto, level_kind(parts[1]), tile,
                          first->kind != LOOP_REGULAR ? first : W->loop);
    last->tile_part = 2;
    set_axis(last, parts[1]);
    first->tile_other = last;
    last->tile_other = first;
    if (proto->analyzed) {
        Arena *a = &W->c->arena;
        const char *sz = operand(W, size);
        first->stride = !strcmp(proto->stride, "1")
                            ? sz : oklc_arena_printf(a, "%s * %s", sz, operand(W, proto->stride));
        first->trips = oklc_arena_printf(a, "(%s + %s - 1) / %s", operand(W, proto->trips), sz, sz);
        first->trips_known = proto->trips_known && tv > 0;
        first->ntrips = first->trips_known ? (proto->ntrips + tv - 1) / tv : 0;
        last->trips = size;
        last->trips_known = tv > 0;
        last->ntrips = tv > 0 ? tv : 0;
    }
    return last;
}

/* A for statement with OKL attributes: one Loop level, or two for @tile.
 * Returns the innermost level. */
static Loop *attributed_for(Walk *W, CXCursor fs, AttrList *attrs)
{
    Loop proto = {0};
    proto.stmt = with_semicolon(W, oklc_cx_range(fs));
    proto.tile_value = INT64_MIN;
    Attr *kind = loop_attrs(W, attrs, &proto);
    proto.in_statement = !W->loop && W->ctl.len > 0;
    analyze_header(W, fs, &proto, tok_at(W, proto.stmt.begin) + 1);
    if (proto.iter) {
        IterFind f = {proto.iter_off, clang_getNullCursor(), false};
        clang_visitChildren(fs, iter_visit, &f);
        if (f.ok)
            proto.iter_type =
                oklc_cx_string(W->c, clang_getTypeSpelling(clang_getCursorType(f.decl)));
    }
    if (kind && kind->id == ATTR_TILE)
        return tile_levels(W, &proto, kind);
    Loop *l = new_loop(W, &proto, level_kind(kind), kind, W->loop);
    set_axis(l, kind);
    return l;
}

/* ---- control flow around barriers ------------------------------------------------------- */

/* Is a variable's value different in each thread of a block? */
static bool per_thread(const Var *v)
{
    if (!v)
        return false;
    if (v->exclusive)
        return true;
    for (const Loop *l = v->loop; l; l = l->parent)
        if (l->kind == LOOP_INNER)
            return true;
    return false;
}

typedef struct RefScan {
    Walk       *W;
    Range       r;
    const char *var;
} RefScan;

static enum CXChildVisitResult ref_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    RefScan *s = data;
    Range r = oklc_cx_range(cur);
    if (r.end <= s->r.begin || r.begin >= s->r.end)
        return CXChildVisit_Continue;
    if (clang_getCursorKind(cur) == CXCursor_DeclRefExpr) {
        Var *v = referenced_var(s->W, cur);
        if (per_thread(v)) {
            s->var = v->name;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

/* The per-thread variable read in `r` under `stmt`, if any. */
static const char *thread_var_in(Walk *W, CXCursor stmt, Range r)
{
    RefScan s = {W, r, NULL};
    if (r.end > r.begin)
        clang_visitChildren(stmt, ref_visit, &s);
    return s.var;
}

/* The parenthesized condition after a keyword: if (...), while (...). */
static Range paren_after(Walk *W, uint32_t from, const char *kw)
{
    size_t k = tok_at(W, from);
    while (k < W->ntoks - 1 && !oklc_tok_eq(W->toks[k], kw))
        k++;
    while (k < W->ntoks - 1 && !oklc_tok_is_punct(W->toks[k], P_LPAREN))
        k++;
    if (k >= W->ntoks - 1)
        return (Range){from, from};
    size_t close = closing(W, k);
    return (Range){tok_end(W->toks[k]), W->toks[close]->loc.off};
}

static void push_ctl(Walk *W, CtlKind kind, CXCursor stmt, Range cond, Loop *inner)
{
    Ctl c = {kind, cond, W->kernel ? thread_var_in(W, stmt, cond) : NULL, inner, 0, NULL};
    vec_push(&W->c->arena, &W->ctl, c);
}

/* A thread-dependent condition between here and the innermost attributed
 * loop, or (from = true) anywhere above down to stack index `from`. */
static const Ctl *divergent(Walk *W)
{
    for (size_t i = W->ctl.len; i-- > 0;) {
        const Ctl *c = &W->ctl.data[i];
        if (c->kind == CTL_LOOP && c->inner)
            return NULL;
        if (c->thread_var)
            return c;
    }
    return NULL;
}

/* The construct a jump leaves: continue its loop, break its loop or
 * switch, return and goto the whole nest (the outermost attributed loop). */
static Ctl *jump_target(Walk *W, CXCursorKind k)
{
    Ctl *t = NULL;
    for (size_t i = W->ctl.len; i-- > 0;) {
        Ctl *c = &W->ctl.data[i];
        if (k == CXCursor_ContinueStmt && c->kind == CTL_LOOP)
            return c;
        if (k == CXCursor_BreakStmt && (c->kind == CTL_LOOP || c->kind == CTL_SWITCH))
            return c;
        if ((k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt) && c->kind == CTL_LOOP && c->inner)
            t = c;
    }
    return t;
}

/* return / break / continue / goto that only some threads take: every
 * barrier after it, inside the construct it leaves, is not reached by
 * all the threads of the block. */
static void early_exit(Walk *W, CXCursor cur, CXCursorKind k)
{
    if (!W->kernel)
        return;
    Ctl *target = jump_target(W, k);
    if (!target || target->exit_off)
        return;
    for (Ctl *c = &W->ctl.data[W->ctl.len - 1]; c > target; c--)
        if (c->thread_var) {
            target->exit_off = oklc_cx_range(cur).begin;
            target->exit_what = k == CXCursor_ReturnStmt ? "return"
                                : k == CXCursor_BreakStmt ? "break"
                                : k == CXCursor_GotoStmt ? "goto" : "continue";
            return;
        }
}

static void barrier(Walk *W, CXCursor cur, Attr *a)
{
    Barrier *b = oklc_arena_alloc(&W->c->arena, sizeof *b);
    b->attr = a;
    b->stmt = oklc_cx_range(cur);
    b->loop = W->loop;
    b->kind = BARRIER_LOCAL;
    if (a->nargs) {
        const char *s = a->args[0].text;
        b->kind = !strcmp(s, "\"warp\"") ? BARRIER_WARP : !strcmp(s, "\"global\"") ? BARRIER_GLOBAL
                                                                                   : BARRIER_LOCAL;
    }
    const Ctl *d = divergent(W);
    if (d) {
        b->cond = d->cond;
        b->cond_var = d->thread_var;
    } else {
        for (size_t i = 0; i < W->ctl.len; i++)
            if (W->ctl.data[i].exit_off) {
                b->cond = (Range){W->ctl.data[i].exit_off, W->ctl.data[i].exit_off};
                b->cond_var = W->ctl.data[i].exit_what;
                break;
            }
    }
    vec_push(&W->c->arena, &W->barriers, b);
}

/* ---- statements --------------------------------------------------------------------------- */

/* A use of a variable (or parameter) of the file. */
static void reference(Walk *W, CXCursor ref)
{
    Var *v = referenced_var(W, ref);
    if (!v)
        return;
    v->refs = oklc_arena_grow(&W->c->arena, v->refs, v->nrefs * sizeof(Range),
                              (v->nrefs + 1) * sizeof(Range));
    v->refs[v->nrefs++] = oklc_cx_range(ref);
}

static bool is_expression(CXCursorKind k)
{
    return clang_isExpression(k) || k == CXCursor_UnexposedExpr;
}

/* okl::at(m, i, j) */
static void dim_access(Walk *W, CXCursor call)
{
    Range r = oklc_cx_range(call);
    size_t k = tok_at(W, r.begin);
    if (k + 4 >= W->ntoks || !oklc_tok_eq(W->toks[k], "okl") ||
        !oklc_tok_is_punct(W->toks[k + 1], P_COLONCOLON) || !oklc_tok_eq(W->toks[k + 2], "at") ||
        !oklc_tok_is_punct(W->toks[k + 3], P_LPAREN))
        return;
    size_t close = closing(W, k + 3);
    DimAccess *d = oklc_arena_alloc(&W->c->arena, sizeof *d);
    d->call = r;
    VEC(Range) args = {0};
    size_t s = k + 4;
    for (size_t j = s; j <= close; j++) {
        const Token *t = W->toks[j];
        if (j < close && t->kind == TK_PUNCT &&
            (t->punct == P_LPAREN || t->punct == P_LBRACKET || t->punct == P_LBRACE)) {
            j = closing(W, j);
            continue;
        }
        if (j == close || oklc_tok_is_punct(t, P_COMMA)) {
            if (j > s)
                vec_push(&W->c->arena, &args, tok_range(W, s, j));
            s = j + 1;
        }
    }
    if (args.len) {
        /* the array: the variable its first argument names, (m) or m */
        size_t a0 = tok_at(W, args.data[0].begin), a1 = tok_at(W, args.data[0].end);
        while (a1 - a0 >= 3 && oklc_tok_is_punct(W->toks[a0], P_LPAREN) &&
               closing(W, a0) == a1 - 1)
            a0++, a1--;
        const Token *name = a1 - a0 == 1 ? W->toks[a0] : NULL;
        for (size_t i = W->locals.len; name && i-- > 0 && !d->var;)
            if (oklc_tok_eq(name, W->locals.data[i]->name))
                d->var = W->locals.data[i];
        for (size_t i = 0; name && W->kernel && i < W->kernel->nparams && !d->var; i++)
            if (oklc_tok_eq(name, W->kernel->params[i]->name))
                d->var = W->kernel->params[i];
        for (size_t i = 0; name && i < W->globals.len && !d->var; i++)
            if (oklc_tok_eq(name, W->globals.data[i]->name))
                d->var = W->globals.data[i];
        d->index = args.data + 1;
        d->nindex = (int)args.len - 1;
    }
    vec_push(&W->c->arena, &W->dims, d);
}

static enum CXChildVisitResult child_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    walk(data, cur, parent);
    return CXChildVisit_Continue;
}

static void walk_children(Walk *W, CXCursor cur)
{
    visit(W, cur, child_visit, W);
}

/* The first child of an expression: the x of x += v, ++x. */
typedef struct Children {
    CXCursor c[2];
    int      n;
} Children;

static enum CXChildVisitResult two_children(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    Children *ch = data;
    ch->c[ch->n++] = cur;
    return ch->n == 2 ? CXChildVisit_Break : CXChildVisit_Continue;
}

static bool is_scalar(enum CXTypeKind k)
{
    return (k >= CXType_Bool && k <= CXType_Int128) || (k >= CXType_Float && k <= CXType_LongDouble);
}

/* An expression that names an object: a, a[i], s.f, *p, (a), through
 * Clang's implicit conversions. */
static bool is_object(CXCursor e)
{
    for (;;) {
        CXCursorKind k = clang_getCursorKind(e);
        if (k == CXCursor_DeclRefExpr || k == CXCursor_ArraySubscriptExpr ||
            k == CXCursor_MemberRefExpr)
            return true;
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && k != CXCursor_UnaryOperator)
            return false;
        if (k == CXCursor_UnaryOperator) {
            CXToken *tok = clang_getToken(clang_Cursor_getTranslationUnit(e),
                                          clang_getCursorLocation(e));
            bool deref = false;
            if (tok) {
                CXString sp = clang_getTokenSpelling(clang_Cursor_getTranslationUnit(e), *tok);
                deref = !strcmp(clang_getCString(sp), "*");
                clang_disposeString(sp);
                clang_disposeTokens(clang_Cursor_getTranslationUnit(e), tok, 1);
            }
            if (!deref)
                return false;
        }
        Children ch = {{clang_getNullCursor(), clang_getNullCursor()}, 0};
        clang_visitChildren(e, two_children, &ch);
        if (ch.n != 1)
            return false;
        e = ch.c[0];
    }
}

/* Do the token ranges hold the same tokens? */
static bool same_tokens(Walk *W, size_t a, size_t ae, size_t b, size_t be)
{
    if (ae - a != be - b)
        return false;
    for (; a < ae; a++, b++)
        if (W->toks[a]->len != W->toks[b]->len ||
            memcmp(W->toks[a]->text, W->toks[b]->text, W->toks[a]->len))
            return false;
    return true;
}

/* x = min(x, v), x = std::max(v, x), fminf, fmax...: an atomic minimum or
 * maximum of x and v. */
static void min_max(Walk *W, Atomic *at)
{
    static const char *const mins[] = {"min", "fmin", "fminf"}, *const maxs[] = {"max", "fmax",
                                                                                "fmaxf"};
    size_t k = tok_at(W, at->rhs.begin), e = tok_at(W, at->rhs.end);
    if (k + 2 < e && oklc_tok_eq(W->toks[k], "std") &&
        oklc_tok_is_punct(W->toks[k + 1], P_COLONCOLON))
        k += 2;
    if (k + 1 >= e || !oklc_tok_is_punct(W->toks[k + 1], P_LPAREN) || closing(W, k + 1) != e - 1)
        return;
    AtomicOp op = AT_ASSIGN;
    for (size_t i = 0; i < 3; i++)
        op = oklc_tok_eq(W->toks[k], mins[i]) ? AT_MIN
             : oklc_tok_eq(W->toks[k], maxs[i]) ? AT_MAX : op;
    size_t comma = SIZE_MAX;
    for (size_t t = k + 2; t < e - 1 && op != AT_ASSIGN; t++) {
        if (oklc_tok_is_punct(W->toks[t], P_LPAREN) || oklc_tok_is_punct(W->toks[t], P_LBRACKET))
            t = closing(W, t);
        else if (oklc_tok_is_punct(W->toks[t], P_COMMA))
            comma = comma == SIZE_MAX ? t : e;     /* (two commas: not min(a, b)) */
    }
    if (op == AT_ASSIGN || comma >= e)
        return;
    size_t x = tok_at(W, at->lhs.begin), xe = tok_at(W, at->lhs.end);
    if (same_tokens(W, x, xe, k + 2, comma))
        at->rhs = tok_range(W, comma + 1, e - 1);
    else if (same_tokens(W, x, xe, comma + 1, e - 1))
        at->rhs = tok_range(W, k + 2, comma);
    else
        return;
    at->op = op;
}

/* x op= v, x = v, ++x, x--: the operator, the operands' ranges (from the
 * tokens: the top-level operator), and x's type (from Clang). */
static void atomic_form(Walk *W, CXCursor cur, Atomic *at)
{
    static const struct {
        Punct    p;
        AtomicOp op;
    } ops[] = {
        {P_PLUSEQ, AT_ADD}, {P_MINUSEQ, AT_SUB}, {P_STAREQ, AT_MUL}, {P_SLASHEQ, AT_DIV},
        {P_PERCENTEQ, AT_MOD}, {P_AMPEQ, AT_AND}, {P_PIPEEQ, AT_OR}, {P_CARETEQ, AT_XOR},
        {P_SHLEQ, AT_SHL}, {P_SHREQ, AT_SHR}, {P_ASSIGN, AT_ASSIGN},
    };
    size_t b = tok_at(W, at->stmt.begin), e = tok_at(W, at->stmt.end);
    const Token *first = W->toks[b], *last = e > b ? W->toks[e - 1] : first;
    at->op = AT_OTHER;
    if (oklc_tok_is_punct(first, P_INC) || oklc_tok_is_punct(first, P_DEC)) {
        at->op = first->punct == P_INC ? AT_INC : AT_DEC;
        at->lhs = tok_range(W, b + 1, e);
    } else if (oklc_tok_is_punct(last, P_INC) || oklc_tok_is_punct(last, P_DEC)) {
        at->op = last->punct == P_INC ? AT_INC : AT_DEC;
        at->lhs = tok_range(W, b, e - 1);
    } else {
        for (size_t k = b; k < e && at->op == AT_OTHER; k++) {
            const Token *t = W->toks[k];
            if (t->kind == TK_PUNCT && (t->punct == P_LPAREN || t->punct == P_LBRACKET ||
                                        t->punct == P_LBRACE)) {
                k = closing(W, k);
                continue;
            }
            for (size_t i = 0; i < OKLC_COUNTOF(ops); i++)
                if (oklc_tok_is_punct(t, ops[i].p) && k > b && k + 1 < e) {
                    at->op = ops[i].op;
                    at->lhs = tok_range(W, b, k);
                    at->rhs = tok_range(W, k + 1, e);
                    break;
                }
        }
    }
    Children ch = {{clang_getNullCursor(), clang_getNullCursor()}, 0};
    clang_visitChildren(cur, two_children, &ch);
    CXCursor lhs = ch.c[0];
    if (!clang_Cursor_isNull(lhs)) {
        CXType t = clang_getCursorType(lhs);
        at->type = oklc_cx_string(W->c, clang_getTypeSpelling(t));
        enum CXTypeKind k = clang_getCanonicalType(t).kind;
        at->scalar = is_scalar(k);
        at->is_float = k >= CXType_Float && k <= CXType_LongDouble;
        at->is_signed = k >= CXType_Char_S && k <= CXType_Int128;
        at->size = (int)clang_Type_getSizeOf(t);
    }
    if (at->op == AT_ASSIGN && ch.n == 2)
        at->rhs_lvalue = is_object(ch.c[1]);
    if (at->op == AT_ASSIGN)
        min_max(W, at);
}

/* Attributes that start a statement (ANCHOR_NEXT at its first token). */
static void statement_attrs(Walk *W, CXCursor cur, CXCursorKind k, AttrList *attrs)
{
    for (size_t i = 0; i < attrs->len; i++) {
        Attr *a = attrs->data[i];
        bool twice = false;
        for (size_t j = 0; j < i; j++)
            twice |= attrs->data[j]->id == a->id;
        if (twice) {
            misplaced(W, a, "a statement that has it already");
        } else if (a->id == ATTR_BARRIER && k == CXCursor_NullStmt && !W->kernel) {
            misplaced(W, a, "a statement outside a kernel");
        } else if (a->id == ATTR_BARRIER && k == CXCursor_NullStmt) {
            barrier(W, cur, a);
        } else if (a->id == ATTR_ATOMIC && (k == CXCursor_CompoundStmt || is_expression(k))) {
            Atomic *at = oklc_arena_alloc(&W->c->arena, sizeof *at);
            at->attr = a;
            at->stmt = oklc_cx_range(cur);
            at->block = k == CXCursor_CompoundStmt;
            at->loop = W->loop;
            if (!at->block)
                atomic_form(W, cur, at);
            vec_push(&W->c->arena, &W->atomics, at);
        } else {
            misplaced(W, a, k == CXCursor_NullStmt ? "an empty statement"
                            : k == CXCursor_CompoundStmt ? "a block"
                            : is_expression(k) ? "an expression statement"
                            : k == CXCursor_ForStmt || k == CXCursor_CXXForRangeStmt
                                ? "a for loop"
                                : "this statement");
        }
    }
}

static void for_stmt(Walk *W, CXCursor cur, AttrList *attrs)
{
    Loop *saved = W->loop;
    Range saved_header = W->for_header;
    if (attrs->len && W->kernel && !W->in_lambda) {
        Loop *l = attributed_for(W, cur, attrs);
        for (Loop *p = l; p && p->stmt.begin == l->stmt.begin; p = p->parent)
            p->node = W->stmt;
        if (l->tile_other)
            l->tile_other->node = W->stmt;
        /* the body is inside the innermost attributed level */
        for (Loop *p = l; p && p->stmt.begin == l->stmt.begin; p = p->parent)
            if (p->kind != LOOP_REGULAR) {
                W->loop = p;
                break;
            }
    } else {
        for (size_t i = 0; i < attrs->len; i++)
            misplaced(W, attrs->data[i], !W->kernel ? "a loop outside a kernel"
                                         : W->in_lambda ? "a loop inside a lambda"
                                                        : "a for loop");
    }
    size_t k = tok_at(W, oklc_cx_range(cur).begin) + 1;
    Range header = {0, 0};
    if (k < W->ntoks && oklc_tok_is_punct(W->toks[k], P_LPAREN))
        header = (Range){tok_end(W->toks[k]), W->toks[closing(W, k)]->loc.off};
    W->for_header = header;
    bool attributed = W->loop != saved;
    if (!attributed && W->kernel && !W->in_lambda && W->stmt && W->stmt->kind == ST_FOR &&
        W->stmt->range.begin == oklc_cx_range(cur).begin)
        W->stmt->trips = plain_trips(W, cur);
    /* a regular loop's header decides which threads iterate */
    push_ctl(W, CTL_LOOP, cur, attributed ? (Range){0, 0} : header, attributed ? W->loop : NULL);
    walk_children(W, cur);
    W->ctl.len--;
    if (W->stmt && W->stmt->kind == ST_FOR && W->loop != saved)
        W->stmt->loop = W->loop;
    W->loop = saved;
    W->for_header = saved_header;
}

static void local_decls(Walk *W, CXCursor declstmt, CXCursor parent);

/* return x; in a function: x */
static void returned_value(Walk *W, CXCursor ret)
{
    Children ch = {{clang_getNullCursor(), clang_getNullCursor()}, 0};
    clang_visitChildren(ret, two_children, &ch);
    if (ch.n == 1)
        vec_push(&W->c->arena, &W->freturns, oklc_cx_range(ch.c[0]));
}

/* A call of one of the file's functions. */
static bool okl_vector(CXType t);
static CXCursor bare(CXCursor e);

/* v * 2.5 with a vector v of floats: the prelude's operator takes the
 * vector's element type, to which the scalar converts. */
static void vector_scalar(Walk *W, CXCursor cur, const char *name)
{
    if (strncmp(name, "operator", 8) || clang_Cursor_getNumArguments(cur) != 2)
        return;
    CXCursor a[2] = {clang_Cursor_getArgument(cur, 0), clang_Cursor_getArgument(cur, 1)};
    for (int v = 0; v < 2; v++) {
        CXType vt = clang_getCanonicalType(clang_getCursorType(a[v]));
        CXType st = clang_getCanonicalType(clang_getCursorType(bare(a[1 - v])));
        if (!okl_vector(vt) || st.kind < CXType_Bool || st.kind > CXType_LongDouble)
            continue;
        CXString vs = clang_getTypeSpelling(vt), ss = clang_getTypeSpelling(st);
        const char *vname = clang_getCString(vs);
        size_t n = strcspn(vname, "234");
        const char *base = strrchr(vname, ' ');     /* "const float3" */
        base = base && (size_t)(base - vname) < n ? base + 1 : vname;
        char *element = oklc_arena_strndup(&W->c->arena, base, (size_t)(vname + n - base));
        bool same = !strcmp(clang_getCString(ss), element);
        clang_disposeString(vs);
        clang_disposeString(ss);
        Range r = oklc_cx_range(a[1 - v]);
        if (!same && r.begin != UINT32_MAX)
            vec_push(&W->c->arena, &W->scalars, ((ScalarOperand){r, element}));
        return;
    }
}

static void call(Walk *W, CXCursor cur)
{
    CXCursor callee = clang_getCursorReferenced(cur);
    CXCursorKind ck = clang_getCursorKind(callee);
    if (clang_Cursor_isNull(callee) ||
        (ck != CXCursor_FunctionDecl && ck != CXCursor_FunctionTemplate))
        return;
    Call c = {.range = oklc_cx_range(cur), .kernel = W->kernel, .function = W->function};
    c.name = oklc_cx_string(W->c, clang_getCursorSpelling(callee));
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(callee)))
        vector_scalar(W, cur, c.name);
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(callee))) {
        /* a library function: only OKL's intrinsics, and abs (fabs in C
         * for a floating-point value) matter to the backends */
        if (strncmp(c.name, "okl_", 4) && strcmp(c.name, "abs"))
            return;
        c.callee_off = UINT32_MAX;
    } else {
        CXCursor def = clang_getCursorDefinition(callee);
        if (!clang_Cursor_isNull(def))
            callee = def;
        c.callee_off = oklc_cx_offset(clang_getCursorLocation(callee));
    }
    /* f(...), ns::f(...): the last name before the arguments */
    c.name_off = UINT32_MAX;
    for (size_t t = tok_at(W, c.range.begin); t < W->ntoks && W->toks[t]->loc.off < c.range.end &&
                                              !oklc_tok_is_punct(W->toks[t], P_LPAREN); t++)
        if (oklc_tok_eq(W->toks[t], c.name))
            c.name_off = W->toks[t]->loc.off;
    int n = clang_Cursor_getNumArguments(cur);
    if (n > 0) {
        c.args = oklc_arena_alloc(&W->c->arena, (size_t)n * sizeof *c.args);
        c.arg_pointer = oklc_arena_alloc(&W->c->arena, (size_t)n * sizeof *c.arg_pointer);
        c.arg_floating = oklc_arena_alloc(&W->c->arena, (size_t)n * sizeof *c.arg_floating);
        for (int i = 0; i < n; i++) {
            CXCursor a = clang_Cursor_getArgument(cur, (unsigned)i);
            if (oklc_cx_range(a).begin == UINT32_MAX)
                break;                  /* a default argument */
            enum CXTypeKind tk = clang_getCanonicalType(clang_getCursorType(a)).kind;
            c.arg_pointer[c.nargs] = tk == CXType_Pointer || tk == CXType_ConstantArray ||
                                     tk == CXType_IncompleteArray;
            c.arg_floating[c.nargs] = tk == CXType_Float || tk == CXType_Double ||
                                      tk == CXType_LongDouble || tk == CXType_Half;
            c.args[c.nargs++] = oklc_cx_range(a);
        }
    }
    vec_push(&W->c->arena, &W->calls, c);
}

/* The expression under Clang's implicit conversions and parentheses. */
static CXCursor bare(CXCursor e)
{
    for (;;) {
        CXCursorKind k = clang_getCursorKind(e);
        if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr)
            return e;
        Children ch = {{clang_getNullCursor(), clang_getNullCursor()}, 0};
        clang_visitChildren(e, two_children, &ch);
        if (ch.n != 1)
            return e;
        e = ch.c[0];
    }
}

/* Is the type one of OKL's vector types (float4, int2, ...), which are
 * the prelude's structs on C++ and the target's own vectors elsewhere? */
static bool okl_vector(CXType t)
{
    CXCursor d = clang_getTypeDeclaration(clang_getCanonicalType(t));
    if (clang_Cursor_isNull(d) || clang_Location_isFromMainFile(clang_getCursorLocation(d)))
        return false;
    static const char *const bases[] = {"char", "uchar", "short", "ushort", "int",
                                        "uint", "long", "ulong", "float", "double"};
    CXString sp = clang_getCursorSpelling(d);
    const char *name = clang_getCString(sp);
    bool is = false;
    for (size_t i = 0; i < OKLC_COUNTOF(bases) && !is; i++) {
        size_t n = strlen(bases[i]);
        is = !strncmp(name, bases[i], n) && strchr("234", name[n]) && name[n] && !name[n + 1];
    }
    clang_disposeString(sp);
    return is;
}

/* &v.x on a vector: OpenCL C cannot take a component's address. */
static void component_address(Walk *W, CXCursor cur)
{
    Range r = oklc_cx_range(cur);
    size_t t = tok_at(W, r.begin);
    if (r.begin == UINT32_MAX || t >= W->ntoks || !oklc_tok_is_punct(W->toks[t], P_AMP))
        return;
    Children ch = {{clang_getNullCursor(), clang_getNullCursor()}, 0};
    clang_visitChildren(cur, two_children, &ch);
    if (ch.n != 1)
        return;
    CXCursor m = bare(ch.c[0]);
    if (clang_getCursorKind(m) != CXCursor_MemberRefExpr)
        return;
    Children base = {{clang_getNullCursor(), clang_getNullCursor()}, 0};
    clang_visitChildren(m, two_children, &base);
    if (base.n != 1 || !okl_vector(clang_getCursorType(base.c[0])))
        return;
    CXString sp = clang_getCursorSpelling(m);
    const char *field = clang_getCString(sp);
    const char *at = field[0] && !field[1] ? strchr("xyzw", field[0]) : NULL;
    int index = at ? (int)(at - "xyzw") : -1;
    clang_disposeString(sp);
    if (index < 0)
        return;
    ComponentAddr c = {r, oklc_cx_range(base.c[0]), index,
                       oklc_cx_string(W->c, clang_getTypeSpelling(clang_getCursorType(m)))};
    vec_push(&W->c->arena, &W->components, c);
}

/* Inside a function body. */
static void dispatch(Walk *W, CXCursor cur, CXCursor parent, CXCursorKind k)
{
    AttrList attrs = {0};
    Range r = oklc_cx_range(cur);
    if (r.begin != UINT32_MAX && k != CXCursor_DeclStmt)
        claim(W, ANCHOR_NEXT, r.begin, r.begin, &attrs);
    switch (k) {
    case CXCursor_ForStmt:
        for_stmt(W, cur, &attrs);
        return;
    case CXCursor_DeclStmt:
        local_decls(W, cur, parent);
        return;
    case CXCursor_IfStmt:
        statement_attrs(W, cur, k, &attrs);
        push_ctl(W, CTL_IF, cur, paren_after(W, r.begin, "if"), NULL);
        walk_children(W, cur);
        W->ctl.len--;
        return;
    case CXCursor_CXXForRangeStmt:
        for_stmt(W, cur, &attrs);
        return;
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
        statement_attrs(W, cur, k, &attrs);
        push_ctl(W, CTL_LOOP, cur,
                 k == CXCursor_WhileStmt ? paren_after(W, r.begin, "while")
                                         : paren_after(W, r.begin + 2, "while"),
                 NULL);
        walk_children(W, cur);
        W->ctl.len--;
        return;
    case CXCursor_SwitchStmt:
        statement_attrs(W, cur, k, &attrs);
        push_ctl(W, CTL_SWITCH, cur, paren_after(W, r.begin, "switch"), NULL);
        walk_children(W, cur);
        W->ctl.len--;
        return;
    case CXCursor_ReturnStmt:
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt:
    case CXCursor_GotoStmt:
        statement_attrs(W, cur, k, &attrs);
        early_exit(W, cur, k);
        if (k == CXCursor_ReturnStmt && W->function && !W->in_lambda)
            returned_value(W, cur);
        walk_children(W, cur);
        return;
    case CXCursor_CallExpr:
        statement_attrs(W, cur, k, &attrs);
        if (W->kernel)
            dim_access(W, cur);
        call(W, cur);
        walk_children(W, cur);
        return;
    case CXCursor_UnaryOperator:
        statement_attrs(W, cur, k, &attrs);
        component_address(W, cur);
        walk_children(W, cur);
        return;
    case CXCursor_DeclRefExpr:
        statement_attrs(W, cur, k, &attrs);
        reference(W, cur);
        walk_children(W, cur);
        return;
    default:
        statement_attrs(W, cur, k, &attrs);
        walk_children(W, cur);
        return;
    }
}

static StmtKind stmt_kind(CXCursorKind k)
{
    switch (k) {
    case CXCursor_CompoundStmt: return ST_COMPOUND;
    case CXCursor_DeclStmt: return ST_DECL;
    case CXCursor_IfStmt: return ST_IF;
    case CXCursor_ForStmt: case CXCursor_CXXForRangeStmt: return ST_FOR;
    case CXCursor_WhileStmt: return ST_WHILE;
    case CXCursor_DoStmt: return ST_DO;
    case CXCursor_SwitchStmt: return ST_SWITCH;
    case CXCursor_ReturnStmt: return ST_RETURN;
    case CXCursor_BreakStmt: return ST_BREAK;
    case CXCursor_ContinueStmt: return ST_CONTINUE;
    case CXCursor_GotoStmt: return ST_GOTO;
    case CXCursor_NullStmt: return ST_NULL;
    default: return is_expression(k) ? ST_EXPR : ST_OTHER;
    }
}

/* The head of a statement: what runs before (or around) its body. */
static Range stmt_head(Walk *W, CXCursorKind k, Range r)
{
    switch (k) {
    case CXCursor_IfStmt: return paren_after(W, r.begin, "if");
    case CXCursor_WhileStmt: return paren_after(W, r.begin, "while");
    case CXCursor_SwitchStmt: return paren_after(W, r.begin, "switch");
    case CXCursor_DoStmt: return paren_after(W, r.begin + 2, "while");
    case CXCursor_ForStmt: case CXCursor_CXXForRangeStmt: return paren_after(W, r.begin, "for");
    default: return (Range){r.begin, r.begin};
    }
}

/* Every statement of a kernel gets a node in the statement tree (not the
 * ones inside another statement's head: a for's init, an if's condition),
 * and so does an expression in statement position. */
static void statement(Walk *W, CXCursor cur, CXCursor parent, CXCursorKind k)
{
    Stmt *up = W->stmt;
    Range r = oklc_cx_range(cur);
    bool expr = is_expression(k);
    W->uses_double |= expr && names_double(clang_getCursorType(cur));
    bool in_head = up && r.begin >= up->head.begin && r.end <= up->head.end &&
                   up->head.end > up->head.begin;
    if (!W->kernel || W->in_lambda || in_head || (expr && W->in_expr) || r.begin == UINT32_MAX) {
        W->in_expr += expr;
        dispatch(W, cur, parent, k);
        W->in_expr -= expr;
        return;
    }
    Stmt *s = oklc_arena_alloc(&W->c->arena, sizeof *s);
    s->kind = stmt_kind(k);
    s->range = with_semicolon(W, r);
    s->head = stmt_head(W, k, r);
    s->trips = -1;
    s->parent = up;
    if (up) {
        up->kids = oklc_arena_grow(&W->c->arena, up->kids, up->nkids * sizeof(Stmt *),
                                   (up->nkids + 1) * sizeof(Stmt *));
        up->kids[up->nkids++] = s;
    }
    W->stmt = s;
    W->in_expr += expr;
    size_t nbarriers = W->barriers.len;
    dispatch(W, cur, parent, k);
    W->in_expr -= expr;
    W->stmt = up;
    if (s->kind == ST_NULL && W->barriers.len > nbarriers)
        s->barrier = W->barriers.data[nbarriers];
    s->has_barrier = W->barriers.len > nbarriers;
}

typedef struct DeclWalk {
    Walk    *W;
    AttrList shared;    /* attributes before the first declarator */
} DeclWalk;

static enum CXChildVisitResult decl_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    DeclWalk *d = data;
    Walk *W = d->W;
    if (clang_getCursorKind(cur) != CXCursor_VarDecl) {
        walk(W, cur, parent);
        return CXChildVisit_Continue;
    }
    Var *v = declare(W, cur, VAR_LOCAL, &d->shared);
    v->top_level = W->top_level;
    if (W->stmt && W->stmt->kind == ST_DECL) {
        Stmt *s = W->stmt;
        s->decls = oklc_arena_grow(&W->c->arena, s->decls, s->ndecls * sizeof(Var *),
                                   (s->ndecls + 1) * sizeof(Var *));
        s->decls[s->ndecls++] = v;
        v->decl_stmt = s;
    }
    if (W->kernel)
        vec_push(&W->c->arena, &W->locals, v);
    else if (W->function && !W->in_lambda)
        vec_push(&W->c->arena, &W->flocals, v);
    if (!W->kernel && (v->shared || v->exclusive))
        misplaced(W, v->shared ? v->shared : v->exclusive, "a variable outside a kernel");
    walk_children(W, cur);    /* the initializer */
    return CXChildVisit_Continue;
}

/* int a, b: Clang's second VarDecl starts at its name, so the attributes
 * before the statement are handed from the first to the others. */
static void local_decls(Walk *W, CXCursor declstmt, CXCursor parent)
{
    DeclWalk d = {W, {0}};
    Range pr = oklc_cx_range(parent);
    W->top_level = W->kernel && pr.begin == W->kernel->body.begin && pr.end == W->kernel->body.end;
    visit(W, declstmt, decl_visit, &d);
    W->top_level = false;
}

/* The variable an @atomic writes into: the first one its x mentions. */
static Var *first_var_in(Kernel *k, Range r)
{
    uint32_t best = UINT32_MAX;
    Var *found = NULL;
    for (size_t n = 0; n < k->nparams + k->nlocals; n++) {
        Var *v = n < k->nparams ? k->params[n] : k->locals[n - k->nparams];
        for (size_t i = 0; i < v->nrefs; i++)
            if (v->refs[i].begin >= r.begin && v->refs[i].begin < r.end &&
                v->refs[i].begin < best) {
                best = v->refs[i].begin;
                found = v;
            }
    }
    return found;
}

static void atomic_targets(Kernel *k)
{
    for (size_t i = 0; i < k->natomics; i++) {
        Atomic *a = k->atomics[i];
        a->target = first_var_in(k, a->lhs);
        a->source = first_var_in(k, a->rhs);
    }
}

/* ---- declarations -------------------------------------------------------------------------- */

/* The statements directly in the body, and which are @outer loops. */
static void top_statements(Walk *W, Kernel *k)
{
    if (!k->root)
        return;
    k->top = oklc_arena_alloc(&W->c->arena, (k->root->nkids + 1) * sizeof *k->top);
    for (size_t i = 0; i < k->root->nkids; i++) {
        const Stmt *s = k->root->kids[i];
        TopStmt *t = &k->top[k->ntop++];
        t->range = s->range;
        for (size_t j = 0; j < k->nouters; j++)
            if (k->outers[j]->stmt.begin == s->range.begin)
                t->outer = k->outers[j];
        if (s->kind == ST_DECL && s->ndecls)
            t->decl = s->decls[0];
    }
}

static void params(Walk *W, CXCursor fn, Kernel *k);

/* The offset after "template <...>" at `off` (the parameters' angle
 * brackets counted; ">>" closes two). */
static uint32_t after_template_head(Walk *W, uint32_t off)
{
    size_t k = tok_at(W, off);
    if (k >= W->ntoks - 1 || !oklc_tok_eq(W->toks[k], "template"))
        return off;
    int depth = 0;
    for (k++; k < W->ntoks - 1; k++) {
        const Token *t = W->toks[k];
        if (oklc_tok_is_punct(t, P_LPAREN) || oklc_tok_is_punct(t, P_LBRACKET)) {
            k = closing(W, k);
        } else if (oklc_tok_is_punct(t, P_LT)) {
            depth++;
        } else if (oklc_tok_is_punct(t, P_GT) || oklc_tok_is_punct(t, P_SHR)) {
            depth -= oklc_tok_is_punct(t, P_SHR) ? 2 : 1;
            if (depth <= 0)
                return k + 1 < W->ntoks ? W->toks[k + 1]->loc.off : off;
        }
    }
    return off;
}

static void function(Walk *W, CXCursor cur, CXCursorKind kind)
{
    Range ext = oklc_cx_range(cur);
    uint32_t name = oklc_cx_offset(clang_getCursorLocation(cur));
    AttrList next = {0}, prev = {0}, ptr = {0};
    decl_attrs(W, ext, name, &next, &prev, &ptr);
    Attr *kattr = NULL;
    for (size_t i = 0; i < next.len; i++) {
        if (next.data[i]->id == ATTR_KERNEL && !kattr)
            kattr = next.data[i];
        else if (next.data[i]->id == ATTR_KERNEL)
            misplaced(W, next.data[i], "a kernel that has it already");
        else if (next.data[i]->id != ATTR_RESTRICT)
            misplaced(W, next.data[i], "a function");
    }
    for (size_t i = 0; i < prev.len; i++)
        misplaced(W, prev.data[i], "a function");
    for (size_t i = 0; i < ptr.len; i++)
        if (ptr.data[i]->id != ATTR_RESTRICT)
            misplaced(W, ptr.data[i], "a function's result");
    if (kattr && kind != CXCursor_FunctionDecl && kind != CXCursor_FunctionTemplate) {
        misplaced(W, kattr, "a member function");
        kattr = NULL;
    }
    if (kattr && !clang_isCursorDefinition(cur)) {
        /* @kernel void k(...); then the body elsewhere: the body is the kernel */
        CXCursor def = clang_getCursorDefinition(cur);
        uint32_t off = clang_Cursor_isNull(def) ? UINT32_MAX
                                                : oklc_cx_offset(clang_getCursorLocation(def));
        if (off != UINT32_MAX) {
            vec_push(&W->c->arena, &W->kernel_defs, off);
            vec_push(&W->c->arena, &W->kernel_def_attrs, kattr);
        }
        return;
    }
    for (size_t i = 0; !kattr && i < W->kernel_defs.len; i++)
        if (W->kernel_defs.data[i] == name)
            kattr = W->kernel_def_attrs.data[i];
    if (!kattr) {
        Function *f = oklc_arena_alloc(&W->c->arena, sizeof *f);
        f->name = oklc_cx_string(W->c, clang_getCursorSpelling(cur));
        f->decl = ext;
        f->name_off = name;
        f->specs_at = kind == CXCursor_FunctionTemplate ? after_template_head(W, ext.begin)
                                                        : ext.begin;
        f->has_body = clang_isCursorDefinition(cur);
        f->is_template = kind == CXCursor_FunctionTemplate;
        f->is_member = kind == CXCursor_CXXMethod || kind == CXCursor_Constructor ||
                       kind == CXCursor_Destructor ||
                       clang_getCursorKind(clang_getCursorSemanticParent(cur)) ==
                           CXCursor_StructDecl ||
                       clang_getCursorKind(clang_getCursorSemanticParent(cur)) ==
                           CXCursor_ClassDecl;
        vec_push(&W->c->arena, &W->functions, f);
        Kernel *saved = W->kernel;
        Function *outer = W->function;
        W->kernel = NULL;
        W->function = f;
        enum CXTypeKind rk = clang_getCanonicalType(clang_getCursorResultType(cur)).kind;
        f->returns_pointer = rk == CXType_Pointer;
        Walk keep = *W;              /* (a method of a local struct nests) */
        memset(&W->fparams, 0, sizeof W->fparams);
        memset(&W->flocals, 0, sizeof W->flocals);
        memset(&W->freturns, 0, sizeof W->freturns);
        walk_children(W, cur);
        f->params = W->fparams.data, f->nparams = W->fparams.len;
        f->locals = W->flocals.data, f->nlocals = W->flocals.len;
        f->returns = W->freturns.data, f->nreturns = W->freturns.len;
        W->fparams = keep.fparams;
        W->flocals = keep.flocals;
        W->freturns = keep.freturns;
        W->kernel = saved;
        W->function = outer;
        return;
    }
    Kernel *k = oklc_arena_alloc(&W->c->arena, sizeof *k);
    k->name = oklc_cx_string(W->c, clang_getCursorSpelling(cur));
    k->attr = kattr;
    k->decl = ext;
    k->name_off = name;
    k->is_template = kind == CXCursor_FunctionTemplate;
    k->return_type = oklc_cx_string(W->c, clang_getTypeSpelling(clang_getCursorResultType(cur)));
    W->kernel = k;
    W->loop = NULL;
    W->ctl.len = 0;
    W->loops.len = W->locals.len = W->barriers.len = W->atomics.len = W->dims.len = 0;
    W->loops.data = NULL, W->loops.cap = 0;
    W->locals.data = NULL, W->locals.cap = 0;
    W->barriers.data = NULL, W->barriers.cap = 0;
    W->atomics.data = NULL, W->atomics.cap = 0;
    W->dims.data = NULL, W->dims.cap = 0;
    params(W, cur, k);
    k->loops = W->loops.data, k->nloops = W->loops.len;
    k->locals = W->locals.data, k->nlocals = W->locals.len;
    k->barriers = W->barriers.data, k->nbarriers = W->barriers.len;
    k->atomics = W->atomics.data, k->natomics = W->atomics.len;
    k->dims = W->dims.data, k->ndims = W->dims.len;
    atomic_targets(k);
    VEC(Loop *) outers = {0};
    for (size_t i = 0; i < k->nloops; i++)
        if (!k->loops[i]->parent && k->loops[i]->kind == LOOP_OUTER &&
            k->loops[i]->tile_part < 2)
            vec_push(&W->c->arena, &outers, k->loops[i]);
    k->outers = outers.data, k->nouters = outers.len;
    top_statements(W, k);
    vec_push(&W->c->arena, &W->kernels, k);
    W->kernel = NULL;
    W->tparams = NULL, W->ntparams = 0;
}

typedef struct ParamWalk {
    Walk   *W;
    Kernel *k;
    VEC(Var *) params;
    VEC(const char *) tparams;
    Buf     tp_text;
} ParamWalk;

static enum CXChildVisitResult param_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    ParamWalk *p = data;
    Walk *W = p->W;
    CXCursorKind k = clang_getCursorKind(cur);
    switch (k) {
    case CXCursor_ParmDecl: {
        Var *v = declare(W, cur, VAR_PARAM, NULL);
        vec_push(&W->c->arena, &p->params, v);
        break;
    }
    case CXCursor_TemplateTypeParameter:
    case CXCursor_NonTypeTemplateParameter:
    case CXCursor_TemplateTemplateParameter: {
        const char *n = oklc_cx_string(W->c, clang_getCursorSpelling(cur));
        vec_push(&W->c->arena, &p->tparams, n);
        if (p->tp_text.len)
            oklc_buf_puts(&p->tp_text, ", ");
        oklc_buf_puts(&p->tp_text, range_text(W, oklc_cx_range(cur)));
        break;
    }
    case CXCursor_CompoundStmt: {
        p->k->params = p->params.data;
        p->k->nparams = p->params.len;
        p->k->body = oklc_cx_range(cur);
        W->body = cur;
        W->tparams = p->tparams.data;
        W->ntparams = p->tparams.len;
        /* the body's statements, one by one, under its node */
        Stmt *root = oklc_arena_alloc(&W->c->arena, sizeof *root);
        root->kind = ST_COMPOUND;
        root->range = p->k->body;
        p->k->root = root;
        W->stmt = root;
        walk_children(W, cur);
        W->stmt = NULL;
        break;
    }
    default:
        break;
    }
    return CXChildVisit_Continue;
}

static void params(Walk *W, CXCursor fn, Kernel *k)
{
    ParamWalk p = {.W = W, .k = k};
    oklc_buf_init(&p.tp_text, &W->c->arena);
    visit(W, fn, param_visit, &p);
    if (!k->params) {
        k->params = p.params.data;
        k->nparams = p.params.len;
    }
    if (p.tp_text.len)
        k->template_params = p.tp_text.data;
}

/* ---- the walk ------------------------------------------------------------------------------- */

/* C++ that C has not: OpenCL C rejects it where it is. */
static void cxx_construct(Walk *W, CXCursor cur, CXCursorKind k)
{
    const char *what;
    switch (k) {
    case CXCursor_Namespace: what = "a namespace"; break;
    case CXCursor_UsingDirective: what = "'using namespace'"; break;
    case CXCursor_UsingDeclaration: what = "a using declaration"; break;
    case CXCursor_TypeAliasDecl: what = "an alias declaration (using X = ...)"; break;
    case CXCursor_ClassTemplate: what = "a class template"; break;
    case CXCursor_CXXNewExpr: what = "new"; break;
    case CXCursor_CXXDeleteExpr: what = "delete"; break;
    case CXCursor_CXXThrowExpr: what = "throw"; break;
    case CXCursor_CXXTryStmt: what = "try"; break;
    case CXCursor_CXXNullPtrLiteralExpr: what = "nullptr"; break;
    case CXCursor_CXXThisExpr: what = "this"; break;
    case CXCursor_CXXFunctionalCastExpr: what = "a functional cast (T(x))"; break;
    default: what = "a C++ cast (static_cast, ...)"; break;
    }
    Range r = oklc_cx_range(cur);
    if (r.begin != UINT32_MAX)
        vec_push(&W->c->arena, &W->cxx, ((CxxConstruct){r.begin, what}));
}

static enum CXChildVisitResult class_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    CXCursorKind k = clang_getCursorKind(cur);
    if (k == CXCursor_CXXMethod || k == CXCursor_Constructor || k == CXCursor_Destructor ||
        k == CXCursor_CXXBaseSpecifier || k == CXCursor_FunctionTemplate ||
        k == CXCursor_CXXAccessSpecifier) {
        *(bool *)data = true;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Continue;
}

/* A struct or class defined here. `typedef struct {...} name;` has no
 * name of its own (libclang spells it "" or "(unnamed struct at ...)"):
 * its name is "". */
static void record(Walk *W, CXCursor cur, CXCursorKind k)
{
    if (!clang_isCursorDefinition(cur) || clang_Cursor_isAnonymous(cur))
        return;
    Record r = {.name = oklc_cx_string(W->c, clang_getCursorSpelling(cur)),
                .range = oklc_cx_range(cur), .is_class = k == CXCursor_ClassDecl};
    if (strchr(r.name, ' '))
        r.name = "";
    if (!r.is_class)
        clang_visitChildren(cur, class_visit, &r.is_class);
    CXCursorKind up = clang_getCursorKind(clang_getCursorSemanticParent(cur));
    r.nested = up == CXCursor_StructDecl || up == CXCursor_ClassDecl ||
               up == CXCursor_UnionDecl || up == CXCursor_ClassTemplate;
    vec_push(&W->c->arena, &W->records, r);
}

static void walk(Walk *W, CXCursor cur, CXCursor parent)
{
    CXCursorKind k = clang_getCursorKind(cur);
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(cur)))
        return;
    switch (k) {
    case CXCursor_LambdaExpr: {
        Range r = oklc_cx_range(cur);
        vec_push(&W->c->arena, &W->lambdas, r);
        W->in_lambda++;
        walk_children(W, cur);
        W->in_lambda--;
        return;
    }
    case CXCursor_FunctionDecl:
    case CXCursor_FunctionTemplate:
    case CXCursor_CXXMethod:
    case CXCursor_Constructor:
    case CXCursor_Destructor:
        function(W, cur, k);
        return;
    case CXCursor_VarDecl: {
        CXCursorKind sp = clang_getCursorKind(clang_getCursorSemanticParent(cur));
        bool global = sp == CXCursor_TranslationUnit || sp == CXCursor_Namespace;
        Var *v = declare(W, cur, global ? VAR_GLOBAL : VAR_LOCAL, NULL);
        if (global)
            vec_push(&W->c->arena, &W->globals, v);
        else if (W->kernel)
            vec_push(&W->c->arena, &W->locals, v);
        walk_children(W, cur);
        return;
    }
    case CXCursor_FieldDecl: {
        Var *v = declare(W, cur, VAR_FIELD, NULL);
        if (v->shared || v->exclusive || v->restrict_ || v->dim || v->dim_order || v->global_ptr)
            vec_push(&W->c->arena, &W->fields, v);
        return;
    }
    case CXCursor_TypedefDecl:
    case CXCursor_TypeAliasDecl: {
        Var *v = declare(W, cur, VAR_TYPEDEF, NULL);
        vec_push(&W->c->arena, &W->type_names, v->name);
        if (k == CXCursor_TypeAliasDecl)
            cxx_construct(W, cur, k);
        if (v->shared || v->exclusive || v->restrict_ || v->dim || v->dim_order || v->global_ptr)
            vec_push(&W->c->arena, &W->typedefs, v);
        return;
    }
    case CXCursor_ParmDecl: {               /* of a function that is not a kernel */
        Var *v = declare(W, cur, VAR_PARAM, NULL);
        if (W->function && !W->in_lambda)
            vec_push(&W->c->arena, &W->fparams, v);
        return;
    }
    case CXCursor_StructDecl:
    case CXCursor_ClassDecl:
        record(W, cur, k);
        break;
    case CXCursor_Namespace:
    case CXCursor_UsingDirective:
    case CXCursor_UsingDeclaration:
    case CXCursor_ClassTemplate:
    case CXCursor_CXXStaticCastExpr:
    case CXCursor_CXXReinterpretCastExpr:
    case CXCursor_CXXConstCastExpr:
    case CXCursor_CXXDynamicCastExpr:
    case CXCursor_CXXFunctionalCastExpr:
    case CXCursor_CXXNewExpr:
    case CXCursor_CXXDeleteExpr:
    case CXCursor_CXXThrowExpr:
    case CXCursor_CXXTryStmt:
    case CXCursor_CXXNullPtrLiteralExpr:
    case CXCursor_CXXThisExpr:
        cxx_construct(W, cur, k);
        break;
    default:
        break;
    }
    if (clang_isStatement(k) || is_expression(k)) {
        statement(W, cur, parent, k);
        return;
    }
    /* namespaces, structs, templates: look inside */
    AttrList attrs = {0};
    Range r = oklc_cx_range(cur);
    if (r.begin != UINT32_MAX)
        claim(W, ANCHOR_NEXT, r.begin, r.begin, &attrs);
    for (size_t i = 0; i < attrs.len; i++)
        misplaced(W, attrs.data[i], "this declaration");
    walk_children(W, cur);
}

Model *oklc_model_build(oklc_ctx *c, const Normalized *nz, CXTranslationUnit tu,
                        const ParseOptions *o)
{
    Walk W = {.c = c, .nz = nz, .o = o, .tu = tu};
    W.m = oklc_arena_alloc(&c->arena, sizeof *W.m);
    lex_text(&W);
    index_attrs(&W);
    CXCursor root = clang_getTranslationUnitCursor(tu);
    visit(&W, root, child_visit, &W);
    /* what no construct took */
    for (size_t i = 0; i < nz->nattrs; i++)
        if (!W.claimed[i])
            misplaced(&W, W.anchors[i], NULL);
    Model *m = W.m;
    m->kernels = W.kernels.data, m->nkernels = W.kernels.len;
    m->functions = W.functions.data, m->nfunctions = W.functions.len;
    m->lambdas = W.lambdas.data, m->nlambdas = W.lambdas.len;
    m->calls = W.calls.data, m->ncalls = W.calls.len;
    m->records = W.records.data, m->nrecords = W.records.len;
    m->components = W.components.data, m->ncomponents = W.components.len;
    m->scalars = W.scalars.data, m->nscalars = W.scalars.len;
    m->type_names = W.type_names.data, m->ntype_names = W.type_names.len;
    m->cxx = W.cxx.data, m->ncxx = W.cxx.len;
    m->uses_double = W.uses_double;
    m->globals = W.globals.data, m->nglobals = W.globals.len;
    m->typedefs = W.typedefs.data, m->ntypedefs = W.typedefs.len;
    m->fields = W.fields.data, m->nfields = W.fields.len;
    return m;
}
