/*
 * lex.c - turns source text into tokens (translation phases 1-3).
 *
 * Takes a view of a source buffer, gives a linked list of tokens ending in
 * TK_EOF. Line splices (backslash-newline) are removed first into a clean
 * copy; a table maps clean offsets back to the file so every token keeps its
 * physical line and column. Each token records the whitespace and comments
 * before it, so code that no stage touches is printed back as written.
 *
 * Grammar notes: a preprocessing number is
 *   pp-number = (digit | '.' digit) { digit | nondigit | '.' | [eEpP] sign
 *               | "'" (digit | nondigit) }
 * and literal prefixes are u8, u, U, L with an optional R for raw strings.
 */
#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include "lex.h"

typedef struct Lexer {
    oklc_ctx      *c;
    uint32_t       view;
    const SrcFile *f;
    const char    *text, *p, *end;     /* the clean text */
    char          *own;                /* text, when it is our copy */
    unsigned       flags;
    const Loc     *at;                 /* oklc_lex_string: every position */
    bool           quiet;              /* report nothing (token pasting) */

    /* splices: a splice removed at clean offset pos[i] shifts every later
     * offset by shift[i] bytes in the file */
    uint32_t      *sp_pos, *sp_shift;
    size_t         nsp, spi;
    uint32_t       line;               /* line index for monotonic lookups */

    Token         *tail;
} Lexer;

/* ---- splices and positions ---------------------------------------------- */

/* Length of a splice starting at s (backslash, optional blanks, newline),
 * or 0. Blanks before the newline are accepted as GCC does. */
static size_t splice_len(const char *s, const char *end)
{
    if (*s != '\\')
        return 0;
    const char *q = s + 1;
    while (q < end && (*q == ' ' || *q == '\t'))
        q++;
    if (q < end && *q == '\r')
        q++;
    if (q < end && *q == '\n')
        return (size_t)(q + 1 - s);
    return 0;
}

static void remove_splices(Lexer *L)
{
    const char *src = L->f->text, *end = src + L->f->len;
    const char *s = memchr(src, '\\', L->f->len);
    size_t count = 0;
    for (const char *q = s; q && q < end; q = memchr(q + 1, '\\', (size_t)(end - q - 1)))
        count += splice_len(q, end) > 0;
    if (!s) {       /* a copy otherwise: stray backslashes become blanks in it */
        L->text = src;
        L->end = end;
        return;
    }
    Arena *a = &L->c->arena;
    char *out = oklc_arena_alloc(a, L->f->len + 1);
    L->sp_pos = oklc_arena_alloc(a, (count + 1) * sizeof(uint32_t));
    L->sp_shift = oklc_arena_alloc(a, (count + 1) * sizeof(uint32_t));
    size_t o = 0, shift = 0;
    for (const char *q = src; q < end;) {
        size_t n = splice_len(q, end);
        if (n) {
            shift += n;
            L->sp_pos[L->nsp] = (uint32_t)o;
            L->sp_shift[L->nsp++] = (uint32_t)shift;
            q += n;
        } else {
            out[o++] = *q++;
        }
    }
    out[o] = 0;
    L->text = L->own = out;
    L->end = out + o;
}

/* File offset of a clean offset; offsets are asked for in increasing order. */
static uint32_t file_offset(Lexer *L, uint32_t off)
{
    while (L->spi < L->nsp && L->sp_pos[L->spi] <= off)
        L->spi++;
    return off + (L->spi ? L->sp_shift[L->spi - 1] : 0);
}

static Loc loc_at(Lexer *L, const char *p)
{
    uint32_t off = file_offset(L, (uint32_t)(p - L->text));
    const SrcFile *f = L->f;
    while (L->line + 1 < f->nlines && f->line_starts[L->line + 1] <= off)
        L->line++;
    Loc loc = {L->view, L->line + 1, off - f->line_starts[L->line] + 1, off};
    return loc;
}

