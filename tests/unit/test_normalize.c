/*
 * test_normalize.c - the OKL 1.0 -> 2.0 rewrite: the text it produces, the
 * attribute records later stages rely on (names, structured arguments,
 * anchors), and the map from normalized offsets back to the user's file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normalize/normalize.h"

static oklc_ctx *last;

static const Normalized *norm_flags(const char *src, unsigned flags)
{
    if (last)
        oklc_ctx_free(last);
    last = oklc_ctx_new();
    if (!oklc_normalize_buffer(last, "t.okl", src, strlen(src), flags))
        return NULL;
    return last->norm;
}

static const Normalized *norm(const char *src)
{
    return norm_flags(src, 0);
}

static int teardown(void **state)
{
    (void)state;
    oklc_ctx_free(last);
    last = NULL;
    return 0;
}

/* The normalized text from an offset, up to n bytes. */
static const char *at(const Normalized *nz, uint32_t off, size_t n)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)n, nz->text + off);
    return buf;
}

static const char *first_diag(void)
{
    static char buf[512];
    oklc_diag_info d;
    if (!oklc_diag_get(last, 0, &d))
        return "";
    snprintf(buf, sizeof buf, "%u:%u: %s", d.line, d.column, d.message);
    return buf;
}

#define EXPECT_NORM(src, want) assert_string_equal(norm(src)->text, want)

/* ---- the text ---------------------------------------------------------------- */

static void loop_header_attributes_move(void **state)
{
    (void)state;
    EXPECT_NORM("for (int i = 0; i < N; ++i; @outer) {}\n",
                "[[okl::outer]] for (int i = 0; i < N; ++i) {}\n");
    EXPECT_NORM("  for (int i = 0; i < N; ++i; @outer(1), @max_inner_dims(4, 4)) {}\n",
                "  [[okl::outer(1)]] [[okl::max_inner_dims(4, 4)]] for (int i = 0; i < N; ++i) {}\n");
    EXPECT_NORM("for (int i = 0; i < N; ++i; @tile(16, @outer(1), @inner(0), check=false)) {}\n",
                "[[okl::tile(16, okl::outer(1), okl::inner(0), check=false)]] for (int i = 0; i < "
                "N; ++i) {}\n");
    /* a lambda in the header does not confuse the clause count */
    EXPECT_NORM("for (int i = 0; i < [](){ return 4; }(); ++i; @inner) {}\n",
                "[[okl::inner]] for (int i = 0; i < [](){ return 4; }(); ++i) {}\n");
    EXPECT_NORM("lbl: for (int i = 0; i < 4; ++i; @inner) x;\n",
                "lbl: [[okl::inner]] for (int i = 0; i < 4; ++i) x;\n");
}

static void legacy_keywords(void **state)
{
    (void)state;
    EXPECT_NORM("for (int i = 0; i < N; ++i; outer) {}\n",
                "[[okl::outer]] for (int i = 0; i < N; ++i) {}\n");
    EXPECT_NORM("for (int i = 0; i < N; ++i; inner1) {}\n",
                "[[okl::inner(1)]] for (int i = 0; i < N; ++i) {}\n");
    EXPECT_NORM("for (int i = 0; i < N; ++i; tile(8, outer, inner)) {}\n",
                "[[okl::tile(8, okl::outer, okl::inner)]] for (int i = 0; i < N; ++i) {}\n");
    EXPECT_NORM("for (outer) { for (inner) {} }\n",
                "[[okl::outer]] for (;;) { [[okl::inner]] for (;;) {} }\n");
    EXPECT_NORM("{ shared int a[8]; exclusive float z; }\n",
                "{ [[okl::shared]] int a[8]; [[okl::exclusive]] float z; }\n");
    /* ordinary uses of the words stay as they are */
    EXPECT_NORM("{ int shared = 1; shared = 2; x.shared = 3; f(shared); }\n",
                "{ int shared = 1; shared = 2; x.shared = 3; f(shared); }\n");
}

