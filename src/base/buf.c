/*
 * buf.c - growable NUL-terminated text in an arena.
 *
 * Growth doubles the capacity and copies; the old block stays in the arena
 * until the context is freed, so the waste is bounded by the final size.
 */
#include <string.h>

#include "base.h"

void oklc_buf_init(Buf *b, Arena *a)
{
    b->arena = a;
    b->cap = 64;
    b->len = 0;
    b->data = oklc_arena_alloc(a, b->cap);
}

static void reserve(Buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap * 2;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = oklc_arena_grow(b->arena, b->data, b->len + 1, cap);
    b->cap = cap;
}

void oklc_buf_putn(Buf *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void oklc_buf_puts(Buf *b, const char *s)
{
    oklc_buf_putn(b, s, strlen(s));
}

void oklc_buf_putc(Buf *b, char c)
{
    reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = 0;
}

void oklc_buf_vprintf(Buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    if (n >= 0 && (size_t)n >= b->cap - b->len) {
        reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap2);
    }
    va_end(ap2);
    if (n > 0)
        b->len += (size_t)n;
}

void oklc_buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    oklc_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void oklc_buf_put_escaped(Buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '"':  oklc_buf_puts(b, "\\\""); break;
        case '\\': oklc_buf_puts(b, "\\\\"); break;
        case '\n': oklc_buf_puts(b, "\\n"); break;
        case '\t': oklc_buf_puts(b, "\\t"); break;
        case '?':  /* "??/" is a backslash where trigraphs are on (OpenCL C) */
            oklc_buf_puts(b, i && s[i - 1] == '?' ? "\\?" : "?");
            break;
        default:
            if (ch < 0x20 || ch == 0x7f)
                oklc_buf_printf(b, "\\%03o", ch);
            else
                oklc_buf_putc(b, (char)ch);
        }
    }
}

/* A formatted string in the arena: a Buf's text (buf.c builds on arena.c,
 * never the other way). */
char *oklc_arena_printf(Arena *a, const char *fmt, ...)
{
    Buf b;
    oklc_buf_init(&b, a);
    va_list ap;
    va_start(ap, fmt);
    oklc_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return b.data;
}