static Token *add(Lexer *L, TokKind kind, const char *start, const char *end)
{
    Token *t = oklc_arena_alloc(&L->c->arena, sizeof *t);
    t->kind = (uint8_t)kind;
    t->text = start;
    t->len = (uint32_t)(end - start);
    t->loc = loc_at(L, start);
    L->tail->next = t;
    L->tail = t;
    return t;
}

/* ---- character classes -------------------------------------------------- */

static bool ident_start(unsigned char ch)
{
    return isalpha(ch) || ch == '_' || ch == '$' || ch >= 0x80;
}

static bool ident_char(unsigned char ch)
{
    return ident_start(ch) || isdigit(ch);
}

/* ---- literals ----------------------------------------------------------- */

/* Skips a quoted literal starting at the opening quote; returns the end.
 * *bad is set when the literal is not closed on its line. */
static const char *quoted(const char *p, const char *end, char quote, bool *bad)
{
    for (p++; p < end && *p != quote; p++) {
        if (*p == '\n') {
            *bad = true;
            return p;
        }
        if (*p == '\\' && p + 1 < end && p[1] != '\n')
            p++;
    }
    if (p >= end) {
        *bad = true;
        return end;
    }
    return p + 1;
}

/* Raw string starting at the quote after R: "delim( ... )delim". */
static const char *raw_string(const char *p, const char *end, bool *bad)
{
    const char *d = ++p;
    while (p < end && *p != '(' && p - d < 16 && !strchr(" )\\\t\v\f\n\"", *p))
        p++;
    if (p >= end || *p != '(') {
        *bad = true;
        while (p < end && *p != '\n')
            p++;
        return p;
    }
    size_t dn = (size_t)(p - d);
    for (p++; p < end; p++)
        if (*p == ')' && (size_t)(end - p) > dn + 1 && !memcmp(p + 1, d, dn) && p[dn + 1] == '"')
            return p + dn + 2;
    *bad = true;
    return end;
}

/* If an encoding prefix starts at p and a quote follows, returns the quote
 * position and whether the literal is raw. */
static const char *literal_prefix(const char *p, const char *end, bool *raw)
{
    const char *q = p;
    if (q < end && *q == 'u' && q + 1 < end && q[1] == '8')
        q += 2;
    else if (q < end && (*q == 'u' || *q == 'U' || *q == 'L'))
        q++;
    *raw = q < end && *q == 'R';
    if (*raw)
        q++;
    if (q < end && (*q == '"' || (*q == '\'' && !*raw)))
        return q;
    return NULL;
}

static const char *pp_number(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        unsigned char ch = (unsigned char)*p;
        if ((ch == '+' || ch == '-') && strchr("eEpP", p[-1]))
            continue;
        if (ch == '\'' && p + 1 < end && ident_char((unsigned char)p[1]))
            continue;
        if (!ident_char(ch) && ch != '.')
            break;
    }
    return p;
}

/* ---- punctuators -------------------------------------------------------- */

static const struct {
    const char *s;
    Punct       p;
} puncts[] = {
    /* longest first within each leading character */
    {"%:%:", P_HASHHASH}, {"...", P_ELLIPSIS}, {"->*", P_ARROWSTAR},
    {"<<=", P_SHLEQ}, {">>=", P_SHREQ},
    {"##", P_HASHHASH}, {"%:", P_HASH}, {"<:", P_LBRACKET}, {":>", P_RBRACKET},
    {"<%", P_LBRACE}, {"%>", P_RBRACE}, {"::", P_COLONCOLON}, {".*", P_DOTSTAR},
    {"->", P_ARROW}, {"+=", P_PLUSEQ}, {"-=", P_MINUSEQ}, {"*=", P_STAREQ},
    {"/=", P_SLASHEQ}, {"%=", P_PERCENTEQ}, {"^=", P_CARETEQ}, {"&=", P_AMPEQ},
    {"|=", P_PIPEEQ}, {"==", P_EQ}, {"!=", P_NE}, {"<=", P_LE}, {">=", P_GE},
    {"&&", P_ANDAND}, {"||", P_OROR}, {"<<", P_SHL}, {">>", P_SHR},
    {"++", P_INC}, {"--", P_DEC},
    {"{", P_LBRACE}, {"}", P_RBRACE}, {"[", P_LBRACKET}, {"]", P_RBRACKET},
    {"(", P_LPAREN}, {")", P_RPAREN}, {";", P_SEMI}, {":", P_COLON},
    {"?", P_QUESTION}, {".", P_DOT}, {"~", P_TILDE}, {"!", P_NOT},
    {"+", P_PLUS}, {"-", P_MINUS}, {"*", P_STAR}, {"/", P_SLASH},
    {"%", P_PERCENT}, {"^", P_CARET}, {"&", P_AMP}, {"|", P_PIPE},
    {"=", P_ASSIGN}, {"<", P_LT}, {">", P_GT}, {",", P_COMMA}, {"#", P_HASH},
};

