/*
 * ops.c - the operations of a kernel's expressions, for `oklc stats` and
 * the serial backend's counters (ParseOptions.count_ops): floating-point
 * arithmetic by precision, elements of arrays read and written, and what
 * decides whether a part of an expression is evaluated (?:, &&, ||).
 */
#include <stdlib.h>
#include <string.h>

#include "walk.h"

typedef struct Kids {
    CXCursor c[3];
    int      n;
} Kids;

static enum CXChildVisitResult kid(CXCursor cur, CXCursor parent, CXClientData data)
{
    (void)parent;
    Kids *k = data;
    if (k->n < 3)
        k->c[k->n] = cur;
    k->n++;
    return CXChildVisit_Continue;
}

static Kids kids(CXCursor cur)
{
    Kids k = {{clang_getNullCursor(), clang_getNullCursor(), clang_getNullCursor()}, 0};
    clang_visitChildren(cur, kid, &k);
    return k;
}

/* Under Clang's implicit conversions and parentheses. */
static CXCursor bare(CXCursor e)
{
    for (;;) {
        CXCursorKind k = clang_getCursorKind(e);
        Kids ch;
        if ((k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr) || (ch = kids(e)).n != 1)
            return e;
        e = ch.c[0];
    }
}

/* 'h', 'f', 'd', 'l' for a floating-point type, else 0. */
static char precision(CXType t)
{
    switch (clang_getCanonicalType(t).kind) {
    case CXType_Half: case CXType_Float16: return 'h';
    case CXType_Float: return 'f';
    case CXType_Double: return 'd';
    case CXType_LongDouble: return 'l';
    default: return 0;
    }
}

static void add(Walk *W, Op op)
{
    vec_push(&W->c->arena, &W->ops, op);
}

/* The operator between two operands: the first token after a. */
static const Token *operator_after(Walk *W, CXCursor a)
{
    Range r = oklc_cx_range(a);
    size_t t = r.end == UINT32_MAX ? W->ntoks - 1 : tok_at(W, r.end);
    return W->toks[t];
}

static void binary(Walk *W, CXCursor cur, CXCursorKind k, Range r)
{
    Kids ch = kids(cur);
    if (ch.n != 2)
        return;
    const Token *t = operator_after(W, ch.c[0]);
    Range a = oklc_cx_range(ch.c[0]), b = oklc_cx_range(ch.c[1]);
    if (t->kind != TK_PUNCT || a.begin == UINT32_MAX || b.begin == UINT32_MAX)
        return;
    char prec = precision(clang_getCursorType(k == CXCursor_CompoundAssignOperator ? ch.c[0]
                                                                                     : cur));
    Op op = {.range = r, .a = a, .b = b, .precision = prec};
    switch (t->punct) {
    case P_ASSIGN: op.kind = OP_ASSIGN; add(W, op); return;
    case P_ANDAND: op.kind = OP_AND; add(W, op); return;
    case P_OROR: op.kind = OP_OR; add(W, op); return;
    case P_PLUSEQ: case P_MINUSEQ: case P_STAREQ: case P_SLASHEQ: case P_PERCENTEQ:
    case P_CARETEQ: case P_AMPEQ: case P_PIPEEQ: case P_SHLEQ: case P_SHREQ:
        op.kind = OP_UPDATE;
        add(W, op);
        break;
    default:
        break;
    }
    if (!prec)
        return;
    switch (t->punct) {
    case P_PLUS: case P_MINUS: case P_PLUSEQ: case P_MINUSEQ: op.kind = OP_ADD; break;
    case P_STAR: case P_STAREQ: op.kind = OP_MUL; break;
    case P_SLASH: case P_SLASHEQ: op.kind = OP_DIV; break;
    default: return;
    }
    add(W, op);
}

static void unary(Walk *W, CXCursor cur, Range r)
{
    Kids ch = kids(cur);
    Range a = ch.n == 1 ? oklc_cx_range(ch.c[0]) : (Range){UINT32_MAX, UINT32_MAX};
    if (a.begin == UINT32_MAX || r.begin == UINT32_MAX)
        return;
    const Token *first = W->toks[tok_at(W, r.begin)];
    const Token *last = W->toks[tok_at(W, a.end)];
    if (oklc_tok_is_punct(first, P_AMP))
        add(W, (Op){.kind = OP_ADDRESS, .range = r, .a = a});
    else if (oklc_tok_is_punct(first, P_INC) || oklc_tok_is_punct(first, P_DEC) ||
             (a.end < r.end && (oklc_tok_is_punct(last, P_INC) || oklc_tok_is_punct(last, P_DEC))))
        add(W, (Op){.kind = OP_UPDATE, .range = r, .a = a});
}

/* a[i] of a scalar (or a struct): the innermost subscript of a[i][j]
 * has an array's type and is not one. */
