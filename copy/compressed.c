#include "compressed.h"

#include <string.h>

#include "copy_struct.h"
#include "../codec/ext_ets.h"
#include "../terms/layout.h"
#include "../terms/offheap.h"
#include "../terms/size.h"
#include "../terms/wstack.h"

/* sizeof(DbTerm) less tpl[1]: first_oh and size, the words before tpl. */
#define DBTERM_HEAD_BYTES (2 * TC_WORD_BYTES)

/* erts' DbTerm, word for word: first_oh, size, tpl. The block knows neither its source nor
 * the keypos: the key is the one element stored as a pointer, and its copy's off-heap
 * objects are found by walking it (erts chains them from first_oh with the encodings'). */
struct tc_copy_compressed {
    unsigned char *ext_oh; /* DbTerm.first_oh: the ProcBins the encodings embed (codec/ext_ets.h) */
    size_t size;           /* DbTerm.size: size_object of the object */
    tc_term tpl[]; /* the DbTerm's words from tpl on: header.., alloc size, key, encodings */
};

static uint64_t arity_of(const tc_copy_compressed *c) { return tc_header_arity(c->tpl[0]); }
/* db_alloced_size_comp */
static size_t alloced(const tc_copy_compressed *c) { return (size_t)c->tpl[arity_of(c) + 1]; }
static size_t block_bytes(size_t dbterm_bytes) { return offsetof(tc_copy_compressed, tpl) + dbterm_bytes - DBTERM_HEAD_BYTES; }

/* The key's element: the one stored as a pointer (to its copy, or to {}); 0 when the key is
 * an immediate, kept as every immediate element is. */
static uint64_t key_index(const tc_copy_compressed *c)
{
    for (uint64_t i = 1, n = arity_of(c); i <= n; i++)
        if (!tc_is_header(c->tpl[i]) && !tc_is_immed(c->tpl[i]))
            return i;
    return 0;
}

/* The key's copy: the words between the top tuple's alloc size and the first encoding. */
static size_t key_words_of(const tc_copy_compressed *c)
{
    uint64_t arity = arity_of(c);
    size_t end = alloced(c) - DBTERM_HEAD_BYTES; /* bytes from tpl */
    for (uint64_t i = 1; i <= arity; i++)
        if (tc_is_header(c->tpl[i])) { /* the encodings are in element order */
            end = (size_t)(c->tpl[i] >> TC_TAG_PRIMARY_SIZE);
            break;
        }
    return end / TC_WORD_BYTES - (size_t)(arity + 2);
}

/* Drops the references the key's copy holds: its off-heap objects, walked as copy_shallow
 * walks a block (a tuple's elements are the words after its header). */
static void release_key(tc_copy_compressed *c)
{
    tc_term *p = &c->tpl[arity_of(c) + 2], *end = p + key_words_of(c);
    tc_offheap uncounted = {NULL, 0, 0};
    while (p < end) {
        tc_term w = *p;
        if (!tc_is_header(w) || tc_header_subtag(w) == TC_SUBTAG_ARITYVAL) {
            p++;
            continue;
        }
        if (tc_offheap_is_member(p))
            tc_offheap_drop(&uncounted, p);
        p += tc_layout_header_step(p);
    }
}

/* ext2elem / elem2ext: an encoding's byte offset from tpl, tagged as a header word. */
static tc_term ext2elem(const tc_copy_compressed *c, const unsigned char *ext)
{
    return (tc_term)(ext - (const unsigned char *)c->tpl) << TC_TAG_PRIMARY_SIZE | TC_TAG_PRIMARY_HEADER;
}
static const unsigned char *elem2ext(const tc_copy_compressed *c, uint64_t i)
{
    return (const unsigned char *)c->tpl + (c->tpl[i] >> TC_TAG_PRIMARY_SIZE);
}

static void release(tc_copy_compressed *c)
{
    release_key(c);
    tc_ext_ets_release(c->ext_oh);
    c->ext_oh = NULL;
}

void tc_copy_compressed_discard(tc_copy_compressed *c)
{
    if (c)
        release(c);
}

void tc_copy_compressed_free_at(tc_mseg *mem, tc_copy_compressed *c, size_t offset)
{
    if (!c)
        return;
    release(c);
    void *block = (char *)c - offset;
    if (mem)
        tc_mseg_free_block(mem, block);
    else
        tc_mem_free(block);
}

void tc_copy_compressed_free(tc_copy_compressed *c) { tc_copy_compressed_free_at(NULL, c, 0); }

