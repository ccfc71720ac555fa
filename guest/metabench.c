// SPDX-License-Identifier: GPL-2.0
/*
 * metabench - a tmpfs metadata workload for the benchmark guest.
 *
 * Each round creates FILES empty files in a fresh directory, stats each
 * twice (dcache hits), stats as many names that do not exist (negative
 * dentries), unlinks them all and removes the directory: the dcache
 * hash chains and LRU lists, which list_prefetch() walks, at work.
 * Prints the median time of a round, in seconds, as
 *   metabench: files=N rounds=R median_seconds=S min_seconds=S
 * and exits non-zero if any operation failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One round in dir; returns its duration, or a negative value on error. */
static double round_in(const char *dir, int files)
{
	char path[256];
	struct stat st;
	double t0 = now();
	int i, pass, fd;

	if (mkdir(dir, 0700))
		return perror(dir), -1;
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/file-%d", dir, i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (fd < 0 || close(fd))
			return perror(path), -1;
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < files; i++) {
			snprintf(path, sizeof(path), "%s/file-%d", dir, i);
			if (stat(path, &st))
				return perror(path), -1;
			snprintf(path, sizeof(path), "%s/none-%d", dir, i);
			if (stat(path, &st) == 0 || errno != ENOENT) {
				fprintf(stderr, "metabench: %s exists\n", path);
				return -1;
			}
		}
	}
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/file-%d", dir, i);
		if (unlink(path))
			return perror(path), -1;
	}
	if (rmdir(dir))
		return perror(dir), -1;
	return now() - t0;
}

int main(int argc, char **argv)
{
	const char *base = argc > 3 ? argv[3] : "/tmp";
	int files = argc > 1 ? atoi(argv[1]) : 2000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double *times;
	char dir[200];
	int r;

	if (files < 1 || rounds < 1) {
		fprintf(stderr, "usage: %s [FILES [ROUNDS [DIR]]]\n", argv[0]);
		return 2;
	}
	times = calloc(rounds, sizeof(*times));
	if (!times)
		return 1;
	for (r = 0; r < rounds; r++) {
		snprintf(dir, sizeof(dir), "%s/metabench.%d.%d", base, getpid(), r);
		times[r] = round_in(dir, files);
		if (times[r] < 0)
			return 1;
	}
	qsort(times, rounds, sizeof(*times), cmp_double);
	printf("metabench: files=%d rounds=%d median_seconds=%.6f min_seconds=%.6f\n",
	       files, rounds, times[rounds / 2], times[0]);
	free(times);
	return 0;
}
