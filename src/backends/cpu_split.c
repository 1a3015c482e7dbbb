/*
 * cpu_split.c - an @inner loop with a @barrier inside, on a CPU: the loop
 * is split at the barrier, so that every iteration (thread) runs the part
 * before it before any runs the part after.
 *
 * Takes a block and one of its top @inner loops with a barrier inside;
 * gives the loop rewritten in the output (and, where it can be, written
 * as OKL again into the second translation, Emit.relaid).
 *
 * The loop's body becomes a plan: regions of code without a barrier, each
 * run inside all the @inner levels around it, and the loops and ifs around
 * barriers, moved out of the @inner loops (the checks guarantee their
 * conditions are the same for every thread). Locals used in more than one
 * region get one slot per thread, like @exclusive. The loop is then
 * rebuilt from the rendered regions.
 */
#include <ctype.h>
#include <string.h>

#include "cpu.h"

typedef enum PlanKind { PLAN_REGION, PLAN_FOR, PLAN_WHILE, PLAN_DO, PLAN_IF } PlanKind;

/* How a split @inner loop runs: regions of code without a barrier, each
 * in all its @inner loops, and the loops and conditions around barriers,
 * moved out of the @inner loops. */
typedef struct Plan Plan;
typedef VEC(Plan *) PlanList;
struct Plan {
    PlanKind     kind;
    Range        text;        /* a region's code */
    const Loop **levels;      /* the @inner levels around it, outermost first */
    size_t       nlevels;
    const Stmt  *st;          /* a moved statement */
    PlanList     body, orelse;
};

typedef struct Split {
    Block       *b;
    const Loop  *top;
    const Stmt  *stmt;        /* the for statement of the top @inner loop */
    uint32_t     barrier_line;
    VEC(Range)   regions;
} Split;

static void plan_body(Cpu *C, Split *S, const Stmt *body, const Loop **lv, size_t nlv,
                      PlanList *out);

static void add_region(Cpu *C, Split *S, uint32_t b, uint32_t e, const Loop **lv, size_t nlv,
                       PlanList *out)
{
    Plan *p = oklc_arena_alloc(C->a, sizeof *p);
    p->kind = PLAN_REGION;
    p->text = (Range){b, e};
    p->levels = lv;
    p->nlevels = nlv;
    vec_push(C->a, out, p);
    vec_push(C->a, &S->regions, p->text);
}

/* The @inner levels a for statement adds (a @tile may add two). */
static size_t inner_levels(Cpu *C, const Stmt *st, const Loop **lv, size_t nlv, const Loop ***out)
{
    const Loop *l = st->loop;
    const Loop *add[2];
    size_t n = 0;
    if (l->tile_part == 2 && l->tile_other->kind == LOOP_INNER)
        add[n++] = l->tile_other;
    add[n++] = l;
    const Loop **v = oklc_arena_alloc(C->a, (nlv + n) * sizeof *v);
    for (size_t i = 0; i < nlv; i++)
        v[i] = lv[i];
    memcpy(v + nlv, add, n * sizeof *v);
    *out = v;
    return nlv + n;
}

static void plan_moved(Cpu *C, Split *S, const Stmt *st, const Loop **lv, size_t nlv,
                       PlanList *out)
{
    Plan *p = oklc_arena_alloc(C->a, sizeof *p);
    p->st = st;
    switch (st->kind) {
    case ST_FOR: p->kind = PLAN_FOR; break;
    case ST_WHILE: p->kind = PLAN_WHILE; break;
    case ST_DO: p->kind = PLAN_DO; break;
    case ST_IF: p->kind = PLAN_IF; break;
    default:
        oklc_cpu_error(C, st->range.begin,
                       "on CPUs a @barrier inside this statement cannot be split "
                       "from the @inner loop around it; move the barrier out of it");
        return;
    }
    /* its head reads nothing an @inner iteration declares: the checks
     * reject a barrier under a condition on such a variable */
    if (st->nkids > 0)
        plan_body(C, S, st->kids[0], lv, nlv, &p->body);
    if (st->kind == ST_IF && st->nkids > 1)
        plan_body(C, S, st->kids[1], lv, nlv, &p->orelse);
    vec_push(C->a, out, p);
}

