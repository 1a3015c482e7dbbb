/*
 * model.h - the kernel model: what the checks and the backends know of a
 * parsed OKL file.
 *
 *   clang.c   parses the normalized text with libclang; Clang's messages
 *             become ours, at the user's file:line:col
 *   model.c   walks Clang's AST, attaches the normalizer's attribute
 *             records to declarations, loops and statements, and builds
 *             the model below
 *
 * Only these two files see libclang; everything after them sees this
 * model. Every node keeps its range in the normalized text (`Range`), so
 * a backend can rewrite it, and the text of the expressions it needs.
 */
#ifndef OKLC_MODEL_H
#define OKLC_MODEL_H

#include <stdarg.h>

#include "../normalize/normalize.h"

typedef struct Range {
    uint32_t begin, end;      /* [begin, end) in the normalized text */
} Range;

/* ---- types and variables ------------------------------------------------ */

/* What a value is made of, as C lays it out: for metadata that describes
 * an argument's data by its parts (OCCA's dtypes, emit/occa.c). */
typedef enum ShapeKind {
    SHAPE_SCALAR,             /* a number: `name` is its canonical C type ("unsigned int") */
    SHAPE_STRUCT,             /* a struct or class: `name`, `fields` */
    SHAPE_ARRAY,              /* `count` elements of `elem` */
    SHAPE_OPAQUE              /* anything else (a pointer, a union...): only `bytes` */
} ShapeKind;

typedef struct ShapeField ShapeField;

typedef struct Shape {
    ShapeKind          kind;
    const char        *name;  /* the type as Clang spells it, unqualified */
    int64_t            bytes; /* sizeof, -1 if unknown */
    const ShapeField  *fields;
    size_t             nfields;
    const struct Shape *elem;
    int64_t            count;
    bool               has_pointer; /* a pointer, or a record or array holding one */
} Shape;

struct ShapeField {
    const char  *name;
    const Shape *shape;
};

typedef struct Type {
    const char *spelling;     /* as Clang prints it: "const float *" */
    const char *element;      /* pointee or array element: "const float" */
    bool        pointer, array, reference;
    bool        is_const;     /* the variable itself: float *const p */
    bool        element_const;/* what it points to: const float *p */
    bool        dependent;    /* depends on a template parameter */
    int64_t     array_size;   /* elements of a constant array, else -1 */
    int         array_dims;   /* dimensions of a (nested) constant array */
    const Shape *shape;       /* parameters: the value, or what a pointer or array
                                 holds; NULL when it depends on a template */
} Type;

typedef enum VarKind { VAR_PARAM, VAR_LOCAL, VAR_GLOBAL, VAR_FIELD, VAR_TYPEDEF } VarKind;

typedef struct Loop Loop;
typedef struct Kernel Kernel;
typedef struct Stmt Stmt;

typedef struct Var {
    VarKind     kind;
    const char *name;
    Range       range;        /* the declaration, type included */
    uint32_t    name_off;
    uint32_t    type_at;      /* the first token of its type (after [[attributes]]) */
    Type        type;
    const char *type_written; /* the type as written (text before the name) */
    bool        constexpr_;
    bool        static_;      /* a local with static storage */
    bool        thread_local_;
    bool        loop_iter;    /* declared in a for-loop header */
    Range       init;         /* the initializer, if any ({0,0} if none) */
    char        init_form;    /* how it is written: '=' (= x), '{' ({x}), '(' ((x)), or 0 */
    uint32_t    declarator_end; /* after the name and its [dims] */
    Attr       *shared, *exclusive, *restrict_, *dim, *dim_order;
    Attr       *global_ptr;   /* @globalPtr (legacy @global): points to global memory */
    const struct Var *typedef_var; /* the OKL typedef its type names (@dim, @shared...) */
    bool        top_level;    /* declared directly in a kernel body */
    Loop       *loop;         /* innermost attributed loop around it */
    Kernel     *kernel;       /* the kernel it is in, for locals and params */
    Stmt       *decl_stmt;    /* the declaration statement (locals) */
    Range      *refs;         /* every use of it, in order */
    size_t      nrefs;
    int64_t     size;         /* bytes of its type (sizeof), -1 if unknown */
    bool        is_int, is_float; /* an integer or floating-point scalar */
    bool        is_signed;    /* a signed integer: short, int, long, long long, signed char */
    bool        per_thread;   /* a block's variable every thread writes before it reads
                                 it: one per thread, as @exclusive (analysis/) */
} Var;