static const char *punct_names[P_COUNT_] = {
    [P_LBRACE] = "{", [P_RBRACE] = "}", [P_LBRACKET] = "[", [P_RBRACKET] = "]",
    [P_LPAREN] = "(", [P_RPAREN] = ")", [P_SEMI] = ";", [P_COLON] = ":",
    [P_ELLIPSIS] = "...", [P_QUESTION] = "?", [P_COLONCOLON] = "::",
    [P_DOT] = ".", [P_DOTSTAR] = ".*", [P_ARROW] = "->", [P_ARROWSTAR] = "->*",
    [P_TILDE] = "~", [P_NOT] = "!", [P_PLUS] = "+", [P_MINUS] = "-",
    [P_STAR] = "*", [P_SLASH] = "/", [P_PERCENT] = "%", [P_CARET] = "^",
    [P_AMP] = "&", [P_PIPE] = "|", [P_ASSIGN] = "=", [P_PLUSEQ] = "+=",
    [P_MINUSEQ] = "-=", [P_STAREQ] = "*=", [P_SLASHEQ] = "/=",
    [P_PERCENTEQ] = "%=", [P_CARETEQ] = "^=", [P_AMPEQ] = "&=",
    [P_PIPEEQ] = "|=", [P_EQ] = "==", [P_NE] = "!=", [P_LT] = "<",
    [P_GT] = ">", [P_LE] = "<=", [P_GE] = ">=", [P_ANDAND] = "&&",
    [P_OROR] = "||", [P_SHL] = "<<", [P_SHR] = ">>", [P_SHLEQ] = "<<=",
    [P_SHREQ] = ">>=", [P_INC] = "++", [P_DEC] = "--", [P_COMMA] = ",",
    [P_HASH] = "#", [P_HASHHASH] = "##",
};

const char *oklc_punct_spelling(Punct p)
{
    return p > P_NONE && p < P_COUNT_ ? punct_names[p] : "";
}

/* For each first character, the punctuators that start with it, longest
 * first (the table's order): built once, read-only afterwards. */
static uint8_t punct_first[256][8];
static uint8_t punct_len[OKLC_COUNTOF(puncts)];
static pthread_once_t punct_once = PTHREAD_ONCE_INIT;

static void punct_index(void)
{
    for (size_t i = 0; i < OKLC_COUNTOF(puncts); i++) {
        unsigned char ch = (unsigned char)puncts[i].s[0];
        uint8_t *slot = punct_first[ch];
        while (*slot)
            slot++;
        *slot = (uint8_t)(i + 1);
        punct_len[i] = (uint8_t)strlen(puncts[i].s);
    }
}

static size_t punct(const char *p, const char *end, Punct *out)
{
    size_t avail = (size_t)(end - p);
    /* C++11 [lex.pptoken]: "<::" not followed by ':' or '>' is '<' '::'. */
    if (avail >= 3 && p[0] == '<' && p[1] == ':' && p[2] == ':' &&
        (avail == 3 || (p[3] != ':' && p[3] != '>'))) {
        *out = P_LT;
        return 1;
    }
    pthread_once(&punct_once, punct_index);
    for (const uint8_t *k = punct_first[(unsigned char)*p]; *k; k++) {
        size_t i = *k - 1u, n = punct_len[i];
        if (n <= avail && !memcmp(p, puncts[i].s, n)) {
            *out = puncts[i].p;
            return n;
        }
    }
    return 0;
}