/* A statement list, cut at its barriers. */
static void plan_body(Cpu *C, Split *S, const Stmt *body, const Loop **lv, size_t nlv,
                      PlanList *out)
{
    const Stmt *const *kids = &body;
    size_t nkids = 1;
    Range in = body->range;
    if (body->kind == ST_COMPOUND) {
        kids = (const Stmt *const *)body->kids;
        nkids = body->nkids;
        in = (Range){body->range.begin + 1, body->range.end - 1};
    }
    uint32_t pos = in.begin;
    for (size_t i = 0; i < nkids; i++) {
        const Stmt *k = kids[i];
        if (!k->has_barrier)
            continue;
        add_region(C, S, pos, k->range.begin, lv, nlv, out);
        pos = k->range.end;
        if (k->kind == ST_NULL && k->barrier) {
            continue;
        } else if (k->kind == ST_FOR && k->loop && k->loop->kind == LOOP_INNER) {
            const Loop **deeper;
            size_t n = inner_levels(C, k, lv, nlv, &deeper);
            plan_body(C, S, k->kids[k->nkids - 1], deeper, n, out);
        } else if (k->kind == ST_COMPOUND) {
            plan_body(C, S, k, lv, nlv, out);
        } else {
            plan_moved(C, S, k, lv, nlv, out);
            const char *t = C->E->nz->text;
            uint32_t q = pos;
            while (q < in.end && isspace((unsigned char)t[q]))
                q++;
            if (k->kind == ST_DO && q < in.end && t[q] == ';')
                pos = q + 1;
        }
    }
    add_region(C, S, pos, in.end, lv, nlv, out);
}

static int region_of(const Split *S, uint32_t off)
{
    for (size_t i = 0; i < S->regions.len; i++)
        if (oklc_in_range(S->regions.data[i], off))
            return (int)i;
    return -1;
}

/* Jumps that would leave a region for a later one. */
static void check_jumps(Cpu *C, Split *S, const Stmt *st)
{
    if (st->kind == ST_RETURN || st->kind == ST_GOTO) {
        oklc_cpu_error(C, st->range.begin,
                       "on CPUs the @barrier at line %u splits this @inner loop; "
                       "a '%s' inside it is not supported: use an if around the rest",
                       S->barrier_line, st->kind == ST_RETURN ? "return" : "goto");
        return;
    }
    if (st->kind == ST_CONTINUE || st->kind == ST_BREAK) {
        for (const Stmt *p = st->parent; p; p = p->parent) {
            bool loop = p->kind == ST_FOR || p->kind == ST_WHILE || p->kind == ST_DO;
            if (!loop && !(p->kind == ST_SWITCH && st->kind == ST_BREAK))
                continue;
            if (p->has_barrier)
                oklc_cpu_error(
                    C, st->range.begin,
                    "on CPUs the @barrier at line %u splits the loop "
                    "this '%s' leaves; it is not supported there: use an if around the rest",
                    S->barrier_line, st->kind == ST_BREAK ? "break" : "continue");
            break;
        }
        return;
    }
    for (size_t i = 0; i < st->nkids; i++)
        check_jumps(C, S, st->kids[i]);
}

/* Is v a local of the split nest that lives in more than one region? */
static bool crosses(const Split *S, const Var *v)
{
    int home = region_of(S, v->name_off);
    if (home < 0 || oklc_cpu_exclusive(v))
        return false;            /* outside the nest, or in a moved head */
    for (size_t r = 0; r < v->nrefs; r++)
        if (region_of(S, v->refs[r].begin) != home)
            return true;
    return false;
}

