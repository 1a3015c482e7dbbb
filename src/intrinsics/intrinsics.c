/*
 * intrinsics.c - the intrinsics of the user: oklc_add_intrinsic(), the
 * JSON files of oklc_load_intrinsics() (docs/intrinsics.md), and the
 * table the stages ask (intrinsics.h).
 *
 * A description is checked before it enters the table: a name that is an
 * identifier, a declaration that declares it (its parameters counted),
 * spellings whose $N name a parameter, a spelling for every backend or a
 * body. A later description of a name replaces the earlier one.
 *
 * cJSON parses a file; it keeps no positions, so a small scan of the text
 * beside it finds where each field of each intrinsic is (the i-th member
 * of an object in cJSON's list is the i-th the scan met), and the
 * messages point at the file's line and column.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "intrinsics.h"
#include "../backends/table.h"

/* ---- the table ------------------------------------------------------------------- */

const Intrinsic *oklc_intrinsic_find(oklc_ctx *c, const char *name)
{
    size_t i;
    return oklc_names_get(&c->intrinsic_names, name, &i) ? c->intrinsics.data[i] : NULL;
}

const char *oklc_intrinsic_spelling(oklc_ctx *c, const char *name)
{
    if (c->backend == OKLC_BACKEND_NONE || !c->intrinsics.len)
        return NULL;
    const Intrinsic *in = oklc_intrinsic_find(c, name);
    return in ? in->spelling[c->backend] : NULL;
}

/* Is the intrinsic a function of the file on the context's backend? */
static bool defined_here(oklc_ctx *c, const Intrinsic *in)
{
    return in->declaration && in->body &&
           (c->backend == OKLC_BACKEND_NONE || !in->spelling[c->backend]);
}

const char *oklc_intrinsic_declarations(oklc_ctx *c)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_puts(&b, "");
    for (size_t i = 0; i < c->intrinsics.len; i++) {
        const Intrinsic *in = c->intrinsics.data[i];
        if (in->declaration && !defined_here(c, in))
            oklc_buf_printf(&b, "%s;\n", in->declaration);
    }
    return b.data;
}

const char *oklc_intrinsic_definitions(oklc_ctx *c)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    oklc_buf_puts(&b, "");
    for (size_t i = 0; i < c->intrinsics.len; i++) {
        const Intrinsic *in = c->intrinsics.data[i];
        if (defined_here(c, in))
            oklc_buf_printf(&b, "%s\n%s\n", in->declaration, in->body);
    }
    return b.data;
}

/* ---- checks ------------------------------------------------------------------------- */

/* Fields of a description: the spellings by backend, then these. */
enum { F_NAME = OKLC_BACKEND_COUNT_, F_DECL, F_BODY, F_COUNT };

/* Where the fields of the description being checked are: in a JSON file
 * (view != 0), or nowhere (the C API). */
typedef struct Where {
    oklc_ctx   *c;
    uint32_t    view;
    const char *text;             /* the file */
    uint32_t    object;           /* the intrinsic's '{' */
    uint32_t    key[F_COUNT];     /* each field's key ('"'), UINT32_MAX: absent */
    uint32_t    value[F_COUNT];   /* its value */
} Where;

static bool ident_start(char ch)
{
    return isalpha((unsigned char)ch) || ch == '_';
}

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

static bool identifier(const char *s)
{
    if (!ident_start(*s))
        return false;
    while (ident_char(*s))
        s++;
    return !*s;
}

/* The offset in a JSON string's text of its decoded byte `i`. */
static uint32_t raw_offset(const char *text, uint32_t quote, size_t i)
{
    uint32_t p = quote + 1;
    for (size_t k = 0; k < i && text[p] && text[p] != '"'; k++)
        p += text[p] != '\\' ? 1 : text[p + 1] == 'u' ? 6 : 2;
    return p;
}

/* The position of field f (its key; with at >= 0, byte `at` of its string
 * value), else of the object. */
static Loc where(const Where *W, int f, long at)
{
    if (!W->view)
        return (Loc){0};
    uint32_t off = W->object;
    if (f >= 0 && W->key[f] != UINT32_MAX) {
        off = W->key[f];
        if (at >= 0 && W->value[f] != UINT32_MAX && W->text[W->value[f]] == '"')
            off = raw_offset(W->text, W->value[f], (size_t)at);
    }
    return oklc_src_loc(W->c, W->view, off);
}

