/*
 * bench: dlopen NLIBS shared libraries (given on the command line as a
 * directory and a count: DIR/libbench<i>.so), call a function in each,
 * start NTHREADS threads that park in a library function, then crash the
 * main thread with a NULL write.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NTHREADS 256

static pthread_barrier_t ready;
static int (**parks)(void);
static int nparks;

static void *worker(void *arg)
{
	long i = (long)arg;

	pthread_barrier_wait(&ready);
	for (;;)
		parks[i % nparks]();	/* each one sleeps in its library */
	return NULL;
}

__attribute__((noinline)) static void crash_here(volatile int *p)
{
	*p = 1;
}

int main(int argc, char **argv)
{
	pthread_t tid;
	pthread_attr_t attr;
	char path[4096];
	long i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: wide DIR NLIBS\n");
		return 2;
	}
	n = strtol(argv[2], NULL, 10);
	if (n <= 0 || n > 100000)
		return 2;
	parks = calloc((size_t)n, sizeof(*parks));
	if (!parks)
		return 1;
	for (i = 0; i < n; i++) {
		void *h;

		snprintf(path, sizeof(path), "%s/libbench%ld.so", argv[1], i);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "wide: %s\n", dlerror());
			return 1;
		}
		snprintf(path, sizeof(path), "bench_park_%ld", i);
		parks[i] = (int (*)(void))dlsym(h, path);
		if (!parks[i])
			return 1;
	}
	nparks = (int)n;
	pthread_barrier_init(&ready, NULL, NTHREADS + 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&tid, &attr, worker, (void *)i) != 0)
			return 1;
	pthread_barrier_wait(&ready);
	usleep(200 * 1000);	/* let every thread reach its sleep */
	crash_here(NULL);
	return 0;
}