/* Does the nest name anything else as v is named (a parameter, a global,
 * a member), which v, declared at the front, could hide? */
static bool named_alike(Cpu *C, const Split *S, const Var *v)
{
    const char *t = C->E->nz->text;
    size_t n = strlen(v->name);
    for (uint32_t p = S->stmt->range.begin; p + n <= S->stmt->range.end; p++) {
        if (strncmp(t + p, v->name, n) || (p && oklc_ident_char(t[p - 1])) ||
            oklc_ident_char(t[p + n]))
            continue;
        if (p != v->name_off && !oklc_cpu_refers_at(v, p))
            return true;
    }
    return false;
}

/* A declaration of several names, some used across the barrier, as one
 * statement per name in order (the initializers still run left to right):
 * as[i] for a crossing decls[i], the others declared alone. NULL when one
 * cannot be declared alone. */
static const char *one_by_one(Cpu *C, Edits *ed, const Stmt *ds, const char *const *as)
{
    Buf b;
    oklc_buf_init(&b, C->a);
    oklc_buf_puts(&b, "");
    for (size_t i = 0; i < ds->ndecls; i++) {
        const char *one = as[i] ? as[i] : oklc_cpu_declare_alone(C, ed, ds->decls[i]);
        if (!one)
            return NULL;
        oklc_buf_printf(&b, "%s%s", b.len && *one ? " " : "", one);
    }
    return b.data;
}

/* Is v the first name of its declaration that crosses? (A declaration of
 * several names is rewritten once.) */
static bool first_crossing(const Split *S, const Var *v)
{
    const Stmt *ds = v->decl_stmt;
    for (size_t i = 0; i < ds->ndecls; i++)
        if (crosses(S, ds->decls[i]))
            return ds->decls[i] == v;
    return false;
}

/* The slots of a crossing local: their name (renamed when the nest names
 * something else alike, which slots declared at the front would hide) and
 * this thread's index. */
static const char *slot_name(Cpu *C, const Split *S, const Var *v)
{
    return named_alike(C, S, v) ? oklc_arena_printf(C->a, "_occa_%s", v->name) : v->name;
}

static const char *slot_at(Cpu *C, const Split *S, const Var *v)
{
    const Loop *by_axis[3];
    oklc_cpu_threads_at(C, S->b, v->name_off, by_axis);
    return oklc_cpu_slot(C, S->b, by_axis);
}

/* A crossing local's declaration as an assignment to its slot (or
 * nothing), the other names of its declaration declared alone; done once
 * per declaration, for its first crossing name. */
static void declaration_to_slot(Cpu *C, const Split *S, const Var *v)
{
    const Stmt *ds = v->decl_stmt;
    if (!first_crossing(S, v))
        return;
    const char **as = oklc_arena_alloc(C->a, ds->ndecls * sizeof *as);
    for (size_t i = 0; i < ds->ndecls; i++) {
        const Var *d = ds->decls[i];
        if (!crosses(S, d))
            continue;
        if (d->type.reference)
            return;    /* an error already */
        as[i] = d->init_form ? oklc_cpu_init_slot(C, d, slot_name(C, S, d), slot_at(C, S, d))
                             : "";
    }
    const char *text = one_by_one(C, &C->E->ed, ds, as);
    if (text)
        oklc_edit_replace(&C->E->ed, ds->range.begin, ds->range.end, text);
    else
        oklc_cpu_error(C, v->name_off,
                       "on CPUs the @barrier at line %u splits this @inner loop, and '%s' is "
                       "used on both sides of it: declare it in a declaration of its own",
                       S->barrier_line, v->name);
}

/* The locals of a split nest that live in more than one region get one
 * slot per thread: their declaration moves to the front, the uses index
 * it. Returns the declarations. */