/* The number of parameters of a declaration of `name`: -1 when it has
 * "..." or none can be found (*found false). */
static int count_params(const char *decl, const char *name, bool *found)
{
    size_t n = strlen(name);
    *found = false;
    for (const char *p = strstr(decl, name); p; p = strstr(p + 1, name)) {
        if ((p > decl && ident_char(p[-1])) || ident_char(p[n]))
            continue;
        const char *q = p + n;
        while (isspace((unsigned char)*q))
            q++;
        if (*q != '(')
            continue;
        *found = true;
        int depth = 0, commas = 0;
        bool any = false;
        const char *open = q;
        for (; *q; q++) {
            if (*q == '(' || *q == '[' || *q == '{')
                depth++;
            else if (*q == ')' || *q == ']' || *q == '}') {
                if (--depth == 0)
                    break;
            } else if (depth == 1 && *q == ',')
                commas++;
            else if (!isspace((unsigned char)*q))
                any = true;
        }
        if (strstr(open, "..."))
            return -1;
        const char *v = open + 1;
        while (isspace((unsigned char)*v))
            v++;
        if (!strncmp(v, "void", 4)) {
            const char *w = v + 4;
            while (isspace((unsigned char)*w))
                w++;
            if (*w == ')')
                return 0;
        }
        return any ? commas + 1 : 0;
    }
    return -1;
}

/* The built-in backends' names, separated by ", " and `last` before the
 * last one: "serial, openmp, ... and metal". */
static const char *backend_list(oklc_ctx *c, const char *last)
{
    Buf b;
    oklc_buf_init(&b, &c->arena);
    size_t n = oklc_backend_count();
    for (size_t i = 0; i < n; i++)
        oklc_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == n ? last : ", ",
                        oklc_backend_at(i)->name);
    return b.data;
}

/* The first character of spelling s that cannot be in an expression
 * written where a call stands (a line, a ';', braces, a directive), or of
 * a ')' or ']' that closes nothing; an unclosed '(' or '[': the end. NULL
 * when it has none. */
static const char *not_an_expression(const char *s)
{
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\'') {         /* a literal: anything but its line's end */
            const char *q = p + 1;
            while (*q && *q != *p && *q != '\n')
                q += q[0] == '\\' && q[1] ? 2 : 1;
            if (*q != *p)
                return q;
            p = q;
            continue;
        }
        if (*p == '\n' || *p == '\r' || *p == ';' || *p == '{' || *p == '}' || *p == '#')
            return p;
        depth += *p == '(' || *p == '[' ? 1 : *p == ')' || *p == ']' ? -1 : 0;
        if (depth < 0)
            return p;
    }
    return depth ? s + strlen(s) : NULL;
}

/* A spelling: an expression or a name on one line, whose $N are 1 to 9 (or
 * $*), within the declaration's parameters. */
static bool check_spelling(const Where *W, const oklc_intrinsic *in, int b, int nparams)
{
    const char *s = in->spelling[b];
    bool ok = true;
    if (!s[strspn(s, " \t\n\r\f\v")]) {
        oklc_diag_error(W->c, where(W, b, -1), "intrinsic '%s': the spelling on %s is empty",
                        in->name, oklc_backend_name(b));
        return false;
    }
    const char *bad = not_an_expression(s);
    if (bad) {
        oklc_diag_error(W->c, where(W, b, (long)(bad - s)),
                        "intrinsic '%s': the spelling on %s is pasted where the call stands: an "
                        "expression or a name on one line, its brackets balanced (no ';', "
                        "braces or '#')", in->name, oklc_backend_name(b));
        ok = false;
    }
    for (const char *p = strchr(s, '$'); p; p = strchr(p + 1, '$')) {
        long at = (long)(p - s);
        if (p[1] == '*')
            continue;
        if (p[1] >= '1' && p[1] <= '9' && p[2] >= '0' && p[2] <= '9') {
            oklc_diag_error(W->c, where(W, b, at),
                            "intrinsic '%s': '$%c%c' in the spelling on %s: parameters are $1 "
                            "to $9", in->name, p[1], p[2], oklc_backend_name(b));
            ok = false;
        } else if (p[1] < '1' || p[1] > '9') {
            oklc_diag_error(W->c, where(W, b, at),
                            "intrinsic '%s': '$' in the spelling on %s must be followed by a "
                            "parameter's number (1 to 9) or '*'", in->name, oklc_backend_name(b));
            ok = false;
        } else if (in->declaration && nparams >= 0 && p[1] - '0' > nparams) {
            oklc_diag_error(W->c, where(W, b, at),
                            "intrinsic '%s': the spelling on %s uses $%c, but the declaration "
                            "has %d parameter%s", in->name, oklc_backend_name(b), p[1], nparams,
                            nparams == 1 ? "" : "s");
            ok = false;
        }
    }
    return ok;
}

