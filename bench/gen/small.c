/* bench: one thread, crashes with a NULL write in a named function. */
#include <stdio.h>

__attribute__((noinline)) static void crash_here(volatile int *p)
{
	*p = 42;
}

int main(void)
{
	volatile int *p = NULL;

	puts("small: crashing");
	fflush(stdout);
	crash_here(p);
	return 0;
}
