/*
 * walk.h - the walk that builds the kernel model from Clang's AST, shared
 * by the files that build its parts. Private to src/parse/.
 *
 *   model.c      the walk: one iterative visit of the AST in source order
 *                (an explicit stack of frames, no C recursion per level),
 *                the statement tree, the normalized text's tokens and the
 *                attributes each construct claims
 *   decls.c      variables, parameters, fields, typedefs, declaration
 *                statements, structs, C++ constructs OpenCL C lacks
 *   functions.c  functions and kernels: parameters, bodies, what the
 *                checks need once a kernel is complete
 *   loops.c      for statements: OKL loop levels, tiles, headers and
 *                iteration counts
 *   flow.c       control flow around barriers: conditions, early exits
 *   exprs.c      expressions: variable uses, calls, @atomic forms,
 *                okl::at, vector components
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
 * values come from Clang.
 */
#ifndef OKLC_WALK_H
#define OKLC_WALK_H

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

/* A cursor whose children are being walked, and what to undo once they
 * are: the state entering it changed. */
typedef struct Frame {
    CXCursor cur;
    Range    bound;       /* holds the cursor: its extent, else its parent's bound
                             (UINT32_MAX: none known; an end of UINT32_MAX: a
                             statement that ends in its body, not asked) */
    bool     main_file;   /* known to be in the main file: no need to ask */
    bool     operands;    /* a built-in binary operator: its children are in the
                             main file where it is */
    uint32_t end;         /* where its extent ends, once known (UINT32_MAX: not) */
    uint32_t last_end;    /* the `end` of the last of its children left */
    bool     child;       /* the frame below it is its parent's: told its end */
    bool     open_end;    /* its node's end is its last child's, set when left */
    Stmt    *node;        /* its statement node; W->stmt becomes `up` again */
    Stmt    *up;
    size_t   nbarriers;   /* barriers before it */
    int      expr;        /* added to in_expr */
    bool     ctl;         /* pushed a Ctl */
    bool     lambda;      /* a lambda: in_lambda was raised */
    bool     for_loop;    /* a for statement: loop and header to restore */
    Loop    *saved_loop;
    Range    saved_header;
} Frame;

typedef struct VarSlot {
    uint32_t off;
    Var     *var;
} VarSlot;

typedef VEC(Attr *) AttrList;

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

    VEC(Frame)         frames;     /* the cursors being walked, outermost first */
    size_t             base;       /* frames below belong to an enclosing walk */
    CXCursor           root;       /* the cursor this walk visits the children of */
    int                nesting;    /* walks inside walks (C recursion) */

    VEC(Kernel *)      kernels;
    VEC(Function *)    functions;
    VEC(Function *)    barrier_fns;    /* functions whose last statement is a @barrier */
    VEC(Call)          later_calls;    /* calls of a function defined after them */
    VEC(Range)         lambdas;
    VEC(uint32_t)      kernel_protos;
    VEC(Call)          calls;
    VEC(Record)        records;
    VEC(ComponentAddr) components;
    VEC(StructAssign)  assigns;
    VEC(ScalarOperand) scalars;
    VEC(Op)            ops;
    Function          *function;   /* the function being walked (not a kernel) */
    VEC(Range)         freturns;
    VEC(CxxConstruct)  cxx;
    VEC(const char *)  type_names;
    bool               uses_double;
    bool               uses_half;
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

/* ---- tokens of the normalized text ------------------------------------------- */

/* Index of the first token at or after `off`. */
static inline size_t tok_at(const Walk *W, uint32_t off)
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

static inline uint32_t tok_end(const Token *t)
{
    return t->loc.off + t->len;
}

static inline Range tok_range(const Walk *W, size_t from, size_t to)
{
    uint32_t end = from < to ? tok_end(W->toks[to - 1]) : W->toks[from]->loc.off;
    return (Range){W->toks[from]->loc.off, end};
}

/* The bracket that closes toks[i], or ntoks - 1 (EOF) when none does. */
static inline size_t closing(const Walk *W, size_t i)
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

/* Text of tokens [from, to): one blank where the source had whitespace. */
OKLC_INTERNAL const char *oklc_walk_text_of(Walk *W, size_t from, size_t to);
OKLC_INTERNAL const char *oklc_walk_range_text(Walk *W, Range r);
/* A statement's range with the ';' that ends it. */
OKLC_INTERNAL Range oklc_walk_with_semicolon(Walk *W, Range r);

/* ---- the walk (model.c) ------------------------------------------------------ */

/* clang_visitChildren under a jump target of its own (see model.c). */
OKLC_INTERNAL void oklc_walk_visit(Walk *W, CXCursor cur, CXCursorVisitor fn,
                                   CXClientData data);
