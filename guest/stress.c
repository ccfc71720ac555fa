// SPDX-License-Identifier: GPL-2.0
/*
 * stress - a bounded, list-heavy load for the debug guest.
 *
 * Five workers run at once for the given number of seconds, each on the
 * kernel lists it stresses most:
 *   procs    fork/exit/wait: task lists, pid hash, wait queues
 *   threads  pthread create/barrier/join: thread groups, futex hash
 *   unix     AF_UNIX datagram and stream pairs with queued skbs
 *   inet     TCP and UDP over loopback, send queues filled before reading
 *   files    create/stat/rename/unlink on tmpfs: dcache hash and LRU
 * Every operation checks its result (exit codes, counters, the bytes
 * that come back), so a kernel that corrupts a list fails here even when
 * it prints nothing. The kernel's own checkers (KASAN, lockdep,
 * DEBUG_LIST) report on the console; scripts/parse.sh judges both.
 *
 * Prints one line per worker and exits 0 only when every worker did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILDREN	8
#define THREADS		8
#define FILES		128
#define CHUNK		512
#define TCP_BYTES	(256 * 1024)

struct worker {
	const char *name;
	/* Returns operations done in one round, or -1 after printing why. */
	long (*round)(void);
};

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("stress: ", stdout);
	vprintf(fmt, ap);
	if (errno)
		printf(": %s", strerror(errno));
	putchar('\n');
	fflush(stdout);
	va_end(ap);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- procs ------------------------------------------------------------- */

static long procs_round(void)
{
	pid_t pids[CHILDREN];
	int i, status;

	for (i = 0; i < CHILDREN; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return fail("fork"), -1;
		if (pids[i] == 0)
			_exit(i + 1);
	}
	for (i = 0; i < CHILDREN; i++) {
		errno = 0;
		if (waitpid(pids[i], &status, 0) != pids[i])
			return fail("waitpid"), -1;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != i + 1) {
			fail("child %d: status %#x, want exit %d", i, status, i + 1);
			return -1;
		}
	}
	return CHILDREN;
}

/* --- threads ----------------------------------------------------------- */

struct thread_round {
	pthread_barrier_t barrier;
	pthread_mutex_t lock;
	long counter;
};

static void *thread_body(void *arg)
{
	struct thread_round *tr = arg;
	int i;

	pthread_barrier_wait(&tr->barrier);
	for (i = 0; i < 100; i++) {
		pthread_mutex_lock(&tr->lock);
		tr->counter++;
		pthread_mutex_unlock(&tr->lock);
	}
	pthread_barrier_wait(&tr->barrier);
	return NULL;
}

static long threads_round(void)
{
	struct thread_round tr = { .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t threads[THREADS];
	int i, err;

	pthread_barrier_init(&tr.barrier, NULL, THREADS);
	for (i = 0; i < THREADS; i++) {
		err = pthread_create(&threads[i], NULL, thread_body, &tr);
		if (err) {
			errno = err;
			return fail("pthread_create"), -1;
		}
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&tr.barrier);
	if (tr.counter != THREADS * 100) {
		errno = 0;
		fail("threads counted %ld, want %d", tr.counter, THREADS * 100);
		return -1;
	}
	return THREADS;
}

/* --- sockets ----------------------------------------------------------- */

/* Fills chunk with a pattern that says which chunk of the stream it is. */
static void fill_chunk(unsigned char *chunk, unsigned int seq)
{
	unsigned int i;

	for (i = 0; i < CHUNK; i++)
		chunk[i] = (unsigned char)(seq * 31 + i);
}

/*
 * Queue chunks on tx without blocking until the kernel refuses (or max
 * is reached), then read every one back from rx in order.
 */
static long queue_and_drain(int tx, int rx, int max, const char *what)
{
	unsigned char out[CHUNK], in[CHUNK];
	int queued = 0, got = 0;
	size_t have;
	ssize_t n;

	while (queued < max) {
		fill_chunk(out, queued);
		n = send(tx, out, CHUNK, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == ENOBUFS))
			break;
		if (n != CHUNK)
			return fail("%s: send", what), -1;
		queued++;
	}
	if (queued == 0) {
		errno = 0;
		return fail("%s: nothing could be queued", what), -1;
	}
	for (got = 0; got < queued; got++) {
		for (have = 0; have < CHUNK; have += n) {
			n = recv(rx, in + have, CHUNK - have, 0);
			if (n <= 0)
				return fail("%s: recv", what), -1;
		}
		fill_chunk(out, got);
		if (memcmp(in, out, CHUNK)) {
			errno = 0;
			return fail("%s: chunk %d came back changed", what, got), -1;
		}
	}
	return queued;
}

static long unix_round(void)
{
	static const int types[] = { SOCK_DGRAM, SOCK_STREAM };
	long ops = 0, n;
	unsigned int i;
	int sv[2];

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (socketpair(AF_UNIX, types[i], 0, sv))
			return fail("socketpair"), -1;
		n = queue_and_drain(sv[0], sv[1], 64,
				    types[i] == SOCK_DGRAM ? "unix dgram" : "unix stream");
		close(sv[0]);
		close(sv[1]);
		if (n < 0)
			return -1;
		ops += n;
	}
	return ops;
}