static inline bool oklc_in_range(Range r, uint32_t off)
{
    return off >= r.begin && off < r.end;
}

/* Does r use variable v? */
static inline bool oklc_refers_in(const Var *v, Range r)
{
    for (size_t i = 0; i < v->nrefs; i++)
        if (oklc_in_range(r, v->refs[i].begin))
            return true;
    return false;
}

/* ---- loops --------------------------------------------------------------- */

typedef enum LoopKind { LOOP_OUTER, LOOP_INNER, LOOP_REGULAR } LoopKind;
/* Whether the threads of a block wait for each other after an @inner
 * loop that another follows (GPU backends): by the rule (when @shared
 * memory is used), or as the analysis of its accesses found. */
typedef enum BarrierNeed { BARRIER_BY_RULE, BARRIER_NEEDED, BARRIER_UNNEEDED } BarrierNeed;
typedef enum Cmp { CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_NE } Cmp;

/* One level of parallelism. A @tile for statement is two levels over the
 * same statement: the loop over tiles (tile_part 1) and the loop in a tile
 * (tile_part 2); a part the @tile gives no attribute is LOOP_REGULAR. */
struct Loop {
    LoopKind    kind;
    int         axis;         /* 0..2 (x, y, z) */
    bool        axis_given;   /* written, not computed */
    Attr       *attr;         /* @outer, @inner or the @tile */
    Attr       *axis_attr;    /* where the axis is written (nested in @tile) */

    Range       stmt;         /* the for statement, from "for" */
    Range       header;       /* from "(" to ")" */
    Range       init, cond, step, body;
    const char *iter;         /* iterator name */
    const char *iter_type;    /* its type, as Clang prints it */
    uint32_t    iter_off;
    const char *start, *bound;/* expressions, as text */
    Range       start_at, bound_at; /* the same in the normalized text */
    const char *stride;       /* how much one iteration moves, as text (> 0) */
    bool        stride_known; /* Clang computed it (positive), else it is checked later */
    Cmp         cmp;
    bool        down;         /* counts down */
    const char *trips;        /* number of iterations, as an expression */
    const char *trips_wide;   /* the same in long long (the launcher: no int overflow) */
    bool        trips_known;  /* a constant Clang could evaluate */
    int64_t     ntrips;
    bool        analyzed;     /* the header gave all of the above */
    const char *problem;      /* why it did not, for the checks */

    int         tile_part;    /* 0, or 1/2 for the two levels of a @tile */
    BarrierNeed barrier_after;/* a top @inner loop of a block: does a GPU wait after it */
    const char *tile_size;
    bool        tile_check;
    bool        tile_exact;   /* a known count, a multiple of the size: no tile runs past it */
    int64_t     tile_value;   /* the tile size if written as a number, else INT64_MIN */
    const char *tile_error;   /* why the size cannot be one (1.5, too large), else NULL */

    Attr       *nobarrier, *max_inner_dims, *simd_length, *unroll;
    Attr       *ivdep;        /* [[cl::ivdep]], [[cl::ivdep(len)]] */
    Attr      **attrs;        /* every attribute on the for statement */
    size_t      nattrs;
    Loop       *tile_other;   /* the other level of the same @tile */
    Stmt       *node;         /* the for statement in the statement tree */
    bool        in_statement; /* a top-level loop inside an if, a loop, ... */
    Loop       *parent;       /* enclosing attributed loop */
    Loop      **kids;         /* attributed loops directly inside */
    size_t      nkids;
    Kernel     *kernel;
    int         level;        /* 0 for a top-level @outer */
};

/* ---- statements ------------------------------------------------------------ */

/* The statements of a kernel body, as a tree: what backends restructure
 * (a barrier inside an @inner loop splits it on CPUs). Expressions are not
 * in it, except as expression statements. */
typedef enum StmtKind {
    ST_COMPOUND, ST_DECL, ST_EXPR, ST_IF, ST_FOR, ST_WHILE, ST_DO, ST_SWITCH,
    ST_RETURN, ST_BREAK, ST_CONTINUE, ST_GOTO, ST_NULL, ST_OTHER
} StmtKind;

typedef struct Barrier Barrier;