static const char *promote(Cpu *C, Split *S)
{
    Buf decls;
    oklc_buf_init(&decls, C->a);
    for (size_t i = 0; i < C->k->nlocals; i++) {
        Var *v = C->k->locals[i];
        if (!crosses(S, v))
            continue;
        if (v->type.reference) {
            oklc_cpu_error(C, v->name_off,
                           "on CPUs the @barrier at line %u splits this @inner loop, "
                           "and reference '%s' is used on both sides of it; use a pointer",
                           S->barrier_line, v->name);
            continue;
        }
        const char *s = slot_at(C, S, v), *name = slot_name(C, S, v);
        bool rename = name != v->name;
        oklc_buf_printf(&decls, "%s%s;", decls.len ? " " : "",
                        oklc_cpu_declaration(C, v, oklc_arena_printf(C->a, "%s[%s]", name,
                                                           oklc_cpu_slot_count(C, S->b))));
        for (size_t r = 0; r < v->nrefs; r++) {
            const char *use = oklc_arena_printf(C->a, "%s[%s]", rename ? name : "", s);
            if (rename)
                oklc_edit_replace(&C->E->ed, v->refs[r].begin, v->refs[r].end, use);
            else
                oklc_edit_after(&C->E->ed, v->refs[r].end, use);
        }
        if (v->decl_stmt)
            declaration_to_slot(C, S, v);
    }
    return decls.data ? decls.data : "";
}

static bool blank(const char *s)
{
    while (*s) {
        if (s[0] == '/' && s[1] == '/') {
            while (*s && *s != '\n')
                s++;
        } else if (s[0] == '/' && s[1] == '*') {
            const char *e = strstr(s + 2, "*/");
            s = e ? e + 2 : s + strlen(s);
        } else if (isspace((unsigned char)*s)) {
            s++;
        } else {
            return false;
        }
    }
    return true;
}

/* Where a split is written: as CPU loops into the output's edits, or as
 * OKL (@inner loops again, one per region) into the relaid text. */
typedef struct Out {
    Cpu         *C;
    Edits       *ed;
    bool         okl;
    const Var  **again;       /* OKL: locals declared again in each part that uses them */
    size_t       nagain;
} Out;

static const char *text_of(const Out *o, Range r)
{
    return oklc_edits_text(o->ed, r.begin, r.end);
}

/* A level's opening: the CPU loop, or the OKL loop as written. */
static void open_level(const Out *o, const Loop *l, Buf *b)
{
    if (!o->okl) {
        oklc_cpu_open_level(o->C, l, b);
        return;
    }
    oklc_buf_puts(b, oklc_cpu_okl_level(o->C, o->ed, l));
}

static void emit_plan(const Out *o, const PlanList *list, const char *ind, Buf *b);

static void emit_region(const Out *o, const Plan *p, const char *ind, Buf *b)
{
    const char *code = text_of(o, p->text);
    if (blank(code)) {
        size_t n = strlen(code);
        while (n && isspace((unsigned char)code[n - 1]))
            n--;
        oklc_buf_putn(b, code, n);      /* comments stay */
        return;
    }
    oklc_buf_printf(b, "\n%s", ind);
    for (size_t i = 0; i < p->nlevels; i++) {
        if (i)
            oklc_buf_putc(b, ' ');
        open_level(o, p->levels[i], b);
    }
    for (size_t i = 0; i < o->nagain; i++) {
        const Var *v = o->again[i];
        if (oklc_refers_in(v, p->text) && !oklc_in_range(p->text, v->name_off))
            oklc_buf_printf(b, " %s", text_of(o, v->decl_stmt->range));
    }
    size_t n = strlen(code);
    while (n && isspace((unsigned char)code[n - 1]))
        n--;
    oklc_buf_putn(b, code, n);
    oklc_buf_printf(b, "\n%s", ind);
    for (size_t i = 0; i < p->nlevels; i++)
        oklc_buf_puts(b, i ? " }" : "}");
}

