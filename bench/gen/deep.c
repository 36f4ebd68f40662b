/*
 * bench: a DEPTH-frame recursion (build with -O0 so every frame is real)
 * that crashes at the bottom with a NULL write.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int descend(int depth, volatile int *p)
{
	volatile char pad[16];

	pad[0] = (char)depth;
	if (depth == 0) {
		*p = 1;
		return pad[0];
	}
	return descend(depth - 1, p) + pad[0];
}

int main(int argc, char **argv)
{
	long depth = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;

	if (depth <= 0 || depth > 1000000)
		return 2;
	return descend((int)depth - 1, NULL);
}
