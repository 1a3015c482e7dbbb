/*
 * test_lex.c - the lexer: identifiers, punctuators, numbers, literals and
 * their values, OKL attributes, comments, positions, line splices, the EOF
 * token, and the small helpers of lex.h.
 *
 * The tests at the end, "regressions", each pin a bug that was found and
 * fixed in src/lex/lex.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "lex/lex.h"
#include "pp/pp.h"

/* ---- helpers ------------------------------------------------------------- */

static oklc_ctx *cur;       /* the context of the last lex; freed by the next */
static uint32_t cur_view;

static void reset(void)
{
    if (cur)
        oklc_ctx_free(cur);
    cur = NULL;
}

static oklc_ctx *fresh_ctx(void)
{
    reset();
    cur = oklc_ctx_new();
    return cur;
}

/* Lexes the first n bytes of text (which must stay alive) as "t.okl". */
static Token *lex_n(const char *text, size_t n, unsigned flags)
{
    fresh_ctx();
    cur_view = oklc_pp_add_buffer(cur, "t.okl", text, n, false);
    return oklc_lex(cur, cur_view, flags);
}

static Token *lex(const char *text)
{
    return lex_n(text, strlen(text), 0);
}

static Token *lexc(const char *text)
{
    return lex_n(text, strlen(text), LEX_COMMENTS);
}

/* A NUL-terminated copy of s[0..n), living in the current context. */
static const char *str(const char *s, size_t n)
{
    return oklc_arena_strndup(&cur->arena, s, n);
}

static const char *spell(const Token *t)
{
    return str(t->text, t->len);
}

static const char *lead(const Token *t)
{
    return str(t->lead, t->lead_len);
}

/* Every token before EOF as "[a][++][b]". */
static const char *join(const Token *t)
{
    Buf b;
    oklc_buf_init(&b, &cur->arena);
    for (; t && t->kind != TK_EOF; t = t->next)
        oklc_buf_printf(&b, "[%.*s]", (int)t->len, t->text);
    return b.data ? b.data : "";
}

static size_t count(const Token *t)
{
    size_t n = 0;
    for (; t && t->kind != TK_EOF; t = t->next)
        n++;
    return n;
}

static const Token *nth(const Token *t, size_t i)
{
    while (i-- && t)
        t = t->next;
    return t;
}

static const Token *eof_of(const Token *t)
{
    while (t && t->kind != TK_EOF)
        t = t->next;
    return t;
}

/* Diagnostic i of the current context as "file:line:col: message". */
static const char *diag(size_t i)
{
    oklc_diag_info d;
    if (!oklc_diag_get(cur, i, &d))
        return "(none)";
    return oklc_arena_printf(&cur->arena, "%s:%u:%u: %s", d.file ? d.file : "(null)", d.line,
                             d.column, d.message);
}

/* The text lexes to exactly one token of kind k spelled as the whole text. */
static void assert_one(const char *text, TokKind k)
{
    const Token *t = lex(text);
    assert_string_equal(join(t), oklc_arena_printf(&cur->arena, "[%s]", text));
    assert_int_equal(t->kind, k);
    assert_int_equal(t->next->kind, TK_EOF);
}

static uint64_t int_ok(const char *s, bool *is_unsigned)
{
    uint64_t v = 0;
    bool u = false;
    const char *err = NULL;
    if (!oklc_int_literal(s, strlen(s), &v, &u, &err))
        fail_msg("oklc_int_literal(%s) failed: %s", s, err ? err : "(no message)");
    if (is_unsigned)
        *is_unsigned = u;
    return v;
}

static const char *int_err(const char *s)
{
    uint64_t v = 0;
    bool u = false;
    const char *err = NULL;
    if (oklc_int_literal(s, strlen(s), &v, &u, &err))
        fail_msg("oklc_int_literal(%s) succeeded with %llu", s, (unsigned long long)v);
    return err ? err : "(no message)";
}

static int64_t char_ok(const char *s)
{
    int64_t v = 0;
    const char *err = NULL;
    if (!oklc_char_literal(s, strlen(s), &v, &err))
        fail_msg("oklc_char_literal(%s) failed: %s", s, err ? err : "(no message)");
    return v;
}

static const char *char_err(const char *s)
{
    int64_t v = 0;
    const char *err = NULL;
    if (oklc_char_literal(s, strlen(s), &v, &err))
        fail_msg("oklc_char_literal(%s) succeeded with %lld", s, (long long)v);
    return err ? err : "(no message)";
}

static size_t first_len(const char *s)
{
    return oklc_lex_first_len(s, strlen(s));
}

static int teardown(void **state)
{
    (void)state;
    reset();
    return 0;
}

/* ---- identifiers and keywords --------------------------------------------- */

static void identifiers_are_ident_tokens(void **state)
{
    (void)state;
    const Token *t = lex("foo _bar baz42 __x9_");
    assert_string_equal(join(t), "[foo][_bar][baz42][__x9_]");
    for (; t->kind != TK_EOF; t = t->next)
        assert_int_equal(t->kind, TK_IDENT);
}

static void keywords_lex_as_identifiers(void **state)
{
    (void)state;
    const Token *t = lex("int while _Bool");
    assert_string_equal(join(t), "[int][while][_Bool]");
    assert_int_equal(t->kind, TK_IDENT);
    assert_int_equal(t->next->kind, TK_IDENT);
    assert_int_equal(t->next->next->kind, TK_IDENT);
}

static void is_keyword_knows_c11_and_cxx17(void **state)
{
    (void)state;
    static const char *const kw[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do",
        "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline",
        "int", "long", "register", "restrict", "return", "short", "signed", "sizeof",
        "static", "struct", "switch", "typedef", "union", "unsigned", "void",
        "volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex",
        "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
        "alignas", "alignof", "asm", "bool", "catch", "char16_t", "char32_t", "class",
        "const_cast", "constexpr", "decltype", "delete", "dynamic_cast", "explicit",
        "export", "false", "friend", "mutable", "namespace", "new", "noexcept",
        "nullptr", "operator", "private", "protected", "public", "reinterpret_cast",
        "static_assert", "static_cast", "template", "this", "thread_local", "throw",
        "true", "try", "typeid", "typename", "using", "virtual", "wchar_t",
    };
    for (size_t i = 0; i < OKLC_COUNTOF(kw); i++)
        if (!oklc_is_keyword(kw[i], strlen(kw[i])))
            fail_msg("'%s' is not a keyword", kw[i]);
}

static void is_keyword_rejects_other_names(void **state)
{
    (void)state;
    static const char *const names[] = {"foo", "Int", "in", "integer", "outer", "okl",
                                        "_bool", "INT", "whilex", "$int"};
    for (size_t i = 0; i < OKLC_COUNTOF(names); i++)
        if (oklc_is_keyword(names[i], strlen(names[i])))
            fail_msg("'%s' is a keyword", names[i]);
    assert_false(oklc_is_keyword("", 0));
}

static void is_keyword_uses_the_length(void **state)
{
    (void)state;
    assert_true(oklc_is_keyword("integer", 3));    /* "int" */
    assert_false(oklc_is_keyword("int", 2));       /* "in" */
}

static void dollar_is_an_identifier_char(void **state)
{
    (void)state;
    const Token *t = lex("$a a$b $ x$");
    assert_string_equal(join(t), "[$a][a$b][$][x$]");
    for (; t->kind != TK_EOF; t = t->next)
        assert_int_equal(t->kind, TK_IDENT);
}

static void utf8_bytes_are_identifier_chars(void **state)
{
    (void)state;
    const Token *t = lex("\xC3\xA9 a\xC3\xA9" "b \xCF\x80" "2 x\xE2\x82\xAC");
    assert_string_equal(join(t), "[\xC3\xA9][a\xC3\xA9" "b][\xCF\x80" "2][x\xE2\x82\xAC]");
    for (; t->kind != TK_EOF; t = t->next)
        assert_int_equal(t->kind, TK_IDENT);
}

static void digit_does_not_start_an_identifier(void **state)
{
    (void)state;
    const Token *t = lex("9a");
    assert_int_equal(t->kind, TK_NUMBER);
    assert_string_equal(spell(t), "9a");
}

/* ---- punctuators ------------------------------------------------------------- */

