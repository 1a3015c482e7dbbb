/*
 * normalize.h - OKL 1.0 `@attr(args)` to OKL 2.0 `[[okl::attr(args)]]`.
 *
 *   attrs.c      the table of OKL attributes and the checks of their shape
 *   normalize.c  the rewrite, the attribute records and the offset map
 *
 * The result is C++ that Clang parses, plus what Clang would drop: each
 * attribute with its parsed arguments and the position in the normalized
 * text of the syntax it belongs to.
 */
#ifndef OKLC_NORMALIZE_H
#define OKLC_NORMALIZE_H

#include "../pp/pp.h"

typedef enum AttrId {
    ATTR_KERNEL,
    ATTR_OUTER,
    ATTR_INNER,
    ATTR_TILE,
    ATTR_SHARED,
    ATTR_EXCLUSIVE,
    ATTR_BARRIER,
    ATTR_NOBARRIER,
    ATTR_ATOMIC,
    ATTR_RESTRICT,
    ATTR_DIM,
    ATTR_DIMORDER,
    ATTR_MAX_INNER_DIMS,
    ATTR_SIMD_LENGTH,
    ATTR_UNROLL,
    ATTR_GLOBAL_PTR,
    ATTR_CL_REQD_WGS,     /* [[cl::reqd_work_group_size(x, y, z)]] on a kernel */
    ATTR_CL_WGS_HINT,     /* [[cl::work_group_size_hint(x, y, z)]] on a kernel */
    ATTR_CL_VEC_HINT,     /* [[cl::vec_type_hint(T)]] on a kernel */
    ATTR_CL_IVDEP,        /* [[cl::ivdep]], [[cl::ivdep(len)]] on a for loop */
    ATTR_CL_PACKED,       /* [[cl::packed]]: a layout, written as GNU's (CL_LAYOUT) */
    ATTR_CL_ALIGNED,      /* [[cl::aligned]], [[cl::aligned(n)]]: likewise */
    ATTR_PLUGIN,       /* one a plugin added: AttrSpec.plugin says which */
    ATTR_COUNT_
} AttrId;

/* Which syntax an attribute belongs to. */
typedef enum AnchorKind {
    ANCHOR_NEXT,   /* the statement or declaration that follows: [[okl::outer]] for ... */
    ANCHOR_PREV    /* the declarator or pointer before it: float *m [[okl::dim(3)]] */
} AnchorKind;

typedef enum ArgKind {
    ARG_EXPR,      /* an expression, kept as text: 16, N / 2, "local" */
    ARG_ATTR,      /* a nested attribute: @outer(1) inside @tile */
    ARG_KEYVAL     /* key = value: check=false */
} ArgKind;

typedef struct Attr Attr;

typedef struct AttrArg {
    ArgKind     kind;
    const char *text;     /* ARG_EXPR: the expression; ARG_KEYVAL: the value */
    const char *key;      /* ARG_KEYVAL */
    Attr       *attr;     /* ARG_ATTR */
    const Token *tok;     /* first token, for diagnostics */
    uint32_t    off, len; /* where it is in the normalized text */
    Token     **toks;     /* ARG_EXPR / ARG_KEYVAL: the value's tokens */
    uint32_t    ntoks;
} AttrArg;

struct Attr {
    AttrId       id;
    const char  *name;        /* "outer" */
    AttrArg     *args;
    int          nargs;
    const Token *tok;         /* the @name (or okl::name) token */
    uint32_t     off, end;    /* the attribute in the normalized text */
    AnchorKind   anchor;
    uint32_t     anchor_off;  /* offset of the token it belongs to */
    bool         moved;       /* written in a for-loop header */
    bool         legacy;      /* keyword form: outer, shared, ... */
    bool         okl2;        /* written as [[okl::...]] or [[okl_...]] */
};

typedef struct SrcMapEntry {
    uint32_t     off;         /* first byte in the normalized text */
    const Token *tok;         /* the token printed there */
} SrcMapEntry;

