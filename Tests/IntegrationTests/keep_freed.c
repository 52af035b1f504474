/* keep_freed.c — an LD_PRELOAD library for the memory tests: free() keeps
 * small blocks as they are, and realloc() never frees the block it moves.
 *
 * A copy of a secret that is freed unwiped is a real leak, but malloc hands
 * the block to the next caller at once, who writes over it: a scan of the
 * memory after an attempt then misses the bug by luck. Under this library no
 * small block is ever reused, so every copy the process made and did not wipe
 * is still there for memscan.py to find; a wiped one is zeroes. Blocks of
 * 64 KiB and more (image buffers) are really freed, and so is everything
 * past 512 MiB kept, so a lock screen that redraws does not run out of memory.
 *
 * Build: cc -O2 -fPIC -shared keep_freed.c -o keep_freed.so -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stddef.h>
#include <string.h>

static size_t kept;

static void real_free(void *block)
{
    static void (*next)(void *);
    if (!next)
        next = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    next(block);
}

void free(void *block)
{
    if (!block)
        return;
    size_t size = malloc_usable_size(block);
    if (size >= 64 * 1024 || kept >= (size_t)512 << 20) {
        real_free(block);
        return;
    }
    kept += size;  /* racy across threads; only a bound */
}

void *realloc(void *block, size_t size)
{
    if (!block)
        return malloc(size);
    if (size == 0) {
        free(block);
        return NULL;
    }
    size_t old = malloc_usable_size(block);
    if (size <= old)
        return block;
    void *moved = malloc(size);
    if (!moved)
        return NULL;
    memcpy(moved, block, old);
    free(block);
    return moved;
}

void *reallocarray(void *block, size_t count, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(count, size, &total))
        return NULL;
    return realloc(block, total);
}