static const struct {
    const char *s;
    Punct       p;
} all_puncts[] = {
    {"{", P_LBRACE}, {"}", P_RBRACE}, {"[", P_LBRACKET}, {"]", P_RBRACKET},
    {"(", P_LPAREN}, {")", P_RPAREN}, {";", P_SEMI}, {":", P_COLON},
    {"...", P_ELLIPSIS}, {"?", P_QUESTION}, {"::", P_COLONCOLON},
    {".", P_DOT}, {".*", P_DOTSTAR}, {"->", P_ARROW}, {"->*", P_ARROWSTAR},
    {"~", P_TILDE}, {"!", P_NOT}, {"+", P_PLUS}, {"-", P_MINUS}, {"*", P_STAR},
    {"/", P_SLASH}, {"%", P_PERCENT}, {"^", P_CARET}, {"&", P_AMP}, {"|", P_PIPE},
    {"=", P_ASSIGN}, {"+=", P_PLUSEQ}, {"-=", P_MINUSEQ}, {"*=", P_STAREQ},
    {"/=", P_SLASHEQ}, {"%=", P_PERCENTEQ}, {"^=", P_CARETEQ}, {"&=", P_AMPEQ},
    {"|=", P_PIPEEQ}, {"==", P_EQ}, {"!=", P_NE}, {"<", P_LT}, {">", P_GT},
    {"<=", P_LE}, {">=", P_GE}, {"&&", P_ANDAND}, {"||", P_OROR},
    {"<<", P_SHL}, {">>", P_SHR}, {"<<=", P_SHLEQ}, {">>=", P_SHREQ},
    {"++", P_INC}, {"--", P_DEC}, {",", P_COMMA}, {"#", P_HASH}, {"##", P_HASHHASH},
};

static const struct {
    const char *s;
    Punct       p;
} digraphs[] = {
    {"<:", P_LBRACKET}, {":>", P_RBRACKET}, {"<%", P_LBRACE}, {"%>", P_RBRACE},
    {"%:", P_HASH}, {"%:%:", P_HASHHASH},
};

static void assert_lone_punct(const char *s, Punct p)
{
    const Token *t = lex(s);
    if (t->kind != TK_PUNCT || t->punct != p || !oklc_tok_eq(t, s) ||
        t->next->kind != TK_EOF)
        fail_msg("'%s' lexed as %s (kind %d, punct %d), expected one punct %d", s, join(t),
                 t->kind, t->punct, p);
}

static void every_punctuator_alone(void **state)
{
    (void)state;
    for (size_t i = 0; i < OKLC_COUNTOF(all_puncts); i++)
        assert_lone_punct(all_puncts[i].s, all_puncts[i].p);
}

static void punct_table_covers_every_punct_id(void **state)
{
    (void)state;
    bool seen[P_COUNT_] = {false};
    for (size_t i = 0; i < OKLC_COUNTOF(all_puncts); i++)
        seen[all_puncts[i].p] = true;
    for (int p = P_NONE + 1; p < P_COUNT_; p++)
        if (!seen[p])
            fail_msg("punct %d is missing from the test table", p);
}

static void punct_spelling_of_every_id(void **state)
{
    (void)state;
    for (size_t i = 0; i < OKLC_COUNTOF(all_puncts); i++)
        assert_string_equal(oklc_punct_spelling(all_puncts[i].p), all_puncts[i].s);
    assert_string_equal(oklc_punct_spelling(P_NONE), "");
    assert_string_equal(oklc_punct_spelling(P_COUNT_), "");
}

static void digraphs_map_to_their_punct(void **state)
{
    (void)state;
    for (size_t i = 0; i < OKLC_COUNTOF(digraphs); i++)
        assert_lone_punct(digraphs[i].s, digraphs[i].p);
}

static void digraph_spelling_is_kept(void **state)
{
    (void)state;
    const Token *t = lex("<: :> <% %> %: %:%:");
    assert_string_equal(join(t), "[<:][:>][<%][%>][%:][%:%:]");
    assert_string_equal(oklc_punct_spelling((Punct)t->punct), "[");
    assert_string_equal(oklc_punct_spelling((Punct)nth(t, 5)->punct), "##");
}

static void longest_match_three_char_puncts(void **state)
{
    (void)state;
    assert_string_equal(join(lex(">>=")), "[>>=]");
    assert_string_equal(join(lex("<<=")), "[<<=]");
    assert_string_equal(join(lex("->*")), "[->*]");
    assert_string_equal(join(lex("...")), "[...]");
    assert_string_equal(join(lex(">>==")), "[>>=][=]");
}

static void longest_match_plus_plus_plus(void **state)
{
    (void)state;
    const Token *t = lex("a+++b");
    assert_string_equal(join(t), "[a][++][+][b]");
    assert_true(oklc_tok_is_punct(t->next, P_INC));
    assert_true(oklc_tok_is_punct(t->next->next, P_PLUS));
}

static void longest_match_runs_of_puncts(void **state)
{
    (void)state;
    assert_string_equal(join(lex("a-----b")), "[a][--][--][-][b]");
    assert_string_equal(join(lex("a..b")), "[a][.][.][b]");
    assert_string_equal(join(lex("....")), "[...][.]");
    assert_string_equal(join(lex("x->y.*z")), "[x][->][y][.*][z]");
    assert_string_equal(join(lex("%:%:%:")), "[%:%:][%:]");
    assert_string_equal(join(lex("%:%")), "[%:][%]");
    assert_string_equal(join(lex("&&&|||")), "[&&][&][||][|]");
    assert_string_equal(join(lex("::>")), "[::][>]");
}

static void less_colon_colon_is_less_then_scope(void **state)
{
    (void)state;
    const Token *t = lex("std::vector<::x>");
    assert_string_equal(join(t), "[std][::][vector][<][::][x][>]");
    assert_true(oklc_tok_is_punct(nth(t, 3), P_LT));
    assert_true(oklc_tok_is_punct(nth(t, 4), P_COLONCOLON));
}

static void less_colon_colon_at_end_is_less_then_scope(void **state)
{
    (void)state;
    assert_string_equal(join(lex("a<::")), "[a][<][::]");
}

static void less_colon_colon_greater_is_digraphs(void **state)
{
    (void)state;
    const Token *t = lex("<::>");
    assert_string_equal(join(t), "[<:][:>]");
    assert_true(oklc_tok_is_punct(t, P_LBRACKET));
    assert_true(oklc_tok_is_punct(t->next, P_RBRACKET));
}

static void less_colon_colon_colon_is_digraph_then_scope(void **state)
{
    (void)state;
    const Token *t = lex("<:::");
    assert_string_equal(join(t), "[<:][::]");
    assert_true(oklc_tok_is_punct(t, P_LBRACKET));
    assert_true(oklc_tok_is_punct(t->next, P_COLONCOLON));
}

static void non_punct_tokens_have_punct_none(void **state)
{
    (void)state;
    for (const Token *t = lex("a 1 'c' \"s\" @x `"); t; t = t->next)
        assert_int_equal(t->punct, P_NONE);
}

/* ---- preprocessing numbers ----------------------------------------------------- */

static void pp_numbers_integers(void **state)
{
    (void)state;
    assert_one("42", TK_NUMBER);
    assert_one("0x1Fu", TK_NUMBER);
    assert_one("0b1010", TK_NUMBER);
    assert_one("017", TK_NUMBER);
    assert_one("1'000'000ull", TK_NUMBER);
}

static void pp_numbers_floats(void **state)
{
    (void)state;
    assert_one("1.5e-3f", TK_NUMBER);
    assert_one(".5", TK_NUMBER);
    assert_one("0x1p-3", TK_NUMBER);
    assert_one("0x1.8p+4L", TK_NUMBER);
    assert_one("1E+10", TK_NUMBER);
    assert_one("1.", TK_NUMBER);
}

static void pp_number_user_defined_literal(void **state)
{
    (void)state;
    assert_one("1.0_km", TK_NUMBER);
    assert_one("10_ms", TK_NUMBER);
}

static void pp_number_swallows_letters(void **state)
{
    (void)state;
    assert_one("123abc", TK_NUMBER);
    assert_one("1.2.3", TK_NUMBER);
    assert_one("0xe+1", TK_NUMBER);    /* e+ continues a pp-number, even in hex */
}

static void sign_only_after_exponent_letter(void **state)
{
    (void)state;
    assert_string_equal(join(lex("1+2")), "[1][+][2]");
    assert_string_equal(join(lex("1.5e-3f+x")), "[1.5e-3f][+][x]");
    assert_string_equal(join(lex("0x1f-1")), "[0x1f][-][1]");
}

static void separator_needs_a_following_char(void **state)
{
    (void)state;
    const Token *t = lex("1' x");
    assert_string_equal(spell(t), "1");
    assert_int_equal(t->next->kind, TK_CHAR);
}

static void dot_digit_starts_a_number(void **state)
{
    (void)state;
    const Token *t = lex("..5 x.y");
    assert_string_equal(join(t), "[.][.5][x][.][y]");
    assert_int_equal(t->kind, TK_PUNCT);
    assert_int_equal(t->next->kind, TK_NUMBER);
}

