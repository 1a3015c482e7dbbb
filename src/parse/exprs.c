/*
 * exprs.c - expressions in the kernel model: uses of variables, calls of
 * the file's functions and OKL's intrinsics, @atomic statements' forms,
 * okl::at accesses, vector components and scalars beside vectors.
 */
#include <string.h>

#include "walk.h"
#include "../intrinsics/intrinsics.h"

/* A use of a variable (or parameter) of the file. */
void oklc_walk_reference(Walk *W, CXCursor ref)
{
    Var *v = oklc_walk_referenced_var(W, ref);
    if (!v)
        return;
    v->refs = oklc_arena_append(&W->c->arena, v->refs, v->nrefs, sizeof(Range));
    v->refs[v->nrefs++] = oklc_cx_range(ref);
}

/* okl::at(m, i, j) */
void oklc_walk_dim_access(Walk *W, CXCursor call)
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
    /* an assignment first: the lowest precedence, so a top-level one is the
     * statement's operator (x *= 1 + c[t]++ is no x++) */
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
    bool assigns = at->op != AT_OTHER;
    if (!assigns && (oklc_tok_is_punct(first, P_INC) || oklc_tok_is_punct(first, P_DEC))) {
        at->op = first->punct == P_INC ? AT_INC : AT_DEC;
        at->lhs = tok_range(W, b + 1, e);
    } else if (!assigns && (oklc_tok_is_punct(last, P_INC) || oklc_tok_is_punct(last, P_DEC))) {
        at->op = last->punct == P_INC ? AT_INC : AT_DEC;
        at->lhs = tok_range(W, b, e - 1);
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
void oklc_walk_statement_attrs(Walk *W, CXCursor cur, CXCursorKind k, AttrList *attrs)
{
    for (size_t i = 0; i < attrs->len; i++) {
        Attr *a = attrs->data[i];
        bool twice = false;
        for (size_t j = 0; j < i; j++)
            twice |= attrs->data[j]->id == a->id;
        if (twice) {
            oklc_walk_misplaced(W, a, "a statement that has it already");
        } else if (a->id == ATTR_BARRIER && k == CXCursor_NullStmt && W->in_lambda) {
            oklc_walk_misplaced(W, a, "a statement inside a lambda");
        } else if (a->id == ATTR_BARRIER && k == CXCursor_NullStmt && !W->kernel &&
                   W->function) {
            oklc_walk_function_barrier(W, cur, a);
        } else if (a->id == ATTR_BARRIER && k == CXCursor_NullStmt && !W->kernel) {
            oklc_walk_misplaced(W, a, "a statement outside a kernel");
        } else if (a->id == ATTR_BARRIER && k == CXCursor_NullStmt) {
            oklc_walk_barrier(W, cur, a);
        } else if (a->id == ATTR_ATOMIC && (k == CXCursor_CompoundStmt || oklc_walk_is_expression(k))) {
            Atomic *at = oklc_arena_alloc(&W->c->arena, sizeof *at);
            at->attr = a;
            at->stmt = oklc_cx_range(cur);
            at->block = k == CXCursor_CompoundStmt;
            at->loop = W->loop;
            if (!at->block)
                atomic_form(W, cur, at);
            vec_push(&W->c->arena, &W->atomics, at);
        } else {
            oklc_walk_misplaced(W, a, k == CXCursor_NullStmt ? "an empty statement"
                            : k == CXCursor_CompoundStmt ? "a block"
                            : oklc_walk_is_expression(k) ? "an expression statement"
                            : k == CXCursor_ForStmt || k == CXCursor_CXXForRangeStmt
                                ? "a for loop"
                                : "this statement");
        }
    }
}

/* return x; in a function: x */
void oklc_walk_returned_value(Walk *W, CXCursor ret)
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

/* x = y of a struct the file declares (OKL's vector types are the
 * targets' own): its operands and its '='. */
static void struct_assign(Walk *W, CXCursor cur, CXCursor method)
{
    CXCursor record = clang_getCursorSemanticParent(method);
    if (clang_Cursor_getNumArguments(cur) != 2 ||
        !clang_Location_isFromMainFile(clang_getCursorLocation(record)))
        return;
    StructAssign a = {oklc_cx_range(clang_Cursor_getArgument(cur, 0)),
                      oklc_cx_range(clang_Cursor_getArgument(cur, 1)), UINT32_MAX};
    for (size_t t = tok_at(W, a.lhs.end); t < W->ntoks && W->toks[t]->loc.off < a.rhs.begin; t++)
        if (oklc_tok_is_punct(W->toks[t], P_ASSIGN))
            a.op = W->toks[t]->loc.off;
    if (a.op != UINT32_MAX && a.lhs.begin != UINT32_MAX && a.rhs.begin != UINT32_MAX)
        vec_push(&W->c->arena, &W->assigns, a);
}

void oklc_walk_call(Walk *W, CXCursor cur)
{
    CXCursor callee = clang_getCursorReferenced(cur);
    CXCursorKind ck = clang_getCursorKind(callee);
    if (ck == CXCursor_CXXMethod &&
        !strcmp(oklc_cx_string(W->c, clang_getCursorSpelling(callee)), "operator="))
        struct_assign(W, cur, callee);
    if (clang_Cursor_isNull(callee) ||
        (ck != CXCursor_FunctionDecl && ck != CXCursor_FunctionTemplate))
        return;
    Call c = {.range = oklc_cx_range(cur), .kernel = W->kernel, .function = W->function};
    c.name = oklc_cx_string(W->c, clang_getCursorSpelling(callee));
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(callee)))
        vector_scalar(W, cur, c.name);
    if (!clang_Location_isFromMainFile(clang_getCursorLocation(callee))) {
        /* a library function: only OKL's intrinsics, abs (fabs in C for
         * a floating-point value) and printf (which SYCL has not) matter
         * to the backends */
        if (strncmp(c.name, "okl_", 4) && strcmp(c.name, "abs") && strcmp(c.name, "printf") &&
            !oklc_intrinsic_spelling(W->c, c.name))
            return;             /* ... and the user's intrinsics spelled here */
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
void oklc_walk_component_address(Walk *W, CXCursor cur)
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