/* Everything wrong with a description, reported; true when nothing is. */
static bool check(const Where *W, const oklc_intrinsic *in, int *nparams)
{
    oklc_ctx *c = W->c;
    *nparams = -1;
    if (!in->name || !*in->name) {
        oklc_diag_error(c, where(W, -1, -1), "an intrinsic needs a name (\"name\")");
        return false;
    }
    if (!identifier(in->name)) {
        oklc_diag_error(c, where(W, F_NAME, 0), "intrinsic name '%s' is not an identifier",
                        in->name);
        return false;
    }
    bool ok = true;
    if (in->declaration) {
        bool found;
        *nparams = count_params(in->declaration, in->name, &found);
        if (!found) {
            oklc_diag_error(c, where(W, F_DECL, 0),
                            "intrinsic '%s': the declaration must declare a function named "
                            "'%s' (\"float %s(float x)\")", in->name, in->name, in->name);
            ok = false;
        }
    }
    if (in->body) {
        const char *s = in->body, *e = s + strlen(s);
        while (isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            e--;
        if (!in->declaration) {
            oklc_diag_error(c, where(W, F_BODY, -1),
                            "intrinsic '%s': a body needs a declaration (a built-in is "
                            "replaced by spellings only)", in->name);
            ok = false;
        } else if (*s != '{' || e[-1] != '}') {
            oklc_diag_error(c, where(W, F_BODY, -1),
                            "intrinsic '%s': the body must be a block: \"{ ... }\"", in->name);
            ok = false;
        }
    }
    Buf missing;
    oklc_buf_init(&missing, &c->arena);
    oklc_buf_puts(&missing, "");
    int nspelled = 0;
    for (size_t i = 0; i < oklc_backend_count(); i++) {
        oklc_backend b = oklc_backend_at(i)->id;
        if (in->spelling[b]) {
            ok &= check_spelling(W, in, b, *nparams);
            nspelled++;
        } else {
            oklc_buf_printf(&missing, "%s%s", missing.len ? ", " : "", oklc_backend_name(b));
        }
    }
    if (in->declaration && !in->body && missing.len) {
        oklc_diag_error(c, where(W, F_NAME, -1),
                        "intrinsic '%s' has no body and no spelling on %s: give a spelling "
                        "for every backend, or a body", in->name, missing.data);
        ok = false;
    }
    if (!in->declaration && !in->body && !nspelled) {
        oklc_diag_error(c, where(W, F_NAME, -1),
                        "intrinsic '%s' has no declaration and no spelling: replacing a "
                        "built-in needs a spelling on some backend", in->name);
        ok = false;
    }
    return ok;
}

static const char *copy(oklc_ctx *c, const char *s)
{
    return s ? oklc_arena_strdup(&c->arena, s) : NULL;
}

/* Into the table, replacing an intrinsic of the same name. */
static void add(oklc_ctx *c, const oklc_intrinsic *in, int nparams, Loc loc)
{
    Intrinsic *t = oklc_arena_alloc(&c->arena, sizeof *t);
    t->name = copy(c, in->name);
    t->declaration = copy(c, in->declaration);
    t->body = copy(c, in->body);
    for (size_t b = 0; b < OKLC_COUNTOF(in->spelling); b++)
        t->spelling[b] = copy(c, in->spelling[b]);
    t->nparams = nparams;
    t->loc = loc;
    size_t i;
    if (oklc_names_get(&c->intrinsic_names, t->name, &i)) {
        c->intrinsics.data[i] = t;
        oklc_names_put(&c->arena, &c->intrinsic_names, t->name, i);    /* t's own copy */
        return;
    }
    oklc_names_put(&c->arena, &c->intrinsic_names, t->name, c->intrinsics.len);
    vec_push(&c->arena, &c->intrinsics, t);
}

bool oklc_intrinsic_add(oklc_ctx *c, const oklc_intrinsic *in)
{
    Where W = {.c = c};
    int nparams;
    if (!check(&W, in, &nparams))
        return false;
    add(c, in, nparams, (Loc){0});
    return true;
}

/* ---- JSON files ------------------------------------------------------------------------ */

/* A member of an object: where its key and its value start. */
typedef struct Member {
    uint32_t key, value;
} Member;

/* What the scan finds: the members of the top object, and the elements
 * of its "intrinsics" array with the members of each. */
typedef struct Element {
    uint32_t off;
    VEC(Member) members;
} Element;

typedef struct Positions {
    VEC(Member) top;
    VEC(Element) items;
} Positions;

enum { SCAN_DEPTH = 8 };    /* the levels the scan records (deeper ones are counted) */

/* The string starting at text[p] ('"'): the offset after it. */
static size_t skip_string(const char *text, size_t len, size_t p)
{
    for (p++; p < len && text[p] != '"'; p++)
        if (text[p] == '\\')
            p++;
    return p + 1;
}

/* Walks the text cJSON accepted: objects, arrays, strings, scalars. */
static void scan(oklc_ctx *c, const char *text, size_t len, Positions *P)
{
    struct Level {
        char     kind;         /* '{' or '[' */
        bool     want_key;     /* an object, before a member's key */
        bool     intrinsics;   /* the top object's "intrinsics" array */
        Member  *pending;      /* the member whose value comes next */
    } lv[SCAN_DEPTH];
    int depth = 0;             /* open containers; lv[depth - 1] the innermost */
    bool next_is_intrinsics = false;
    for (size_t p = 0; p < len;) {
        char ch = text[p];
        if (isspace((unsigned char)ch) || ch == ':') {
            p++;
            continue;
        }
        struct Level *in = depth > 0 && depth <= SCAN_DEPTH ? &lv[depth - 1] : NULL;
        if (ch == ',') {
            if (in && in->kind == '{')
                in->want_key = true;
            p++;
            continue;
        }
        if (ch == '}' || ch == ']') {
            depth--;
            p++;
            continue;
        }
        if (in && in->kind == '{' && in->want_key && ch == '"') {
            Member m = {(uint32_t)p, UINT32_MAX};
            Member *slot = NULL;
            if (depth == 1) {
                vec_push(&c->arena, &P->top, m);
                slot = &vec_last(&P->top);
                next_is_intrinsics = p + 12 <= len && !memcmp(text + p, "\"intrinsics\"", 12);
            } else if (depth == 3 && lv[1].intrinsics && P->items.len) {
                Element *e = &vec_last(&P->items);
                vec_push(&c->arena, &e->members, m);
                slot = &vec_last(&e->members);
            }
            in->want_key = false;
            in->pending = slot;
            p = skip_string(text, len, p);
            continue;
        }
        /* a value */
        if (in && in->pending) {
            in->pending->value = (uint32_t)p;
            in->pending = NULL;
        }
        if (depth == 2 && lv[1].intrinsics) {
            Element e = {(uint32_t)p, {0}};
            vec_push(&c->arena, &P->items, e);
        }
        if (ch == '{' || ch == '[') {
            if (depth < SCAN_DEPTH)
                lv[depth] = (struct Level){ch, ch == '{', depth == 1 && ch == '[' &&
                                                              next_is_intrinsics, NULL};
            if (depth == 1)
                next_is_intrinsics = false;
            depth++;
            p++;
        } else if (ch == '"') {
            p = skip_string(text, len, p);
        } else {
            while (p < len && !strchr(",]} \t\r\n", text[p]))
                p++;
        }
    }
}

typedef struct Loader {
    oklc_ctx   *c;
    const char *path;
    const char *text;
    uint32_t    view;
    bool        ok;
} Loader;

static Loc at(const Loader *L, uint32_t off)
{
    return oklc_src_loc(L->c, L->view, off);
}

/* A string, or for "body" an array of lines joined. */
static const char *string_value(Loader *L, const cJSON *v, const char *key, uint32_t off,
                                bool lines)
{
    if (cJSON_IsString(v))
        return v->valuestring;
    if (lines && cJSON_IsArray(v)) {
        Buf b;
        oklc_buf_init(&b, &L->c->arena);
        oklc_buf_puts(&b, "");
        for (const cJSON *s = v->child; s; s = s->next) {
            if (!cJSON_IsString(s)) {
                oklc_diag_error(L->c, at(L, off), "\"%s\" must be a string or an array of "
                                "strings (lines)", key);
                L->ok = false;
                return NULL;
            }
            oklc_buf_printf(&b, "%s%s", s->valuestring, s->next ? "\n" : "");
        }
        return b.data;
    }
    oklc_diag_error(L->c, at(L, off), "\"%s\" must be a string%s", key,
                    lines ? " or an array of strings (lines)" : "");
    L->ok = false;
    return NULL;
}

/* A key that is neither a field nor a backend. */
static void unknown_key(Loader *L, const char *key, uint32_t off)
{
    oklc_backend b;
    if (oklc_backend_from_name(key, &b) && b != OKLC_BACKEND_NONE)
        oklc_diag_error(L->c, at(L, off), "unknown backend '%s': backends are written in "
                        "lower case ('%s')", key, oklc_backend_name(b));
    else if (!strcmp(key, "none") || !strcmp(key, "sycl") || !strcmp(key, "c++") ||
             !strcmp(key, "cpu") || !strcmp(key, "gpu") || !strcmp(key, "vulkan"))
        oklc_diag_error(L->c, at(L, off), "unknown backend '%s': the backends are %s", key,
                        backend_list(L->c, " and "));
    else
        oklc_diag_error(L->c, at(L, off), "unknown field '%s' in an intrinsic: the fields are "
                        "name, declaration, body, comment, and a spelling per backend (%s)", key,
                        backend_list(L->c, ", "));
    L->ok = false;
}

/* One element of "intrinsics": its description, checked; false when
 * something is wrong (reported). */
static bool element(Loader *L, const cJSON *o, const Element *e, oklc_intrinsic *in,
                    int *nparams)
{
    if (!cJSON_IsObject(o)) {
        oklc_diag_error(L->c, at(L, e->off), "an intrinsic must be an object: {\"name\": ...}");
        return false;
    }
    Where W = {.c = L->c, .view = L->view, .text = L->text, .object = e->off};
    for (int f = 0; f < F_COUNT; f++)
        W.key[f] = W.value[f] = UINT32_MAX;
    memset(in, 0, sizeof *in);
    bool ok = true;
    size_t i = 0;
    for (const cJSON *m = o->child; m; m = m->next, i++) {
        Member pos = i < e->members.len ? e->members.data[i] : (Member){e->off, e->off};
        const char *k = m->string;
        int f = -1;
        for (size_t j = 0; j < oklc_backend_count() && f < 0; j++)
            if (!strcmp(k, oklc_backend_at(j)->name))
                f = oklc_backend_at(j)->id;
        if (f < 0)
            f = !strcmp(k, "name") ? F_NAME : !strcmp(k, "declaration") ? F_DECL
                : !strcmp(k, "body") ? F_BODY : -1;
        if (f < 0 && !strcmp(k, "comment"))
            continue;
        if (f < 0) {
            unknown_key(L, k, pos.key);
            ok = false;
            continue;
        }
        if (W.key[f] != UINT32_MAX) {
            Diag *d = oklc_diag_error(L->c, at(L, pos.key), "duplicate field '%s'", k);
            oklc_diag_note(L->c, d, at(L, W.key[f]), "'%s' was given here", k);
            ok = false;
            continue;
        }
        W.key[f] = pos.key;
        W.value[f] = pos.value;
        const char *s = string_value(L, m, k, pos.value, f == F_BODY);
        if (!s) {
            ok = false;
            continue;
        }
        if (f == F_NAME)
            in->name = s;
        else if (f == F_DECL)
            in->declaration = s;
        else if (f == F_BODY)
            in->body = s;
        else
            in->spelling[f] = s;
    }
    return check(&W, in, nparams) && ok;
}

static bool load(Loader *L)
{
    oklc_ctx *c = L->c;
    size_t len;
    char *text = oklc_read_file(c, L->path, &len);
    if (!text) {
        oklc_diag_error(c, (Loc){0}, "cannot open intrinsics file '%s': %s", L->path,
                        strerror(errno));
        return false;
    }
    L->text = text;
    L->view = oklc_view_new(c, oklc_src_new(c, L->path, text, len, false), NULL, 0);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        uint32_t off = end && end >= text && end <= text + len ? (uint32_t)(end - text) : 0;
        if (off >= len && len)
            off = (uint32_t)len - 1;     /* the text ended early: at its last character */
        oklc_diag_error(c, at(L, off), "JSON syntax error in intrinsics file");
        return false;
    }
    /* the scan allocates from the arena: cJSON's tree must not leak if it
     * runs out, so memory errors are caught here */
    jmp_buf jb, *outer = c->arena.oom;
    c->arena.oom = &jb;
    if (setjmp(jb)) {
        cJSON_Delete(root);
        c->arena.oom = outer;
        oklc_arena_oom(&c->arena);
    }
    Positions P = {0};
    scan(c, text, len, &P);
    L->ok = true;
    const cJSON *list = NULL;
    size_t i = 0;
    if (!cJSON_IsObject(root)) {
        oklc_diag_error(c, at(L, 0), "an intrinsics file holds an object: "
                        "{\"intrinsics\": [...]}");
        L->ok = false;
    }
    for (const cJSON *m = cJSON_IsObject(root) ? root->child : NULL; m; m = m->next, i++) {
        uint32_t off = i < P.top.len ? P.top.data[i].key : 0;
        if (!strcmp(m->string, "comment"))
            continue;
        if (strcmp(m->string, "intrinsics")) {
            oklc_diag_error(c, at(L, off), "unknown field '%s' in an intrinsics file: it holds "
                            "\"intrinsics\" (and \"comment\")", m->string);
            L->ok = false;
        } else if (list) {
            oklc_diag_error(c, at(L, off), "duplicate field 'intrinsics'");
            L->ok = false;
        } else if (!cJSON_IsArray(m)) {
            oklc_diag_error(c, at(L, i < P.top.len ? P.top.data[i].value : 0),
                            "\"intrinsics\" must be an array of intrinsics");
            L->ok = false;
        } else {
            list = m;
        }
    }
    if (cJSON_IsObject(root) && !list && L->ok) {
        oklc_diag_error(c, at(L, 0), "an intrinsics file holds \"intrinsics\": [...]");
        L->ok = false;
    }
    /* every element checked, then all added (or none) */
    VEC(oklc_intrinsic) found = {0};
    VEC(int) nparams = {0};
    VEC(uint32_t) name_at = {0};
    NameTable seen = {0};
    i = 0;
    for (const cJSON *o = list ? list->child : NULL; o; o = o->next, i++) {
        Element none = {0};
        const Element *e = i < P.items.len ? &P.items.data[i] : &none;
        oklc_intrinsic in;
        int np;
        if (!element(L, o, e, &in, &np)) {
            L->ok = false;
            continue;
        }
        uint32_t off = e->off;
        for (size_t k = 0; k < e->members.len; k++)
            if (!strncmp(text + e->members.data[k].key, "\"name\"", 6))
                off = e->members.data[k].value;
        size_t k;
        if (oklc_names_get(&seen, in.name, &k)) {
            Diag *d = oklc_diag_error(c, at(L, off), "intrinsic '%s' is defined twice", in.name);
            oklc_diag_note(c, d, at(L, name_at.data[k]), "first defined here");
            L->ok = false;
        }
        for (size_t b = 0; b < OKLC_COUNTOF(in.spelling); b++)
            in.spelling[b] = copy(c, in.spelling[b]);
        in.name = copy(c, in.name);
        in.declaration = copy(c, in.declaration);
        in.body = copy(c, in.body);
        if (!oklc_names_get(&seen, in.name, NULL))
            oklc_names_put(&c->arena, &seen, in.name, found.len);
        vec_push(&c->arena, &found, in);
        vec_push(&c->arena, &nparams, np);
        vec_push(&c->arena, &name_at, off);
    }
    for (size_t k = 0; L->ok && k < found.len; k++)
        add(c, &found.data[k], nparams.data[k], at(L, name_at.data[k]));
    cJSON_Delete(root);
    c->arena.oom = outer;
    return L->ok;
}

bool oklc_intrinsics_load(oklc_ctx *c, const char *path)
{
    Loader L = {.c = c, .path = path};
    return load(&L);
}