/* ---- the scanner ---------------------------------------------------------- */

static void error_at(Lexer *L, const char *p, const char *msg)
{
    if (!L->quiet)
        oklc_diag_error(L->c, L->at ? *L->at : loc_at(L, p), "%s", msg);
}

/* The end of a block comment starting at p ("/" "*"), or NULL. Bounded:
 * the text need not end in a NUL. */
static const char *comment_end(const char *p, const char *end)
{
    for (p += 2; p + 1 < end; p++)
        if (p[0] == '*' && p[1] == '/')
            return p + 2;
    return NULL;
}

/* The end of the comment starting at p; an unterminated one runs to the
 * end of the text. */
static const char *skip_comment(Lexer *L, const char *p)
{
    if (p[1] == '/') {
        while (p < L->end && *p != '\n')
            p++;
        return p;
    }
    const char *e = comment_end(p, L->end);
    if (!e) {
        error_at(L, p, "unterminated /* comment");
        return L->end;
    }
    return e;
}

/* Skips blanks and (unless they are tokens) comments. Returns flags for the
 * next token; reports an unterminated block comment. */
static unsigned skip_space(Lexer *L);

/* A backslash before a blank or another backslash (`}   \      \` at the
 * end of a continued #define line, `a, \\` before a line break): legacy
 * OCCA's tokenizer skips it with the character after it as blank space. Line
 * splices are gone by now, so such a backslash continues nothing. */
static bool stray_backslash(const char *p, const char *end)
{
    return *p == '\\' && (p + 1 == end || p[1] == ' ' || p[1] == '\t' || p[1] == '\\' ||
                           p[1] == '\r' || p[1] == '\n');
}

static unsigned skip_space(Lexer *L)
{
    unsigned fl = 0;
    const char *p = L->p, *end = L->end;
    while (p < end) {
        char ch = *p;
        if (ch == '\n') {
            fl |= TF_BOL | TF_SPACE;
            p++;
        } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f') {
            fl |= TF_SPACE;
            p++;
        } else if (ch == '/' && p + 1 < end && (p[1] == '/' || p[1] == '*') &&
                   !(L->flags & LEX_COMMENTS)) {
            p = skip_comment(L, p);
            fl |= TF_SPACE;
        } else if (stray_backslash(p, end)) {
            if (!L->quiet)
                oklc_diag_warning(L->c, L->at ? *L->at : loc_at(L, p), "stray '\\' ignored, as "
                                  "legacy OCCA does; delete it (only a '\\' at the end of a "
                                  "line continues it)");
            if (L->own)       /* a blank in the tokens' leads, which are printed */
                L->own[p - L->text] = ' ';
            fl |= TF_SPACE;
            p++;
        } else {
            break;
        }
    }
    L->p = p;
    return fl;
}

/* Where an attribute's name starts after its '@': past blanks and block
 * comments on the same line (code formatters write `@ restrict`, which
 * legacy OCCA accepts). A gap that crosses a line is not bridged: the end
 * of a line ends a directive. */
static const char *attr_name_start(const char *p, const char *end)
{
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (end - p < 2 || p[0] != '/' || p[1] != '*')
            return p;
        const char *e = comment_end(p, end);
        if (!e || memchr(p, '\n', (size_t)(e - p)))
            return p;
        p = e;
    }
}

/* Scans one token at L->p; returns its kind and sets *e past it. *spaced
 * tells that an attribute's '@' stands apart from its name. */