/* ---- integer constant expressions (consteval.c) ---------------------------------------- */

static int64_t const_ok(const char *text, const ConstNames *names)
{
    int64_t v = -12345;
    ConstEval st = oklc_const_eval(text, names, &v);
    if (st != CONST_VALUE)
        fail_msg("oklc_const_eval(%s) gave status %d", text, (int)st);
    return v;
}

static void const_eval_operators(void **state)
{
    (void)state;
    assert_int_equal(const_ok("16", NULL), 16);
    assert_int_equal(const_ok(" 2 + 3 * 4 ", NULL), 14);
    assert_int_equal(const_ok("(2 + 3) * 4", NULL), 20);
    assert_int_equal(const_ok("10 - 4 - 3", NULL), 3);          /* left-associative */
    assert_int_equal(const_ok("64 / 4 / 2", NULL), 8);
    assert_int_equal(const_ok("1 << 4 | 1", NULL), 17);
    assert_int_equal(const_ok("-(-3) + ~0 + !0", NULL), 3);
    assert_int_equal(const_ok("3 < 4 && 4 <= 4 && 5 >= 5 && 6 > 5 && 1 == 1 && 1 != 2", NULL), 1);
    assert_int_equal(const_ok("0 ? 7 : 1 ? 8 : 9", NULL), 8);
    assert_int_equal(const_ok("0x10 % 5 ^ 0b11 & 6", NULL), 3);
    assert_int_equal(const_ok("65536 * 65536", NULL), 4294967296LL);   /* exact, not int */
    assert_int_equal(const_ok("1 << 31", NULL), 2147483648LL);
    assert_int_equal(const_ok("true + false", NULL), 1);
}

static void const_eval_names(void **state)
{
    (void)state;
    const char *names[] = {"BS", "T", "N"}, *values[] = {"2 * 8", "float", NULL};
    ConstNames cn = {names, values, 3};
    assert_int_equal(const_ok("BS * 4", &cn), 64);
    int64_t v = 99;
    assert_int_equal(oklc_const_eval("N + 1", &cn, &v), CONST_UNKNOWN);   /* no value */
    assert_int_equal(oklc_const_eval("T", &cn, &v), CONST_UNKNOWN);       /* a type */
    assert_int_equal(oklc_const_eval("BSX", &cn, &v), CONST_UNKNOWN);
    assert_int_equal(oklc_const_eval("BS", NULL, &v), CONST_UNKNOWN);
    assert_int_equal(v, 99);                                              /* untouched */
}

static void const_eval_refuses(void **state)
{
    (void)state;
    int64_t v;
    static const char *const unknown[] = {"sizeof(int)", "(int)3", "a = 2", "x <<= 1", "1.5",
                                          "2 +", "(3", "3)", "", "'a'", "f(2)"};
    for (size_t i = 0; i < OKLC_COUNTOF(unknown); i++)
        if (oklc_const_eval(unknown[i], NULL, &v) != CONST_UNKNOWN)
            fail_msg("'%s' is not unknown", unknown[i]);
    static const char *const over[] = {"1 / 0", "5 % (2 - 2)", "9223372036854775807 + 1",
                                       "1 << 63", "4294967296 * 4294967296",
                                       "-9223372036854775807 - 2", "18446744073709551615"};
    for (size_t i = 0; i < OKLC_COUNTOF(over); i++)
        if (oklc_const_eval(over[i], NULL, &v) != CONST_OVERFLOW)
            fail_msg("'%s' does not overflow", over[i]);
    char deep[400];
    memset(deep, '(', 200);
    strcpy(deep + 200, "1");
    memset(deep + 201, ')', 198);
    deep[399] = '\0';
    assert_int_equal(oklc_const_eval(deep, NULL, &v), CONST_UNKNOWN);  /* too deep, no crash */
}

/* ---- integer literal values ------------------------------------------------------- */

static void int_literal_bases(void **state)
{
    (void)state;
    assert_int_equal(int_ok("42", NULL), 42);
    assert_int_equal(int_ok("0", NULL), 0);
    assert_int_equal(int_ok("0x1F", NULL), 31);
    assert_int_equal(int_ok("0X1f", NULL), 31);
    assert_int_equal(int_ok("017", NULL), 15);
    assert_int_equal(int_ok("0b1010", NULL), 10);
    assert_int_equal(int_ok("0B11", NULL), 3);
}

static void int_literal_separators(void **state)
{
    (void)state;
    assert_int_equal(int_ok("1'000'000", NULL), 1000000);
    assert_int_equal(int_ok("0x1'F", NULL), 31);
    assert_int_equal(int_ok("0b1'0", NULL), 2);
    assert_int_equal(int_ok("0'7", NULL), 7);
}

static void int_literal_suffixes(void **state)
{
    (void)state;
    static const char *const ok[] = {"10u", "10U", "10l", "10L", "10ll", "10LL",
                                     "10ul", "10lu", "10ull", "10LLU", "10z",
                                     "10uz", "10zu", "10Z"};
    for (size_t i = 0; i < OKLC_COUNTOF(ok); i++)
        assert_int_equal(int_ok(ok[i], NULL), 10);
}

static void int_literal_u_suffix_is_unsigned(void **state)
{
    (void)state;
    bool u = false;
    int_ok("10u", &u);
    assert_true(u);
    int_ok("10", &u);
    assert_false(u);
    int_ok("10ll", &u);
    assert_false(u);
    assert_int_equal(int_ok("1'000'000ull", &u), 1000000);
    assert_true(u);
    assert_int_equal(int_ok("0x1Fu", &u), 31);
    assert_true(u);
}

static void int_literal_too_big_for_int64_is_unsigned(void **state)
{
    (void)state;
    bool u = true;
    assert_true(int_ok("9223372036854775807", &u) == INT64_MAX);
    assert_false(u);
    assert_true(int_ok("9223372036854775808", &u) == (uint64_t)INT64_MAX + 1);
    assert_true(u);
}

static void int_literal_max_value(void **state)
{
    (void)state;
    assert_true(int_ok("18446744073709551615", NULL) == UINT64_MAX);
    assert_true(int_ok("0xFFFFFFFFFFFFFFFF", NULL) == UINT64_MAX);
}

static void int_literal_overflow_is_an_error(void **state)
{
    (void)state;
    assert_string_equal(int_err("18446744073709551616"),
                        "integer constant is too large for its type");
    assert_string_equal(int_err("0x10000000000000000"),
                        "integer constant is too large for its type");
}

static void int_literal_invalid_digit(void **state)
{
    (void)state;
    assert_string_equal(int_err("08"), "invalid digit or suffix in integer constant");
    assert_string_equal(int_err("123abc"), "invalid digit or suffix in integer constant");
    assert_string_equal(int_err("0b102"), "invalid suffix on integer constant");
    assert_string_equal(int_err("0x1g"), "invalid suffix on integer constant");
}

static void int_literal_no_digits(void **state)
{
    (void)state;
    assert_string_equal(int_err("0x"), "invalid integer constant");
    assert_string_equal(int_err("0b"), "invalid integer constant");
    assert_string_equal(int_err("0x'1"), "invalid integer constant");
}

static void int_literal_bad_suffixes(void **state)
{
    (void)state;
    static const char *const bad[] = {"10lL", "10Ll", "10uu", "10lll", "10f", "10_km",
                                      "1''2", "1'", "10zz"};
    for (size_t i = 0; i < OKLC_COUNTOF(bad); i++)
        int_err(bad[i]);
}

static void int_literal_rejects_floats(void **state)
{
    (void)state;
    static const char *const fl[] = {"1.5e-3f", "1e5", "0x1p-3", "0x1.8p+4L", "1.0_km",
                                     "0e5", "1.", "0.5"};
    for (size_t i = 0; i < OKLC_COUNTOF(fl); i++)
        assert_string_equal(int_err(fl[i]), "floating-point constant in an integer context");
}

/* ---- character literal values ------------------------------------------------------ */

static void char_literal_plain(void **state)
{
    (void)state;
    assert_int_equal(char_ok("'a'"), 'a');
    assert_int_equal(char_ok("'0'"), '0');
    assert_int_equal(char_ok("' '"), ' ');
}

static void char_literal_simple_escapes(void **state)
{
    (void)state;
    assert_int_equal(char_ok("'\\n'"), '\n');
    assert_int_equal(char_ok("'\\t'"), '\t');
    assert_int_equal(char_ok("'\\''"), '\'');
    assert_int_equal(char_ok("'\\\"'"), '"');
    assert_int_equal(char_ok("'\\\\'"), '\\');
    assert_int_equal(char_ok("'\\?'"), '?');
    assert_int_equal(char_ok("'\\a'"), '\a');
}