/* db_size_dbterm_comp, and size_object of the object and of its key. The object's size is
 * summed from its elements', so the key is sized once (erts sizes it in size_object(obj),
 * db_size_dbterm_comp and copy_to_comp); each other element is walked twice, for its words
 * and for its ETS form's bytes, as erts does. The walk's stack grows to what the largest
 * element needs, so that copy_to_comp's writes need no memory. */
static tc_result measure(unsigned keypos, tc_term t, tc_wstack *s, size_t *bytes, uint64_t *size, uint64_t *key_words)
{
    const tc_term *src = tc_boxed_val(t);
    uint64_t arity = tc_header_arity(src[0]);
    tc_result r = tc_term_flat_size(src[keypos], key_words);
    if (r != TC_OK)
        return r;
    *size = 1 + arity + *key_words;
    size_t sum = (size_t)(DBTERM_HEAD_BYTES + (arity + 2 + *key_words) * TC_WORD_BYTES);
    for (uint64_t i = 1; i <= arity; i++) {
        size_t n;
        uint64_t words;
        if (i == keypos || tc_is_immed(src[i]))
            continue;
        if ((r = tc_term_flat_size(src[i], &words)) != TC_OK || (r = tc_ext_ets_size(src[i], s, &n)) != TC_OK)
            return r;
        *size += words;
        sum += n;
    }
    *bytes = (sum + TC_WORD_BYTES - 1) & ~(size_t)(TC_WORD_BYTES - 1); /* align_up */
    return TC_OK;
}

/* copy_to_comp: the top tuple, the alloc size, the key, then the encodings in element order. */
static void fill(tc_copy_compressed *c, unsigned keypos, tc_term t, size_t bytes, uint64_t key_words, tc_wstack *s)
{
    const tc_term *src = tc_boxed_val(t);
    uint64_t arity = tc_header_arity(src[0]);
    c->tpl[0] = src[0];
    c->tpl[arity + 1] = bytes;
    tc_offheap key_oh = {NULL, 0, 0}; /* the key's objects are found again by release_key */
    c->tpl[keypos] = tc_copy_struct_fill(src[keypos], &c->tpl[arity + 2], (size_t)key_words, &key_oh, NULL);
    unsigned char *top = (unsigned char *)&c->tpl[arity + 2 + key_words], *end = (unsigned char *)c->tpl + (bytes - DBTERM_HEAD_BYTES);
    for (uint64_t i = 1; i <= arity; i++) {
        if (i == keypos)
            continue;
        if (tc_is_immed(src[i])) {
            c->tpl[i] = src[i];
            continue;
        }
        c->tpl[i] = ext2elem(c, top);
        size_t n = 0;
        /* sized by measure with this stack: nothing is left to fail */
        TC_CHECK(tc_ext_ets_encode_into(src[i], s, top, (size_t)(end - top), &c->ext_oh, &n) == TC_OK);
        top += n;
    }
}

tc_result tc_copy_compressed_store(tc_mseg *mem, size_t offset, unsigned keypos, tc_term t,
                                   tc_copy_compressed **slot, tc_copy_stats *stats)
{
    if (!tc_is_tuple(t) || keypos == 0 || keypos > tc_tuple_arity(t))
        return TC_EBADARG;
    tc_wstack s;
    tc_wstack_init(&s);
    size_t bytes = 0;
    uint64_t size = 0, key_words = 0;
    tc_result r = measure(keypos, t, &s, &bytes, &size, &key_words);
    tc_copy_compressed *old = *slot, *c;
    if (r != TC_OK)
        goto out;
    if (old && alloced(old) == bytes) {
        release(old); /* db_cleanup_offheap_comp; the block is reused */
        c = old;
    } else {
        char *block = mem ? tc_mseg_alloc_block(mem, offset + block_bytes(bytes)) : tc_mem_alloc(offset + block_bytes(bytes));
        if (!block) {
            r = TC_ENOMEM; /* the old object, if any, is untouched */
            goto out;
        }
        c = (tc_copy_compressed *)(block + offset);
        if (old) /* the caller's bytes move with the object */
            memcpy(block, (char *)old - offset, offset);
        tc_copy_compressed_free_at(mem, old, offset);
    }
    c->ext_oh = NULL;
    c->size = (size_t)size;
    fill(c, keypos, t, bytes, key_words, &s);
    if (stats) {
        stats->words_sized += size;
        stats->words_written += (bytes - DBTERM_HEAD_BYTES) / TC_WORD_BYTES;
        stats->passes += 3; /* size_object, the encodings' sizes, copy_to_comp */
    }
    *slot = c;
out:
    tc_wstack_destroy(&s);
    return r;
}