static TokKind scan(Lexer *L, const char **e, Punct *pu, bool *bad, bool *spaced)
{
    const char *p = L->p, *end = L->end;
    unsigned char ch = (unsigned char)*p;
    bool raw;

    if (ch == '/' && p + 1 < end && (p[1] == '/' || p[1] == '*')) {   /* LEX_COMMENTS */
        *e = skip_comment(L, p);
        return TK_COMMENT;
    }
    const char *q = literal_prefix(p, end, &raw);
    if (q) {
        *e = raw ? raw_string(q, end, bad) : quoted(q, end, *q, bad);
        if (!*bad)
            while (*e < end && ident_char((unsigned char)**e))   /* user-defined literal */
                (*e)++;
        return *q == '"' ? TK_STRING : TK_CHAR;
    }
    if (isdigit(ch) || (ch == '.' && p + 1 < end && isdigit((unsigned char)p[1]))) {
        *e = pp_number(p, end);
        return TK_NUMBER;
    }
    if (ident_start(ch)) {
        while (p < end && ident_char((unsigned char)*p))
            p++;
        *e = p;
        return TK_IDENT;
    }
    if (ch == '@') {
        const char *n = attr_name_start(p + 1, end);
        if (n < end && ident_start((unsigned char)*n)) {
            for (p = n; p < end && ident_char((unsigned char)*p);)
                p++;
            *e = p;
            *spaced = n != L->p + 1;
            return TK_ATTR;
        }
    }
    size_t n = punct(p, end, pu);
    if (n) {
        *e = p + n;
        return TK_PUNCT;
    }
    /* One character that starts no token; UTF-8 sequences stay whole. */
    *e = p + 1;
    return TK_OTHER;
}

static void check_text(Lexer *L)
{
    const char *nul = memchr(L->f->text, 0, L->f->len);
    if (nul)
        oklc_diag_error(L->c, oklc_src_loc(L->c, L->view, (uint32_t)(nul - L->f->text)),
                        "'%s' is not a text file (it contains a NUL byte)", L->f->path);
}

/* `@ name` is spelled `@name`, as every later stage expects; the flag
 * keeps the legacy spelling known for its warning. */
static void spell_attr(Lexer *L, Token *t, const char *e)
{
    const char *name = e;
    while (name > t->text && ident_char((unsigned char)name[-1]))
        name--;
    t->text = oklc_arena_printf(&L->c->arena, "@%.*s", (int)(e - name), name);
    t->len = (uint32_t)(e - name) + 1;
    t->flags |= TF_SPACED_ATTR;
}

void oklc_tok_warn_spaced(oklc_ctx *c, const Token *t)
{
    oklc_diag_warning(c, t->loc, "'@' is separated from '%.*s' (a legacy spelling); write '%.*s'",
                      (int)t->len - 1, t->text + 1, (int)t->len, t->text);
}

/* Inside a raw string a backslash-newline is text, not a splice: take the
 * token's spelling from the file itself. */
static void keep_raw_splices(Lexer *L, Token *t, const char *e)
{
    bool raw = false;
    literal_prefix(t->text, e, &raw);
    if (!raw)
        return;
    uint32_t end = file_offset(L, (uint32_t)(e - L->text));
    t->text = L->f->text + t->loc.off;
    t->len = end - t->loc.off;
}

static Token *run(Lexer *L)
{
    Token head = {0};
    L->tail = &head;
    unsigned fl = TF_BOL;
    const char *lead;
    for (;;) {
        lead = L->p;
        fl |= skip_space(L);
        if (L->p >= L->end)
            break;
        const char *e;
        Punct pu = P_NONE;
        bool bad = false, spaced = false;
        TokKind k = scan(L, &e, &pu, &bad, &spaced);
        Token *t = add(L, k, L->p, e);
        if (k == TK_STRING && L->nsp)
            keep_raw_splices(L, t, e);
        t->punct = (uint16_t)pu;
        t->flags = (uint8_t)(fl | (bad ? TF_BAD : 0));
        if (spaced)
            spell_attr(L, t, e);
        t->lead = lead;
        t->lead_len = (uint32_t)(L->p - lead);
        L->p = e;
        fl = 0;
    }
    Token *eof = add(L, TK_EOF, L->end, L->end);
    eof->flags = (uint8_t)(fl | TF_BOL);
    eof->lead = lead;
    eof->lead_len = (uint32_t)(L->end - lead);
    return head.next;
}