static void emit_moved(const Out *o, const Plan *p, const char *ind, Buf *b)
{
    const char *head = text_of(o, p->st->head);
    const char *inner = oklc_arena_printf(o->C->a, "%s  ", ind);
    switch (p->kind) {
    case PLAN_FOR: oklc_buf_printf(b, "\n%sfor (%s) {", ind, head); break;
    case PLAN_WHILE: oklc_buf_printf(b, "\n%swhile (%s) {", ind, head); break;
    case PLAN_DO: oklc_buf_printf(b, "\n%sdo {", ind); break;
    default: oklc_buf_printf(b, "\n%sif (%s) {", ind, head); break;
    }
    emit_plan(o, &p->body, inner, b);
    oklc_buf_printf(b, "\n%s}", ind);
    if (p->kind == PLAN_DO)
        oklc_buf_printf(b, " while (%s);", head);
    if (p->kind == PLAN_IF && p->st->nkids > 1) {
        oklc_buf_puts(b, " else {");
        emit_plan(o, &p->orelse, inner, b);
        oklc_buf_printf(b, "\n%s}", ind);
    }
}

static void emit_plan(const Out *o, const PlanList *list, const char *ind, Buf *b)
{
    for (size_t i = 0; i < list->len; i++) {
        const Plan *p = list->data[i];
        if (p->kind == PLAN_REGION)
            emit_region(o, p, ind, b);
        else
            emit_moved(o, p, ind, b);
    }
}

/* ---- the split as OKL ------------------------------------------------------------------- */

/* A level of the nest written as OKL again: a plain @inner loop (no
 * @tile, no other attribute), its [[...]] of its own. */
static const SpecRange *plain_level(Cpu *C, const Loop *l)
{
    const SpecRange *sp = l->attr ? oklc_emit_spec_of(C->E, l->attr) : NULL;
    return !l->tile_part && l->nattrs == 1 && sp && !sp->keep ? sp : NULL;
}

/* Can the nest be written as OKL again? The [[...]] of the levels inside
 * the top one go (in ed): a region holds them. */
static bool relayable(Cpu *C, const Split *S, const PlanList *plan, Edits *ed)
{
    if (!plain_level(C, S->top))
        return false;
    for (size_t i = 0; i < plan->len; i++) {
        const Plan *p = plan->data[i];
        for (size_t j = 0; j < p->nlevels; j++) {
            const SpecRange *sp = plain_level(C, p->levels[j]);
            if (!sp)
                return false;
            if (p->levels[j] != S->top)
                oklc_edit_delete(ed, sp->off, sp->end);
        }
        if (!relayable(C, S, &p->body, ed) || !relayable(C, S, &p->orelse, ed))
            return false;
    }
    return true;
}

/* Can the crossing local v be declared again in each part that uses it:
 * a scalar never written after its declaration, its initializer without
 * memory reads or side effects, reading only the nest's @inner iterators,
 * locals and parameters the nest does not write, and locals declared
 * again before it?
 * Each part then computes it (an index from the thread: i = b * 256 + t)
 * instead of keeping it in a slot per thread. */
/* Does every name in r name a local or a parameter (or a called function,
 * or a type of a cast): nothing else (a global) that the nest could
 * change unseen? */
static bool only_variables(Cpu *C, Range r)
{
    static const char *const types[] = {"int", "unsigned", "long", "short", "char", "float",
                                        "double", "bool", "signed", "const", "size_t", NULL};
    const char *t = C->E->nz->text;
    for (uint32_t p = r.begin; p < r.end; p++) {
        if (!oklc_ident_char(t[p]) || (p > r.begin && oklc_ident_char(t[p - 1])) ||
            isdigit((unsigned char)t[p]))
            continue;
        uint32_t e = p;
        while (e < r.end && oklc_ident_char(t[e]))
            e++;
        bool ok = t[oklc_cpu_skip_blanks(t, e, r.end)] == '(';    /* pure: checked */
        for (const char *const *ty = types; !ok && *ty; ty++)
            ok = strlen(*ty) == e - p && !strncmp(*ty, t + p, e - p);
        if (!ok && !oklc_cpu_var_at(C, p))
            return false;
    }
    return true;
}