static void char_literal_numeric_escapes(void **state)
{
    (void)state;
    assert_int_equal(char_ok("'\\x41'"), 0x41);
    assert_int_equal(char_ok("'\\101'"), 0101);
    assert_int_equal(char_ok("'\\0'"), 0);
    assert_int_equal(char_ok("'\\7'"), 7);
}

static void char_literal_octal_stops_after_three_digits(void **state)
{
    (void)state;
    assert_int_equal(char_ok("'\\1234'"), (0123 << 8) | '4');
}

static void char_literal_multichar(void **state)
{
    (void)state;
    assert_int_equal(char_ok("'ab'"), ('a' << 8) | 'b');
    assert_int_equal(char_ok("'abcd'"), ('a' << 24) | ('b' << 16) | ('c' << 8) | 'd');
}

static void char_literal_prefixes(void **state)
{
    (void)state;
    assert_int_equal(char_ok("u8'a'"), 'a');
    assert_int_equal(char_ok("L'a'"), 'a');
    assert_int_equal(char_ok("u'a'"), 'a');
    assert_int_equal(char_ok("U'a'"), 'a');
    assert_int_equal(char_ok("U'\\U0001F600'"), 0x1F600);
}

static void char_literal_plain_char_is_signed(void **state)
{
    (void)state;
    assert_int_equal(char_ok("'\\xff'"), -1);
    assert_int_equal(char_ok("'\\377'"), -1);
    assert_int_equal(char_ok("L'\\xff'"), 0xff);
}

static void char_literal_ignores_udl_suffix(void **state)
{
    (void)state;
    assert_int_equal(char_ok("'c'_x"), 'c');
}

static void char_literal_empty_is_an_error(void **state)
{
    (void)state;
    assert_string_equal(char_err("''"), "empty character constant");
    assert_string_equal(char_err("u8''"), "empty character constant");
}

static void char_literal_bad_hex_escape(void **state)
{
    (void)state;
    assert_string_equal(char_err("'\\x'"), "\\x used with no following hex digits");
}

static void char_literal_needs_a_quote(void **state)
{
    (void)state;
    assert_string_equal(char_err("abc"), "not a character constant");
}

/* ---- character and string literal tokens --------------------------------------------- */

static void char_tokens_with_every_prefix(void **state)
{
    (void)state;
    const Token *t = lex("'a' u8'b' u'c' U'd' L'e'");
    assert_string_equal(join(t), "['a'][u8'b'][u'c'][U'd'][L'e']");
    for (; t->kind != TK_EOF; t = t->next)
        assert_int_equal(t->kind, TK_CHAR);
}

static void string_tokens_with_every_prefix(void **state)
{
    (void)state;
    const Token *t = lex("\"a\" u8\"b\" u\"c\" U\"d\" L\"e\"");
    assert_string_equal(join(t), "[\"a\"][u8\"b\"][u\"c\"][U\"d\"][L\"e\"]");
    for (; t->kind != TK_EOF; t = t->next)
        assert_int_equal(t->kind, TK_STRING);
}

static void escaped_quote_does_not_end_a_string(void **state)
{
    (void)state;
    const Token *t = lex("\"a\\\"b\" c");
    assert_int_equal(t->kind, TK_STRING);
    assert_string_equal(spell(t), "\"a\\\"b\"");
    assert_string_equal(spell(t->next), "c");
}

static void escaped_backslash_before_closing_quote(void **state)
{
    (void)state;
    assert_string_equal(join(lex("\"a\\\\\" b")), "[\"a\\\\\"][b]");
}

static void escaped_quote_does_not_end_a_char(void **state)
{
    (void)state;
    assert_string_equal(join(lex("'\\'' x")), "['\\''][x]");
    assert_string_equal(join(lex("'\"' x")), "['\"'][x]");
}

static void other_quote_inside_literal(void **state)
{
    (void)state;
    assert_one("\"it's\"", TK_STRING);
}

static void escapes_kept_in_string_spelling(void **state)
{
    (void)state;
    assert_one("\"\\n\\t\\x41\\101\\\\\"", TK_STRING);
}

static void raw_string_simple(void **state)
{
    (void)state;
    assert_one("R\"(abc)\"", TK_STRING);
}

static void raw_string_with_delimiter(void **state)
{
    (void)state;
    const Token *t = lex("R\"delim( a )\" b )delim\" x");
    assert_int_equal(t->kind, TK_STRING);
    assert_string_equal(spell(t), "R\"delim( a )\" b )delim\"");
    assert_string_equal(spell(t->next), "x");
}

static void raw_string_with_prefixes(void **state)
{
    (void)state;
    assert_one("u8R\"x(a)x\"", TK_STRING);
    assert_one("LR\"(q)\"", TK_STRING);
    assert_one("uR\"(q)\"", TK_STRING);
    assert_one("UR\"(q)\"", TK_STRING);
}

static void raw_string_backslash_is_not_an_escape(void **state)
{
    (void)state;
    assert_string_equal(join(lex("R\"(a\\)\" b")), "[R\"(a\\)\"][b]");
}

static void raw_string_spans_lines(void **state)
{
    (void)state;
    const Token *t = lex("R\"(a\nb)\" c");
    assert_string_equal(spell(t), "R\"(a\nb)\"");
    assert_int_equal(t->flags & TF_BAD, 0);
    assert_int_equal(t->next->loc.line, 2);
    assert_int_equal(t->next->loc.col, 5);
}

static void raw_string_delimiter_of_16_chars(void **state)
{
    (void)state;
    const Token *t = lex("R\"1234567890123456(x)1234567890123456\"");
    assert_int_equal(t->kind, TK_STRING);
    assert_int_equal(t->flags & TF_BAD, 0);
    assert_int_equal(t->next->kind, TK_EOF);
}

static void raw_string_unterminated_is_bad(void **state)
{
    (void)state;
    const Token *t = lex("x R\"(abc\n");
    assert_int_equal(t->next->kind, TK_STRING);
    assert_true(t->next->flags & TF_BAD);
    assert_int_equal(oklc_error_count(cur), 0);
}

static void raw_string_bad_delimiter_is_bad(void **state)
{
    (void)state;
    const Token *t = lex("R\"a b(x)a b\"");
    assert_int_equal(t->kind, TK_STRING);
    assert_true(t->flags & TF_BAD);
}

static void udl_suffixes_are_part_of_the_literal(void **state)
{
    (void)state;
    assert_one("\"abc\"_s", TK_STRING);
    assert_one("'c'_x", TK_CHAR);
    assert_one("u8\"a\"_b", TK_STRING);
    assert_one("R\"(x)\"_y", TK_STRING);
}

static void bad_prefixes_are_identifiers(void **state)
{
    (void)state;
    const Token *t = lex("U8\"x\" xu8\"y\" u8 LR");
    assert_string_equal(join(t), "[U8][\"x\"][xu8][\"y\"][u8][LR]");
    assert_int_equal(t->kind, TK_IDENT);
    assert_int_equal(t->next->kind, TK_STRING);
}

static void raw_prefix_needs_a_double_quote(void **state)
{
    (void)state;
    const Token *t = lex("R'x'");
    assert_string_equal(join(t), "[R]['x']");
    assert_int_equal(t->kind, TK_IDENT);
}

static void unterminated_string_is_bad_without_error(void **state)
{
    (void)state;
    const Token *t = lex("\"abc\nx");
    assert_int_equal(t->kind, TK_STRING);
    assert_string_equal(spell(t), "\"abc");
    assert_true(t->flags & TF_BAD);
    assert_string_equal(spell(t->next), "x");
    assert_int_equal(t->next->flags & TF_BAD, 0);
    assert_int_equal(oklc_error_count(cur), 0);
    assert_int_equal(oklc_diag_count(cur), 0);
}

static void unterminated_char_is_bad_without_error(void **state)
{
    (void)state;
    const Token *t = lex("'a\nx");
    assert_int_equal(t->kind, TK_CHAR);
    assert_string_equal(spell(t), "'a");
    assert_true(t->flags & TF_BAD);
    assert_string_equal(spell(t->next), "x");
    assert_int_equal(oklc_diag_count(cur), 0);
}

static void unterminated_string_at_eof(void **state)
{
    (void)state;
    const Token *t = lex("\"abc\\");
    assert_int_equal(t->kind, TK_STRING);
    assert_true(t->flags & TF_BAD);
    assert_int_equal(t->next->kind, TK_EOF);
    assert_int_equal(oklc_diag_count(cur), 0);
}

static void good_literals_are_not_bad(void **state)
{
    (void)state;
    for (const Token *t = lex("\"a\" 'b' R\"(c)\" L\"d\"_e"); t; t = t->next)
        assert_int_equal(t->flags & TF_BAD, 0);
}

