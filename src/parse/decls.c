/*
 * decls.c - declarations in the kernel model: variables, parameters,
 * fields and typedefs with their OKL attributes and types, declaration
 * statements, structs and the C++ constructs OpenCL C has not.
 */
#include <string.h>

#include "walk.h"

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
Var *oklc_walk_referenced_var(Walk *W, CXCursor ref)
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

/* ---- shapes: what a parameter's data is made of (model.h) ------------------------ */

static const Shape *shape_of(Walk *W, CXType t, int depth);

static const char *scalar_name(enum CXTypeKind k)
{
    switch (k) {
    case CXType_Void: return "void";
    case CXType_Bool: return "bool";
    case CXType_Char_U: case CXType_Char_S: return "char";
    case CXType_UChar: return "unsigned char";
    case CXType_SChar: return "signed char";
    case CXType_Short: return "short";
    case CXType_UShort: return "unsigned short";
    case CXType_Int: return "int";
    case CXType_UInt: return "unsigned int";
    case CXType_Long: return "long";
    case CXType_ULong: return "unsigned long";
    case CXType_LongLong: return "long long";
    case CXType_ULongLong: return "unsigned long long";
    case CXType_Float: return "float";
    case CXType_Double: return "double";
    case CXType_LongDouble: return "long double";
    case CXType_Half: case CXType_Float16: return "half";
    case CXType_WChar: return "wchar_t";
    case CXType_Char16: return "char16_t";
    case CXType_Char32: return "char32_t";
    default: return NULL;
    }
}

typedef struct FieldWalk {
    Walk *W;
    int   depth;
    bool  plain;     /* no base class, virtual method or bit-field */
    VEC(ShapeField) fields;
} FieldWalk;

static enum CXVisitorResult field_visit(CXCursor cur, CXClientData data)
{
    FieldWalk *f = data;
    if (clang_Cursor_isBitField(cur)) {
        f->plain = false;
        return CXVisit_Break;
    }
    ShapeField sf = {oklc_cx_string(f->W->c, clang_getCursorSpelling(cur)),
                     shape_of(f->W, clang_getCursorType(cur), f->depth + 1)};
    vec_push(&f->W->c->arena, &f->fields, sf);
    return CXVisit_Continue;
}

/* Base classes and virtual methods add to a record what its fields do not say. */
static enum CXChildVisitResult record_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    FieldWalk *f = data;
    CXCursorKind k = clang_getCursorKind(cur);
    if (k == CXCursor_CXXBaseSpecifier || (k == CXCursor_CXXMethod && clang_CXXMethod_isVirtual(cur)) ||
        (k == CXCursor_Destructor && clang_CXXMethod_isVirtual(cur)))
        f->plain = false;
    return f->plain ? CXChildVisit_Continue : CXChildVisit_Break;
}

static const char *unqualified_spelling(Walk *W, CXType t)
{
    const char *s = oklc_cx_string(W->c, clang_getTypeSpelling(t));
    for (;;) {
        if (!strncmp(s, "const ", 6))
            s += 6;
        else if (!strncmp(s, "volatile ", 9))
            s += 9;
        else
            return s;
    }
}

static bool holds_pointer(CXType t, int depth);

static enum CXVisitorResult pointer_field(CXCursor cur, CXClientData data)
{
    int *depth = data;
    if (!holds_pointer(clang_getCursorType(cur), *depth + 1))
        return CXVisit_Continue;
    *depth = -1;
    return CXVisit_Break;
}

/* A pointer, or a struct, union or array with one inside (the fields of
 * every kind of record: a union or a class too). */
static bool holds_pointer(CXType t, int depth)
{
    CXType k = clang_getCanonicalType(t);
    if (k.kind == CXType_Pointer || k.kind == CXType_BlockPointer ||
        k.kind == CXType_MemberPointer || k.kind == CXType_LValueReference ||
        k.kind == CXType_RValueReference)
        return true;
    if (depth >= 16)
        return false;
    if (k.kind == CXType_ConstantArray)
        return holds_pointer(clang_getArrayElementType(k), depth + 1);
    if (k.kind != CXType_Record)
        return false;
    int d = depth;
    clang_Type_visitFields(k, pointer_field, &d);
    return d < 0;
}

