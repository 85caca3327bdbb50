#include "copy_shared.h"

#include "copy_struct_impl.h"
#include "../terms/binary.h"
#include "../terms/layout.h"
#include "../terms/size.h"
#include "../terms/wstack.h"

/*
 * Marks. A boxed object's header tag: 00 not reached, 01 visited (header | 1), 10 shared
 * and not yet copied, 11 shared and copied; in the shared states the word above the tag is
 * the table index. A cons cell: head tag 00 means reached (its tag is in the bit store);
 * then a tail tag 00 means shared, the tail word holding index << 3 | copied << 2.
 * Neither head nor tail of a real cons cell is ever a header, so 00 is free to mean this.
 */
enum { MARK_VISITED = 1, MARK_SHARED = 2, MARK_COPIED = 3 };

/* Shared table entry: the object (tagged), its displaced words, its copy. */
enum { E_OBJ, E_W0, E_W1, E_FWD, E_WORDS };

/* A ring of (source term, destination slot) pairs, breadth-first order. */
typedef struct queue {
    tc_term *buf;
    size_t cap, head, n; /* in pairs; cap is a power of two */
} queue;

typedef struct shcopy {
    queue q;
    tc_wstack bits; /* 2-bit head tags of reached cons cells, 32 per word */
    size_t bits_put, bits_get;
    tc_wstack table;
    tc_term *hp;    /* perform's allocation pointer */
    tc_offheap *oh;
    uint64_t source_writes;
} shcopy;

static bool queue_reserve(queue *q, size_t k)
{
    if (q->cap - q->n >= k)
        return true;
    size_t cap = q->cap ? q->cap : 16;
    while (cap - q->n < k) {
        if (cap > SIZE_MAX / 4 / sizeof(tc_term))
            return false;
        cap *= 2;
    }
    tc_term *b = tc_mem_alloc(cap * 2 * sizeof *b);
    if (!b)
        return false;
    for (size_t i = 0; i < q->n; i++) {
        size_t j = (q->head + i) & (q->cap - 1);
        b[2 * i] = q->buf[2 * j];
        b[2 * i + 1] = q->buf[2 * j + 1];
    }
    tc_mem_free(q->buf);
    q->buf = b;
    q->cap = cap;
    q->head = 0;
    return true;
}

/* Room was reserved: calculate reserves it, and perform repeats calculate's pushes and pops
 * exactly, so it never needs more. */
static void queue_push(queue *q, tc_term t, tc_term *slot)
{
    TC_ASSERT(q->n < q->cap);
    size_t j = (q->head + q->n++) & (q->cap - 1);
    q->buf[2 * j] = t;
    q->buf[2 * j + 1] = (tc_term)(uintptr_t)slot;
}

static tc_term queue_pop(queue *q, tc_term **slot)
{
    tc_term t = q->buf[2 * q->head];
    *slot = (tc_term *)(uintptr_t)q->buf[2 * q->head + 1];
    q->head = (q->head + 1) & (q->cap - 1);
    q->n--;
    return t;
}

static bool bits_reserve(shcopy *s) { return s->bits_put / 32 < s->bits.n || tc_wstack_push(&s->bits, 0); }

static void bits_put(shcopy *s, unsigned tag)
{
    s->bits.base[s->bits_put / 32] |= (tc_term)tag << (2 * (s->bits_put % 32));
    s->bits_put++;
}

static unsigned bits_get(shcopy *s)
{
    unsigned tag = (unsigned)(s->bits.base[s->bits_get / 32] >> (2 * (s->bits_get % 32))) & 3u;
    s->bits_get++;
    return tag;
}

static tc_term *entry(const shcopy *s, tc_term index) { return &s->table.base[E_WORDS * index]; }

static tc_term add_entry(shcopy *s, tc_term obj, tc_term w0, tc_term w1)
{
    tc_term index = s->table.n / E_WORDS;
    tc_term *e = s->table.base + s->table.n; /* not &base[n]: see wstack.h */
    s->table.n += E_WORDS;
    e[E_OBJ] = obj;
    e[E_W0] = w0;
    e[E_W1] = w1;
    e[E_FWD] = TC_NON_VALUE;
    return index;
}

/* The original header of a boxed object, whatever its mark. */
static tc_term header_of(const shcopy *s, const tc_term *p)
{
    tc_term h = p[0];
    switch (h & TC_TAG_PRIMARY_MASK) {
    case 0: return h;
    case MARK_VISITED: return h & ~(tc_term)TC_TAG_PRIMARY_MASK;
    default: return entry(s, h >> 2)[E_W0];
    }
}

/* tc_sub_binary_copy_size for a sub binary whose binary's header may be marked: the rule
 * reads only that header's subtag, so it is shown an unmarked one. */
static size_t sub_binary_size(const shcopy *s, const tc_term *sb)
{
    tc_term real_header = header_of(s, tc_boxed_val(sb[TC_SB_ORIG]));
    tc_term view[TC_SUB_BIN_SIZE];
    memcpy(view, sb, sizeof view);
    view[TC_SB_ORIG] = tc_make_boxed(&real_header);
    return tc_sub_binary_copy_size(view);
}