static void in_place_attributes(void **state)
{
    (void)state;
    EXPECT_NORM("@kernel void k(@restrict float *a, float *m @dim(3, 4)) {}\n",
                "[[okl::kernel]] void k([[okl::restrict]] float *a, float *m [[okl::dim(3, 4)]]) "
                "{}\n");
    EXPECT_NORM("typedef float * @restrict rf; typedef float sh @shared;\n",
                "typedef float * [[okl::restrict]] rf; typedef float sh [[okl::shared]];\n");
    EXPECT_NORM("{ @barrier; @barrier(\"warp\"); @atomic x += 1; @atomic { y++; } }\n",
                "{ [[okl::barrier]]; [[okl::barrier(\"warp\")]]; [[okl::atomic]] x += 1; "
                "[[okl::atomic]] { y++; } }\n");
    /* the statement after @atomic may start with '(' */
    EXPECT_NORM("{ @atomic (*p) += 1; }\n", "{ [[okl::atomic]] (*p) += 1; }\n");
    EXPECT_NORM("template <typename T>\n@kernel void k(T *a) {}\n",
                "template <typename T>\n[[okl::kernel]] void k(T *a) {}\n");
    EXPECT_NORM("@nobarrier @inner for (;;) {}\n", "[[okl::nobarrier]] [[okl::inner]] for (;;) {}\n");
}

static void okl2_input_is_kept(void **state)
{
    (void)state;
    const char *src = "[[okl::kernel]] void k() {\n"
                      "  [[okl::tile(16, okl::outer, okl::inner)]] for (int i = 0; i < 9; ++i) {}\n"
                      "  [[okl_outer(\"\")]] for (;;) { [[okl_inner(\"0\")]] for (;;) {} }\n"
                      "  [[using okl: outer, max_inner_dims(4)]] for (;;) {}\n"
                      "  [[okl_tile(\"(16,@inner(0),@outer(1),check=true)\")]] for (;;) {}\n"
                      "  [[nodiscard, gnu::unused]] int u;\n"
                      "}\n";
    const Normalized *nz = norm(src);
    assert_string_equal(nz->text, src);
    const char *names[] = {"kernel", "tile", "outer", "inner", "outer", "max_inner_dims", "tile"};
    assert_int_equal(nz->nattrs, 7);
    for (size_t i = 0; i < nz->nattrs; i++) {
        assert_string_equal(nz->attrs[i]->name, names[i]);
        assert_true(nz->attrs[i]->okl2);
    }
    assert_int_equal(nz->attrs[3]->nargs, 1);
    assert_string_equal(nz->attrs[3]->args[0].text, "0");
    const Attr *tile = nz->attrs[6];
    assert_int_equal(tile->nargs, 4);
    assert_int_equal(tile->args[1].attr->id, ATTR_INNER);
    assert_string_equal(tile->args[2].attr->args[0].text, "1");
    assert_string_equal(tile->args[3].key, "check");
    assert_string_equal(tile->args[3].text, "true");
}

static void comments_and_layout_survive(void **state)
{
    (void)state;
    const char *src = "// header\n@kernel void k(int n) { /* body */\n"
                      "  for (int i = 0; i < n; ++i; @outer) { // outer loop\n"
                      "\tfor (int j = 0; j < 4; ++j; @inner) {}\n  }\n}\n";
    EXPECT_NORM(src, "// header\n[[okl::kernel]] void k(int n) { /* body */\n"
                     "  [[okl::outer]] for (int i = 0; i < n; ++i) { // outer loop\n"
                     "\t[[okl::inner]] for (int j = 0; j < 4; ++j) {}\n  }\n}\n");
}

static void attributes_from_macros(void **state)
{
    (void)state;
    EXPECT_NORM("#define OUTER @outer\n#define KERNEL @kernel\n"
                "KERNEL void k() { for (int i = 0; i < 4; ++i; OUTER) {} }\n",
                "[[okl::kernel]] void k() { [[okl::outer]] for (int i = 0; i < 4; ++i) {} }\n");
    EXPECT_NORM("#define LOOP(i, n) for (int i = 0; i < n; ++i; @inner)\n{ LOOP(j, 8) {} }\n",
                "{ [[okl::inner]] for (int j = 0; j < 8; ++j) {} }\n");
}

/* ---- the records ------------------------------------------------------------------ */