/* ---- OKL attributes and stray characters ---------------------------------------------- */

static void attribute_is_one_token(void **state)
{
    (void)state;
    const Token *t = lex("@outer");
    assert_int_equal(t->kind, TK_ATTR);
    assert_string_equal(spell(t), "@outer");
}

static void attribute_with_arguments(void **state)
{
    (void)state;
    const Token *t = lex("@tile(16, @outer, @inner)");
    assert_string_equal(join(t), "[@tile][(][16][,][@outer][,][@inner][)]");
    assert_int_equal(t->kind, TK_ATTR);
    assert_int_equal(nth(t, 4)->kind, TK_ATTR);
}

static void attribute_names_like_identifiers(void **state)
{
    (void)state;
    assert_one("@_x1", TK_ATTR);
    assert_one("@dim$", TK_ATTR);
}

/* `@ restrict` (legacy OCCA accepts it): one attribute token spelled
 * `@restrict`, flagged for its warning; blanks and block comments on the
 * line may separate them, a line break may not. */
static void at_space_name_is_one_attribute(void **state)
{
    (void)state;
    const Token *t = lex("@ outer");
    assert_int_equal(t->kind, TK_ATTR);
    assert_string_equal(spell(t), "@outer");
    assert_true(t->flags & TF_SPACED_ATTR);
    assert_int_equal(t->loc.col, 1);
    assert_int_equal(t->next->kind, TK_EOF);
    t = lex("@\t/* c */ restrict p");
    assert_string_equal(spell(t), "@restrict");
    assert_string_equal(spell(t->next), "p");
    assert_false(lex("@outer")->flags & TF_SPACED_ATTR);
    t = lex("@\nouter");
    assert_int_equal(t->kind, TK_OTHER);
    assert_int_equal(t->next->kind, TK_IDENT);
    t = lex("@ /* a\n */ outer");
    assert_int_equal(t->kind, TK_OTHER);
}

static void at_before_digit_is_other(void **state)
{
    (void)state;
    const Token *t = lex("@1");
    assert_string_equal(join(t), "[@][1]");
    assert_int_equal(t->kind, TK_OTHER);
    assert_int_equal(t->next->kind, TK_NUMBER);
}

static void stray_characters_are_other(void **state)
{
    (void)state;
    const Token *t = lex("` \\@");
    assert_string_equal(join(t), "[`][\\][@]");
    for (; t->kind != TK_EOF; t = t->next)
        assert_int_equal(t->kind, TK_OTHER);
}

/* A backslash before a blank or a backslash is blank space (legacy OCCA's
 * tokenizer skips it), with a warning. */
static void backslash_before_blank_is_space(void **state)
{
    (void)state;
    assert_string_equal(join(lex("a \\ b \\\\ c")), "[a][b][c]");
}

static void backslash_without_newline_is_other(void **state)
{
    (void)state;
    const Token *t = lex("a\\b");
    assert_string_equal(join(t), "[a][\\][b]");
    assert_int_equal(t->next->kind, TK_OTHER);
}

/* ---- comments --------------------------------------------------------------------------- */

static void block_comment_goes_to_lead(void **state)
{
    (void)state;
    const Token *t = lex("a /* c */ b");
    assert_string_equal(join(t), "[a][b]");
    assert_string_equal(lead(t->next), " /* c */ ");
    assert_true(t->next->flags & TF_SPACE);
}

static void line_comment_goes_to_lead(void **state)
{
    (void)state;
    const Token *t = lex("a // c\nb");
    assert_string_equal(join(t), "[a][b]");
    assert_string_equal(lead(t->next), " // c\n");
}

static void comment_alone_sets_space(void **state)
{
    (void)state;
    const Token *t = lex("a/**/b");
    assert_string_equal(join(t), "[a][b]");
    assert_string_equal(lead(t->next), "/**/");
    assert_true(t->next->flags & TF_SPACE);
    assert_int_equal(t->flags & TF_SPACE, 0);
}

static void comment_star_runs(void **state)
{
    (void)state;
    const Token *t = lex("/***/x /* ** */y");
    assert_string_equal(join(t), "[x][y]");
    assert_string_equal(lead(t), "/***/");
    assert_string_equal(lead(t->next), " /* ** */");
}

static void comment_markers_in_literals_are_text(void **state)
{
    (void)state;
    assert_string_equal(join(lex("\"/* x */\" '//'")), "[\"/* x */\"]['//']");
}

static void comments_as_tokens(void **state)
{
    (void)state;
    const Token *t = lexc("a /* c */ b // d\nx");
    assert_string_equal(join(t), "[a][/* c */][b][// d][x]");
    assert_int_equal(nth(t, 1)->kind, TK_COMMENT);
    assert_int_equal(nth(t, 3)->kind, TK_COMMENT);
    assert_int_equal(nth(t, 4)->kind, TK_IDENT);
    assert_string_equal(lead(nth(t, 4)), "\n");
}

static void comment_tokens_have_positions(void **state)
{
    (void)state;
    const Token *t = lexc("// one\n  /* two */x");
    assert_int_equal(t->loc.line, 1);
    assert_int_equal(t->loc.col, 1);
    assert_int_equal(t->next->loc.line, 2);
    assert_int_equal(t->next->loc.col, 3);
    assert_true(t->next->flags & TF_BOL);
}

static void multiline_block_comment_is_not_a_newline(void **state)
{
    (void)state;
    const Token *t = lex("a /*\n*/ b");
    assert_string_equal(spell(t->next), "b");
    assert_int_equal(t->next->flags & TF_BOL, 0);
    assert_int_equal(t->next->loc.line, 2);
    assert_int_equal(t->next->loc.col, 4);
}

static void unterminated_block_comment_error(void **state)
{
    (void)state;
    const Token *t = lex("a\n  /* x\ny");
    assert_string_equal(join(t), "[a]");
    assert_int_equal(oklc_error_count(cur), 1);
    assert_int_equal(oklc_diag_count(cur), 1);
    assert_string_equal(diag(0), "t.okl:2:3: unterminated /* comment");
    assert_string_equal(lead(t->next), "\n  /* x\ny");
}

static void unterminated_block_comment_token(void **state)
{
    (void)state;
    const Token *t = lexc("a /* x");
    assert_string_equal(join(t), "[a][/* x]");
    assert_int_equal(t->next->kind, TK_COMMENT);
    assert_int_equal(oklc_diag_count(cur), 1);
    assert_string_equal(diag(0), "t.okl:1:3: unterminated /* comment");
}

static void slash_star_slash_does_not_close(void **state)
{
    (void)state;
    lex("/*/ x");
    assert_int_equal(oklc_error_count(cur), 1);
    assert_string_equal(diag(0), "t.okl:1:1: unterminated /* comment");
}

static void comment_opener_at_end_of_text(void **state)
{
    (void)state;
    lex("x /*");
    assert_int_equal(oklc_error_count(cur), 1);
    assert_string_equal(diag(0), "t.okl:1:3: unterminated /* comment");
}

/* ---- positions and flags ------------------------------------------------------------------ */

static void positions_with_tabs_and_crlf(void **state)
{
    (void)state;
    static const struct {
        TokKind     kind;
        const char *s;
        uint32_t    line, col, off;
        unsigned    flags;
    } want[] = {
        {TK_IDENT, "int", 1, 1, 0, TF_BOL},
        {TK_IDENT, "x", 1, 5, 4, TF_SPACE},
        {TK_PUNCT, ";", 1, 6, 5, 0},
        {TK_IDENT, "y", 2, 3, 10, TF_BOL | TF_SPACE},
        {TK_PUNCT, "=", 2, 5, 12, TF_SPACE},
        {TK_NUMBER, "1", 2, 7, 14, TF_SPACE},
        {TK_PUNCT, ";", 2, 8, 15, 0},
        {TK_IDENT, "z", 3, 2, 19, TF_BOL | TF_SPACE},
        {TK_EOF, "", 4, 1, 22, TF_BOL | TF_SPACE},
    };
    const Token *t = lex("int\tx;\r\n  y = 1;\r\n\tz\r\n");
    for (size_t i = 0; i < OKLC_COUNTOF(want); i++, t = t->next) {
        assert_non_null(t);
        assert_int_equal(t->kind, want[i].kind);
        assert_string_equal(spell(t), want[i].s);
        assert_int_equal(t->loc.file, cur_view);
        assert_int_equal(t->loc.line, want[i].line);
        assert_int_equal(t->loc.col, want[i].col);
        assert_int_equal(t->loc.off, want[i].off);
        assert_int_equal(t->flags & (TF_BOL | TF_SPACE), want[i].flags);
    }
    assert_null(t);
}