/* The terms inside a tuple, a map object (flatmap or HAMT node) or a fun, in the order both
 * walks queue them. */
static const tc_term *children(const tc_term *p, tc_term header, size_t *n)
{
    if (tc_header_subtag(header) == TC_SUBTAG_FUN) {
        *n = 1 + tc_fun_num_free(p); /* creator, then the environment */
        return &p[TC_FUN_CREATOR];
    }
    if (tc_header_subtag(header) == TC_SUBTAG_ARITYVAL) {
        *n = tc_header_arity(header);
        return &p[1];
    }
    if (tc_header_subtag(header) == TC_SUBTAG_MAP)
        return tc_layout_map_terms(header, p, n); /* keys tuple then values, or a node's children */
    *n = 0;
    return NULL;
}

/* Words the copy of an object takes: its own words, except that a sub binary is flattened. */
static size_t copy_words(const shcopy *s, const tc_term *p, tc_term header)
{
    return tc_header_subtag(header) == TC_SUBTAG_SUB_BINARY ? sub_binary_size(s, p) : tc_layout_words(header, p);
}

/* copy_shared_calculate. On TC_ENOMEM it stops at an object boundary: everything before is
 * marked, nothing after. */
static tc_result calculate(shcopy *s, tc_term t, uint64_t *words)
{
    uint64_t sum = 0;
    for (;;) {
        while (tc_is_list(t)) {
            tc_term *c = tc_list_val(t);
            if ((c[0] & TC_TAG_PRIMARY_MASK) != 0) {
                tc_term car = c[0];
                if ((!tc_is_immed(car) && !queue_reserve(&s->q, 1)) || !bits_reserve(s))
                    return TC_ENOMEM;
                bits_put(s, (unsigned)(car & TC_TAG_PRIMARY_MASK));
                c[0] = car & ~(tc_term)TC_TAG_PRIMARY_MASK;
                s->source_writes++;
                if (!tc_is_immed(car))
                    queue_push(&s->q, car, NULL);
                sum += TC_CONS_SIZE;
                t = c[1];
                continue;
            }
            if ((c[1] & TC_TAG_PRIMARY_MASK) != 0) {
                if (!tc_wstack_reserve(&s->table, E_WORDS))
                    return TC_ENOMEM;
                c[1] = add_entry(s, t, TC_NON_VALUE, c[1]) << 3;
                s->source_writes++;
            }
            break;
        }
        if (tc_is_boxed(t) && !tc_is_empty_tuple_object(tc_boxed_val(t))) {
            tc_term *p = tc_boxed_val(t);
            tc_term h = p[0];
            if ((h & TC_TAG_PRIMARY_MASK) == 0) {
                size_t n, k = 0;
                const tc_term *kids = children(p, h, &n);
                for (size_t i = 0; i < n; i++)
                    k += !tc_is_immed(kids[i]);
                if (!queue_reserve(&s->q, k))
                    return TC_ENOMEM;
                sum += copy_words(s, p, h);
                for (size_t i = 0; i < n; i++)
                    if (!tc_is_immed(kids[i]))
                        queue_push(&s->q, kids[i], NULL);
                p[0] = h | MARK_VISITED;
                s->source_writes++;
            } else if ((h & TC_TAG_PRIMARY_MASK) == MARK_VISITED) {
                if (!tc_wstack_reserve(&s->table, E_WORDS))
                    return TC_ENOMEM;
                p[0] = add_entry(s, t, h & ~(tc_term)TC_TAG_PRIMARY_MASK, 0) << 2 | MARK_SHARED;
                s->source_writes++;
            }
        }
        if (s->q.n == 0)
            break;
        tc_term *unused;
        t = queue_pop(&s->q, &unused);
    }
    *words = sum;
    return TC_OK;
}

/* One boxed object on its first reach: copied at s->hp (unless `dry`), children queued. */
static tc_term perform_boxed(shcopy *s, const tc_term *p, tc_term header, bool dry)
{
    size_t n;
    const tc_term *kids = children(p, header, &n);
    if (dry) {
        for (size_t i = 0; i < n; i++)
            if (!tc_is_immed(kids[i]))
                queue_push(&s->q, kids[i], NULL);
        return TC_NON_VALUE;
    }
    tc_term *d = s->hp;
    size_t words = copy_words(s, p, header);
    s->hp += words;
    if (tc_header_subtag(header) == TC_SUBTAG_SUB_BINARY)
        return tc__copy_flatten_sub_binary(p, header_of(s, tc_boxed_val(p[TC_SB_ORIG])), d, words, s->oh);
    memcpy(d, p, words * sizeof *d);
    d[0] = header;
    if (tc_offheap_is_member(d))
        tc_offheap_adopt(s->oh, d);
    for (size_t i = 0; i < n; i++)
        if (!tc_is_immed(kids[i]))
            queue_push(&s->q, kids[i], &d[(kids - p) + i]);
    return tc_make_boxed(d);
}