static void records_and_anchors(void **state)
{
    (void)state;
    const Normalized *nz =
        norm("@kernel void k(float *m @dim(2, 3) @dimOrder(1, 0), float * @restrict p) {\n"
             "  for (int i = 0; i < 4; ++i; @outer) { @shared float s[4]; }\n}\n");
    assert_non_null(nz);
    assert_int_equal(nz->nattrs, 6);
    const Attr *kernel = nz->attrs[0], *dim = nz->attrs[1], *order = nz->attrs[2],
               *restr = nz->attrs[3], *outer = nz->attrs[4], *shared = nz->attrs[5];

    assert_int_equal(kernel->id, ATTR_KERNEL);
    assert_int_equal(kernel->anchor, ANCHOR_NEXT);
    assert_string_equal(at(nz, kernel->anchor_off, 4), "void");
    assert_string_equal(at(nz, kernel->off, kernel->end - kernel->off), "[[okl::kernel]]");

    assert_int_equal(dim->anchor, ANCHOR_PREV);
    assert_string_equal(at(nz, dim->anchor_off, 1), "m");
    assert_int_equal(dim->nargs, 2);
    assert_string_equal(dim->args[1].text, "3");
    assert_string_equal(at(nz, dim->args[1].off, dim->args[1].len), "3");
    assert_int_equal(order->anchor, ANCHOR_PREV);
    assert_int_equal(order->anchor_off, dim->anchor_off);

    assert_int_equal(restr->anchor, ANCHOR_PREV);
    assert_string_equal(at(nz, restr->anchor_off, 1), "*");

    assert_true(outer->moved);
    assert_int_equal(outer->anchor, ANCHOR_NEXT);
    assert_string_equal(at(nz, outer->anchor_off, 3), "for");

    assert_int_equal(shared->anchor, ANCHOR_NEXT);
    assert_string_equal(at(nz, shared->anchor_off, 5), "float");
}

static void tile_arguments_are_structured(void **state)
{
    (void)state;
    const Normalized *nz =
        norm("for (int i = 0; i < N; ++i; @tile(2 * B, @outer(1), @inner, check=false)) {}\n");
    const Attr *t = nz->attrs[0];
    assert_int_equal(t->id, ATTR_TILE);
    assert_int_equal(t->nargs, 4);
    assert_int_equal(t->args[0].kind, ARG_EXPR);
    assert_string_equal(t->args[0].text, "2 * B");
    assert_string_equal(at(nz, t->args[0].off, t->args[0].len), "2 * B");
    assert_int_equal(t->args[1].kind, ARG_ATTR);
    assert_int_equal(t->args[1].attr->id, ATTR_OUTER);
    assert_string_equal(t->args[1].attr->args[0].text, "1");
    assert_string_equal(at(nz, t->args[1].off, t->args[1].len), "okl::outer(1)");
    assert_int_equal(t->args[2].attr->nargs, 0);
    assert_int_equal(t->args[3].kind, ARG_KEYVAL);
    assert_string_equal(t->args[3].key, "check");
    assert_string_equal(t->args[3].text, "false");
}

static void legacy_records(void **state)
{
    (void)state;
    const Normalized *nz = norm("for (outer1) { shared int a[2]; }\n");
    assert_int_equal(nz->nattrs, 2);
    assert_true(nz->attrs[0]->legacy);
    assert_true(nz->attrs[0]->moved);
    assert_string_equal(nz->attrs[0]->args[0].text, "1");
    assert_true(nz->attrs[1]->legacy);
    assert_int_equal(nz->attrs[1]->id, ATTR_SHARED);
}

/* ---- the map back to the user's file ----------------------------------------------------- */

static uint32_t offset_of(const Normalized *nz, const char *needle)
{
    const char *p = strstr(nz->text, needle);
    assert_non_null(p);
    return (uint32_t)(p - nz->text);
}