static void loc_file_is_the_view(void **state)
{
    (void)state;
    fresh_ctx();
    uint32_t v1 = oklc_pp_add_buffer(cur, "a.okl", "a", 1, false);
    uint32_t v2 = oklc_pp_add_buffer(cur, "b.okl", "b", 1, false);
    assert_int_not_equal(v1, v2);
    assert_int_equal(oklc_lex(cur, v1, 0)->loc.file, v1);
    assert_int_equal(oklc_lex(cur, v2, 0)->loc.file, v2);
}

static void bol_only_on_first_token_of_each_line(void **state)
{
    (void)state;
    const Token *t = lex("a b\n c d\n\n\ne\nf");
    static const bool bol[] = {true, false, true, false, true, true};
    for (size_t i = 0; i < OKLC_COUNTOF(bol); i++, t = t->next)
        if (!!(t->flags & TF_BOL) != bol[i])
            fail_msg("token %zu '%s': TF_BOL is %d", i, spell(t), !!(t->flags & TF_BOL));
    assert_int_equal(t->kind, TK_EOF);
}

static void first_token_of_text_is_bol(void **state)
{
    (void)state;
    assert_true(lex("x")->flags & TF_BOL);
    assert_true(lex("  x")->flags & TF_BOL);
    assert_true(lex("/* c */ x")->flags & TF_BOL);
}

static void space_flag(void **state)
{
    (void)state;
    const Token *t = lex("a b\tc(d\ve\ff");
    static const bool space[] = {false, true, true, false, false, true, true};
    for (size_t i = 0; i < OKLC_COUNTOF(space); i++, t = t->next)
        if (!!(t->flags & TF_SPACE) != space[i])
            fail_msg("token %zu '%s': TF_SPACE is %d", i, spell(t), !!(t->flags & TF_SPACE));
}

static void lead_holds_exact_whitespace(void **state)
{
    (void)state;
    const Token *t = lex("a \t\r\n  b");
    assert_string_equal(lead(t), "");
    assert_string_equal(lead(t->next), " \t\r\n  ");
}

static void positions_after_a_multiline_comment(void **state)
{
    (void)state;
    const Token *t = lex("x\n  /* multi\nline */ y\n\tz");
    assert_string_equal(join(t), "[x][y][z]");
    assert_int_equal(t->next->loc.line, 3);
    assert_int_equal(t->next->loc.col, 9);
    assert_int_equal(t->next->loc.off, 21);
    assert_int_equal(t->next->next->loc.line, 4);
    assert_int_equal(t->next->next->loc.col, 2);
}

static void directive_hash_is_bol(void **state)
{
    (void)state;
    const Token *t = lex("a\n#b");
    assert_true(oklc_tok_is_punct(t->next, P_HASH));
    assert_true(t->next->flags & TF_BOL);
    assert_int_equal(t->next->next->flags & TF_BOL, 0);
}

/* ---- line splices ---------------------------------------------------------------------------- */

static void splice_inside_identifier(void **state)
{
    (void)state;
    const Token *t = lex("in\\\nt x");
    assert_string_equal(join(t), "[int][x]");
    assert_int_equal(t->loc.line, 1);
    assert_int_equal(t->loc.col, 1);
    assert_int_equal(t->next->loc.line, 2);
    assert_int_equal(t->next->loc.col, 3);
    assert_int_equal(t->next->loc.off, 6);
}

static void splice_with_trailing_blanks(void **state)
{
    (void)state;
    const Token *t = lex("in\\  \nt x");
    assert_string_equal(join(t), "[int][x]");
    assert_int_equal(t->next->loc.line, 2);
    assert_int_equal(t->next->loc.col, 3);
    assert_int_equal(t->next->loc.off, 8);
}

static void splice_with_trailing_tab(void **state)
{
    (void)state;
    assert_string_equal(join(lex("a\\\t\nb")), "[ab]");
}

static void splice_with_crlf(void **state)
{
    (void)state;
    const Token *t = lex("in\\\r\nt x");
    assert_string_equal(join(t), "[int][x]");
    assert_int_equal(t->next->loc.line, 2);
    assert_int_equal(t->next->loc.col, 3);
    assert_int_equal(t->next->loc.off, 7);
}

static void consecutive_splices(void **state)
{
    (void)state;
    const Token *t = lex("a\\\n\\\nb c");
    assert_string_equal(join(t), "[ab][c]");
    assert_int_equal(t->next->loc.line, 3);
    assert_int_equal(t->next->loc.col, 3);
    assert_int_equal(t->next->loc.off, 7);
}

static void token_right_after_a_splice(void **state)
{
    (void)state;
    const Token *t = lex("a \\\nb");
    assert_string_equal(join(t), "[a][b]");
    assert_int_equal(t->next->loc.line, 2);
    assert_int_equal(t->next->loc.col, 1);
    assert_int_equal(t->next->loc.off, 4);
}

static void splice_inside_punct(void **state)
{
    (void)state;
    const Token *t = lex("a +\\\n= b");
    assert_string_equal(join(t), "[a][+=][b]");
    assert_true(oklc_tok_is_punct(t->next, P_PLUSEQ));
}

static void splice_inside_string(void **state)
{
    (void)state;
    const Token *t = lex("\"ab\\\ncd\" e");
    assert_string_equal(join(t), "[\"abcd\"][e]");
    assert_int_equal(t->flags & TF_BAD, 0);
    assert_int_equal(t->next->loc.line, 2);
    assert_int_equal(t->next->loc.col, 5);
}

static void line_comment_continued_by_splice(void **state)
{
    (void)state;
    const Token *t = lex("// c \\\nstill\nx");
    assert_string_equal(join(t), "[x]");
    assert_int_equal(t->loc.line, 3);
    assert_int_equal(t->loc.col, 1);
    assert_string_equal(lead(t), "// c still\n");
}

static void line_comment_token_continued_by_splice(void **state)
{
    (void)state;
    const Token *t = lexc("// c \\\nstill\nx");
    assert_string_equal(join(t), "[// c still][x]");
    assert_int_equal(t->kind, TK_COMMENT);
}

static void splices_on_many_lines_keep_positions(void **state)
{
    (void)state;
    const Token *t = lex("a\\\nb\nc\\\nd e\nf");
    assert_string_equal(join(t), "[ab][cd][e][f]");
    assert_int_equal(nth(t, 1)->loc.line, 3);
    assert_int_equal(nth(t, 2)->loc.line, 4);
    assert_int_equal(nth(t, 2)->loc.col, 3);
    assert_int_equal(nth(t, 3)->loc.line, 5);
    assert_int_equal(nth(t, 3)->loc.off, 12);
}

/* ---- the EOF token ----------------------------------------------------------------------------- */

static void eof_token_ends_the_list(void **state)
{
    (void)state;
    const Token *e = eof_of(lex("a b"));
    assert_non_null(e);
    assert_int_equal(e->kind, TK_EOF);
    assert_int_equal(e->len, 0);
    assert_null(e->next);
}

static void eof_lead_holds_trailing_text(void **state)
{
    (void)state;
    const Token *e = eof_of(lex("a  /* t */ // u\n"));
    assert_string_equal(lead(e), "  /* t */ // u\n");
    assert_int_equal(e->loc.line, 2);
    assert_int_equal(e->loc.col, 1);
    assert_int_equal(e->loc.off, 16);
}

static void eof_of_empty_text(void **state)
{
    (void)state;
    const Token *t = lex("");
    assert_int_equal(t->kind, TK_EOF);
    assert_int_equal(t->lead_len, 0);
    assert_int_equal(t->loc.line, 1);
    assert_int_equal(t->loc.col, 1);
    assert_int_equal(t->loc.off, 0);
}

static void eof_of_blank_text(void **state)
{
    (void)state;
    const Token *t = lex("  \n\t");
    assert_int_equal(t->kind, TK_EOF);
    assert_string_equal(lead(t), "  \n\t");
    assert_true(t->flags & TF_SPACE);
}

/* ---- not a text file --------------------------------------------------------------------------- */

static void nul_byte_is_an_error(void **state)
{
    (void)state;
    static const char text[] = "a\0b";
    lex_n(text, sizeof text - 1, 0);
    assert_int_equal(oklc_error_count(cur), 1);
    assert_non_null(strstr(diag(0), "not a text file"));
    assert_non_null(strstr(diag(0), "t.okl:1:2: "));
}

static void no_error_for_normal_text(void **state)
{
    (void)state;
    lex("int a = 'b' + \"c\"; // d\n/* e */");
    assert_int_equal(oklc_error_count(cur), 0);
    assert_int_equal(oklc_diag_count(cur), 0);
}

