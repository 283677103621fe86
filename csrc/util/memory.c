/* memory.c -- the machine's physical memory (sporf.h), which fit and the
 * dense proximity check sizes against. */
#include "include/sporf.h"

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

int64_t sporf_physical_memory(void)
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0)
        return (int64_t)pages * (int64_t)size;
#endif
    return 0;
}