static bool again(Cpu *C, const Split *S, const Out *o, const Var *v)
{
    const Kernel *k = C->k;
    Range after = {v->declarator_end, S->stmt->range.end};
    if (v->type.array || v->init_form != '=' || oklc_cpu_written_in(C, v, after) ||
        !oklc_cpu_pure(C, oklc_edits_text(o->ed, v->init.begin, v->init.end), false) ||
        !only_variables(C, v->init))
        return false;
    for (size_t i = 0; i < k->nlocals + k->nparams; i++) {
        const Var *w = i < k->nlocals ? k->locals[i] : k->params[i - k->nlocals];
        if (!oklc_refers_in(w, v->init))
            continue;
        bool ok = !oklc_in_range(S->stmt->range, w->name_off) &&
                  !oklc_cpu_written_in(C, w, S->stmt->range);
        for (size_t j = 0; !ok && j < C->k->nloops; j++)
            ok = C->k->loops[j]->kind == LOOP_INNER && C->k->loops[j]->iter_off == w->name_off &&
                 oklc_in_range(S->stmt->range, w->name_off);
        for (size_t j = 0; !ok && j < o->nagain; j++)
            ok = o->again[j] == w;
        if (!ok)
            return false;
    }
    return true;
}

/* The locals that live in more than one region as @exclusive variables,
 * declared at the front; their declarations become assignments (in ed);
 * or declared again in each part (o->again). NULL when one cannot be
 * written so (an initializer list, a type Clang spells in a form that
 * does not declare). */
static const char *exclusives(Cpu *C, const Split *S, Out *o)
{
    Edits *ed = o->ed;
    Buf decls;
    oklc_buf_init(&decls, C->a);
    oklc_buf_puts(&decls, "");
    o->again = oklc_arena_alloc(C->a, (C->k->nlocals + 1) * sizeof *o->again);
    for (size_t i = 0; i < C->k->nlocals; i++) {
        const Var *v = C->k->locals[i];
        if (!crosses(S, v))
            continue;
        const Stmt *ds = v->decl_stmt;
        if (!ds || v->type.reference || v->static_ || strpbrk(v->type.spelling, "()") ||
            (v->init_form && v->init_form != '=') || (v->init_form && v->type.array))
            return NULL;
        if (named_alike(C, S, v))
            return NULL;
        if (ds->ndecls == 1 && again(C, S, o, v)) {
            o->again[o->nagain++] = v;
            continue;
        }
        oklc_buf_printf(&decls, "%s[[okl::exclusive]] %s;", decls.len ? " " : "",
                        oklc_cpu_declaration(C, v, v->name));
        if (ds->ndecls > 1 && !first_crossing(S, v))
            continue;
        const char **as = oklc_arena_alloc(C->a, ds->ndecls * sizeof *as);
        for (size_t j = 0; j < ds->ndecls; j++) {
            const Var *d = ds->decls[j];
            if (crosses(S, d))
                as[j] = d->init_form ? oklc_arena_printf(C->a, "%s = %s;", d->name,
                                                         oklc_edits_text(ed, d->init.begin,
                                                                         d->init.end))
                                     : "";
        }
        const char *text = one_by_one(C, ed, ds, as);
        if (!text)
            return NULL;
        oklc_edit_replace(ed, ds->range.begin, ds->range.end, text);
    }
    return decls.data;
}

/* The nest written as OKL into E->relaid: the same plan, each region in
 * its @inner loops of its own, the locals that cross as @exclusive. The
 * CPU backends translate that text again, where every rule for @inner
 * loops applies to the regions (cpu.c). */