/* ---- oklc_lex_string ------------------------------------------------------------------------------ */

static Loc scratch_loc(void)
{
    fresh_ctx();
    uint32_t v = oklc_pp_add_buffer(cur, "t.okl", "line1\nline2 x\n", 14, false);
    Loc loc = {v, 2, 7, 12};
    return loc;
}

static void lex_string_gives_every_token_the_loc(void **state)
{
    (void)state;
    Loc loc = scratch_loc();
    const Token *t = oklc_lex_string(cur, "a + \"s\"\nb", 9, loc);
    assert_string_equal(join(t), "[a][+][\"s\"][b]");
    for (; t; t = t->next) {
        assert_int_equal(t->loc.file, loc.file);
        assert_int_equal(t->loc.line, 2);
        assert_int_equal(t->loc.col, 7);
        assert_int_equal(t->loc.off, 12);
    }
}

static void lex_string_kinds_and_flags(void **state)
{
    (void)state;
    Loc loc = scratch_loc();
    const Token *t = oklc_lex_string(cur, "x /* c */ 1\n@y", 14, loc);
    assert_string_equal(join(t), "[x][1][@y]");
    assert_int_equal(t->kind, TK_IDENT);
    assert_true(t->flags & TF_BOL);
    assert_string_equal(lead(t->next), " /* c */ ");
    assert_true(t->next->flags & TF_SPACE);
    assert_int_equal(t->next->kind, TK_NUMBER);
    assert_true(t->next->next->flags & TF_BOL);
    assert_int_equal(t->next->next->kind, TK_ATTR);
    assert_int_equal(eof_of(t)->kind, TK_EOF);
}

static void lex_string_stops_at_len(void **state)
{
    (void)state;
    Loc loc = scratch_loc();
    const Token *t = oklc_lex_string(cur, "abc+def", 4, loc);
    assert_string_equal(join(t), "[abc][+]");
}

static void lex_string_empty(void **state)
{
    (void)state;
    Loc loc = scratch_loc();
    const Token *t = oklc_lex_string(cur, "", 0, loc);
    assert_int_equal(t->kind, TK_EOF);
    assert_null(t->next);
}

static void lex_string_marks_bad_literals(void **state)
{
    (void)state;
    Loc loc = scratch_loc();
    const Token *t = oklc_lex_string(cur, "\"ab", 3, loc);
    assert_int_equal(t->kind, TK_STRING);
    assert_true(t->flags & TF_BAD);
}

/* ---- oklc_lex_first_len --------------------------------------------------------------------------- */

static void first_len_of_tokens(void **state)
{
    (void)state;
    assert_int_equal(first_len("abc def"), 3);
    assert_int_equal(first_len(">>=x"), 3);
    assert_int_equal(first_len("1.5e+3+"), 6);
    assert_int_equal(first_len("\"a b\" c"), 5);
    assert_int_equal(first_len("R\"(a)\"b c"), 7);
    assert_int_equal(first_len("'c'_x y"), 5);
    assert_int_equal(first_len("@outer("), 6);
    assert_int_equal(first_len("u8\"x\"y z"), 6);
}

static void first_len_special_cases(void **state)
{
    (void)state;
    assert_int_equal(first_len(""), 0);
    assert_int_equal(first_len("/"), 1);
    assert_int_equal(first_len("<::x"), 1);
    assert_int_equal(first_len("<::>"), 2);
    assert_int_equal(first_len("`x"), 1);
}

static void first_len_sees_comment_openers(void **state)
{
    (void)state;
    assert_int_equal(first_len("//x"), 2);
    assert_int_equal(first_len("/*x*/"), 2);
}

static void first_len_respects_n(void **state)
{
    (void)state;
    assert_int_equal(oklc_lex_first_len("abcdef", 2), 2);
    assert_int_equal(oklc_lex_first_len(">>=", 2), 2);
}

/* ---- token helpers ------------------------------------------------------------------------------- */

static void tok_eq_compares_spelling(void **state)
{
    (void)state;
    const Token *t = lex("abc");
    assert_true(oklc_tok_eq(t, "abc"));
    assert_false(oklc_tok_eq(t, "ab"));
    assert_false(oklc_tok_eq(t, "abcd"));
}

static void tok_is_punct_checks_kind(void **state)
{
    (void)state;
    const Token *t = lex("+ x");
    assert_true(oklc_tok_is_punct(t, P_PLUS));
    assert_false(oklc_tok_is_punct(t, P_MINUS));
    assert_false(oklc_tok_is_punct(t->next, P_NONE));
}

static void tok_copy_detaches(void **state)
{
    (void)state;
    const Token *t = lex("a b");
    Token *n = oklc_tok_copy(cur, t);
    assert_ptr_not_equal(n, t);
    assert_null(n->next);
    assert_ptr_equal(n->text, t->text);
    assert_int_equal(n->len, t->len);
    assert_int_equal(n->loc.off, t->loc.off);
    assert_int_equal(count(t), 2);
}

/* ==== regressions ====================================================================================
 * Each test pins a bug that was found in src/lex/lex.c and fixed. */

/* Was wrong: raw_string() loops while `p - d <= 16`, so a 17-character delimiter is
 * accepted; C++ [lex.string] allows at most 16 (GCC/Clang reject 17). */
static void regression_raw_string_delimiter_over_16_chars_is_bad(void **state)
{
    (void)state;
    const Token *t = lex("R\"12345678901234567(x)12345678901234567\"");
    assert_int_equal(t->kind, TK_STRING);
    assert_true(t->flags & TF_BAD);
}

/* Was wrong: oklc_lex_string reports an unterminated comment with the Lexer's
 * view 0 ("no position"), not at `loc`: `P(/,*)` with `#define P(a,b) a##b`
 * prints "oklc: error: unterminated ... comment" with no file:line:col. */
static void regression_lex_string_comment_error_has_a_position(void **state)
{
    (void)state;
    Loc loc = scratch_loc();
    oklc_lex_string(cur, "b /* z", 6, loc);
    assert_int_equal(oklc_error_count(cur), 1);
    assert_string_equal(diag(0), "t.okl:2:7: unterminated /* comment");
}

/* Was wrong: skip_space() finds the end of a block comment with strstr(), which
 * reads past text+len up to a NUL; oklc_lex_string takes a length and is
 * given slices (normalize.c lexes the inside of an okl_tile("...") string).
 * The text is put right before an unreadable page; the child must not crash
 * (under ASan: heap-buffer-overflow in strstr from skip_space). */