tc_term tc_copy_compressed_key(const tc_copy_compressed *c, unsigned keypos)
{
    TC_ASSERT(keypos >= 1 && keypos <= arity_of(c));
    return tc_copy_compressed_element(c, keypos);
}
uint64_t tc_copy_compressed_arity(const tc_copy_compressed *c) { return arity_of(c); }
size_t tc_copy_compressed_size(const tc_copy_compressed *c) { return c->size; }
size_t tc_copy_compressed_bytes(const tc_copy_compressed *c) { return alloced(c); }

tc_term tc_copy_compressed_element(const tc_copy_compressed *c, uint64_t i)
{
    return !tc_is_header(c->tpl[i]) ? c->tpl[i] : TC_NON_VALUE;
}

void tc_copy_compressed_set_immediate(tc_copy_compressed *c, uint64_t i, tc_term v)
{
    TC_ASSERT(tc_is_immed(c->tpl[i]) && tc_is_immed(v));
    c->tpl[i] = v;
}

/* erts' static heap factory: words handed out in order from one buffer. */
typedef struct factory {
    tc_alloc iface; /* first: the interface pointer is the factory */
    tc_term *hp, *end;
} factory;

static tc_term *factory_alloc(tc_alloc *self, size_t words)
{
    factory *f = (factory *)self;
    if ((size_t)(f->end - f->hp) < words)
        return NULL;
    tc_term *p = f->hp;
    f->hp += words;
    return p;
}

/* db_copy_from_comp into hp[0..avail): returns the object, *used the words it took. */
static tc_result copy_from_comp(const tc_copy_compressed *c, tc_term *hp, size_t avail, tc_offheap *oh, tc_term *obj,
                                size_t *used, tc_copy_stats *stats)
{
    uint64_t arity = arity_of(c), k = key_index(c), key_words = 0;
    tc_result r = k ? tc_term_flat_size(c->tpl[k], &key_words) : TC_OK;
    if (r != TC_OK)
        return r;
    tc_term *oh_mark = oh->first;
    hp[0] = c->tpl[0];
    if (k)
        hp[k] = tc_copy_struct_fill(c->tpl[k], &hp[arity + 1], (size_t)key_words, oh, NULL);
    factory f = {{factory_alloc, oh, NULL}, &hp[arity + 1 + key_words], hp + avail};
    const unsigned char *end = (const unsigned char *)c->tpl + (alloced(c) - DBTERM_HEAD_BYTES);
    for (uint64_t i = arity; i > 0 && r == TC_OK; i--) {
        if (i == k)
            continue;
        if (!tc_is_header(c->tpl[i])) { /* an immediate, the key's too */
            hp[i] = c->tpl[i];
            continue;
        }
        const unsigned char *ext = elem2ext(c, i);
        r = tc_ext_ets_decode(&f.iface, ext, (size_t)(end - ext), &hp[i]);
    }
    if (r != TC_OK) { /* a fun or node entry could not be made: drop what was linked */
        tc_offheap_abandon_until(oh, oh_mark);
        return r;
    }
    *obj = tc_make_boxed(hp);
    *used = (size_t)(f.hp - hp);
    if (stats) {
        stats->words_sized += key_words;
        stats->words_written += *used;
        stats->passes += 2; /* the key's size_object, then the copy and the decoding */
    }
    return TC_OK;
}

static tc_result out_via(tc_alloc *a, const tc_copy_compressed *c, bool as_list, tc_term *out, tc_copy_stats *stats)
{
    size_t words = c->size + (as_list ? TC_CONS_SIZE : 0);
    tc_term *hp = tc_alloc_words(a, words);
    if (!hp)
        return TC_ENOMEM;
    tc_term obj;
    size_t used;
    tc_result r = copy_from_comp(c, hp, c->size, a->offheap, &obj, &used, stats);
    if (r != TC_OK) {
        tc_alloc_release(a, hp + words, hp);
        return r;
    }
    if (as_list) {
        tc_term *cell = hp + used;
        cell[0] = obj;
        cell[1] = TC_NIL;
        obj = tc_make_list(cell);
        used += TC_CONS_SIZE;
        if (stats)
            stats->words_written += TC_CONS_SIZE;
    }
    tc_alloc_release(a, hp + words, hp + used); /* HRelease */
    *out = obj;
    return TC_OK;
}

tc_result tc_copy_compressed_out(tc_alloc *a, const tc_copy_compressed *c, tc_term *out, tc_copy_stats *stats)
{
    return out_via(a, c, false, out, stats);
}

tc_result tc_copy_compressed_out_list(tc_alloc *a, const tc_copy_compressed *c, tc_term *out, tc_copy_stats *stats)
{
    return out_via(a, c, true, out, stats);
}