/* Walks what is under `cur`; oklc_walk_subtree walks `cur` too. */
OKLC_INTERNAL void oklc_walk_children(Walk *W, CXCursor cur);
OKLC_INTERNAL void oklc_walk_subtree(Walk *W, CXCursor cur, CXCursor parent);
OKLC_INTERNAL bool oklc_walk_is_expression(CXCursorKind k);
/* Claims the unclaimed attributes of `kind` anchored in [lo, hi]. */
OKLC_INTERNAL void oklc_walk_claim(Walk *W, AnchorKind kind, uint32_t lo, uint32_t hi,
                                   AttrList *out);
/* An attribute where OKL has no meaning for it ("what": where it is). */
OKLC_INTERNAL void oklc_walk_misplaced(Walk *W, Attr *a, const char *what);
/* A name the user declares: those starting with _occa_ are oklc's own. */
OKLC_INTERNAL void oklc_walk_reserved(Walk *W, const char *name, uint32_t off);

/* ---- declarations (decls.c, functions.c) ------------------------------------- */

/* VarDecl, ParmDecl, FieldDecl, TypedefDecl; `shared_next` are the
 * attributes before the first declarator of a declaration statement. */
OKLC_INTERNAL Var *oklc_walk_declare(Walk *W, CXCursor cur, VarKind kind,
                                     AttrList *shared_next);
/* The variable a DeclRefExpr refers to, if it is one of the file's. */
/* The attributes of a declaration: before its specifiers, after its name,
 * after a '*' of its declarator. */
OKLC_INTERNAL void oklc_walk_decl_attrs(Walk *W, Range ext, uint32_t name_off, AttrList *next,
                                        AttrList *prev, AttrList *ptr);
OKLC_INTERNAL Var *oklc_walk_referenced_var(Walk *W, CXCursor ref);
OKLC_INTERNAL bool oklc_walk_names_double(CXType t);
OKLC_INTERNAL bool oklc_walk_names_half(CXType t);
OKLC_INTERNAL void oklc_walk_local_decls(Walk *W, CXCursor declstmt, CXCursor parent);
OKLC_INTERNAL void oklc_walk_record(Walk *W, CXCursor cur, CXCursorKind k);
OKLC_INTERNAL void oklc_walk_cxx_construct(Walk *W, CXCursor cur, CXCursorKind k);
/* A function or a kernel, its body walked. */
OKLC_INTERNAL void oklc_walk_function(Walk *W, CXCursor cur, CXCursorKind kind);

/* ---- statements (loops.c, flow.c, exprs.c) ----------------------------------- */

/* A for statement: entering it (its loop levels) and leaving it. */
OKLC_INTERNAL void oklc_walk_for(Walk *W, CXCursor cur, AttrList *attrs, Frame *f);
OKLC_INTERNAL void oklc_walk_for_end(Walk *W, const Frame *f);
/* The parenthesized condition after a keyword: if (...), while (...). */
OKLC_INTERNAL Range oklc_walk_paren_after(Walk *W, uint32_t from, const char *kw);
OKLC_INTERNAL void oklc_walk_push_ctl(Walk *W, CtlKind kind, CXCursor stmt, Range cond,
                                      Loop *inner);
OKLC_INTERNAL void oklc_walk_early_exit(Walk *W, CXCursor cur, CXCursorKind k);
OKLC_INTERNAL void oklc_walk_barrier(Walk *W, CXCursor cur, Attr *a);
/* @barrier in a function: its last statement, or one elsewhere (an error). */
OKLC_INTERNAL void oklc_walk_function_barrier(Walk *W, CXCursor cur, Attr *a);
/* A call of a function whose last statement is a @barrier: the barrier
 * after the call's statement (which must be one of a kernel's). */
OKLC_INTERNAL void oklc_walk_barrier_call(Walk *W, CXCursor cur);
/* Calls of such functions defined after the call: errors, at the end. */
OKLC_INTERNAL void oklc_walk_barrier_calls_end(Walk *W);
/* Attributes that start a statement: @barrier, @atomic. */
OKLC_INTERNAL void oklc_walk_statement_attrs(Walk *W, CXCursor cur, CXCursorKind k,
                                             AttrList *attrs);
OKLC_INTERNAL void oklc_walk_reference(Walk *W, CXCursor ref);
OKLC_INTERNAL void oklc_walk_dim_access(Walk *W, CXCursor call);
OKLC_INTERNAL void oklc_walk_call(Walk *W, CXCursor cur);
OKLC_INTERNAL void oklc_walk_component_address(Walk *W, CXCursor cur);
OKLC_INTERNAL void oklc_walk_returned_value(Walk *W, CXCursor ret);
/* ops.c: an operation oklc stats counts (ParseOptions.count_ops) */
OKLC_INTERNAL void oklc_walk_op(Walk *W, CXCursor cur, CXCursorKind k);
OKLC_INTERNAL void oklc_walk_sort_ops(Walk *W);

#endif
