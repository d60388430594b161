/* layoutrand's heap-offset preload library (issue 35, docs/run.md "Data seeds").
 *
 * Loaded with LD_PRELOAD into every process of a run with --data-seeds K >= 2, its
 * constructor makes one allocation before main, never freed, so that the blocks the program
 * allocates next from malloc's main arena start LAYOUTRAND_HEAP_OFFSET bytes further on.
 * The variable's value is written with a fixed width by layoutrand, so that it has the same
 * size for every data seed: only the padding variable moves the stack.
 *
 * With `run --vary-mmap-threshold` it first sets malloc's mmap threshold to
 * LAYOUTRAND_MMAP_THRESHOLD bytes (fixed width too) with mallopt, which also turns glibc's
 * dynamic raising of the threshold off: blocks at least that large get their own mapping,
 * smaller ones come from the heap and move with the offset.
 *
 * glibc gives a request of r bytes a chunk of max(32, (r + 8 + 15) & ~15) bytes (x86-64), so
 * a request of n + 24 bytes takes exactly n + 32 bytes for every n that is a multiple of 16:
 * offsets n and m then move the next block by exactly n - m bytes. */
#include <malloc.h>
#include <stdlib.h>

/* volatile: the compiler may not drop an allocation whose result it sees unused. */
void *volatile layoutrand_heap_offset_block;

/* The value of variable `name` as a number of at most `max`; -1 when it is absent or not
 * such a number (the library then leaves that part of malloc as it is). */
static long layoutrand_number(const char *name, unsigned long max)
{
    const char *value = getenv(name);
    if (value == NULL || *value == '\0')
        return -1;
    char *end;
    unsigned long n = strtoul(value, &end, 10);
    if (*end != '\0' || n > max)
        return -1;
    return (long)n;
}

__attribute__((constructor)) static void layoutrand_heap_offset(void)
{
#ifdef M_MMAP_THRESHOLD
    long threshold = layoutrand_number("LAYOUTRAND_MMAP_THRESHOLD", 32UL * 1024 * 1024);
    if (threshold >= 0)
        mallopt(M_MMAP_THRESHOLD, (int)threshold);
#endif
    long n = layoutrand_number("LAYOUTRAND_HEAP_OFFSET", 65536);
    if (n < 0)
        return;
    layoutrand_heap_offset_block = malloc((size_t)n + 24);
}
