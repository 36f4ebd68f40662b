/*
 * bench: map GB GiB of anonymous memory (100 by default), touch one byte
 * per GiB, then crash with a NULL write: the kernel writes the untouched
 * pages as holes, so the core is GB GiB long but holds a few MiB.
 */
#include <stdlib.h>
#include <sys/mman.h>

__attribute__((noinline)) static void crash_here(volatile int *p)
{
	*p = 1;
}

int main(int argc, char **argv)
{
	long gib = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
	size_t len, i;
	char *p;

	if (gib <= 0 || gib > 1024)
		return 2;
	len = (size_t)gib << 30;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < len; i += (size_t)1 << 30)
		p[i] = 1;
	crash_here(NULL);
	return 0;
}
