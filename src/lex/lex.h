/*
 * lex.h - C11/C++17 tokens, plus OKL's `@name`.
 *
 * A token knows its spelling, the whitespace and comments before it (so
 * untouched code can be printed back exactly), and where it came from.
 */
#ifndef OKLC_LEX_H
#define OKLC_LEX_H

#include "../base/base.h"

typedef enum TokKind {
    TK_EOF,
    TK_IDENT,       /* identifiers and keywords */
    TK_NUMBER,      /* a preprocessing number: 1, 0x1p-3f, 1'000'000ull, 2.5_km */
    TK_CHAR,        /* 'a', u8'a', L'\n', 'x'_udl */
    TK_STRING,      /* "s", u8"s", R"d(raw)d", "s"_udl */
    TK_PUNCT,       /* see Punct */
    TK_ATTR,        /* @name */
    TK_COMMENT,     /* only with LEX_COMMENTS */
    TK_OTHER,       /* a character that starts no token: `, \, stray @ */
    TK_DIRECTIVE,   /* preprocessor output: a directive line passed through */
    TK_PLACEMARKER  /* preprocessor internal: an empty macro argument */
} TokKind;

typedef enum Punct {
    P_NONE,
    P_LBRACE, P_RBRACE, P_LBRACKET, P_RBRACKET, P_LPAREN, P_RPAREN,
    P_SEMI, P_COLON, P_ELLIPSIS, P_QUESTION, P_COLONCOLON,
    P_DOT, P_DOTSTAR, P_ARROW, P_ARROWSTAR,
    P_TILDE, P_NOT, P_PLUS, P_MINUS, P_STAR, P_SLASH, P_PERCENT,
    P_CARET, P_AMP, P_PIPE, P_ASSIGN,
    P_PLUSEQ, P_MINUSEQ, P_STAREQ, P_SLASHEQ, P_PERCENTEQ,
    P_CARETEQ, P_AMPEQ, P_PIPEEQ,
    P_EQ, P_NE, P_LT, P_GT, P_LE, P_GE, P_ANDAND, P_OROR,
    P_SHL, P_SHR, P_SHLEQ, P_SHREQ, P_INC, P_DEC, P_COMMA,
    P_HASH, P_HASHHASH,
    P_COUNT_
} Punct;

enum TokFlag {
    TF_BOL      = 1 << 0,   /* first token of a line */
    TF_SPACE    = 1 << 1,   /* whitespace or a comment precedes it */
    TF_MACRO    = 1 << 2,   /* produced by a macro expansion */
    TF_NOEXPAND = 1 << 3,   /* a macro name that must not expand again */
    TF_BAD      = 1 << 4,   /* malformed: unterminated literal */
    TF_KEEPLEAD = 1 << 5,   /* print `lead` even though TF_MACRO is set */
    TF_SPACED_ATTR = 1 << 6 /* TK_ATTR written `@ name` (legacy); text is `@name` */
};

typedef struct Expansion Expansion;

struct Token {
    uint8_t     kind;       /* TokKind */
    uint8_t     flags;      /* TokFlag */
    uint16_t    punct;      /* Punct, for TK_PUNCT */
    uint32_t    len;
    const char *text;       /* spelling; not NUL-terminated */
    const char *lead;       /* whitespace and comments before the token */
    uint32_t    lead_len;
    Loc         loc;        /* where the spelling is (a #define body for macros) */
    Expansion  *exp;        /* the macro expansion that created it, or NULL */
    const IdSet *hs;        /* macros that must not expand this token (their
                               numbers: PP's macro_ids) */
    Token      *next;
};

/* A macro expansion, for diagnostics: reports go to the outermost invocation
 * in the user's code, with a note per macro. */
struct Expansion {
    const char *macro;      /* name of the macro */
    Loc         def;        /* where it was defined */
    Token      *site;       /* the name token at the invocation */
};

enum {
    LEX_COMMENTS = 1 << 0   /* comments become TK_COMMENT tokens */
};

/* Tokenizes the whole text of a view. Returns a list ending in TK_EOF.
 * Errors (unterminated comment, NUL bytes) are reported to the context; bad
 * literals are marked TF_BAD so that skipped #if blocks may contain them. */