/* Copies (or, when `dry`, only unmarks) what `t` reaches first, writing its copy to *slot. */
static void perform_term(shcopy *s, tc_term t, tc_term *slot, bool dry)
{
    while (tc_is_list(t)) {
        tc_term *c = tc_list_val(t);
        if ((c[0] & TC_TAG_PRIMARY_MASK) != 0) {
            TC_ASSERT(dry); /* only a walk cut short by TC_ENOMEM leaves cells unreached */
            return;
        }
        bool shared = (c[1] & TC_TAG_PRIMARY_MASK) == 0;
        tc_term *e = shared ? entry(s, c[1] >> 3) : NULL;
        if (shared && (c[1] & 4u)) {
            if (!dry)
                *slot = e[E_FWD];
            return;
        }
        tc_term car = c[0] | bits_get(s);
        tc_term cdr = shared ? e[E_W1] : c[1];
        if (shared) {
            e[E_W0] = car;
            c[1] |= 4u;
        } else {
            c[0] = car;
        }
        s->source_writes++;
        tc_term *d = NULL;
        if (!dry) {
            d = s->hp;
            s->hp += TC_CONS_SIZE;
            d[0] = car;
            *slot = tc_make_list(d);
            if (shared)
                e[E_FWD] = *slot;
            slot = &d[1];
        }
        if (!tc_is_immed(car))
            queue_push(&s->q, car, dry ? NULL : &d[0]);
        t = cdr;
    }
    if (tc_is_boxed(t) && !tc_is_empty_tuple_object(tc_boxed_val(t))) {
        tc_term *p = tc_boxed_val(t);
        tc_term h = p[0];
        switch (h & TC_TAG_PRIMARY_MASK) {
        case 0:
            TC_ASSERT(dry);
            return;
        case MARK_COPIED:
            if (!dry)
                *slot = entry(s, h >> 2)[E_FWD];
            return;
        case MARK_VISITED: {
            tc_term header = h & ~(tc_term)TC_TAG_PRIMARY_MASK;
            tc_term copy = perform_boxed(s, p, header, dry);
            p[0] = header;
            s->source_writes++;
            if (!dry)
                *slot = copy;
            return;
        }
        default: { /* shared, first reach */
            tc_term *e = entry(s, h >> 2);
            e[E_FWD] = perform_boxed(s, p, e[E_W0], dry);
            p[0] = h | MARK_COPIED;
            s->source_writes++;
            if (!dry)
                *slot = e[E_FWD];
            return;
        }
        }
    }
    if (!dry)
        *slot = t;
}

/* copy_shared_perform: the same breadth-first walk as calculate, then the table's words
 * go back. With `dry` it copies nothing and only restores the source. */
static tc_term perform(shcopy *s, tc_term root, bool dry)
{
    s->q.head = s->q.n = 0;
    s->bits_get = 0;
    tc_term res = root;
    tc_term t = root;
    tc_term *slot = &res;
    for (;;) {
        perform_term(s, t, dry ? NULL : slot, dry);
        if (s->q.n == 0)
            break;
        t = queue_pop(&s->q, &slot);
    }
    for (size_t i = 0; i < s->table.n; i += E_WORDS) {
        tc_term *e = s->table.base + i; /* not &base[i]: see wstack.h */
        if (tc_is_list(e[E_OBJ])) {
            tc_list_val(e[E_OBJ])[0] = e[E_W0];
            tc_list_val(e[E_OBJ])[1] = e[E_W1];
            s->source_writes += 2;
        } else {
            tc_boxed_val(e[E_OBJ])[0] = e[E_W0];
            s->source_writes++;
        }
    }
    return res;
}

tc_result tc_copy_shared(tc_alloc *a, tc_term t, tc_term *out, tc_copy_stats *stats)
{
    shcopy s = {0};
    tc_wstack_init(&s.bits);
    tc_wstack_init(&s.table);
    uint64_t words = 0;
    tc_result r = calculate(&s, t, &words);
    tc_term *hp = NULL;
    if (r == TC_OK && words) {
        hp = tc_alloc_words(a, words);
        if (!hp)
            r = TC_ENOMEM;
    }
    if (r == TC_OK) {
        s.hp = hp;
        s.oh = a->offheap;
        /* No words: t is an immediate or the empty tuple, and calculate marked nothing. */
        *out = words ? perform(&s, t, false) : t;
        TC_CHECK(words == 0 || s.hp == hp + words);
    } else {
        perform(&s, t, true);
    }
    tc_mem_free(s.q.buf);
    tc_wstack_destroy(&s.bits);
    tc_wstack_destroy(&s.table);
    if (stats) {
        stats->words_sized += words;
        stats->passes += 2;
        stats->source_words_written += s.source_writes;
        if (r == TC_OK)
            stats->words_written += words;
    }
    return r;
}