static const Shape *shape_of(Walk *W, CXType t, int depth)
{
    CXType k = clang_getCanonicalType(t);
    if (k.kind == CXType_Dependent || k.kind == CXType_Unexposed || k.kind == CXType_Invalid)
        return NULL;
    Shape *s = oklc_arena_alloc(&W->c->arena, sizeof *s);
    long long bytes = clang_Type_getSizeOf(k);
    s->bytes = bytes > 0 ? bytes : -1;
    s->kind = SHAPE_OPAQUE;
    s->name = unqualified_spelling(W, k);
    s->has_pointer = holds_pointer(k, depth);
    if (k.kind == CXType_Enum)
        k = clang_getEnumDeclIntegerType(clang_getTypeDeclaration(k));
    const char *scalar = scalar_name(k.kind);
    if (scalar) {
        s->kind = SHAPE_SCALAR;
        s->name = scalar;
    } else if (k.kind == CXType_ConstantArray && depth < 8) {
        s->kind = SHAPE_ARRAY;
        s->count = clang_getArraySize(k);
        s->elem = shape_of(W, clang_getArrayElementType(k), depth + 1);
        if (!s->elem)
            return NULL;
    } else if (k.kind == CXType_Record && depth < 8 &&
               clang_getCursorKind(clang_getTypeDeclaration(k)) != CXCursor_UnionDecl) {
        FieldWalk f = {.W = W, .depth = depth, .plain = true};
        clang_visitChildren(clang_getTypeDeclaration(k), record_visit, &f);
        if (f.plain)
            clang_Type_visitFields(k, field_visit, &f);
        for (size_t i = 0; i < f.fields.len; i++)
            f.plain &= f.fields.data[i].shape != NULL;
        if (f.plain && f.fields.len) {
            s->kind = SHAPE_STRUCT;
            s->fields = f.fields.data;
            s->nfields = f.fields.len;
        }
    }
    return s;
}

/* A parameter's data: the value, or what the pointer or array holds. */
static const Shape *param_shape(Walk *W, CXType t)
{
    CXType k = clang_getCanonicalType(t);
    if (k.kind == CXType_Pointer || k.kind == CXType_LValueReference ||
        k.kind == CXType_RValueReference)
        return shape_of(W, clang_getPointeeType(k), 0);
    if (k.kind == CXType_ConstantArray || k.kind == CXType_IncompleteArray ||
        k.kind == CXType_VariableArray)
        return shape_of(W, clang_getArrayElementType(k), 0);
    return shape_of(W, k, 0);
}

/* What t holds: the type under its pointers, references and arrays. */
static CXType element_of(CXType t)
{
    for (int depth = 0; depth < 8; depth++) {
        t = clang_getCanonicalType(t);
        switch (t.kind) {
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
        default:
            return t;
        }
    }
    return clang_getCanonicalType(t);
}

/* A struct of the prelude's: `name`, or with `vector` one of name2..name4. */
static bool prelude_record(CXType t, const char *name, bool vector)
{
    if (t.kind != CXType_Record)
        return false;
    CXString sp = clang_getCursorSpelling(clang_getTypeDeclaration(t));
    const char *n = clang_getCString(sp);
    size_t len = strlen(name);
    bool is = !strncmp(n, name, len) &&
              (vector ? n[len] >= '2' && n[len] <= '4' && !n[len + 1] : !n[len]);
    clang_disposeString(sp);
    return is;
}

/* double, an array of it or a pointer to it, or one of OKL's double
 * vectors (which some targets have only with an extension). */
bool oklc_walk_names_double(CXType t)
{
    t = element_of(t);
    return t.kind == CXType_Double || t.kind == CXType_LongDouble ||
           prelude_record(t, "double", true);
}

/* half (the prelude's class; _Float16 or __fp16 if written so), an array
 * of it or a pointer to it: the backends define it only then. */
bool oklc_walk_names_half(CXType t)
{
    t = element_of(t);
    return t.kind == CXType_Half || t.kind == CXType_Float16 || prelude_record(t, "half", false);
}

/* The attributes of a declaration: before its specifiers, after its name,
 * after a '*' of its declarator. */