struct Stmt {
    StmtKind    kind;
    Range       range;
    Range       head;         /* if/while/switch: the condition; for: the header */
    Stmt       *parent;
    Stmt      **kids;         /* nested statements, in order */
    size_t      nkids;
    Loop       *loop;         /* ST_FOR with OKL attributes: its innermost level */
    int32_t     trips;        /* ST_FOR without: its iteration count if Clang can
                                 compute it (at most 64), else -1 */
    Loop       *plain;        /* ST_FOR without OKL attributes in a kernel: its header
                                 read as an OKL loop's (analyzed: of that form) */
    Barrier    *barrier;      /* ST_NULL that is a @barrier */
    Var       **decls;        /* ST_DECL: the variables it declares */
    size_t      ndecls;
    bool        has_barrier;  /* a @barrier is inside (or is it) */
};

typedef enum BarrierKind { BARRIER_LOCAL, BARRIER_WARP, BARRIER_GLOBAL } BarrierKind;

struct Barrier {
    Attr       *attr;
    Range       stmt;
    BarrierKind kind;
    Loop       *loop;         /* innermost attributed loop around it */
    Range       cond;         /* control flow it sits under, if it depends on a thread */
    const char *cond_var;     /* the per-thread variable that condition reads */
    bool        after_call;   /* a function's last @barrier, after a call of it: stmt is
                                 empty, at the end of the call's statement; attr is at
                                 the call */
    Stmt       *node;         /* its statement of the tree (ST_NULL) */
    bool        dropped;      /* the analysis found it separates nothing (analysis/):
                                 node->barrier is NULL then */
};

/* What an @atomic expression statement does. */
typedef enum AtomicOp {
    AT_OTHER,                 /* not a form the targets have: a critical section */
    AT_ADD, AT_SUB, AT_MUL, AT_DIV, AT_MOD, AT_AND, AT_OR, AT_XOR, AT_SHL, AT_SHR,
    AT_INC, AT_DEC,           /* ++x x++ / --x x-- */
    AT_ASSIGN,                /* x = value */
    AT_MIN, AT_MAX            /* x = min(x, v), x = max(v, x): rhs is v */
} AtomicOp;

typedef struct Atomic {
    Attr       *attr;
    Range       stmt;         /* the statement, ';' excluded */
    bool        block;        /* @atomic { ... } */
    Loop       *loop;
    AtomicOp    op;
    Range       lhs, rhs;     /* x and the value (rhs empty for ++/--) */
    const char *type;         /* x's type, as Clang prints it */
    bool        scalar;       /* x is an integer or floating-point scalar */
    bool        is_float, is_signed;  /* a floating-point x; a signed integer x */
    int         size;         /* x's bytes */
    bool        rhs_lvalue;   /* x = y where y is an object (an atomic read) */
    Var        *target;       /* the variable x is in (an array, a @shared...) */
    Var        *source;       /* the first variable the value mentions */
} Atomic;

/* okl::at(m, i, j): an element of a @dim array. */
typedef struct DimAccess {
    Range       call;
    Var        *var;
    int         nindex;
    Range      *index;
} DimAccess;

/* A statement directly in a kernel body (before, between or after the
 * top-level @outer loops). */
typedef struct TopStmt {
    Range       range;
    Loop       *outer;        /* when it is a top-level @outer loop */
    Var        *decl;         /* when it declares variables: the first */
} TopStmt;

struct Kernel {
    const char *name;
    Attr       *attr;
    Range       decl, body;
    uint32_t    name_off;
    bool        is_template;
    const char *in_namespace; /* the namespace around it, or NULL */
    const char *template_params;  /* "typename T, int N", or NULL */
    const char **tparams;     /* their names: T, N */
    size_t      ntparams;
    const char *return_type;
    Var       **params;
    size_t      nparams;
    Stmt       *root;         /* the body, as a statement tree */
    Loop      **loops;        /* every attributed loop, in source order */
    size_t      nloops;
    Loop      **outers;       /* top-level @outer loops, in order */
    size_t      nouters;
    Var       **locals;       /* every variable declared in the body */
    size_t      nlocals;
    TopStmt    *top;          /* the body's statements */
    size_t      ntop;
    Barrier   **barriers;
    size_t      nbarriers;
    Atomic    **atomics;
    size_t      natomics;
    DimAccess **dims;
    size_t      ndims;
    /* OpenCL's [[cl::reqd_work_group_size(x, y, z)]] (each nest's block,
     * checked), [[cl::work_group_size_hint(...)]], [[cl::vec_type_hint(T)]] */
    Attr       *reqd_wgs, *wgs_hint, *vec_hint;
};