Token *oklc_lex(oklc_ctx *c, uint32_t view, unsigned flags)
{
    Lexer L = {.c = c, .view = view, .f = c->views.data[view].src, .flags = flags};
    check_text(&L);
    remove_splices(&L);
    L.p = L.text;
    /* A UTF-8 byte order mark is not part of the program. */
    if (L.end - L.p >= 3 && !memcmp(L.p, "\xEF\xBB\xBF", 3))
        L.p += 3;
    return run(&L);
}

static Token *lex_string(oklc_ctx *c, const char *text, size_t len, Loc loc, bool quiet)
{
    /* Lex as a tiny anonymous buffer, then give every token `loc`. */
    SrcFile f = {.path = "<scratch>", .text = text, .len = len,
                 .line_starts = (uint32_t[]){0}, .nlines = 1, .is_builtin = true};
    Lexer L = {.c = c, .f = &f, .text = text, .p = text, .end = text + len, .at = &loc,
               .quiet = quiet};
    Token *list = run(&L);
    for (Token *t = list; t; t = t->next)
        t->loc = loc;
    return list;
}

Token *oklc_lex_string(oklc_ctx *c, const char *text, size_t len, Loc loc)
{
    return lex_string(c, text, len, loc, false);
}

Token *oklc_lex_string_quiet(oklc_ctx *c, const char *text, size_t len, Loc loc)
{
    return lex_string(c, text, len, loc, true);
}

/* ---- token helpers ---------------------------------------------------------- */

Token *oklc_tok_copy(oklc_ctx *c, const Token *t)
{
    Token *n = oklc_arena_alloc(&c->arena, sizeof *n);
    *n = *t;
    n->next = NULL;
    return n;
}

bool oklc_tok_eq(const Token *t, const char *s)
{
    size_t n = strlen(s);
    return t->len == n && !memcmp(t->text, s, n);
}

bool oklc_tok_is_punct(const Token *t, Punct p)
{
    return t->kind == TK_PUNCT && t->punct == p;
}

/* Whitespace as written, less the stray backslashes the lexer skips (a
 * line splice is a backslash, blanks, then a line break). */
static const char *without_stray_backslashes(oklc_ctx *c, const char *s, size_t *n)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    for (size_t i = 0; i < *n; i++) {
        size_t j = i + 1;
        while (s[i] == '\\' && j < *n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r'))
            j++;
        if (s[i] != '\\' || (j < *n && s[j] == '\n'))
            oklc_buf_putc(&b, s[i]);
    }
    *n = b.len;
    return b.data;
}

const char *oklc_tok_lead_as_written(oklc_ctx *c, const Token *prev, const Token *t, size_t *n)
{
    *n = t->lead_len;
    if (!prev || ((prev->flags | t->flags) & TF_MACRO) || prev->loc.file != t->loc.file ||
        prev->loc.file >= c->views.len)
        return t->lead;
    const SrcFile *f = c->views.data[t->loc.file].src;
    uint32_t from = prev->loc.off + prev->len;
    /* a token with a splice inside, or one not spelled as in the file */
    if (from > t->loc.off || t->loc.off > f->len ||
        memcmp(f->text + prev->loc.off, prev->text, prev->len))
        return t->lead;
    *n = t->loc.off - from;
    return without_stray_backslashes(c, f->text + from, n);
}

char *oklc_tok_join(oklc_ctx *c, const Token *from, const Token *stop, size_t *len)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    const Token *prev = NULL;
    for (const Token *t = from; t && t != stop; prev = t, t = t->next) {
        if (t != from) {
            size_t n;
            const char *lead = oklc_tok_lead_as_written(c, prev, t, &n);
            oklc_buf_putn(&b, lead, n);
        }
        oklc_buf_putn(&b, t->text, t->len);
    }
    if (len)
        *len = b.len;
    return b.data;
}

