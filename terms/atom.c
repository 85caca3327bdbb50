#include "atom.h"

#include <string.h>

#include "context_impl.h"

/*
 * Storage (the context's atoms): a fixed directory of chunks that only ever grows, so a
 * reader holding an index never races with a writer that appends. A hash index (open
 * addressing) finds names when interning.
 */
#define CHUNK_BITS TC__ATOM_CHUNK_BITS
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define MAX_CHUNKS TC__ATOM_MAX_CHUNKS

typedef tc__atom_entry atom_entry;

static uint64_t name_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

static atom_entry *entry_at(size_t i) { return &tc__ctx()->atoms.chunks[i >> CHUNK_BITS][i & (CHUNK_SIZE - 1)]; }

long tc_utf8_decode(const unsigned char **pp, const unsigned char *end)
{
    const unsigned char *p = *pp;
    if (p >= end)
        return -1;
    unsigned c = *p++;
    uint32_t cp;
    int more;
    if (c < 0x80) {
        *pp = p;
        return c;
    } else if (c >= 0xC2 && c <= 0xDF) {
        cp = c & 0x1F;
        more = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        cp = c & 0x0F;
        more = 2;
    } else if (c >= 0xF0 && c <= 0xF4) {
        cp = c & 0x07;
        more = 3;
    } else {
        return -1;
    }
    if (end - p < more)
        return -1;
    for (int i = 0; i < more; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    /* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
    if ((more == 2 && cp < 0x800) || (more == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *pp = p + more;
    return (long)cp;
}

long tc_utf8_length(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    long n = 0;
    while (p < end) {
        if (tc_utf8_decode(&p, end) < 0)
            return -1;
        n++;
    }
    return n;
}

size_t tc_utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static long find_slot(const char *name, size_t len, uint64_t h)
{
    size_t cap = tc__ctx()->atoms.hash_cap;
    const uint32_t *slots = tc__ctx()->atoms.hash_slots;
    for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1)) {
        uint32_t v = slots[i];
        if (v == 0)
            return -(long)i - 1;
        atom_entry *e = entry_at(v - 1);
        if (e->len == len && memcmp(e->name, name, len) == 0)
            return (long)(v - 1);
    }
}

static tc_result grow_hash(size_t count)
{
    size_t cap = tc__ctx()->atoms.hash_cap ? tc__ctx()->atoms.hash_cap * 2 : 1024;
    uint32_t *slots = tc_mem_calloc(cap, sizeof *slots);
    if (!slots)
        return TC_ENOMEM;
    size_t secret = atomic_load(&tc__ctx()->atoms.secret);
    for (size_t i = 0; i < count; i++) {
        if (i + 1 == secret)
            continue; /* no name finds it */
        atom_entry *e = entry_at(i);
        size_t j = name_hash(e->name, e->len) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t)(i + 1);
    }
    tc_mem_free(tc__ctx()->atoms.hash_slots);
    tc__ctx()->atoms.hash_slots = slots;
    tc__ctx()->atoms.hash_cap = cap;
    return TC_OK;
}

static tc_result append_locked(const char *name, size_t len, long slot, tc_term *out);

static tc_result intern_locked(const char *name, size_t len, tc_term *out)
{
    tc_context *ctx = tc__ctx();
    size_t count = atomic_load(&ctx->atoms.count);
    if (2 * (count + 1) > ctx->atoms.hash_cap) {
        tc_result r = grow_hash(count);
        if (r != TC_OK)
            return r;
    }
    uint64_t h = name_hash(name, len);
    long slot = find_slot(name, len, h);
    if (slot >= 0) {
        *out = tc_make_atom((uint64_t)slot);
        return TC_OK;
    }
    return append_locked(name, len, slot, out);
}