/* A function that is not a kernel (a device function for GPU backends). */
typedef struct Function {
    const char *name;
    Range       decl;
    uint32_t    name_off;
    uint32_t    specs_at;     /* where specifiers go: after "template <...>" */
    bool        has_body;
    bool        is_template, is_member;   /* a template; a method, constructor... */
    bool        is_variadic;  /* f(int n, ...) */
    Var       **params;
    size_t      nparams;
    Var       **locals;       /* every variable declared in the body */
    size_t      nlocals;
    bool        returns_pointer;
    Range      *returns;      /* the values it returns */
    size_t      nreturns;
    Attr       *barrier;      /* @barrier as its last statement: it stands after each
                                 call of it (a statement of a kernel) instead */
    Attr       *inner_barrier;/* a @barrier anywhere else in it (an error) */
} Function;

/* A call of a function of the file (not a kernel, not a library one), or
 * of one of OKL's intrinsics (okl_*, callee_off UINT32_MAX). */
typedef struct Call {
    Range       range;
    const char *name;         /* the callee's */
    uint32_t    callee_off;   /* the name of the callee's definition (or declaration) */
    uint32_t    name_off;     /* the callee's name in the call */
    Range      *args;
    bool       *arg_pointer;  /* each argument: a pointer or an array? */
    bool       *arg_floating; /* each argument: a floating-point scalar? */
    size_t      nargs;
    Kernel     *kernel;       /* where the call is: a kernel or a function */
    Function   *function;
} Call;

/* A construct of C++ (not of C): a namespace, a cast, new, ... */
typedef struct CxxConstruct {
    uint32_t    at;
    const char *what;         /* "a namespace" */
} CxxConstruct;

/* A struct or class defined in the file, with a name. */
typedef struct Record {
    const char *name;         /* "" for typedef struct {...} name; */
    Range       range;
    bool        is_class;     /* `class`, or a struct with methods or bases */
    bool        nested;       /* inside another struct or class */
} Record;

/* &v.x where v has one of OKL's vector types (float4, int2, ...). */
typedef struct ComponentAddr {
    Range       range;        /* &v.x */
    Range       vector;       /* v */
    int         index;        /* x, y, z, w: 0..3 */
    const char *element;      /* "float" */
} ComponentAddr;

/* `lhs = rhs` of a struct of the file's (its implicit operator=): Metal
 * has that operator for thread memory only. */
typedef struct StructAssign {
    Range       lhs, rhs;
    uint32_t    op;           /* the '=' */
} StructAssign;

/* The scalar of an operation between one of OKL's vectors and a scalar of
 * another type (2.5 * v, v / n): C++ (the preludes' operators) converts it
 * to the vector's element type; OpenCL C wants that written. */
typedef struct ScalarOperand {
    Range       range;
    const char *element;      /* "float" */
} ScalarOperand;

/* ---- operations (oklc stats) ------------------------------------------------ */

/* An operation of a kernel's expressions that `oklc stats` counts, or that
 * tells it what is read, written or evaluated (ParseOptions.count_ops). */
typedef enum OpKind {
    OP_ADD, OP_MUL, OP_DIV, OP_FMA, OP_SQRT, OP_SPECIAL,  /* floating-point arithmetic
                                                           (a - b is an add) */
    OP_ELEMENT,               /* an element of an array or pointer: a[i], okl::at(a, i) */
    OP_ASSIGN,                /* a = v: a is written, not read */
    OP_UPDATE,                /* a op= v, ++a, a--: a is read and written */
    OP_ADDRESS,               /* &a: a is neither */
    OP_COND, OP_AND, OP_OR,   /* a ? b : c; a && b; a || b: b (and c) evaluated or not */
    OP_CALL                   /* a call of a function of the file (its body not counted) */
} OpKind;

typedef struct Op {
    OpKind      kind;
    Range       range;
    Range       a, b, c;      /* the operands (OP_ASSIGN, OP_UPDATE, OP_ADDRESS: a) */
    char        precision;    /* arithmetic: 'h' half, 'f' float, 'd' double, 'l' long double */
    const char *name;         /* OP_SPECIAL, OP_CALL: the function */
    const Var  *var;          /* OP_ELEMENT: the array or pointer (NULL: not a variable) */
    int64_t     bytes;        /* OP_ELEMENT: the element's size (-1: not known) */
} Op;