static void regression_lex_string_reads_only_len_bytes(void **state)
{
    (void)state;
    static const char src[] = "x /* y";
    size_t n = sizeof src - 1, pg = (size_t)sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + pg, pg, PROT_NONE), 0);
    char *text = memcpy(m + pg - n, src, n);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* die of the fault: no cmocka handler (it would go on running the
         * remaining tests in the child), no ASan report on stderr */
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 2);
        oklc_ctx *c = oklc_ctx_new();
        Loc loc = {0, 0, 0, 0};
        oklc_lex_string(c, text, n, loc);
        _exit(0);
    }
    int st = 0;
    assert_true(pid > 0 && waitpid(pid, &st, 0) == pid);
    munmap(m, 2 * pg);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("oklc_lex_string read past text+len (child: %s %d)",
                 WIFSIGNALED(st) ? "signal" : "exit status",
                 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/* Was wrong: a UTF-8 byte order mark at the start of a file becomes part of the
 * first identifier (bytes >= 0x80 are identifier chars), or a TK_IDENT of
 * its own before `#`: "\xEF\xBB\xBF#define X 1\nX" is not taken as a
 * directive by `oklc preprocess`. GCC, Clang and MSVC skip the BOM. */
static void regression_utf8_bom_is_skipped(void **state)
{
    (void)state;
    const Token *t = lex("\xEF\xBB\xBFint x");
    assert_string_equal(join(t), "[int][x]");
    t = lex("\xEF\xBB\xBF#define X");
    assert_true(oklc_tok_is_punct(t, P_HASH));
    assert_true(t->flags & TF_BOL);
}

/* Was wrong (C++ conformance): inside a raw string the line splices of phase 2 are
 * reverted ([lex.pptoken]/3), so R"(a\<newline>b)" holds a backslash and a
 * newline; remove_splices() drops them before raw strings are seen. */
static void regression_raw_string_keeps_backslash_newline(void **state)
{
    (void)state;
    const Token *t = lex("R\"(a\\\nb)\"");
    assert_int_equal(t->kind, TK_STRING);
    assert_string_equal(spell(t), "R\"(a\\\nb)\"");
}

/* Was wrong: a bare CR (old Mac line ends) did not end a line, so a file
 * was one line: every position said line 1 and a // comment swallowed the
 * rest of the file. CR ends a line as in Clang, CRLF is one line end. */
static void regression_bare_cr_ends_lines(void **state)
{
    (void)state;
    const Token *t = lex("a\rbb\r\r  c");
    assert_string_equal(join(t), "[a][bb][c]");
    assert_int_equal(nth(t, 1)->loc.line, 2);
    assert_int_equal(nth(t, 1)->loc.col, 1);
    assert_int_equal(nth(t, 2)->loc.line, 4);
    assert_int_equal(nth(t, 2)->loc.col, 3);
    assert_true(nth(t, 2)->flags & TF_BOL);
    t = lex("a\r\nbb\r\n\r\n  c");
    assert_int_equal(nth(t, 1)->loc.line, 2);
    assert_int_equal(nth(t, 2)->loc.line, 4);
    assert_int_equal(nth(t, 2)->loc.col, 3);
}

static void regression_line_comment_ends_at_cr(void **state)
{
    (void)state;
    const Token *t = lexc("x // note\ry");
    assert_string_equal(join(t), "[x][// note][y]");
    assert_int_equal(nth(t, 2)->loc.line, 2);
    t = lex("x // note\r\ny");
    assert_string_equal(join(t), "[x][y]");
    assert_int_equal(nth(t, 1)->loc.line, 2);
}

/* A backslash then CR is a line splice, as backslash-LF and backslash-CRLF. */
static void regression_backslash_cr_splices(void **state)
{
    (void)state;
    const Token *t = lex("ab\\\rcd e\\\r\nf\rg");
    assert_string_equal(join(t), "[abcd][ef][g]");
    assert_int_equal(nth(t, 1)->loc.line, 2);
    assert_int_equal(nth(t, 1)->loc.col, 4);
    assert_int_equal(nth(t, 2)->loc.line, 4);
    assert_int_equal(nth(t, 2)->loc.col, 1);
}

/* An error's position and the line it prints come from the CR lines. */
static void regression_cr_error_position(void **state)
{
    (void)state;
    lex("int a;\r\rint b; /* open\r");
    assert_string_equal(diag(0), "t.okl:3:8: unterminated /* comment");
}

/* ---- main ---------------------------------------------------------------------------------------- */

#define T(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        /* identifiers and keywords */
        T(identifiers_are_ident_tokens),
        T(keywords_lex_as_identifiers),
        T(is_keyword_knows_c11_and_cxx17),
        T(is_keyword_rejects_other_names),
        T(is_keyword_uses_the_length),
        T(dollar_is_an_identifier_char),
        T(utf8_bytes_are_identifier_chars),
        T(digit_does_not_start_an_identifier),
        /* punctuators */
        T(every_punctuator_alone),
        T(punct_table_covers_every_punct_id),
        T(punct_spelling_of_every_id),
        T(digraphs_map_to_their_punct),
        T(digraph_spelling_is_kept),
        T(longest_match_three_char_puncts),
        T(longest_match_plus_plus_plus),
        T(longest_match_runs_of_puncts),
        T(less_colon_colon_is_less_then_scope),
        T(less_colon_colon_at_end_is_less_then_scope),
        T(less_colon_colon_greater_is_digraphs),
        T(less_colon_colon_colon_is_digraph_then_scope),
        T(non_punct_tokens_have_punct_none),
        /* preprocessing numbers */
        T(pp_numbers_integers),
        T(pp_numbers_floats),
        T(pp_number_user_defined_literal),
        T(pp_number_swallows_letters),
        T(sign_only_after_exponent_letter),
        T(separator_needs_a_following_char),
        T(dot_digit_starts_a_number),
        /* integer literal values */
        T(const_eval_operators),
        T(const_eval_names),
        T(const_eval_refuses),
        T(int_literal_bases),
        T(int_literal_separators),
        T(int_literal_suffixes),
        T(int_literal_u_suffix_is_unsigned),
        T(int_literal_too_big_for_int64_is_unsigned),
        T(int_literal_max_value),
        T(int_literal_overflow_is_an_error),
        T(int_literal_invalid_digit),
        T(int_literal_no_digits),
        T(int_literal_bad_suffixes),
        T(int_literal_rejects_floats),
        /* character literal values */
        T(char_literal_plain),
        T(char_literal_simple_escapes),
        T(char_literal_numeric_escapes),
        T(char_literal_octal_stops_after_three_digits),
        T(char_literal_multichar),
        T(char_literal_prefixes),
        T(char_literal_plain_char_is_signed),
        T(char_literal_ignores_udl_suffix),
        T(char_literal_empty_is_an_error),
        T(char_literal_bad_hex_escape),
        T(char_literal_needs_a_quote),
        /* literal tokens */
        T(char_tokens_with_every_prefix),
        T(string_tokens_with_every_prefix),
        T(escaped_quote_does_not_end_a_string),
        T(escaped_backslash_before_closing_quote),
        T(escaped_quote_does_not_end_a_char),
        T(other_quote_inside_literal),
        T(escapes_kept_in_string_spelling),
        T(raw_string_simple),
        T(raw_string_with_delimiter),
        T(raw_string_with_prefixes),
        T(raw_string_backslash_is_not_an_escape),
        T(raw_string_spans_lines),
        T(raw_string_delimiter_of_16_chars),
        T(raw_string_unterminated_is_bad),
        T(raw_string_bad_delimiter_is_bad),
        T(udl_suffixes_are_part_of_the_literal),
        T(bad_prefixes_are_identifiers),
        T(raw_prefix_needs_a_double_quote),
        T(unterminated_string_is_bad_without_error),
        T(unterminated_char_is_bad_without_error),
        T(unterminated_string_at_eof),
        T(good_literals_are_not_bad),
        /* attributes and stray characters */
        T(attribute_is_one_token),
        T(attribute_with_arguments),
        T(attribute_names_like_identifiers),
        T(at_space_name_is_one_attribute),
        T(backslash_before_blank_is_space),
        T(at_before_digit_is_other),
        T(stray_characters_are_other),
        T(backslash_without_newline_is_other),
        /* comments */
        T(block_comment_goes_to_lead),
        T(line_comment_goes_to_lead),
        T(comment_alone_sets_space),
        T(comment_star_runs),
        T(comment_markers_in_literals_are_text),
        T(comments_as_tokens),
        T(comment_tokens_have_positions),
        T(multiline_block_comment_is_not_a_newline),
        T(unterminated_block_comment_error),
        T(unterminated_block_comment_token),
        T(slash_star_slash_does_not_close),
        T(comment_opener_at_end_of_text),
        /* positions and flags */
        T(positions_with_tabs_and_crlf),
        T(loc_file_is_the_view),
        T(bol_only_on_first_token_of_each_line),
        T(first_token_of_text_is_bol),
        T(space_flag),
        T(lead_holds_exact_whitespace),
        T(positions_after_a_multiline_comment),
        T(directive_hash_is_bol),
        /* line splices */
        T(splice_inside_identifier),
        T(splice_with_trailing_blanks),
        T(splice_with_trailing_tab),
        T(splice_with_crlf),
        T(consecutive_splices),
        T(token_right_after_a_splice),
        T(splice_inside_punct),
        T(splice_inside_string),
        T(line_comment_continued_by_splice),
        T(line_comment_token_continued_by_splice),
        T(splices_on_many_lines_keep_positions),
        /* EOF */
        T(eof_token_ends_the_list),
        T(eof_lead_holds_trailing_text),
        T(eof_of_empty_text),
        T(eof_of_blank_text),
        /* not a text file */
        T(nul_byte_is_an_error),
        T(no_error_for_normal_text),
        /* oklc_lex_string */
        T(lex_string_gives_every_token_the_loc),
        T(lex_string_kinds_and_flags),
        T(lex_string_stops_at_len),
        T(lex_string_empty),
        T(lex_string_marks_bad_literals),
        /* oklc_lex_first_len */
        T(first_len_of_tokens),
        T(first_len_special_cases),
        T(first_len_sees_comment_openers),
        T(first_len_respects_n),
        /* token helpers */
        T(tok_eq_compares_spelling),
        T(tok_is_punct_checks_kind),
        T(tok_copy_detaches),
        /* regressions */
        T(regression_raw_string_delimiter_over_16_chars_is_bad),
        T(regression_lex_string_comment_error_has_a_position),
        T(regression_lex_string_reads_only_len_bytes),
        T(regression_utf8_bom_is_skipped),
        T(regression_raw_string_keeps_backslash_newline),
        T(regression_bare_cr_ends_lines),
        T(regression_line_comment_ends_at_cr),
        T(regression_backslash_cr_splices),
        T(regression_cr_error_position),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    reset();
    return failed;
}