const char *oklc_tok_bad_message(const Token *t)
{
    bool raw = false;
    literal_prefix(t->text, t->text + t->len, &raw);
    if (t->kind == TK_CHAR)
        return "missing terminating ' character";
    return raw ? "unterminated raw string literal" : "missing terminating '\"' character";
}

bool oklc_tok_is_plain_string(const Token *t)
{
    return t->kind == TK_STRING && !(t->flags & TF_BAD) && t->len >= 2 && t->text[0] == '"' &&
           t->text[t->len - 1] == '"';
}

Loc oklc_tok_user_loc(const Token *t)
{
    while (t->exp)
        t = t->exp->site;
    return t->loc;
}

Loc oklc_tok_end_loc(const Token *t)
{
    Loc loc = oklc_tok_user_loc(t);
    if (!t->exp && !(t->flags & TF_MACRO)) {
        loc.col += t->len;
        loc.off += t->len;
    }
    return loc;
}

/* Clang's order: from the outermost macro to the innermost, each note at
 * the spelling inside that macro's body. */
void oklc_tok_note_expansion(oklc_ctx *c, Diag *d, const Token *t)
{
    if (!t->exp)
        return;
    oklc_tok_note_expansion(c, d, t->exp->site);
    oklc_diag_note(c, d, t->loc, "expanded from macro '%s'", t->exp->macro);
}

static const char *const keywords[] = {
    "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char",
    "char16_t", "char32_t", "class", "const", "const_cast", "constexpr", "continue",
    "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum",
    "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "nullptr",
    "operator", "private", "protected", "public", "register", "reinterpret_cast",
    "restrict", "return", "short", "signed", "sizeof", "static", "static_assert",
    "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
    "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "_Alignas", "_Alignof",
    "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local",
};

bool oklc_is_keyword(const char *s, size_t n)
{
    if (n < 2 || n > 16)
        return false;
    for (size_t i = 0; i < OKLC_COUNTOF(keywords); i++)
        if (keywords[i][0] == s[0] && strlen(keywords[i]) == n && !memcmp(keywords[i], s, n))
            return true;
    return false;
}

/* ---- literal values ----------------------------------------------------------- */

static int digit_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return 99;
}

/* integer-literal = (decimal | 0 octal | 0x hex | 0b binary) [suffix], with
 * ' separators between digits; suffix = u, l, ll, z in either order/case. */
