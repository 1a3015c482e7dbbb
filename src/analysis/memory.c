/*
 * memory.c - how each operation of a kernel touches memory: an element
 * loaded, stored or both, of global or @shared memory, or the target of
 * an @atomic. What `oklc stats` counts and the serial backend's counters
 * (cpu_instrument.c) count at run time: one reading for both.
 */
#include <string.h>

#include "analysis.h"

size_t oklc_first_op(const Model *m, uint32_t off)
{
    size_t lo = 0, hi = m->nops;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->ops[mid].range.begin < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A thread's own array or @exclusive value: not memory traffic. */
static bool private_var(const Var *v)
{
    return v && v->kind == VAR_LOCAL && (v->type.array || v->exclusive) && !v->shared &&
           !(v->typedef_var && v->typedef_var->shared);
}

/* The element op of exactly range r, or SIZE_MAX. */
static size_t element_at(const Model *m, Range r)
{
    for (size_t j = oklc_first_op(m, r.begin); j < m->nops && m->ops[j].range.begin == r.begin;
         j++)
        if (m->ops[j].kind == OP_ELEMENT && m->ops[j].range.end == r.end)
            return j;
    return SIZE_MAX;
}

/* Is off in the initializer of a constexpr variable (evaluated by the
 * compiler, not at run time)? */
static bool constant(const Kernel *k, uint32_t off)
{
    for (size_t i = 0; i < k->nlocals; i++)
        if (k->locals[i]->constexpr_ && oklc_in_range(k->locals[i]->init, off))
            return true;
    return false;
}

OpMem *oklc_op_memory(oklc_ctx *c, const Model *m, const Kernel *k)
{
    OpMem *mem = oklc_arena_alloc(&c->arena, (m->nops ? m->nops : 1) * sizeof *mem);
    size_t from = oklc_first_op(m, k->body.begin), to = from;
    while (to < m->nops && m->ops[to].range.begin < k->body.end)
        to++;
    for (size_t i = from; i < to; i++)
        mem[i].constant = constant(k, m->ops[i].range.begin);
    for (size_t i = from; i < to; i++) {
        const Var *v = m->ops[i].var;
        if (m->ops[i].kind != OP_ELEMENT)
            continue;
        mem[i].use = private_var(v) ? MEM_NONE : MEM_LOAD;
        mem[i].shared = v && (v->shared || (v->typedef_var && v->typedef_var->shared));
    }
    for (size_t i = from; i < to; i++) {
        const Op *op = &m->ops[i];
        size_t j = op->kind == OP_ASSIGN || op->kind == OP_UPDATE || op->kind == OP_ADDRESS
                       ? element_at(m, op->a) : SIZE_MAX;
        if (j != SIZE_MAX && mem[j].use != MEM_NONE)
            mem[j].use = op->kind == OP_ASSIGN ? MEM_STORE : op->kind == OP_UPDATE ? MEM_BOTH
                                                                                    : MEM_NONE;
    }
    for (size_t t = 0; t < k->natomics; t++) {
        size_t j = k->atomics[t]->block ? SIZE_MAX : element_at(m, k->atomics[t]->lhs);
        if (j != SIZE_MAX)
            mem[j].atomic = true;
    }
    return mem;
}