static void relay(Cpu *C, const Split *S, const PlanList *plan)
{
    Emit *E = C->E;
    uint32_t mark = oklc_edits_mark(oklc_cpu_relaid(C));
    Out o = {C, E->relaid, true, NULL, 0};
    const char *decls = relayable(C, S, plan, E->relaid) ? exclusives(C, S, &o) : NULL;
    if (!decls) {
        oklc_edits_rewind(E->relaid, mark);
        return;
    }
    /* the barriers: between the parts now (the regions stop at the
     * statement, after its [[...]]) */
    for (size_t i = 0; i < C->k->nbarriers; i++) {
        const Barrier *br = C->k->barriers[i];
        const SpecRange *spec = oklc_emit_spec_of(E, br->attr);
        if (spec && oklc_in_range(S->stmt->range, br->stmt.begin))
            oklc_edit_delete(E->relaid, spec->off, spec->end);
    }
    const char *ind = oklc_emit_indent(E, S->stmt->range.begin);
    const char *in = oklc_arena_printf(C->a, "%s  ", ind);
    Buf b;
    oklc_buf_init(&b, C->a);
    oklc_buf_puts(&b, "{ /* split at @barrier: a part per @inner loop */");
    if (*decls)
        oklc_buf_printf(&b, "\n%s%s", in, decls);
    emit_plan(&o, plan, in, &b);
    oklc_buf_printf(&b, "\n%s}", ind);
    const SpecRange *sp = oklc_emit_spec_of(E, S->top->attr);
    oklc_edit_replace(E->relaid, sp->off, S->stmt->range.end, b.data);
}

/* A top @inner loop with a barrier inside: rebuilt as its regions. */
void oklc_cpu_split(Cpu *C, Block *blk, const Loop *top)
{
    Split S = {0};
    S.b = blk;
    S.top = top;
    S.stmt = top->node;
    for (size_t i = 0; i < C->k->nbarriers; i++)
        if (!C->k->barriers[i]->dropped &&
            oklc_in_range(S.stmt->range, C->k->barriers[i]->stmt.begin)) {
            S.barrier_line = oklc_model_line(C->E->c, C->k->barriers[i]->stmt.begin);
            break;
        }
    /* the statement may hold a loop over tiles (@outer) and its @inner loop */
    const Loop *tiles = top->tile_part == 2 && top->tile_other->kind != LOOP_INNER
                            ? top->tile_other : NULL;
    const Loop **lv;
    size_t nlv = inner_levels(C, S.stmt, NULL, 0, &lv);
    PlanList plan = {0};
    plan_body(C, &S, S.stmt->kids[S.stmt->nkids - 1], lv, nlv, &plan);
    if (C->ok)
        check_jumps(C, &S, S.stmt->kids[S.stmt->nkids - 1]);
    if (!C->ok)
        return;
    relay(C, &S, &plan);
    oklc_cpu_need_slots(blk, top->stmt.begin);
    const char *decls = promote(C, &S);
    const char *ind = oklc_emit_indent(C->E, S.stmt->range.begin);
    const char *in = oklc_arena_printf(C->a, "%s  ", ind);
    Buf b;
    oklc_buf_init(&b, C->a);
    if (tiles)
        oklc_buf_printf(&b, "%s { %s", oklc_cpu_tile_head(C, tiles), oklc_emit_tile_end(C->E, top));
    oklc_buf_printf(&b, "{ /* split at @barrier: each part runs for every @inner iteration */");
    if (*decls)
        oklc_buf_printf(&b, "\n%s%s", in, decls);
    Out o = {C, &C->E->ed, false, NULL, 0};
    emit_plan(&o, &plan, in, &b);
    oklc_buf_printf(&b, "\n%s}", ind);
    if (tiles)
        oklc_buf_puts(&b, " }");
    oklc_edit_replace(&C->E->ed, S.stmt->range.begin, S.stmt->range.end, b.data);
}