bool oklc_int_literal(const char *s, size_t n, uint64_t *val, bool *is_unsigned,
                      const char **err)
{
    const char *p = s, *end = s + n;
    unsigned base = 10;
    if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        base = 16, p += 2;
    else if (n >= 2 && p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
        base = 2, p += 2;
    else if (p[0] == '0')
        base = 8;
    const char *digits = p;
    uint64_t v = 0;
    bool overflow = false;
    for (; p < end; p++) {
        if (*p == '\'' && p > digits && p + 1 < end && digit_value(p[1]) < (int)base)
            continue;
        int d = digit_value(*p);
        if (d >= (int)base)
            break;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            overflow = true;
        v = v * base + (uint64_t)d;
    }
    if (p == digits && base != 8) {
        *err = "invalid integer constant";
        return false;
    }
    if (p < end && (*p == '.' || ((*p == 'e' || *p == 'E') && base != 16) ||
                    ((*p == 'p' || *p == 'P') && base == 16))) {
        *err = "floating-point constant in an integer context";
        return false;
    }
    bool u = false;
    int l = 0;
    bool z = false;
    while (p < end) {
        if ((*p == 'u' || *p == 'U') && !u)
            u = true, p++;
        else if ((*p == 'l' || *p == 'L') && !l) {
            l = 1;
            if (p + 1 < end && p[1] == p[0])
                l = 2, p++;
            p++;
        } else if ((*p == 'z' || *p == 'Z') && !z)
            z = true, p++;
        else
            break;
    }
    if (p != end) {
        *err = base == 10 || base == 8 ? "invalid digit or suffix in integer constant"
                                       : "invalid suffix on integer constant";
        return false;
    }
    if (overflow) {
        *err = "integer constant is too large for its type";
        return false;
    }
    *val = v;
    /* A decimal constant without 'u' that does not fit intmax_t is unsigned
     * in #if arithmetic; octal/hex constants become unsigned when needed. */
    *is_unsigned = u || v > (uint64_t)INT64_MAX;
    return true;
}

static bool escape(const char **pp, const char *end, int64_t *out, const char **err)
{
    const char *p = *pp;    /* just after the backslash */
    if (p >= end) {
        *err = "incomplete escape sequence";
        return false;
    }
    char ch = *p++;
    int64_t v;
    switch (ch) {
    case 'n': v = '\n'; break;
    case 't': v = '\t'; break;
    case 'r': v = '\r'; break;
    case 'a': v = '\a'; break;
    case 'b': v = '\b'; break;
    case 'f': v = '\f'; break;
    case 'v': v = '\v'; break;
    case 'e': v = 27; break;
    case '\\': case '\'': case '"': case '?': v = ch; break;
    case 'x':
    case 'u':
    case 'U': {
        /* \x takes any number of digits, \u exactly 4, \U exactly 8 */
        size_t want = ch == 'x' ? SIZE_MAX : ch == 'u' ? 4 : 8, got = 0;
        v = 0;
        while (p < end && got < want && digit_value(*p) < 16) {
            v = v * 16 + digit_value(*p++);
            got++;
        }
        if (got == 0 && ch == 'x') {
            *err = "\\x used with no following hex digits";
            return false;
        }
        if (ch != 'x' && got != want) {
            *err = "incomplete universal character name";
            return false;
        }
        break;
    }
    default:
        if (ch >= '0' && ch <= '7') {
            v = ch - '0';
            for (int i = 0; i < 2 && p < end && *p >= '0' && *p <= '7'; i++)
                v = v * 8 + (*p++ - '0');
        } else {
            v = (unsigned char)ch;    /* unknown escape: the character itself */
        }
    }
    *pp = p;
    *out = v;
    return true;
}

bool oklc_char_literal(const char *s, size_t n, int64_t *val, const char **err)
{
    const char *p = memchr(s, '\'', n), *end = s + n;
    bool narrow = p == s;
    if (!p) {
        *err = "not a character constant";
        return false;
    }
    while (end > p && end[-1] != '\'')   /* drop a user-defined suffix */
        end--;
    end--;
    p++;
    if (p >= end) {
        *err = "empty character constant";
        return false;
    }
    int64_t v = 0;
    int count = 0;
    while (p < end) {
        int64_t ch;
        if (*p == '\\') {
            p++;
            if (!escape(&p, end, &ch, err))
                return false;
        } else {
            ch = (unsigned char)*p++;
        }
        /* multi-character constants shift in bytes, wrapping like GCC */
        v = count ? (int64_t)(((uint64_t)v << 8) | (uint64_t)(ch & 0xff)) : ch;
        count++;
    }
    /* A plain 'c' is a (signed) char, as on the targets GCC/Clang know. */
    if (narrow && count == 1)
        v = (int64_t)(signed char)v;
    *val = v;
    return true;
}

size_t oklc_lex_first_len(const char *s, size_t n)
{
    SrcFile f = {.path = "<scratch>", .text = s, .len = n,
                 .line_starts = (uint32_t[]){0}, .nlines = 1, .is_builtin = true};
    Lexer L = {.f = &f, .text = s, .p = s, .end = s + n, .flags = LEX_COMMENTS};
    const char *e;
    Punct pu;
    bool bad = false, spaced = false;
    if (n == 0)
        return 0;
    if (n >= 2 && s[0] == '/' && (s[1] == '/' || s[1] == '*'))
        return 2;    /* a comment would start here */
    scan(&L, &e, &pu, &bad, &spaced);
    return (size_t)(e - s);
}