/* A [[...]] in the normalized text that holds OKL attributes: what a
 * backend deletes, or replaces by the attributes that are not OKL's. */
typedef struct SpecRange {
    uint32_t     off, end;    /* from "[[" to "]]" */
    const char  *keep;        /* "[[gnu::unused]]", or NULL: delete it all */
} SpecRange;

/* A [[cl::packed]] or [[cl::aligned(n)]]: written as GNU's
 * __attribute__((...)) for Clang and every target that has it (the
 * layout Clang computes for the metadata is then the device's); a target
 * without it refuses it at `tok`. */
typedef struct ClLayout {
    const Token *tok;         /* the attribute's name */
    AttrId       id;          /* ATTR_CL_PACKED or ATTR_CL_ALIGNED */
} ClLayout;

typedef struct Normalized {
    const char  *text;
    size_t       len;
    Attr       **attrs;       /* top-level attributes, in text order */
    size_t       nattrs;
    SpecRange   *specs;       /* in text order */
    size_t       nspecs;
    SrcMapEntry *map;         /* sorted by off */
    size_t       nmap;
    ClLayout    *layouts;     /* [[cl::packed]], [[cl::aligned]], in text order */
    size_t       nlayouts;
} Normalized;

/* ---- attrs.c ------------------------------------------------------------ */

typedef struct AttrSpec {
    const char *name;
    AttrId      id;
    int         min_args, max_args;   /* max -1: any number */
    bool        args_are_attrs;       /* positions after the first may be @outer/@inner */
    const struct oklc_plugin_attr *plugin;   /* ATTR_PLUGIN: its description */
} AttrSpec;

/* Enters an attribute into the context's registry (the built-ins are
 * entered first, by the same call); false when the name is taken. */
OKLC_INTERNAL bool oklc_attr_add(oklc_ctx *c, const AttrSpec *s);
OKLC_INTERNAL const AttrSpec *oklc_attr_lookup(oklc_ctx *c, const char *name, size_t len);
OKLC_INTERNAL const char *oklc_attr_name(AttrId id);
/* How messages write an attribute's name: "@" before OKL's (and plugins'),
 * "" before OpenCL's ("cl::packed"). */
OKLC_INTERNAL const char *oklc_attr_at(const char *name);
/* OpenCL's attribute `cl::name` (the seed's attribute qualifiers): its
 * spec, named "cl::name"; NULL for a name OpenCL does not define, and for
 * those no backend has (*unsupported set). */
OKLC_INTERNAL const AttrSpec *oklc_attr_cl(const char *name, size_t len, bool *unsupported);
/* Whether `name` is a legacy name of s (@global for @globalPtr). */
OKLC_INTERNAL bool oklc_attr_legacy(const AttrSpec *s, const char *name, size_t len);
/* The closest known name, for "did you mean"; NULL when nothing is close. */
OKLC_INTERNAL const char *oklc_attr_suggest(oklc_ctx *c, const char *name, size_t len);
/* Checks argument count and kinds; reports and returns false when wrong. */
OKLC_INTERNAL bool oklc_attr_check_args(oklc_ctx *c, const Attr *a);

/* ---- normalize.c -------------------------------------------------------- */

/* Normalizes preprocessed tokens (or, for --keep-macros, the raw tokens of a
 * file with directive lines as TK_DIRECTIVE). */
OKLC_INTERNAL Normalized *oklc_normalize_tokens(oklc_ctx *c, Token **toks, size_t n);
/* --keep-macros: normalizes one file without preprocessing it; directive
 * lines are kept (attributes inside #define bodies are rewritten). */
OKLC_INTERNAL Normalized *oklc_normalize_raw_view(oklc_ctx *c, uint32_t view);
/* The token printed at (or before) an offset of the normalized text. */
OKLC_INTERNAL const SrcMapEntry *oklc_norm_lookup(const Normalized *nz, uint32_t off);
/* The user's position of an offset of the normalized text. */
OKLC_INTERNAL Loc oklc_norm_loc(const Normalized *nz, uint32_t off);

#endif