OKLC_INTERNAL Token *oklc_lex(oklc_ctx *c, uint32_t view, unsigned flags);

/* Tokenizes a string that is not a file (a -D value, a _Pragma, the result
 * of ##). Tokens get location `loc`. */
OKLC_INTERNAL Token *oklc_lex_string(oklc_ctx *c, const char *text, size_t len, Loc loc);
/* The same, reporting nothing: for asking "is this one token?" (##). */
OKLC_INTERNAL Token *oklc_lex_string_quiet(oklc_ctx *c, const char *text, size_t len, Loc loc);

/* Length of the first token of s (used to keep printed tokens apart). */
OKLC_INTERNAL size_t oklc_lex_first_len(const char *s, size_t n);

OKLC_INTERNAL Token *oklc_tok_copy(oklc_ctx *c, const Token *t);
OKLC_INTERNAL bool oklc_tok_eq(const Token *t, const char *s);
OKLC_INTERNAL bool oklc_tok_is_punct(const Token *t, Punct p);
/* The whitespace and comments between prev and t as written in the file,
 * line splices included (t->lead has them removed); t->lead where the file
 * does not tell (tokens of macros, a splice inside prev). */
OKLC_INTERNAL const char *oklc_tok_lead_as_written(oklc_ctx *c, const Token *prev,
                                                   const Token *t, size_t *n);
/* The text of tokens [from, stop) with the whitespace, comments and line
 * splices between them as written: a directive line, a header name. (Not
 * pointer arithmetic on the source: a raw string keeps its line splices in
 * the file's text.) */
OKLC_INTERNAL char *oklc_tok_join(oklc_ctx *c, const Token *from, const Token *stop,
                                  size_t *len);
/* The warning for a TF_SPACED_ATTR token (`@ name`), at its '@'. */
OKLC_INTERNAL void oklc_tok_warn_spaced(oklc_ctx *c, const Token *t);
/* What is wrong with a TF_BAD token. */
OKLC_INTERNAL const char *oklc_tok_bad_message(const Token *t);
/* A terminated "..." literal without prefix or suffix (a file name). */
OKLC_INTERNAL bool oklc_tok_is_plain_string(const Token *t);
OKLC_INTERNAL bool oklc_is_keyword(const char *s, size_t n);
OKLC_INTERNAL const char *oklc_punct_spelling(Punct p);

/* The location a user should see for a token: its own position, or for a
 * token made by a macro, the invocation in the file (recursively). */
OKLC_INTERNAL Loc oklc_tok_user_loc(const Token *t);
/* Just past the token: where "expected something after X" points. */
OKLC_INTERNAL Loc oklc_tok_end_loc(const Token *t);
/* Adds "expanded from macro" notes for a token made by macros. */
OKLC_INTERNAL void oklc_tok_note_expansion(oklc_ctx *c, Diag *d, const Token *t);

/* Value of an integer literal (#if arithmetic, attribute arguments). On
 * failure returns false and sets *err to a message. */
OKLC_INTERNAL bool oklc_int_literal(const char *s, size_t n, uint64_t *val, bool *is_unsigned,
                                    const char **err);
/* Value of a character literal; false with *err set when malformed. */
OKLC_INTERNAL bool oklc_char_literal(const char *s, size_t n, int64_t *val, const char **err);

/* ---- consteval.c ---------------------------------------------------------- */

typedef enum ConstEval {
    CONST_VALUE,     /* *out holds it */
    CONST_UNKNOWN,   /* a name without a value, a token it does not evaluate */
    CONST_OVERFLOW   /* leaves int64, or divides by zero */
} ConstEval;

/* Names with values: template parameters and an instance's arguments. */
typedef struct ConstNames {
    const char *const *names;
    const char *const *values;   /* texts, evaluated in turn; NULL: unknown */
    size_t             n;
} ConstNames;

/* The value of integer constant expression `text` (names: NULL or the
 * values of names). */
OKLC_INTERNAL ConstEval oklc_const_eval(const char *text, const ConstNames *names,
                                        int64_t *out);

#endif
