/* layoutrand's heap-offset preload library (issue 35, docs/run.md "Data seeds").
 *
 * Loaded with LD_PRELOAD into every process of a run with --data-seeds K >= 2, its
 * constructor makes one allocation before main, never freed, so that the blocks the program
 * allocates next from malloc's main arena start LAYOUTRAND_HEAP_OFFSET bytes further on.
 * The variable's value is written with a fixed width by layoutrand, so that it has the same
 * size for every data seed: only the padding variable moves the stack.
 *
 * glibc gives a request of r bytes a chunk of max(32, (r + 8 + 15) & ~15) bytes (x86-64), so
 * a request of n + 24 bytes takes exactly n + 32 bytes for every n that is a multiple of 16:
 * offsets n and m then move the next block by exactly n - m bytes. */
#include <stdlib.h>

/* volatile: the compiler may not drop an allocation whose result it sees unused. */
void *volatile layoutrand_heap_offset_block;

__attribute__((constructor)) static void layoutrand_heap_offset(void)
{
    const char *value = getenv("LAYOUTRAND_HEAP_OFFSET");
    if (value == NULL)
        return;
    char *end;
    unsigned long n = strtoul(value, &end, 10);
    if (*end != '\0' || n > 65536)
        return;
    layoutrand_heap_offset_block = malloc(n + 24);
}