typedef struct Model {
    Kernel    **kernels;
    size_t      nkernels;
    Function  **functions;
    size_t      nfunctions;
    Range      *lambdas;      /* every lambda expression (C++ only) */
    size_t      nlambdas;
    uint32_t   *kernel_protos;   /* where each kernel's prototype begins (its body elsewhere) */
    size_t      nkernel_protos;
    Call       *calls;        /* calls of the functions above, in order */
    size_t      ncalls;
    Record     *records;
    size_t      nrecords;
    ComponentAddr *components;
    size_t      ncomponents;
    StructAssign *assigns;
    size_t      nassigns;
    ScalarOperand *scalars;
    size_t      nscalars;
    CxxConstruct *cxx;        /* C++ that is not also C, but for the above */
    size_t      ncxx;
    const char **type_names;  /* every typedef and alias name */
    size_t      ntype_names;
    bool        uses_double;  /* a value of type double anywhere in the code */
    bool        uses_half;    /* the type half named anywhere in the code */
    Var       **globals;      /* file-scope variables */
    size_t      nglobals;
    Var       **typedefs;     /* typedefs with OKL attributes */
    size_t      ntypedefs;
    Var       **fields;       /* struct fields with OKL attributes */
    size_t      nfields;
    /* attributes on constructs they cannot apply to, for the checks */
    Attr      **misplaced;
    const char **misplaced_what;   /* what they are on: "a variable" */
    size_t      nmisplaced;
    Op         *ops;          /* in kernels, outside lambdas, by position, an operation
                                 before those inside it (count_ops) */
    size_t      nops;
} Model;

/* ---- clang.c --------------------------------------------------------------- */

/* Options of the parse. */
typedef struct ParseOptions {
    const char **clang_args;  /* extra arguments (--clang-arg) */
    size_t       nclang_args;
    bool         wall;        /* -Wall: notes that are only advice */
    bool         own_text;    /* oklc wrote it (a CPU relay): its _occa_ names are its own */
    bool         count_ops;   /* collect Model.ops (oklc stats, the serial counters) */
} ParseOptions;

/* Parses the normalized text and builds the model. Clang's errors are
 * reported at the user's positions; returns NULL after an error. */
OKLC_INTERNAL Model *oklc_parse(oklc_ctx *c, const Normalized *nz, const ParseOptions *o);
/* The stack the parse of these (preprocessed) tokens and the stages after
 * it need, in bytes; 0 after an error when the input nests too deeply. */
OKLC_INTERNAL size_t oklc_parse_stack(oklc_ctx *c, Token *const *toks, size_t n);

/* Is <name> (n bytes) a header of the C or C++ standard library? */
OKLC_INTERNAL bool oklc_std_header(const char *name, size_t n);

/* ---- helpers for later stages (model.c) ----------------------------------------- */

/* Reports at an offset of the normalized text, mapped to the user's file. */
OKLC_INTERNAL Diag *oklc_model_error(oklc_ctx *c, uint32_t off, const char *fmt, ...)
    OKLC_PRINTF(3, 4);
OKLC_INTERNAL Diag *oklc_model_verror(oklc_ctx *c, uint32_t off, const char *fmt, va_list ap);
OKLC_INTERNAL Diag *oklc_model_diag(oklc_ctx *c, DiagLevel lv, uint32_t off, const char *fmt,
                                    ...) OKLC_PRINTF(4, 5);
/* The line of an offset as the user sees it (#line applied). */
OKLC_INTERNAL unsigned oklc_model_line(oklc_ctx *c, uint32_t off);
/* The block of the nest of top-level @outer loop `top` (threads per axis,
 * as every backend runs it): @max_inner_dims's sizes, else the largest
 * count of its @inner loops on each axis, at least 1; -1 on an axis whose
 * size is known only at launch. */
OKLC_INTERNAL void oklc_model_block(const Kernel *k, const Loop *top, int64_t block[3]);
/* The arguments of a@(x, y, z) as numbers (false when one is not an
 * integer literal): [[cl::reqd_work_group_size]], @max_inner_dims. */
OKLC_INTERNAL bool oklc_model_sizes(const Attr *a, int64_t out[3]);
/* Prints the model readably (oklc check --dump-model). */
OKLC_INTERNAL void oklc_model_dump(oklc_ctx *c, const Model *m, Buf *out);
OKLC_INTERNAL const char *oklc_cmp_spelling(Cmp cmp);

#endif
