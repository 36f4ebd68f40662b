/*
 * bench: touch GIB GiB (or "NM": N MiB, at least 256) of heap with memset (so the pages are real and go
 * into the core), start 64 threads that wait, then crash with a NULL write.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NTHREADS 64
#define CHUNK ((size_t)256 << 20)

static pthread_barrier_t ready;

__attribute__((noinline)) static void wait_forever(void)
{
	for (;;)
		pause();
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&ready);
	wait_forever();
	return NULL;
}

__attribute__((noinline)) static void crash_here(volatile int *p)
{
	*p = 1;
}

int main(int argc, char **argv)
{
	pthread_t tid;
	char *end = NULL;
	long n = argc > 1 ? strtol(argv[1], &end, 10) : 4;
	long mib = end && *end == 'M' ? n : n * 1024;	/* "512M": MiB; "4": GiB */
	size_t i, nchunks;

	if (mib < 256 || mib > 64 * 1024)
		return 2;
	nchunks = (size_t)mib * ((size_t)1 << 20) / CHUNK;
	for (i = 0; i < nchunks; i++) {
		unsigned char *p = malloc(CHUNK);

		if (!p)
			return 1;
		memset(p, (int)(i & 0xff) | 1, CHUNK);
	}
	pthread_barrier_init(&ready, NULL, NTHREADS + 1);
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&tid, NULL, worker, NULL) != 0)
			return 1;
	pthread_barrier_wait(&ready);
	usleep(100 * 1000);
	crash_here(NULL);
	return 0;
}