static void offsets_map_to_user_positions(void **state)
{
    (void)state;
    const Normalized *nz = norm("#define N 8\n\n@kernel void k(int n) {\n"
                                "  for (int i = 0; i < N; ++i; @outer) {}\n}\n");
    /* a token written in the file, and a column inside it */
    Loc l = oklc_norm_loc(nz, offset_of(nz, "void"));
    assert_int_equal(l.line, 3);
    assert_int_equal(l.col, 9);
    l = oklc_norm_loc(nz, offset_of(nz, "oid"));
    assert_int_equal(l.col, 10);
    /* generated text maps to the attribute that produced it */
    l = oklc_norm_loc(nz, offset_of(nz, "[[okl::outer"));
    assert_int_equal(l.line, 4);
    assert_int_equal(l.col, 31);
    l = oklc_norm_loc(nz, offset_of(nz, "[[okl::kernel"));
    assert_int_equal(l.line, 3);
    assert_int_equal(l.col, 1);
    /* a macro's expansion maps to where the macro is used */
    l = oklc_norm_loc(nz, offset_of(nz, "8;"));
    assert_int_equal(l.line, 4);
    assert_int_equal(l.col, 23);
}

/* ---- --keep-macros ------------------------------------------------------------------------- */

static void keep_macros(void **state)
{
    (void)state;
    const char *src = "#include \"common.h\"\n"
                      "#define OUTER @outer\n"
                      "#define TILE(n) @tile(n, @outer, @inner)\n"
                      "#if USE_X\n#endif\n"
                      "@kernel void k(int n) {\n"
                      "  for (int i = 0; i < N; ++i; OUTER) {\n"
                      "    for (int j = 0; j < N; ++j; @inner) {}\n  }\n}\n";
    const Normalized *nz = norm_flags(src, OKLC_KEEP_MACROS);
    assert_non_null(nz);
    assert_string_equal(nz->text,
                        "#include \"common.h\"\n"
                        "#define OUTER [[okl::outer]]\n"
                        "#define TILE(n) [[okl::tile(n, okl::outer, okl::inner)]]\n"
                        "#if USE_X\n#endif\n"
                        "[[okl::kernel]] void k(int n) {\n"
                        "  OUTER for (int i = 0; i < N; ++i) {\n"
                        "    [[okl::inner]] for (int j = 0; j < N; ++j) {}\n  }\n}\n");
}

/* ---- errors ------------------------------------------------------------------------------------ */

static void errors(void **state)
{
    (void)state;
    assert_null(norm("@outr for (;;) {}\n"));
    assert_string_equal(first_diag(), "1:1: unknown attribute '@outr'; did you mean '@outer'?");
    assert_null(norm("int x = @outer 5;\n"));
    assert_non_null(strstr(first_diag(), "1:9: '@outer' cannot appear inside an expression"));
    assert_null(norm("for (int i = 0; i < 4; ++i; @tile(16, @outer, @inner, check=maybe)) {}\n"));
    assert_string_equal(first_diag(), "1:55: 'check' of '@tile' must be 'true' or 'false'");
    assert_null(norm("for (int i = 0; i < 4; ++i; @outer; @inner) {}\n"));
    assert_non_null(strstr(first_diag(), "1:35: too many clauses"));
    assert_null(norm("[[okl::outr]] for (;;) {}\n"));
    assert_string_equal(first_diag(),
                        "1:8: unknown OKL attribute 'okl::outr'; did you mean 'okl::outer'?");
    assert_null(norm("#define O @outr\nfor (int i = 0; i < 4; ++i; O) {}\n"));
    assert_string_equal(first_diag(), "2:29: unknown attribute '@outr'; did you mean '@outer'?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(loop_header_attributes_move, teardown),
        cmocka_unit_test_teardown(legacy_keywords, teardown),
        cmocka_unit_test_teardown(in_place_attributes, teardown),
        cmocka_unit_test_teardown(okl2_input_is_kept, teardown),
        cmocka_unit_test_teardown(comments_and_layout_survive, teardown),
        cmocka_unit_test_teardown(attributes_from_macros, teardown),
        cmocka_unit_test_teardown(records_and_anchors, teardown),
        cmocka_unit_test_teardown(tile_arguments_are_structured, teardown),
        cmocka_unit_test_teardown(legacy_records, teardown),
        cmocka_unit_test_teardown(offsets_map_to_user_positions, teardown),
        cmocka_unit_test_teardown(keep_macros, teardown),
        cmocka_unit_test_teardown(errors, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