static void element(Walk *W, CXCursor cur, Range r)
{
    CXType t = clang_getCanonicalType(clang_getCursorType(cur));
    if (t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
        t.kind == CXType_VariableArray || t.kind == CXType_DependentSizedArray)
        return;
    CXCursor base = cur;
    while (clang_getCursorKind(base) == CXCursor_ArraySubscriptExpr) {
        Kids ch = kids(base);
        if (ch.n != 2)
            return;
        base = bare(ch.c[0]);
    }
    long long bytes = clang_Type_getSizeOf(t);
    Var *v = clang_getCursorKind(base) == CXCursor_DeclRefExpr
                 ? oklc_walk_referenced_var(W, base) : NULL;
    add(W, (Op){.kind = OP_ELEMENT, .range = r, .var = v, .bytes = bytes > 0 ? bytes : -1});
}

/* sqrt(x), fma(a, b, c), exp(x)...: the C library's, or std::'s. */
static void call(Walk *W, CXCursor cur, Range r)
{
    static const char *const special[] = {
        "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow", "sin", "cos",
        "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
        "atanh", "cbrt", "hypot", "erf", "erfc", "tgamma", "lgamma", "rsqrt"};
    CXCursor callee = clang_getCursorReferenced(cur);
    CXCursorKind ck = clang_getCursorKind(callee);
    if (clang_Cursor_isNull(callee) ||
        (ck != CXCursor_FunctionDecl && ck != CXCursor_FunctionTemplate))
        return;
    const char *name = oklc_cx_string(W->c, clang_getCursorSpelling(callee));
    if (clang_Location_isFromMainFile(clang_getCursorLocation(callee))) {
        add(W, (Op){.kind = OP_CALL, .range = r, .name = name});
        return;
    }
    if (!strcmp(name, "at") && clang_Cursor_getNumArguments(cur) >= 2) {   /* okl::at(a, i) */
        CXCursor a = bare(clang_Cursor_getArgument(cur, 0));
        long long bytes = clang_Type_getSizeOf(clang_getCursorType(cur));
        Var *v = clang_getCursorKind(a) == CXCursor_DeclRefExpr ? oklc_walk_referenced_var(W, a)
                                                                : NULL;
        add(W, (Op){.kind = OP_ELEMENT, .range = r, .var = v, .bytes = bytes > 0 ? bytes : -1});
        return;
    }
    char prec = precision(clang_getCursorType(cur));
    size_t n = strlen(name);
    if (!prec || !n)
        return;
    /* sqrtf, sqrtl: the name without its precision's letter */
    size_t stem = n > 1 && (name[n - 1] == 'f' || name[n - 1] == 'l') ? n - 1 : n;
    Op op = {.range = r, .precision = prec, .name = name};
    for (int pass = 0; pass < 2; pass++, stem = n) {
        if (stem == 4 && !strncmp(name, "sqrt", 4))
            op.kind = OP_SQRT;
        else if (stem == 3 && !strncmp(name, "fma", 3))
            op.kind = OP_FMA;
        else {
            bool found = false;
            for (size_t i = 0; i < OKLC_COUNTOF(special) && !found; i++)
                found = strlen(special[i]) == stem && !strncmp(name, special[i], stem);
            if (!found)
                continue;
            op.kind = OP_SPECIAL;
            op.name = oklc_arena_strndup(&W->c->arena, name, stem);
        }
        add(W, op);
        return;
    }
}

/* Inside sizeof or alignof (the frames around the cursor): not run. */
static bool unevaluated(const Walk *W)
{
    for (size_t i = 0; i < W->frames.len; i++)
        if (clang_getCursorKind(W->frames.data[i].cur) == CXCursor_UnaryExpr)
            return true;
    return false;
}

void oklc_walk_op(Walk *W, CXCursor cur, CXCursorKind k)
{
    if (!W->o->count_ops || !W->kernel || W->in_lambda || unevaluated(W))
        return;
    Range r = oklc_cx_range(cur);
    if (r.begin == UINT32_MAX)
        return;
    switch (k) {
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator:
        binary(W, cur, k, r);
        break;
    case CXCursor_UnaryOperator:
        unary(W, cur, r);
        break;
    case CXCursor_ConditionalOperator: {
        Kids ch = kids(cur);
        if (ch.n == 3)
            add(W, (Op){.kind = OP_COND, .range = r, .a = oklc_cx_range(ch.c[0]),
                        .b = oklc_cx_range(ch.c[1]), .c = oklc_cx_range(ch.c[2])});
        break;
    }
    case CXCursor_ArraySubscriptExpr:
        element(W, cur, r);
        break;
    case CXCursor_CallExpr:
        call(W, cur, r);
        break;
    default:
        break;
    }
}

/* Outer operations before the ones inside them: by position, then the
 * longer first. */
static int op_order(const void *a, const void *b)
{
    const Op *x = a, *y = b;
    if (x->range.begin != y->range.begin)
        return x->range.begin < y->range.begin ? -1 : 1;
    return x->range.end > y->range.end ? -1 : x->range.end < y->range.end;
}

void oklc_walk_sort_ops(Walk *W)
{
    if (W->ops.len)
        qsort(W->ops.data, W->ops.len, sizeof(Op), op_order);
}