void oklc_walk_decl_attrs(Walk *W, Range ext, uint32_t name_off, AttrList *next,
                          AttrList *prev, AttrList *ptr)
{
    oklc_walk_claim(W, ANCHOR_NEXT, ext.begin, name_off, next);
    /* after the name, or after its array bounds: int a[4] @dim(2, 2) */
    size_t k = tok_at(W, name_off) + 1;
    while (k < W->ntoks - 1 && oklc_tok_is_punct(W->toks[k], P_LBRACKET))
        k = closing(W, k) + 1;
    oklc_walk_claim(W, ANCHOR_PREV, name_off, W->toks[k - 1]->loc.off, prev);
    if (name_off > ext.begin)
        oklc_walk_claim(W, ANCHOR_PREV, ext.begin, name_off - 1, ptr);
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
            oklc_walk_misplaced(W, a, decl_what(v->kind));
        } else if (*slot) {
            oklc_walk_misplaced(W, a, "a declaration that has it already");
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
    oklc_walk_reserved(W, v->name, v->name_off);
    CXType t = kind == VAR_TYPEDEF ? clang_getTypedefDeclUnderlyingType(cur)
                                   : clang_getCursorType(cur);
    v->type = read_type(W, t);
    if (kind == VAR_PARAM)
        v->type.shape = param_shape(W, t);
    v->typedef_var = typedef_of(W, t);
    W->uses_double |= kind != VAR_TYPEDEF && oklc_walk_names_double(t);
    W->uses_half |= oklc_walk_names_half(t);    /* even unused: the name must exist */
    long long size = clang_Type_getSizeOf(t);
    v->size = size > 0 ? size : -1;
    const enum CXTypeKind canon = clang_getCanonicalType(t).kind;
    v->is_signed = canon == CXType_SChar || canon == CXType_Short || canon == CXType_Int ||
                   canon == CXType_Long || canon == CXType_LongLong;
    switch (canon) {
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
        v->is_float = prelude_record(clang_getCanonicalType(t), "half", false);
        break;
    }
    if (v->name_off > v->range.begin)
        v->type_written = oklc_walk_text_of(W, tok_at(W, v->range.begin), tok_at(W, v->name_off));
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
        for (size_t k = tok_at(W, v->range.begin); k < tok_at(W, v->name_off); k++) {
            v->constexpr_ |= oklc_tok_eq(W->toks[k], "constexpr");
            v->thread_local_ |= oklc_tok_eq(W->toks[k], "thread_local");
        }
        v->static_ = kind == VAR_LOCAL && clang_Cursor_getStorageClass(cur) == CX_SC_Static;
    }
    return v;
}

/* VarDecl, ParmDecl, FieldDecl, TypedefDecl; `shared_next` are the
 * attributes before the first declarator of a declaration statement. */
Var *oklc_walk_declare(Walk *W, CXCursor cur, VarKind kind, AttrList *shared_next)
{
    Var *v = make_var(W, cur, kind);
    AttrList next = {0}, prev = {0}, ptr = {0};
    oklc_walk_decl_attrs(W, v->range, v->name_off, &next, &prev, &ptr);
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

typedef struct DeclWalk {
    Walk    *W;
    AttrList shared;    /* attributes before the first declarator */
} DeclWalk;

static enum CXChildVisitResult decl_visit(CXCursor cur, CXCursor parent, CXClientData data)
{
    DeclWalk *d = data;
    Walk *W = d->W;
    if (clang_getCursorKind(cur) != CXCursor_VarDecl) {
        oklc_walk_subtree(W, cur, parent);
        return CXChildVisit_Continue;
    }
    Var *v = oklc_walk_declare(W, cur, VAR_LOCAL, &d->shared);
    v->top_level = W->top_level;
    if (W->stmt && W->stmt->kind == ST_DECL) {
        Stmt *s = W->stmt;
        s->decls = oklc_arena_append(&W->c->arena, s->decls, s->ndecls, sizeof(Var *));
        s->decls[s->ndecls++] = v;
        v->decl_stmt = s;
    }
    if (W->kernel)
        vec_push(&W->c->arena, &W->locals, v);
    else if (W->function && !W->in_lambda)
        vec_push(&W->c->arena, &W->flocals, v);
    if (!W->kernel && (v->shared || v->exclusive))
        oklc_walk_misplaced(W, v->shared ? v->shared : v->exclusive, "a variable outside a kernel");
    oklc_walk_children(W, cur);    /* the initializer */
    return CXChildVisit_Continue;
}

/* int a, b: Clang's second VarDecl starts at its name, so the attributes
 * before the statement are handed from the first to the others. */
void oklc_walk_local_decls(Walk *W, CXCursor declstmt, CXCursor parent)
{
    DeclWalk d = {W, {0}};
    /* the body's start first: the extent of for (int i ...) for (int j ...)
     * ... costs its depth */
    W->top_level = W->kernel && oklc_cx_begin(parent) == W->kernel->body.begin &&
                   oklc_cx_range(parent).end == W->kernel->body.end;
    oklc_walk_visit(W, declstmt, decl_visit, &d);
    W->top_level = false;
}

/* C++ that C has not: OpenCL C rejects it where it is. */
void oklc_walk_cxx_construct(Walk *W, CXCursor cur, CXCursorKind k)
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
void oklc_walk_record(Walk *W, CXCursor cur, CXCursorKind k)
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
