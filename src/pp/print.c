/*
 * print.c - tokens back to text.
 *
 * Outside macro expansions a token is printed with the whitespace and
 * comments that preceded it in the file, so untouched code comes out byte
 * for byte. Tokens made by macros get one blank where the definition had
 * whitespace, plus one wherever two tokens would otherwise fuse into a
 * different token ("- -x" must not become "--x"). Directive lines always
 * start and end a line.
 */
#include <string.h>

#include "pp.h"

void oklc_print_init(Printer *p, Buf *out)
{
    p->out = out;
    p->prev = NULL;
    p->directive = false;
}

static bool at_bol(const Printer *p)
{
    return p->out->len == 0 || p->out->data[p->out->len - 1] == '\n';
}

/* Would `a` immediately followed by `b` be read as other tokens? */
static bool would_fuse(const Token *a, const Token *b)
{
    if (a->kind == TK_DIRECTIVE || b->kind == TK_DIRECTIVE || b->kind == TK_EOF ||
        a->len == 0 || b->len == 0)
        return false;
    char tmp[256];
    if (a->len + b->len > sizeof tmp)
        return true;    /* cheap and safe: a blank never hurts here */
    memcpy(tmp, a->text, a->len);
    memcpy(tmp + a->len, b->text, b->len);
    return oklc_lex_first_len(tmp, a->len + b->len) != a->len;
}

void oklc_print_lead(Printer *p, const Token *t)
{
    const char *lead = t->lead;
    size_t n = t->lead_len;
    /* A directive starts a line: blanks before it on the same line go. */
    if (t->kind == TK_DIRECTIVE && !memchr(lead, '\n', n)) {
        if (!at_bol(p))
            oklc_buf_putc(p->out, '\n');
        p->directive = false;
        return;
    }
    if ((t->flags & TF_MACRO) && !(t->flags & TF_KEEPLEAD)) {
        lead = (t->flags & TF_SPACE) && !at_bol(p) ? " " : "";
        n = strlen(lead);
    }
    if (p->directive && !oklc_line_break(lead, n)) {
        oklc_buf_putc(p->out, '\n');    /* and no blanks to start the line */
        while (n && (*lead == ' ' || *lead == '\t'))
            lead++, n--;
    }
    p->directive = false;
    /* Tokens that were adjacent in the file cannot fuse; only those that
     * macros or dropped lines brought together can. */
    if (n == 0 && p->prev && ((p->prev->flags | t->flags) & (TF_MACRO | TF_KEEPLEAD)) &&
        would_fuse(p->prev, t))
        oklc_buf_putc(p->out, ' ');
    oklc_buf_putn(p->out, lead, n);
}

void oklc_print_text(Printer *p, const Token *t)
{
    if (t->kind == TK_DIRECTIVE) {
        if (!at_bol(p))
            oklc_buf_putc(p->out, '\n');
        p->directive = true;
    }
    oklc_buf_putn(p->out, t->text, t->len);
    p->prev = t;
}

void oklc_print_token(Printer *p, const Token *t)
{
    oklc_print_lead(p, t);
    oklc_print_text(p, t);
}

void oklc_print_raw(Printer *p, const char *s, size_t n)
{
    if (p->directive && !oklc_line_break(s, n))
        oklc_buf_putc(p->out, '\n');
    p->directive = false;
    oklc_buf_putn(p->out, s, n);
    p->prev = NULL;
}

void oklc_print_tokens(oklc_ctx *c, Token **toks, size_t n, Buf *out)
{
    (void)c;
    Printer p;
    oklc_print_init(&p, out);
    for (size_t i = 0; i < n; i++)
        oklc_print_token(&p, toks[i]);
    if (p.directive)
        oklc_buf_putc(out, '\n');
}
