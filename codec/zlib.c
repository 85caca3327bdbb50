#include "zlib_impl.h"

#include <limits.h>
#include <zlib.h>

#include "../terms/base.h"

static voidpf zalloc(voidpf opaque, uInt items, uInt size)
{
    (void)opaque;
    return tc_mem_calloc(items, size);
}

static void zfree(voidpf opaque, voidpf p)
{
    (void)opaque;
    tc_mem_free(p);
}

int tc_zlib_inflate(const unsigned char *in, size_t n, unsigned char *out, size_t cap, size_t *got)
{
    *got = 0;
    if (n > UINT_MAX || cap > UINT_MAX)
        return -1; /* a 32-bit size field bounds cap; n past 4 GiB is not a term zlib wrote */
    z_stream zs = {0};
    zs.zalloc = zalloc;
    zs.zfree = zfree;
    if (inflateInit(&zs) != Z_OK)
        return -2;
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)n;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    int z = inflate(&zs, Z_FINISH);
    *got = cap - zs.avail_out;
    int res;
    if (z == Z_STREAM_END)
        res = zs.avail_in ? 2 : 0;
    else if (z == Z_MEM_ERROR)
        res = -2;
    else if (z == Z_BUF_ERROR && zs.avail_out == 0)
        res = 1; /* output full and the stream goes on */
    else
        res = -1;
    inflateEnd(&zs);
    return res;
}

int tc_zlib_deflate(const unsigned char *in, size_t n, int level, unsigned char *out, size_t cap, size_t *len)
{
    if (n > UINT_MAX)
        return 1;
    z_stream zs = {0};
    zs.zalloc = zalloc;
    zs.zfree = zfree;
    if (deflateInit(&zs, level) != Z_OK)
        return -1;
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)n;
    zs.next_out = out;
    zs.avail_out = (uInt)(cap > UINT_MAX ? UINT_MAX : cap);
    int z = deflate(&zs, Z_FINISH);
    *len = zs.total_out;
    deflateEnd(&zs);
    if (z == Z_STREAM_END)
        return 0;
    return z == Z_MEM_ERROR ? -1 : 1;
}