/* A new entry at the end of the table, in hash slot -slot - 1 (slot >= 0: in none). */
static tc_result append_locked(const char *name, size_t len, long slot, tc_term *out)
{
    tc_context *ctx = tc__ctx();
    size_t count = atomic_load(&ctx->atoms.count);
    if (count >= (size_t)MAX_CHUNKS * CHUNK_SIZE)
        return TC_ELIMIT;
    size_t ci = count >> CHUNK_BITS;
    if (!ctx->atoms.chunks[ci]) {
        ctx->atoms.chunks[ci] = tc_mem_calloc(CHUNK_SIZE, sizeof(atom_entry));
        if (!ctx->atoms.chunks[ci])
            return TC_ENOMEM;
    }
    char *copy = tc_mem_alloc(len + 1);
    if (!copy)
        return TC_ENOMEM;
    memcpy(copy, name, len);
    copy[len] = '\0';
    atom_entry *e = entry_at(count);
    e->name = copy;
    e->len = len;
    if (slot < 0)
        ctx->atoms.hash_slots[-slot - 1] = (uint32_t)(count + 1);
    atomic_store(&ctx->atoms.count, count + 1); /* publishes the entry to lock-free readers */
    *out = tc_make_atom(count);
    return TC_OK;
}

/* The table starts as the VM's does (atom.names: false, true, '_', 'nonode@nohost' are
 * atoms 0..3), so atom 0 is never a node's name: a remote node's dist channel, printed in
 * its pids, ports and refs, is its name's atom index and 0 means this node. */
static tc_result seed_locked(void)
{
    static const char *const first[] = {"false", "true", "_", "nonode@nohost"};
    for (size_t i = atomic_load(&tc__ctx()->atoms.count); i < sizeof first / sizeof *first; i++) {
        tc_term t;
        tc_result r = intern_locked(first[i], strlen(first[i]), &t);
        if (r != TC_OK)
            return r;
    }
    return TC_OK;
}

tc_result tc_atom_intern(const char *name, size_t len, tc_term *out)
{
    long chars = tc_utf8_length(name, len);
    if (chars < 0)
        return TC_EPARSE;
    if ((unsigned long)chars > TC_MAX_ATOM_CHARACTERS)
        return TC_ELIMIT;
    tc_context *ctx = tc__ctx();
    pthread_mutex_lock(&ctx->atoms.lock);
    tc_result r = atomic_load(&ctx->atoms.count) < 4 ? seed_locked() : TC_OK;
    if (r == TC_OK)
        r = intern_locked(name, len, out);
    pthread_mutex_unlock(&ctx->atoms.lock);
    return r;
}

tc_term tc_atom_secret(void)
{
    tc_context *ctx = tc__ctx();
    size_t secret = atomic_load(&ctx->atoms.secret);
    if (secret)
        return tc_make_atom(secret - 1);
    tc_term t = TC_NON_VALUE;
    pthread_mutex_lock(&ctx->atoms.lock);
    tc_result r = atomic_load(&ctx->atoms.count) < 4 ? seed_locked() : TC_OK;
    if ((secret = atomic_load(&ctx->atoms.secret)) != 0) {
        t = tc_make_atom(secret - 1);
    } else if (r == TC_OK && append_locked("3RT$", 4, 0, &t) == TC_OK) {
        atomic_store(&ctx->atoms.secret, tc_atom_index(t) + 1);
    } else {
        t = TC_NON_VALUE;
    }
    pthread_mutex_unlock(&ctx->atoms.lock);
    return t;
}

bool tc_atom_exists(tc_term atom)
{
    return tc_is_atom(atom) && tc_atom_index(atom) < atomic_load(&tc__ctx()->atoms.count);
}

const char *tc_atom_name(tc_term atom, size_t *len)
{
    TC_CHECK(tc_atom_exists(atom));
    atom_entry *e = entry_at(tc_atom_index(atom));
    if (len)
        *len = e->len;
    return e->name;
}

size_t tc_atom_count(void) { return atomic_load(&tc__ctx()->atoms.count); }

static const char *const reserved_words[] = {
    "after", "and", "andalso", "band", "begin", "bnot", "bor", "bsl", "bsr", "bxor",
    "case", "catch", "cond", "div", "end", "fun", "if", "let", "not", "of", "or",
    "orelse", "receive", "rem", "try", "when", "xor"};

bool tc_atom_is_reserved_word(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof reserved_words / sizeof *reserved_words; i++)
        if (strlen(reserved_words[i]) == len && memcmp(reserved_words[i], name, len) == 0)
            return true;
    return false;
}

bool tc_atom_is_lower_start(long c) { return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7); }

bool tc_atom_is_name_char(long c)
{
    return tc_atom_is_lower_start(c) || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '@' || (c >= 0xC0 && c <= 0xDE && c != 0xD7);
}