static int loopback_up(void)
{
	struct ifreq ifr = { 0 };
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return ret;
}

static struct sockaddr_in loopback_addr(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sin;
}

/* A listening socket on an ephemeral loopback port; *sin gets its address. */
static int bound_socket(int type, struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int fd;

	*sin = loopback_addr();
	fd = socket(AF_INET, type, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)sin, sizeof(*sin)) ||
	    getsockname(fd, (struct sockaddr *)sin, &len) ||
	    (type == SOCK_STREAM && listen(fd, 4))) {
		close(fd);
		return -1;
	}
	return fd;
}

static long inet_round(void)
{
	struct sockaddr_in sin;
	int server, client, conn;
	long ops, n;

	server = bound_socket(SOCK_STREAM, &sin);
	if (server < 0)
		return fail("tcp listen"), -1;
	client = socket(AF_INET, SOCK_STREAM, 0);
	if (client < 0 || connect(client, (struct sockaddr *)&sin, sizeof(sin)))
		return fail("tcp connect"), -1;
	conn = accept(server, NULL, NULL);
	if (conn < 0)
		return fail("tcp accept"), -1;
	ops = queue_and_drain(client, conn, TCP_BYTES / CHUNK, "tcp");
	close(conn);
	close(client);
	close(server);
	if (ops < 0)
		return -1;

	server = bound_socket(SOCK_DGRAM, &sin);
	client = socket(AF_INET, SOCK_DGRAM, 0);
	if (server < 0 || client < 0 ||
	    connect(client, (struct sockaddr *)&sin, sizeof(sin)))
		return fail("udp"), -1;
	n = queue_and_drain(client, server, 64, "udp");
	close(client);
	close(server);
	return n < 0 ? -1 : ops + n;
}

/* --- files ------------------------------------------------------------- */

static long files_round(void)
{
	char dir[64], path[128], renamed[128];
	struct stat st;
	int i, fd;

	snprintf(dir, sizeof(dir), "/tmp/stress.%d", getpid());
	if (mkdir(dir, 0700) && errno != EEXIST)
		return fail("mkdir %s", dir), -1;
	for (i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
		if (fd < 0 || write(fd, path, i % 64) != i % 64 || close(fd))
			return fail("create %s", path), -1;
	}
	for (i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		if (stat(path, &st))
			return fail("stat %s", path), -1;
		if (st.st_size != i % 64) {
			errno = 0;
			fail("%s: size %lld, want %d", path, (long long)st.st_size, i % 64);
			return -1;
		}
		if (i % 2) {
			snprintf(renamed, sizeof(renamed), "%s/r%d", dir, i);
			if (rename(path, renamed))
				return fail("rename %s", path), -1;
		}
	}
	for (i = 0; i < FILES; i++) {
		snprintf(path, sizeof(path), "%s/%c%d", dir, i % 2 ? 'r' : 'f', i);
		if (unlink(path))
			return fail("unlink %s", path), -1;
		/* A negative dentry now: looking it up again must fail. */
		if (stat(path, &st) == 0 || errno != ENOENT)
			return fail("%s still there after unlink", path), -1;
	}
	if (rmdir(dir))
		return fail("rmdir %s", dir), -1;
	return 4L * FILES;
}

/* --- runner ------------------------------------------------------------ */

static int run_worker(const struct worker *w, double seconds)
{
	double t0 = now();
	long rounds = 0, ops = 0, n;

	do {
		n = w->round();
		if (n < 0) {
			printf("stress: %s: FAILED after %ld rounds\n", w->name, rounds);
			return 1;
		}
		ops += n;
		rounds++;
	} while (now() - t0 < seconds);
	printf("stress: %s: %ld rounds, %ld operations in %.1fs, ok\n",
	       w->name, rounds, ops, now() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct worker workers[] = {
		{ "procs", procs_round },
		{ "threads", threads_round },
		{ "unix", unix_round },
		{ "inet", inet_round },
		{ "files", files_round },
	};
	const unsigned int nr = sizeof(workers) / sizeof(workers[0]);
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	pid_t pids[sizeof(workers) / sizeof(workers[0])];
	unsigned int i, failed = 0;
	int status;

	if (seconds <= 0) {
		fprintf(stderr, "usage: %s [SECONDS]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (loopback_up())
		fail("cannot bring lo up");
	printf("stress: %u workers for %.0fs\n", nr, seconds);
	for (i = 0; i < nr; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("stress: fork");
			return 1;
		}
		if (pids[i] == 0)
			_exit(run_worker(&workers[i], seconds));
	}
	for (i = 0; i < nr; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("stress: %s: worker ended with status %#x\n",
			       workers[i].name, status);
			failed++;
		}
	}
	printf("stress: %u of %u workers failed\n", failed, nr);
	return failed ? 1 : 0;
}
